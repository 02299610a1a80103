/**
 * Runs in a worker thread with its own memory limit (see read-file.ts): turns a stored
 * file's bytes into text. Posts { ok: true, value: text } or { ok: false, reason, message }.
 */
import { parentPort, workerData } from 'node:worker_threads';

interface Input {
  kind: 'pdf' | 'docx' | 'markdown' | 'text';
  bytes: Uint8Array;
}

async function read({ kind, bytes }: Input): Promise<string> {
  if (kind === 'pdf') {
    const { getDocumentProxy, extractText } = await import('unpdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { text } = await extractText(pdf, { mergePages: false });
    return (text as string[]).map((page) => page.trim()).filter(Boolean).join('\n\n');
  }
  if (kind === 'docx') {
    const mammoth = (await import('mammoth')).default;
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
    return value;
  }
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

try {
  const text = await read(workerData as Input);
  parentPort!.postMessage({ ok: true, value: text });
} catch (error) {
  parentPort!.postMessage({ ok: false, reason: 'unreadable', message: error instanceof Error ? error.message : String(error) });
}
