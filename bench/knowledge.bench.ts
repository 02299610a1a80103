/**
 * Knowledge: indexing throughput, PDF reading, crawling, search latency at scale and
 * retrieval quality, each against a baseline measured in the same run (plain INSERTs,
 * poppler's pdftotext, plain fetch, a primary-key lookup). Runs the real code in-process
 * on the embedded store and, with BENCH_DATABASE_URL / TEST_DATABASE_URL, on PostgreSQL
 * (a scratch database made from the test template and dropped afterwards). Vectors come
 * from a local OpenAI-compatible embeddings server the bench starts.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../test/support/harness.ts';
import { seedAgent } from '../test/support/seed-agent.ts';
import { newId } from '../src/platform/ids.ts';
import type { Context } from '../src/context.ts';
import { ingestWebsitePage } from '../src/modules/knowledge/ingest.ts';
import { searchPassages } from '../src/modules/knowledge/search.ts';
import { embedTexts, vectorTable } from '../src/modules/knowledge/embeddings.ts';
import { addPassages } from '../src/modules/knowledge/indexing.ts';
import { createFileReader } from '../src/platform/file-reader.ts';
import { QUALITY_CORPUS, QUALITY_QUESTIONS } from '../src/modules/knowledge/quality-corpus.ts';
import { makePdf, startEmbeddingServer } from '../src/modules/knowledge/test-support.ts';
import { startPagedSite } from '../src/modules/knowledge/crawl/test-site.ts';
import { PAGES_AT_ONCE } from '../src/modules/knowledge/crawl/crawler.ts';
import { getLatestCrawl } from '../src/modules/knowledge/crawl/service.ts';
import { printTable, ratio } from './support.ts';
import { seeded, zipfSampler } from './filler.ts';

const SOURCE_READER = new URL('../src/modules/knowledge/read-file.worker.ts', import.meta.url);

const run$ = promisify(execFile);
const INGEST_PAGES = Number(process.env.BENCH_INGEST_PAGES ?? 300);
const CRAWL_PAGES = 1000;
const SEARCH_PASSAGES = Number(process.env.BENCH_SEARCH_PASSAGES ?? 100_000);
/** Words in each loaded passage (the chunker's passages hold up to about 200). */
const PASSAGE_WORDS = Number(process.env.BENCH_PASSAGE_WORDS ?? 50);
const LOAD_SOURCES = 10;
const LOAD_BATCH = 2_000;
const SEARCH_QUERIES = 200;
const PLAIN_INSERT_ROWS = 3_000;
const DIMS = 64;

type Row = Record<string, string | number>;

function progress(message: string): void {
  if (process.env.BENCH_VERBOSE) console.error(`  [knowledge] ${message}`);
}

// ---------- generated text: a Zipf-distributed vocabulary of made-up words ----------

const SYLLABLES = 'ba ko mi ru te lan dor vi sel pa gu nor fe tal zi mo ker ul ven has'.split(' ');
const VOCABULARY = SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.map((c) => `${a}${b}${c}`))).slice(0, 6000);
const zipfWord = zipfSampler(VOCABULARY);

function sentence(random: () => number, words: number): string {
  const list = Array.from({ length: words }, () => zipfWord(random));
  return `${list.join(' ')}.`;
}

