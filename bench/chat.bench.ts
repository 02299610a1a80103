/**
 * Chat: what answering costs Parley itself, at 10,000 passages an agent, against the
 * bare authenticated GET /workspace round trip measured in the same run.
 * - the service's own time per answer with a provider model: POST /chat's round trip
 *   minus the time the model endpoint (a local OpenAI-compatible server answering at
 *   once) spent on the answer's calls (the answer and the grounding check; with
 *   embeddings also the question's vector);
 * - the offline model's whole answer (POST /chat's round trip, nothing subtracted);
 * - the stream's first byte: the first text-delta at the client after the model server
 *   wrote its first token (the server holds its first token back for a known time).
 * The service runs in-process (on the embedded store and, with BENCH_DATABASE_URL /
 * TEST_DATABASE_URL, on PostgreSQL + Redis); the model server and the client each run in
 * a worker thread of their own, so that neither waits for the service's event loop (the
 * embedded database works on it) and their clocks are read when things happen. The
 * agent's material is the workshop corpus of src/modules/chat/quality-corpus.ts among
 * generated passages that use its words.
 */
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../test/support/harness.ts';
import { newId } from '../src/platform/ids.ts';
import { addPassages } from '../src/modules/knowledge/indexing.ts';
import { embedTexts, embeddingsEnabled, vectorTable } from '../src/modules/knowledge/embeddings.ts';
import { WORKSHOP_CORPUS, WORKSHOP_QUESTIONS } from '../src/modules/chat/quality-corpus.ts';
import { CORPUS_WORDS, MADE_UP, seeded } from './filler.ts';
import { seedTexts, startModelServer } from '../src/modules/chat/test-support.ts';
import { answeringModel } from '../src/modules/chat/models.ts';
import { streamText } from 'ai';
import { eventLoopCpuMicros, printTable, ratio } from './support.ts';

const PASSAGES = Number(process.env.BENCH_CHAT_PASSAGES ?? 10_000);
const ANSWERS = Number(process.env.BENCH_CHAT_ANSWERS ?? 200);
const STREAMS = Number(process.env.BENCH_CHAT_STREAMS ?? 100);
const WARM_UP = 10;
/** Comma lists to run one case while working on it, e.g. BENCH_CHAT_STORES=postgres BENCH_CHAT_RETRIEVAL=lexical. */
const STORES = (process.env.BENCH_CHAT_STORES ?? 'embedded,postgres').split(',');
const RETRIEVALS = (process.env.BENCH_CHAT_RETRIEVAL ?? 'lexical,hybrid').split(',') as Array<'lexical' | 'hybrid'>;
/** How long the model server holds back its first token in the stream runs. */
const FIRST_TOKEN_DELAY_MS = 20;
const PASSAGE_WORDS = 50;
const LOAD_SOURCES = 10;
const DIMS = 64;

type Row = Record<string, string | number>;

function progress(message: string): void {
  if (process.env.BENCH_VERBOSE) console.error(`  [chat] ${message}`);
}

/** Milliseconds on a clock that all threads share. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

// ---------- the threads: the model server and the client ----------

/** One request the model server handled: from its arrival to its reply's end (for a stream, firstWrite is its first token). */
interface Handled {
  start: number;
  firstWrite: number;
  end: number;
  streamed: boolean;
}

/**
 * The model server of startModelServer with every request timed. startModelServer keeps
 * its http.Server to itself, so the server made while it starts gets a first 'request'
 * listener that notes the arrival, the first write of the reply and the call that ends it.
 */
async function modelThread(port: NonNullable<typeof parentPort>): Promise<void> {
  const handled: Handled[] = [];
  let open = 0;
  const original = http.createServer;
  (http as { createServer: unknown }).createServer = (...args: unknown[]) => {
    const server = (original as (...a: unknown[]) => http.Server)(...args);
    server.prependListener('request', (_request, response: http.ServerResponse) => {
      const entry: Handled = { start: now(), firstWrite: 0, end: 0, streamed: false };
      open++;
      const [writeHead, write, end] = [response.writeHead.bind(response), response.write.bind(response), response.end.bind(response)] as Array<(...a: unknown[]) => unknown>;
      response.writeHead = ((...a: unknown[]) => {
        entry.streamed = a.some((arg) => typeof arg === 'object' && arg !== null && String((arg as Record<string, unknown>)['content-type']).startsWith('text/event-stream'));
        return writeHead(...a);
      }) as typeof response.writeHead;
      response.write = ((...a: unknown[]) => {
        entry.firstWrite ||= now();
        return write(...a);
      }) as typeof response.write;
      response.end = ((...a: unknown[]) => {
        entry.end = now();
        entry.firstWrite ||= entry.end;
        open--;
        handled.push(entry);
        return end(...a);
      }) as typeof response.end;
    });
    return server;
  };
  const server = await startModelServer(DIMS);
  (http as { createServer: unknown }).createServer = original;
  port.on('message', async (message: { id: number; op: 'handled' | 'delay' | 'close'; since?: number; delayMs?: number }) => {
    if (message.op === 'delay') server.firstTokenDelayMs = message.delayMs!;
    if (message.op === 'close') await server.close();
    port.postMessage({ id: message.id, handled: handled.slice(message.since ?? handled.length), count: handled.length, open });
  });
  port.postMessage({ url: server.url });
}

