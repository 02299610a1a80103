/** Helpers shared by the chat tests and the chat bench (not loaded by the service). */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { Service } from '../../../test/support/harness.ts';
import { fakeEmbedding, startServer, waitForSource } from '../knowledge/test-support.ts';

/** Text sources, each read and ready before this returns; their ids in order. */
export async function seedTexts(service: Service, key: string, agentId: string, texts: Array<{ title: string; content: string }>): Promise<string[]> {
  const ids: string[] = [];
  for (const text of texts) {
    const reply = await service.api('POST', `/agents/${agentId}/sources`, { key, body: { type: 'text', ...text } });
    if (reply.status !== 201 && reply.status !== 200) throw new Error(`POST source: ${reply.status} ${JSON.stringify(reply.body)}`);
    ids.push(reply.body.data.id);
  }
  for (const id of ids) {
    const source = await waitForSource(service, key, agentId, id);
    if (source.status !== 'ready') throw new Error(`source ${id} is ${source.status}: ${source.error}`);
  }
  return ids;
}

/** POST /agents/{id}/chat with stream true; the raw response, for readStream or a reader that leaves early. */
export function streamChat(service: Service, key: string, agentId: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${service.url}/api/v1/agents/${agentId}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
  });
}

/** Reads a UI message stream reply with the AI SDK's own client code (the transport's parser, then readUIMessageStream). */
export async function readStream(response: Response): Promise<UIMessage> {
  const transport = new DefaultChatTransport({ api: 'http://unused' }) as unknown as { processResponseStream(s: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> };
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream: transport.processResponseStream(response.body!) })) last = message;
  return last!;
}

/** The text parts of a UI message, joined. */
export function textOf(message: UIMessage): string {
  return message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
  temperature?: number;
}

export interface ModelServer {
  /** The base URL to give as OPENAI_BASE_URL (…/v1). */
  url: string;
  /** Every chat completion request, in order. */
  requests: ChatRequest[];
  /** What the model answers; by default the first passage line of the system prompt, or "I don't know." */
  reply: (request: ChatRequest) => string;
  /** Grounding verdicts asked for (the second call) are answered with this word. */
  verdict: string;
  /** Milliseconds before the first token (for the bench and stream tests). */
  firstTokenDelayMs: number;
  /** Milliseconds between the streamed words (a slow reply, for clients that go away mid-stream). */
  tokenDelayMs: number;
  /** On: every chat request is answered 500. */
  failing: boolean;
  close(): Promise<void>;
}

/** The grounding check's call, told apart from an answer by its instructions. */
export function isGroundingCheck(request: ChatRequest): boolean {
  return request.messages[0]?.content.startsWith('You check whether') ?? false;
}

/**
 * A local OpenAI-compatible server: /v1/chat/completions (JSON, or server-sent events
 * with stream true) and /v1/embeddings (fakeEmbedding vectors of the given size).
 */
export async function startModelServer(dims = 384): Promise<ModelServer> {
  const state: ModelServer = {
    url: '',
    requests: [],
    reply: (request) => defaultReply(request),
    verdict: 'supported',
    firstTokenDelayMs: 0,
    tokenDelayMs: 0,
    failing: false,
    close: async () => {},
  };
  const server = await startServer({
    '/v1/chat/completions': (request, response) => {
      readJson(request, (body: ChatRequest) => {
        state.requests.push(body);
        if (state.failing) {
          response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'down' } }));
          return;
        }
        const text = isGroundingCheck(body) ? state.verdict : state.reply(body);
        setTimeout(() => (body.stream ? void streamCompletion(response, body, text, state.tokenDelayMs) : jsonCompletion(response, body, text)), state.firstTokenDelayMs);
      });
    },
    '/v1/embeddings': (request, response) => {
      readJson(request, (body: { input: string | string[] }) => {
        const values = Array.isArray(body.input) ? body.input : [body.input];
        const data = values.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, dims) }));
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: 'fake', data, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      });
    },
  });
  state.url = `${server.url}/v1`;
  state.close = server.close;
  return state;
}

function readJson<T>(request: import('node:http').IncomingMessage, then: (body: T) => void): void {
  let raw = '';
  request.on('data', (chunk) => (raw += chunk));
  request.on('end', () => then(JSON.parse(raw) as T));
}

/** What the model server answers by default: the first sentence of the first passage in the system prompt. */
export function defaultReply(request: ChatRequest): string {
  const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
  const passage = system.split('Passages:\n')[1]?.split('\n')[1];
  return passage ? passage.split(/(?<=\.)\s/)[0] : "I don't know.";
}

function jsonCompletion(response: import('node:http').ServerResponse, request: ChatRequest, text: string): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    }),
  );
}

async function streamCompletion(response: import('node:http').ServerResponse, request: ChatRequest, text: string, tokenDelayMs: number): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  response.write(chunk({ role: 'assistant', content: '' }, null));
  for (const word of text.match(/\S+\s*/g) ?? []) {
    if (tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, tokenDelayMs));
    response.write(chunk({ content: word }, null));
  }
  response.write(chunk({}, 'stop'));
  response.end('data: [DONE]\n\n');
}
