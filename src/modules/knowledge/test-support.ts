/** Helpers shared by the knowledge tests (not loaded by the service). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../../../test/support/harness.ts';

export async function waitForSource(service: Service, key: string, agentId: string, sourceId: string, timeoutMs = 60_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const reply = await service.api('GET', `/agents/${agentId}/sources/${sourceId}`, { key });
    if (reply.status !== 200) throw new Error(`GET source: ${reply.status} ${JSON.stringify(reply.body)}`);
    if (reply.body.data.status !== 'pending') return reply.body.data;
    if (Date.now() > until) throw new Error(`source ${sourceId} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type Route = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A local HTTP server with routes by path; counts the requests per path. */
export async function startServer(routes: Record<string, Route>): Promise<{ url: string; hits: Map<string, number>; routes: Record<string, Route>; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    route(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    routes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function serve(body: Uint8Array | string, contentType = 'application/octet-stream'): Route {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  };
}

export async function makePdf(pages: string[]): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ autoFirstPage: false });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  for (const page of pages) {
    doc.addPage();
    if (page) doc.fontSize(12).text(page);
    else doc.rect(100, 100, 200, 200).stroke();
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/** A one-page PDF: a title set larger with space below it, then lines of text at the usual spacing. */
export async function makeTitledPdf(title: string, lines: string[]): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'A4', margin: 56 });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.fontSize(16).text(title).moveDown();
  doc.fontSize(11);
  for (const line of lines) doc.text(line);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

export async function makeDocx(paragraphs: string[]): Promise<Buffer> {
  const { Document, Packer, Paragraph, TextRun } = await import('docx');
  const doc = new Document({ sections: [{ children: paragraphs.map((text) => new Paragraph({ children: [new TextRun(text)] })) }] });
  return Packer.toBuffer(doc);
}

const STOP_WORDS = new Set('a an and are at be by can do does for from how i in is it my of on or the to what when where which with you your we our'.split(' '));

/** A deterministic stand-in for an embedding model: hashed bag of words (stop words dropped, crude suffix stripping), normalised. Not semantic. */
export function fakeEmbedding(text: string, dims: number): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOP_WORDS.has(raw)) continue;
    const word = raw.length > 4 ? raw.replace(/(ing|ed|es|s)$/, '') : raw;
    let hash = 2166136261;
    for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    vector[Math.abs(hash) % dims] += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

export interface EmbeddingServer {
  url: string;
  calls(): number;
  /** On: every request is answered 500. */
  setFailing(on: boolean): void;
  /** Requests whose texts match are left unanswered (a worker caught in the middle of indexing) until release(). */
  holdWhen(match: ((texts: string[]) => boolean) | null): void;
  /** The texts of each request held now (its caller still connected). */
  held(): string[][];
  /** Stops holding and answers the held requests still waiting. */
  release(): void;
  close(): Promise<void>;
}

/** An OpenAI-compatible /v1/embeddings endpoint giving fakeEmbedding vectors. */
export async function startEmbeddingServer(dims: number): Promise<EmbeddingServer> {
  let calls = 0;
  let failing = false;
  let holding: ((texts: string[]) => boolean) | null = null;
  const waiting: Array<{ texts: string[]; connected(): boolean; answer(): void }> = [];
  const server = await startServer({
    '/v1/embeddings': (request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        calls++;
        if (failing) {
          response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'down' } }));
          return;
        }
        const input = JSON.parse(body).input as string[] | string;
        const values = Array.isArray(input) ? input : [input];
        const answer = () => {
          if (response.destroyed) return;
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              object: 'list',
              model: 'fake',
              data: values.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, dims) })),
              usage: { prompt_tokens: 1, total_tokens: 1 },
            }),
          );
        };
        if (holding?.(values)) waiting.push({ texts: values, connected: () => !response.destroyed, answer });
        else answer();
      });
    },
  });
  return {
    url: `${server.url}/v1`,
    calls: () => calls,
    setFailing: (on) => void (failing = on),
    holdWhen: (match) => void (holding = match),
    held: () => waiting.filter((request) => request.connected()).map((request) => request.texts),
    release: () => {
      holding = null;
      for (const request of waiting.splice(0)) request.answer();
    },
    close: server.close,
  };
}
