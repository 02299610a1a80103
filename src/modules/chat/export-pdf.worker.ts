/**
 * The PDF export drawn in a worker thread (started by export.ts). It asks for the
 * conversations a batch at a time ("next"; null: there are no more) and sends the PDF
 * back in chunks as pages are finished.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { renderConversationsPdf, type ExportCover, type ExportedConversation } from './export-pdf.ts';

export type ToRenderer = { conversations: ExportedConversation[] | null };
export type FromRenderer = { type: 'next' } | { type: 'chunk'; bytes: Uint8Array } | { type: 'end' } | { type: 'error'; message: string };

const port = parentPort!;
const send = (message: FromRenderer, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const waiting: Array<(conversations: ExportedConversation[] | null) => void> = [];
port.on('message', (message: ToRenderer) => waiting.shift()?.(message.conversations));

async function* batches(): AsyncGenerator<ExportedConversation[]> {
  for (;;) {
    const next = new Promise<ExportedConversation[] | null>((resolve) => waiting.push(resolve));
    send({ type: 'next' });
    const conversations = await next;
    if (!conversations) return;
    yield conversations;
  }
}

const doc = renderConversationsPdf((workerData as { cover: ExportCover }).cover, batches());
doc.on('data', (chunk: Buffer) => {
  // A copy of its own: pdfkit's small chunks share one pooled buffer, which must not be moved.
  const bytes = new Uint8Array(chunk);
  send({ type: 'chunk', bytes }, [bytes.buffer]);
});
doc.on('end', () => send({ type: 'end' }));
doc.on('error', (error: Error) => send({ type: 'error', message: error.message }));
