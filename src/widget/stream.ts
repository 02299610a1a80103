/** Reads the AI SDK's UI message stream (server-sent events, docs/chat.md) part by part. */
export interface StreamPart {
  type: string;
  delta?: string;
  messageId?: string;
  messageMetadata?: Record<string, unknown>;
  errorText?: string;
}

export async function* readParts(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamPart> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        yield JSON.parse(data) as StreamPart;
      }
    }
  }
}