interface Timed {
  status: number;
  start: number;
  end: number;
  /** For a stream: when the first text-delta arrived. */
  firstDelta: number;
  body: string;
}

/** The client: one request at a time, timed on arrival of each part. */
function clientThread(port: NonNullable<typeof parentPort>): void {
  port.on('message', async (message: { id: number; url: string; init: RequestInit; stream: boolean }) => {
    const start = now();
    const response = await fetch(message.url, message.init);
    let firstDelta = 0;
    let body = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      body += decoder.decode(chunk, { stream: true });
      if (message.stream && !firstDelta && body.includes('"type":"text-delta"')) firstDelta = now();
    }
    const timed: Timed = { status: response.status, start, end: now(), firstDelta, body: message.stream ? '' : body };
    port.postMessage({ id: message.id, ...timed });
  });
}

if (!isMainThread && workerData?.chatBenchThread === 'model') await modelThread(parentPort!);
if (!isMainThread && workerData?.chatBenchThread === 'client') clientThread(parentPort!);

/** A thread of this file, asked one thing at a time. */
class Thread {
  private worker: Worker;
  private next = 0;
  private waiting = new Map<number, (reply: any) => void>();
  readonly ready: Promise<any>;

  constructor(role: 'model' | 'client') {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { chatBenchThread: role } });
    let first: (reply: any) => void;
    this.ready = new Promise((resolve) => (first = resolve));
    this.worker.on('message', (reply: { id?: number }) => {
      if (reply.id === undefined) return first(reply);
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
    if (role === 'client') first!(undefined);
  }

  ask<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ id, ...message });
    });
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }
}

interface ModelReport {
  handled: Handled[];
  count: number;
  open: number;
}

// ---------- the agent's material ----------

/**
 * A generated passage: half its words drawn from the workshop corpus (as often as they
 * occur there, so a question's words have long posting lists), half made up.
 */
function fillerText(n: number): string {
  const random = seeded(n + 7_000_001);
  const word = () => (random() < 0.5 ? CORPUS_WORDS[Math.floor(random() * CORPUS_WORDS.length)] : MADE_UP[Math.floor(random() * MADE_UP.length)]);
  const sentences: string[] = [];
  for (let left = PASSAGE_WORDS; left > 0; left -= 12) {
    const list = Array.from({ length: Math.min(12, left) }, word);
    sentences.push(`${list[0][0].toUpperCase()}${list[0].slice(1)} ${list.slice(1).join(' ')}.`);
  }
  return sentences.join(' ');
}

/** The workshop corpus through the ordinary indexing path, then generated passages in bulk up to `PASSAGES`. */
async function loadMaterial(service: Service, ws: SeededWorkspace, agentId: string): Promise<void> {
  const ctx = service.ctx;
  await seedTexts(service, ws.keys.manage, agentId, WORKSHOP_CORPUS.map((p) => ({ title: p.title, content: p.text })));
  const withVectors = embeddingsEnabled(ctx);
  const table = withVectors ? await vectorTable(ctx) : undefined;
  // As for any bulk load: the HNSW index is built once after it.
  if (table) await sql`drop index if exists ${sql.raw(`${table}_hnsw`)}`.execute(ctx.db);
  const count = PASSAGES - WORKSHOP_CORPUS.length;
  const perSource = Math.ceil(count / LOAD_SOURCES);
  for (let loaded = 0; loaded < count; loaded += perSource) {
    const size = Math.min(perSource, count - loaded);
    const sourceId = newId('src');
    await ctx.db
      .insertInto('sources')
      .values({ id: sourceId, workspace_id: ws.id, agent_id: agentId, type: 'text', name: `Bulk ${loaded}`, url: null, title: null, status: 'ready', error: null, turned_away: null, size_bytes: 0, chunk_count: size, content: '', crawl_id: null, generation: 0, job_id: null, queued_at: null, created_at: ctx.clock.now(), processed_at: ctx.clock.now() })
      .execute();
    const texts = Array.from({ length: size }, (_, i) => fillerText(loaded + i));
    const vectors = withVectors ? await embedTexts(ctx, texts) : undefined;
    await addPassages(ctx, { agentId, sourceId, title: 'Bulk', url: null, config: 'english' }, texts.map((text, i) => ({ position: i, text, vector: vectors?.[i] })));
    progress(`${loaded + size} passages loaded`);
  }
  if (table) {
    await ctx.db.transaction().execute(async (trx) => {
      await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
      await sql`create index if not exists ${sql.raw(`${table}_hnsw`)} on ${sql.table(table)} using hnsw (embedding vector_cosine_ops)`.execute(trx);
    });
  }
  if (ctx.database.kind === 'postgres') await sql`vacuum analyze`.execute(ctx.db);
}