/** A page of `paragraphs` paragraphs of ~400 characters each. */
function generatedPage(n: number, paragraphs: number): string {
  const random = seeded(n * 7919 + 1);
  return Array.from({ length: paragraphs }, () => `${sentence(random, 25)} ${sentence(random, 25)}`).join('\n\n');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

// ---------- 1. indexing ----------

/** Rows a second written by one-row INSERT statements of the same texts into a bare table. */
async function plainInsertRate(ctx: Context, texts: string[]): Promise<number> {
  const table = `bench_scratch_${Math.random().toString(36).slice(2, 10)}`;
  await sql`create table ${sql.table(table)} (id text primary key, agent_id text not null, text text not null)`.execute(ctx.db);
  const rows = texts.slice(0, PLAIN_INSERT_ROWS);
  const { ms } = await timed(async () => {
    for (const text of rows) await sql`insert into ${sql.table(table)} (id, agent_id, text) values (${newId('chk')}, ${'ag_bench'}, ${text})`.execute(ctx.db);
  });
  await sql`drop table ${sql.table(table)}`.execute(ctx.db);
  return rows.length / (ms / 1000);
}

function indexingRow(store: string, path: string, passages: number, seconds: number, plainRate: number): Row {
  const rate = passages / seconds;
  return { store, path, passages, 'passages/s': Math.round(rate), 'plain INSERT rows/s': Math.round(plainRate), ratio: ratio(rate, plainRate) };
}

/** Crawled pages one at a time (a source each, a transaction each), as the crawler hands them over. */
async function pageIndexingFigures(service: Service, ws: SeededWorkspace, store: string, plainRate: number): Promise<Row> {
  const ctx = service.ctx;
  const agentId = await seedAgent(service, ws, 'Ingest bench');
  const pages = Array.from({ length: INGEST_PAGES }, (_, n) => generatedPage(n, 8));
  await ingestWebsitePage(ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_bench', url: 'https://bench.example/warm', title: 'Warm', text: generatedPage(99_999, 8) });
  const before = await passageCount(ctx, agentId);
  const { ms } = await timed(async () => {
    for (const [n, text] of pages.entries()) {
      await ingestWebsitePage(ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_bench', url: `https://bench.example/p/${n}`, title: `Page ${n}`, text });
    }
  });
  const passages = (await passageCount(ctx, agentId)) - before;
  return indexingRow(store, `crawled pages: ingestWebsitePage, ${(passages / INGEST_PAGES).toFixed(1)} passages a page`, passages, ms / 1000, plainRate);
}

async function passageCount(ctx: Context, agentId: string): Promise<number> {
  const row = await ctx.db.selectFrom('passages').select(sql<number>`count(*)`.as('n')).where('agent_id', '=', agentId).executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---------- 2. PDF reading ----------

async function pdfFigures(): Promise<Row[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-pdf-'));
  try {
    const files: Array<{ file: string; bytes: Buffer }> = [];
    for (let i = 0; i < 4; i++) {
      const pages = Array.from({ length: 40 }, (_, p) => generatedPage(i * 1000 + p, 6).replace(/\n\n/g, '\n'));
      const bytes = await makePdf(pages);
      const file = path.join(dir, `doc${i}.pdf`);
      await writeFile(file, bytes);
      files.push({ file, bytes });
    }
    const totalMb = files.reduce((sum, f) => sum + f.bytes.length, 0) / 1e6;
    const bounds = { memoryMb: 512, timeoutMs: 60_000 };
    const reader = createFileReader({ concurrency: 1 });
    const readText = (bytes: Buffer) => reader.read<string>(SOURCE_READER, { kind: 'pdf', bytes }, bounds);
    await readText(files[0].bytes); // warm-up (disk cache)
    let chars = 0;
    const ours = await timed(async () => {
      for (const f of files) chars += (await readText(f.bytes)).length;
    });
    await reader.close();
    const rows: Row[] = [{ reader: 'Parley (bounded reader process, unpdf)', files: files.length, MB: totalMb.toFixed(2), 'MB/s': (totalMb / (ours.ms / 1000)).toFixed(2), 'chars out': chars, ratio: '' }];
    const which = await run$('which', ['pdftotext']).catch(() => null);
    if (!which) {
      console.log('pdftotext comparison skipped: pdftotext not found (apt-get install poppler-utils).');
      return rows;
    }
    await run$('pdftotext', [files[0].file, '-']);
    let popplerChars = 0;
    const poppler = await timed(async () => {
      for (const f of files) popplerChars += (await run$('pdftotext', ['-enc', 'UTF-8', f.file, '-'], { maxBuffer: 64 * 1024 * 1024 })).stdout.length;
    });
    const oursRate = totalMb / (ours.ms / 1000);
    const popplerRate = totalMb / (poppler.ms / 1000);
    rows[0].ratio = ratio(oursRate, popplerRate);
    rows.push({ reader: 'poppler pdftotext (process per file)', files: files.length, MB: totalMb.toFixed(2), 'MB/s': popplerRate.toFixed(2), 'chars out': popplerChars, ratio: '1.00' });
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------- 3. crawl ----------

async function crawlFigures(service: Service, ws: SeededWorkspace, store: string): Promise<Row> {
  const site = await startPagedSite(CRAWL_PAGES);
  try {
    const urls = [`${site.origin}/`, ...Array.from({ length: CRAWL_PAGES - 1 }, (_, i) => `${site.origin}/p/${i + 1}`)];
    const baseline = await timed(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: PAGES_AT_ONCE }, async () => {
          while (next < urls.length) {
            const response = await fetch(urls[next++]);
            await response.text();
          }
        }),
      );
    });
    const agentId = await seedAgent(service, ws, 'Crawl bench');
    const start = performance.now();
    const reply = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', url: site.origin, mode: 'sitemap' } });
    if (reply.status >= 300) throw new Error(`crawl start: ${reply.status} ${JSON.stringify(reply.body)}`);
    let crawl: Awaited<ReturnType<typeof getLatestCrawl>>;
    const until = Date.now() + 180_000;
    for (;;) {
      crawl = await getLatestCrawl(service.ctx, { id: agentId, workspaceId: ws.id, status: 'active' } as never);
      if (!['queued', 'running'].includes(crawl.status) || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - start) / 1000;
    const rate = crawl.processed / seconds;
    const baseRate = CRAWL_PAGES / (baseline.ms / 1000);
    return {
      store,
      'pages crawled': crawl.processed,
      status: crawl.status,
      'pages/s (crawl)': rate.toFixed(1),
      'pages/s (plain fetch)': baseRate.toFixed(0),
      concurrency: PAGES_AT_ONCE,
      ratio: ratio(rate, baseRate),
    };
  } finally {
    await site.close();
  }
}

// ---------- 4. search latency at scale ----------

function passageText(n: number): string {
  const random = seeded(n + 1_000_003);
  const sentences: string[] = [];
  for (let words = PASSAGE_WORDS; words > 0; words -= 25) sentences.push(sentence(random, Math.min(25, words)));
  return sentences.join(' ');
}

interface Load {
  loaded: number;
  writeSeconds: number;
  embedSeconds: number;
  hnswSeconds: number;
}

/**
 * `count` passages in LOAD_SOURCES sources through the indexing code's bulk path
 * (addPassages, LOAD_BATCH passages a call, vectors from the embeddings server). The HNSW
 * index is dropped for the load and built once after it, as one would for any bulk load.
 */
async function loadPassages(ctx: Context, ws: SeededWorkspace, agentId: string, count: number): Promise<Load> {
  const table = await vectorTable(ctx);
  await sql`drop index if exists ${sql.raw(`${table}_hnsw`)}`.execute(ctx.db);
  const load: Load = { loaded: 0, writeSeconds: 0, embedSeconds: 0, hnswSeconds: 0 };
  const perSource = Math.ceil(count / LOAD_SOURCES);
  while (load.loaded < count) {
    const sourceId = newId('src');
    const size = Math.min(perSource, count - load.loaded);
    await ctx.db
      .insertInto('sources')
      .values({ id: sourceId, workspace_id: ws.id, agent_id: agentId, type: 'text', name: `Bulk ${load.loaded}`, url: null, title: null, status: 'ready', error: null, turned_away: null, size_bytes: 0, chunk_count: size, content: '', crawl_id: null, generation: 0, job_id: null, queued_at: null, created_at: ctx.clock.now(), processed_at: ctx.clock.now() })
      .execute();
    for (let offset = 0; offset < size; offset += LOAD_BATCH) {
      const texts = Array.from({ length: Math.min(LOAD_BATCH, size - offset) }, (_, i) => passageText(load.loaded + offset + i));
      const vectors = await timed(() => embedTexts(ctx, texts));
      const passages = texts.map((text, i) => ({ position: offset + i, text, vector: vectors.value[i] }));
      const written = await timed(() => addPassages(ctx, { agentId, sourceId, title: 'Bulk', url: null, config: 'english' }, passages));
      load.embedSeconds += vectors.ms / 1000;
      load.writeSeconds += written.ms / 1000;
    }
    load.loaded += size;
    progress(`search load: ${load.loaded} passages, ${load.writeSeconds.toFixed(0)} s writing, ${load.embedSeconds.toFixed(0)} s embedding`);
  }
  progress('search load: building the HNSW index');
  const hnsw = await timed(() =>
    ctx.db.transaction().execute(async (trx) => {
      // pgvector builds fastest with the whole graph in memory (about 100 MB here).
      await sql`set local maintenance_work_mem = '512MB'`.execute(trx);
      await sql`create index if not exists ${sql.raw(`${table}_hnsw`)} on ${sql.table(table)} using hnsw (embedding vector_cosine_ops)`.execute(trx);
    }),
  );
  load.hnswSeconds = hnsw.ms / 1000;
  // What autovacuum does on a server soon after a load (visibility map, planner statistics).
  // The embedded store has no autovacuum, so it is measured as loaded.
  if (ctx.database.kind === 'postgres') await sql`vacuum analyze`.execute(ctx.db);
  return load;
}

async function latencies(work: (i: number) => Promise<unknown>, count: number): Promise<number[]> {
  for (let i = 0; i < 5; i++) await work(i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push((await timed(() => work(i))).ms);
  return times.sort((a, b) => a - b);
}

async function searchFigures(service: Service, ws: SeededWorkspace, store: string, tables: Record<string, Row[]>, plainRate: number): Promise<void> {
  const ctx = service.ctx;
  const lexicalCtx: Context = { ...ctx, config: { ...ctx.config, openaiBaseUrl: undefined } };
  const agentId = await seedAgent(service, ws, 'Search bench');
  const load = await loadPassages(ctx, ws, agentId, SEARCH_PASSAGES);
  tables.indexing.push(indexingRow(store, `bulk: addPassages, ${LOAD_BATCH} passages a call, with vectors`, load.loaded, load.writeSeconds, plainRate));
  tables.load.push({ store, passages: load.loaded, 'words a passage': PASSAGE_WORDS, 'write s': load.writeSeconds.toFixed(1), 'embed s (HTTP)': load.embedSeconds.toFixed(1), 'HNSW build s': load.hnswSeconds.toFixed(1) });
  const random = seeded(424242);
  // Questions of four words from the middle of the vocabulary plus one common word.
  const queries = Array.from({ length: SEARCH_QUERIES }, () =>
    [VOCABULARY[Math.floor(random() * 20)], ...Array.from({ length: 4 }, () => VOCABULARY[50 + Math.floor(random() * 2000)])].join(' '),
  );
  const ids = (await ctx.db.selectFrom('passages').select('id').where('agent_id', '=', agentId).limit(SEARCH_QUERIES).execute()).map((r) => r.id);
  const search = (c: Context, minSimilarity: number) => (i: number) => searchPassages(c, { agentId, query: queries[i % queries.length], topK: 5, minSimilarity, language: 'en' });
  progress('search: measuring');
  const pk = await latencies((i) => ctx.db.selectFrom('passages').selectAll().where('id', '=', ids[i % ids.length]).executeTakeFirst(), SEARCH_QUERIES);
  const row = (kind: string, times: number[]): Row => ({
    store,
    passages: load.loaded,
    search: kind,
    'p50 ms': percentile(times, 50).toFixed(2),
    'p95 ms': percentile(times, 95).toFixed(2),
    'p50 ratio vs PK lookup': ratio(percentile(times, 50), percentile(pk, 50)),
  });
  tables.search.push(
    row('primary-key lookup (baseline)', pk),
    row('lexical (BM25), minSimilarity 0', await latencies(search(lexicalCtx, 0), SEARCH_QUERIES)),
    row('lexical (BM25), minSimilarity 0.3', await latencies(search(lexicalCtx, 0.3), SEARCH_QUERIES)),
    row(`hybrid (BM25 + ${DIMS}-d vectors, RRF), minSimilarity 0`, await latencies(search(ctx, 0), SEARCH_QUERIES)),
  );
}

// ---------- 5. retrieval quality ----------

async function qualityFigures(service: Service, ws: SeededWorkspace, store: string): Promise<Row[]> {
  const ctx = service.ctx;
  const lexicalCtx: Context = { ...ctx, config: { ...ctx.config, openaiBaseUrl: undefined } };
  const agentId = await seedAgent(service, ws, 'Quality bench');
  const sourceByKey = new Map<string, string>();
  for (const p of QUALITY_CORPUS) {
    const { sourceId } = await ingestWebsitePage(ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_quality', url: `https://northwind.example/${p.key}`, title: p.title, text: p.text });
    sourceByKey.set(p.key, sourceId);
  }
  const score = async (c: Context, kind: string): Promise<Row> => {
    let right = 0;
    for (const { question, expected } of QUALITY_QUESTIONS) {
      const hits = await searchPassages(c, { agentId, query: question, topK: 3, minSimilarity: 0, language: 'en' });
      if (hits[0]?.sourceId === sourceByKey.get(expected)) right++;
    }
    const total = QUALITY_QUESTIONS.length;
    return { store, search: kind, 'right first': `${right}/${total}`, '%': `${Math.round((100 * right) / total)}%` };
  };
  return [await score(lexicalCtx, 'lexical (BM25)'), await score(ctx, `hybrid (fake ${DIMS}-d embeddings)`)];
}

// ---------- run ----------

async function onStore(store: 'embedded' | 'postgres', embeddingsUrl: string, tables: Record<string, Row[]>): Promise<void> {
  const previous = process.env.PARLEY_TEST_STORE;
  process.env.PARLEY_TEST_STORE = store;
  const started = performance.now();
  try {
    const plain = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    let plainRate: number;
    try {
      const ws = await plain.seedWorkspace({ plan: 'enterprise' });
      plainRate = await plainInsertRate(plain.ctx, Array.from({ length: PLAIN_INSERT_ROWS }, (_, n) => passageText(n)));
      tables.indexing.push(await pageIndexingFigures(plain, ws, store, plainRate));
      progress(`${store}: crawl`);
      tables.crawl.push(await crawlFigures(plain, ws, store));
    } finally {
      await plain.close();
    }
    const withVectors = await startService({
      env: { OPENAI_BASE_URL: embeddingsUrl, OPENAI_API_KEY: 'bench', PARLEY_EMBEDDING_MODEL: 'fake', PARLEY_EMBEDDING_DIMENSIONS: String(DIMS) },
    });
    try {
      const ws = await withVectors.seedWorkspace({ plan: 'enterprise' });
      tables.quality.push(...(await qualityFigures(withVectors, ws, store)));
      await searchFigures(withVectors, ws, store, tables, plainRate);
    } finally {
      await withVectors.close();
    }
  } finally {
    if (previous === undefined) delete process.env.PARLEY_TEST_STORE;
    else process.env.PARLEY_TEST_STORE = previous;
    tables.runtime.push({ store, seconds: ((performance.now() - started) / 1000).toFixed(0) });
  }
}

export async function run(): Promise<void> {
  const started = performance.now();
  const tables: Record<string, Row[]> = { indexing: [], load: [], crawl: [], search: [], quality: [], runtime: [] };
  const pdf = await pdfFigures();
  const embeddings = await startEmbeddingServer(DIMS);
  try {
    await onStore('embedded', embeddings.url, tables);
    const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (databaseUrl) {
      process.env.TEST_DATABASE_URL = databaseUrl;
      process.env.TEST_REDIS_URL ??= process.env.BENCH_REDIS_URL;
      await onStore('postgres', embeddings.url, tables);
    } else {
      console.log('PostgreSQL figures skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL).');
    }
  } finally {
    await embeddings.close();
  }
  printTable(`Indexing (no embeddings for crawled pages; bulk includes writing vector rows, not fetching them) vs one-row INSERTs of passage texts into a bare table`, tables.indexing);
  printTable(`Loading the search corpus (${LOAD_SOURCES} sources; HNSW index built after the load)`, tables.load);
  printTable('PDF text extraction: the bounded reader (a process per file) vs poppler pdftotext (process per file), same files', pdf);
  printTable(`Crawl of a local ${CRAWL_PAGES}-page site (sitemap mode) vs plain fetch of the same pages at the same concurrency`, tables.crawl);
  printTable(`Search latency over ${SEARCH_QUERIES} queries (topK 5: 20 candidates a list), one agent, ${SEARCH_PASSAGES} passages of ${PASSAGE_WORDS} words`, tables.search);
  printTable(`Retrieval quality: right passage first on quality-corpus.ts (${QUALITY_QUESTIONS.length} questions)`, tables.quality);
  tables.runtime.push({ store: 'whole knowledge bench', seconds: ((performance.now() - started) / 1000).toFixed(0) });
  printTable('Bench runtime', tables.runtime);
}