// ---------- measuring ----------

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Asker {
  client: Thread;
  url: string;
  key: string;
  agentId: string;
}

function postChat(asker: Asker, body: Record<string, unknown>): Promise<Timed> {
  return asker.client.ask<Timed>({
    url: `${asker.url}/api/v1/agents/${asker.agentId}/chat`,
    init: { method: 'POST', headers: { authorization: `Bearer ${asker.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) },
    stream: body.stream === true,
  });
}

const question = (i: number) => WORKSHOP_QUESTIONS[i % WORKSHOP_QUESTIONS.length].question;

/**
 * CPU time of this thread (the service's event loop: with the embedded store also the
 * database's work; on PostgreSQL not the server's) a request, over a whole run. Unlike
 * the round trips, it hardly moves with what else the machine runs.
 */
async function cpuPerRequest<T>(count: number, work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const before = eventLoopCpuMicros(process.pid) ?? Number.NaN;
  const value = await work();
  const after = eventLoopCpuMicros(process.pid) ?? Number.NaN;
  return { value, cpuMs: (after - before) / 1000 / count };
}

/** Round trips of GET /workspace (a read key of the same workspace): the baseline. */
async function workspaceRoundTrips(asker: Asker, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + count; i++) {
    const timed = await asker.client.ask<Timed>({ url: `${asker.url}/api/v1/workspace`, init: { headers: { authorization: `Bearer ${asker.key}` } }, stream: false });
    if (timed.status !== 200) throw new Error(`GET /workspace: ${timed.status}`);
    if (i >= WARM_UP) times.push(timed.end - timed.start);
  }
  return times.sort((a, b) => a - b);
}

/** The model server's requests since `since`, once it has none open. */
async function modelRequests(model: Thread, since: number, atLeast = 0): Promise<ModelReport> {
  const until = Date.now() + 5_000;
  for (;;) {
    const report = await model.ask<ModelReport>({ op: 'handled', since });
    if ((report.open === 0 && report.handled.length >= atLeast) || Date.now() > until) return report;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** JSON answers: each round trip, and the model endpoint's time on the requests it handled meanwhile. */
async function jsonAnswers(asker: Asker, count: number, model?: Thread): Promise<{ total: number[]; own: number[]; calls: number }> {
  const total: number[] = [];
  const own: number[] = [];
  let calls = 0;
  let since = model ? (await modelRequests(model, 0)).count : 0;
  for (let i = 0; i < WARM_UP + count; i++) {
    const timed = await postChat(asker, { message: question(i) });
    if (timed.status !== 200 || !JSON.parse(timed.body).data?.answer) throw new Error(`POST /chat: ${timed.status} ${timed.body}`);
    const report = model ? await modelRequests(model, since) : undefined;
    since = report?.count ?? 0;
    if (i < WARM_UP) continue;
    const endpoint = (report?.handled ?? []).reduce((sum, h) => sum + (h.end - h.start), 0);
    calls += report?.handled.length ?? 0;
    total.push(timed.end - timed.start);
    own.push(timed.end - timed.start - endpoint);
  }
  return { total: total.sort((a, b) => a - b), own: own.sort((a, b) => a - b), calls: calls / count };
}

/**
 * Streamed answers: the first text-delta read by the client, and written by the service
 * (its response's first write holding one), after the model server's first token.
 */
async function streamFirstBytes(asker: Asker, count: number, model: Thread): Promise<{ read: number[]; written: number[] }> {
  const gaps: number[] = [];
  const writes: number[] = [];
  let written = 0;
  const write = http.ServerResponse.prototype.write;
  http.ServerResponse.prototype.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (!written && chunk instanceof Uint8Array && Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).includes('"type":"text-delta"')) written = now();
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  await model.ask({ op: 'delay', delayMs: FIRST_TOKEN_DELAY_MS });
  try {
    let since = (await modelRequests(model, 0)).count;
    for (let i = 0; i < WARM_UP + count; i++) {
      written = 0;
      const timed = await postChat(asker, { message: question(i), stream: true });
      if (timed.status !== 200 || !timed.firstDelta) throw new Error(`POST /chat stream: ${timed.status}, no text`);
      // The grounding check follows the stream: wait for it, so that it does not overlap the next answer.
      const report = await modelRequests(model, since, 2);
      since = report.count;
      if (i < WARM_UP) continue;
      const stream = report.handled.find((h) => h.streamed);
      if (!stream) throw new Error('the model server saw no streamed request');
      gaps.push(timed.firstDelta - stream.firstWrite);
      writes.push(written - stream.firstWrite);
    }
  } finally {
    http.ServerResponse.prototype.write = write;
    await model.ask({ op: 'delay', delayMs: 0 });
  }
  return { read: gaps.sort((a, b) => a - b), written: writes.sort((a, b) => a - b) };
}

/**
 * The floor under the stream's first byte: the AI SDK alone (streamText over the same
 * provider, in the service's thread) giving its first text delta after the model's first token.
 */
async function sdkFirstDeltas(service: Service, count: number, model: Thread): Promise<number[]> {
  const gaps: number[] = [];
  const { model: languageModel } = await answeringModel(service.ctx, 'gpt-4o-mini');
  await model.ask({ op: 'delay', delayMs: FIRST_TOKEN_DELAY_MS });
  try {
    let since = (await modelRequests(model, 0)).count;
    for (let i = 0; i < WARM_UP + count; i++) {
      const result = streamText({ model: languageModel, prompt: question(i), onError: () => {} });
      let firstDelta = 0;
      for await (const delta of result.textStream) if (!firstDelta && delta) firstDelta = now();
      const report = await modelRequests(model, since, 1);
      since = report.count;
      const stream = report.handled.find((h) => h.streamed);
      if (i >= WARM_UP && stream && firstDelta) gaps.push(firstDelta - stream.firstWrite);
    }
  } finally {
    await model.ask({ op: 'delay', delayMs: 0 });
  }
  return gaps.sort((a, b) => a - b);
}

// ---------- run ----------

async function newAgent(service: Service, ws: SeededWorkspace, name: string, model: string): Promise<string> {
  const created = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'general' } });
  if (created.status !== 201) throw new Error(`POST /agents: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const patched = await service.api('PATCH', `/agents/${id}`, { key: ws.keys.manage, body: { model } });
  if (patched.status !== 200) throw new Error(`PATCH /agents: ${patched.status} ${JSON.stringify(patched.body)}`);
  return id;
}

const ms = (value: number) => value.toFixed(2);

async function onStore(store: 'embedded' | 'postgres', tables: Record<string, Row[]>): Promise<void> {
  const previous = process.env.PARLEY_TEST_STORE;
  process.env.PARLEY_TEST_STORE = store;
  const started = performance.now();
  const model = new Thread('model');
  const client = new Thread('client');
  const modelUrl = ((await model.ready) as { url: string }).url;
  try {
    for (const retrieval of RETRIEVALS) {
      const env: Record<string, string> = { OPENAI_BASE_URL: modelUrl, OPENAI_API_KEY: 'bench', PARLEY_RATE_LIMIT_PER_MINUTE: '100000000' };
      if (retrieval === 'hybrid') Object.assign(env, { PARLEY_EMBEDDING_MODEL: 'fake', PARLEY_EMBEDDING_DIMENSIONS: String(DIMS) });
      const service = await startService({ env, checkResponses: false });
      try {
        const ws = await service.seedWorkspace({ plan: 'enterprise' });
        const provider: Asker = { client, url: service.url, key: ws.keys.chat, agentId: await newAgent(service, ws, 'Provider bench', 'gpt-4o-mini') };
        progress(`${store}, ${retrieval}: loading`);
        await loadMaterial(service, ws, provider.agentId);
        progress(`${store}, ${retrieval}: measuring`);
        const { value: baseline, cpuMs: baseCpu } = await cpuPerRequest(WARM_UP + ANSWERS, () => workspaceRoundTrips({ ...provider, key: ws.keys.read }, ANSWERS));
        const base = percentile(baseline, 50);
        tables.baseline.push({ store, retrieval, 'p50 ms': ms(base), 'p99 ms': ms(percentile(baseline, 99)), 'CPU ms a request': ms(baseCpu) });
        const { value: answers, cpuMs } = await cpuPerRequest(WARM_UP + ANSWERS, () => jsonAnswers(provider, ANSWERS, model));
        tables.service.push({
          store,
          retrieval,
          answers: ANSWERS,
          'model calls an answer': answers.calls.toFixed(1),
          'round trip p50 ms': ms(percentile(answers.total, 50)),
          'own p50 ms': ms(percentile(answers.own, 50)),
          'own p99 ms': ms(percentile(answers.own, 99)),
          'own p50 / GET /workspace p50': ratio(percentile(answers.own, 50), base),
          'CPU ms an answer': ms(cpuMs),
          'CPU / GET /workspace CPU': ratio(cpuMs, baseCpu),
        });
        const gaps = await streamFirstBytes(provider, STREAMS, model);
        const floor = await sdkFirstDeltas(service, STREAMS, model);
        tables.stream.push({
          store,
          retrieval,
          streams: STREAMS,
          'read p50 ms': ms(percentile(gaps.read, 50)),
          'read p99 ms': ms(percentile(gaps.read, 99)),
          'written p50 ms': ms(percentile(gaps.written, 50)),
          'written p99 ms': ms(percentile(gaps.written, 99)),
          'AI SDK alone p50 ms': ms(percentile(floor, 50)),
          'AI SDK alone p99 ms': ms(percentile(floor, 99)),
          'read p50 / GET /workspace p50': ratio(percentile(gaps.read, 50), base),
        });
        if (retrieval === 'lexical') {
          // The offline model answers with the lexical index: what a service without a provider runs.
          const offline: Asker = { ...provider, agentId: await newAgent(service, ws, 'Offline bench', 'parley-offline') };
          progress(`${store}, offline: loading`);
          await loadMaterial(service, ws, offline.agentId);
          const { value: whole, cpuMs: offlineCpu } = await cpuPerRequest(WARM_UP + ANSWERS, () => jsonAnswers(offline, ANSWERS));
          tables.offline.push({
            store,
            answers: ANSWERS,
            'p50 ms': ms(percentile(whole.total, 50)),
            'p99 ms': ms(percentile(whole.total, 99)),
            'p50 / GET /workspace p50': ratio(percentile(whole.total, 50), base),
            'CPU ms an answer': ms(offlineCpu),
            'CPU / GET /workspace CPU': ratio(offlineCpu, baseCpu),
          });
        }
      } finally {
        await service.close();
      }
    }
  } finally {
    await model.ask({ op: 'close' });
    await Promise.all([model.stop(), client.stop()]);
    if (previous === undefined) delete process.env.PARLEY_TEST_STORE;
    else process.env.PARLEY_TEST_STORE = previous;
    tables.runtime.push({ store, seconds: ((performance.now() - started) / 1000).toFixed(0) });
  }
}

export async function run(): Promise<void> {
  const tables: Record<string, Row[]> = { baseline: [], service: [], offline: [], stream: [], runtime: [] };
  if (STORES.includes('embedded')) await onStore('embedded', tables);
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (STORES.includes('postgres') && databaseUrl) {
    process.env.TEST_DATABASE_URL = databaseUrl;
    process.env.TEST_REDIS_URL ??= process.env.BENCH_REDIS_URL;
    await onStore('postgres', tables);
  } else if (STORES.includes('postgres')) {
    console.log('PostgreSQL figures skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL).');
  }
  printTable("Baseline: authenticated GET /workspace round trip, same client; CPU of the service's thread a request", tables.baseline);
  printTable(
    `Service's own time per answer, provider model (gpt-4o-mini from a local server answering at once): POST /chat round trip minus the model endpoint's time, and the CPU of the service's thread (embedded: with the database's work; PostgreSQL: without the server's); ${PASSAGES} passages; target < 10 ms p50, < 30 ms p99`,
    tables.service,
  );
  printTable(`Offline model, whole answer (POST /chat round trip, lexical index); ${PASSAGES} passages`, tables.offline);
  printTable(
    `Stream: first text-delta read by the client and written by the service after the model server's first token (held back ${FIRST_TOKEN_DELAY_MS} ms), and the AI SDK's own streamText first delta in the service's thread; target < 5 ms`,
    tables.stream,
  );
  printTable('Bench runtime', tables.runtime);
}
