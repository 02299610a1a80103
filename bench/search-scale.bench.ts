/**
 * Search at scale on PostgreSQL (the issue's million passages): one agent, passages generated from a real
 * vocabulary (the words of the repository's docs and English test sites, drawn with their
 * own frequency ranks on a Zipf law), loaded through the indexing code's bulk path
 * (addPassages) with vectors from a local embeddings server (64-d hashed bag of words, as
 * knowledge.bench.ts); then lexical and hybrid search p50/p95/p99 against a primary-key
 * lookup measured in the same run. The service runs in-process on a scratch database
 * (TEST_DATABASE_URL or BENCH_DATABASE_URL). BENCH_SEARCH_SCALE_PASSAGES sets the size: 100,000 by
 * default, which loads in about 3 minutes on the shared two cores; a million took far longer than
 * the bench's 10 minutes there (docs/performance.md, "Search at a million passages").
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { startService, type SeededWorkspace } from '../test/support/harness.ts';
import { seedAgent } from '../test/support/seed-agent.ts';
import { newId } from '../src/platform/ids.ts';
import type { Context } from '../src/context.ts';
import { englishAlternatives, lexicalSearch, searchPassages } from '../src/modules/knowledge/search.ts';
import { textSearchConfig } from '../src/modules/knowledge/languages.ts';
import { embedTexts, vectorTable } from '../src/modules/knowledge/embeddings.ts';
import { addPassages, deleteSourceAndPassages } from '../src/modules/knowledge/indexing.ts';
import { FIRST_READ, parseQuestion, topPassages } from '../src/modules/knowledge/postings.ts';
import { startEmbeddingServer } from '../src/modules/knowledge/test-support.ts';
import { printTable, ratio } from './support.ts';
import { seeded, zipfSampler } from './filler.ts';

const PASSAGES = Number(process.env.BENCH_SEARCH_SCALE_PASSAGES ?? 100_000);
/** Words a passage (the chunker's passages hold up to about 200; 50 keeps a million within the bench's time). */
const PASSAGE_WORDS = Number(process.env.BENCH_SEARCH_SCALE_WORDS ?? 50);
const QUERIES = Number(process.env.BENCH_SEARCH_SCALE_QUERIES ?? 300);
const SOURCES = 20;
/** Questions asked each as the first after a write (each reads the agent's whole passage table: a second at a million). */
const AFTER_WRITE_QUESTIONS = 20;
const BATCH = 5_000;
const DIMS = 64;
const HYBRID = process.env.BENCH_SEARCH_SCALE_HYBRID !== '0';
/** Sources deleted and written again for the retrain-like write (of SOURCES: a tenth of the passages). */
const REWRITTEN_SOURCES = 2;
/** Questions asked as first passes after the retrain-like write. */
const AFTER_RETRAIN_QUESTIONS = 100;
/** postgres (the issue's case) or embedded (to find the largest agent the embedded store serves within the chat targets). */
const STORE = (process.env.BENCH_SEARCH_SCALE_STORE ?? 'postgres') as 'postgres' | 'embedded';

type Row = Record<string, string | number>;

function progress(message: string): void {
  if (process.env.BENCH_VERBOSE) console.error(`  [search-scale] ${message}`);
}

// ---------- the vocabulary: real words, ranked by how often the repository's English texts use them ----------

function textsUnder(dir: string, extensions: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...textsUnder(full, extensions));
    else if (extensions.some((e) => entry.name.endsWith(e))) found.push(readFileSync(full, 'utf8'));
  }
  return found;
}

/** Words by frequency, most frequent first (the Dutch test site left out: one agent, one language). */
export const VOCABULARY = (() => {
  const counts = new Map<string, number>();
  const texts = [...textsUnder('docs', ['.md']), ...textsUnder('test/fixtures/sites/clearwater', ['.html', '.txt']), ...textsUnder('test/fixtures/sites/facturo', ['.html', '.txt'])];
  for (const text of texts) {
    for (const word of text.replace(/<[^>]*>/g, ' ').toLowerCase().match(/[a-z]{2,}/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1]).map(([word]) => word);
})();

const zipfWord = zipfSampler(VOCABULARY);

export function passageText(n: number): string {
  const random = seeded(n * 2_654_435_761 + 17);
  const sentences: string[] = [];
  for (let left = PASSAGE_WORDS; left > 0; left -= 15) {
    const list = Array.from({ length: Math.min(15, left) }, () => zipfWord(random));
    sentences.push(`${list[0]![0]!.toUpperCase()}${list[0]!.slice(1)} ${list.slice(1).join(' ')}.`);
  }
  return sentences.join(' ');
}

/**
 * A visitor's question: a question word or two, then three to four words a site is about
 * (ranks 100 to 5,000: neither the commonest words nor one-offs), e.g. "how do I
 * webhook retries signature".
 */
export function question(random: () => number): string {
  const openers = ['how do i', 'what is the', 'can i', 'where do i find', 'why does my', 'when is the'];
  const count = 3 + Math.floor(random() * 2);
  const topical = Array.from({ length: count }, () => VOCABULARY[100 + Math.floor(random() * Math.min(4_900, VOCABULARY.length - 100))]!);
  return `${openers[Math.floor(random() * openers.length)]} ${topical.join(' ')}?`;
}

// ---------- loading ----------

interface Load {
  seconds: number;
  writeSeconds: number;
  embedSeconds: number;
  hnswSeconds: number;
  vacuumSeconds: number;
  postings: number;
  /** The bulk sources, with the number of their first passage's text (passageText). */
  sources: Array<{ sourceId: string; from: number; size: number }>;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

async function bulkSourceRow(ctx: Context, ws: SeededWorkspace, agentId: string, name: string, size: number): Promise<string> {
  const sourceId = newId('src');
  await ctx.db
    .insertInto('sources')
    .values({ id: sourceId, workspace_id: ws.id, agent_id: agentId, type: 'text', name, url: null, title: null, status: 'ready', error: null, turned_away: null, size_bytes: 0, chunk_count: size, content: '', crawl_id: null, generation: 0, job_id: null, queued_at: null, created_at: ctx.clock.now(), processed_at: ctx.clock.now() })
    .execute();
  return sourceId;
}

/** PASSAGES passages in SOURCES sources through addPassages, BATCH a call; the HNSW index dropped for the load and built after it. */
export async function load(ctx: Context, ws: SeededWorkspace, agentId: string): Promise<Load> {
  const table = HYBRID ? await vectorTable(ctx) : undefined;
  if (table) await sql`drop index if exists ${sql.raw(`${table}_hnsw`)}`.execute(ctx.db);
  const figures: Load = { seconds: 0, writeSeconds: 0, embedSeconds: 0, hnswSeconds: 0, vacuumSeconds: 0, postings: 0, sources: [] };
  const started = performance.now();
  const perSource = Math.ceil(PASSAGES / SOURCES);
  for (let loaded = 0; loaded < PASSAGES; ) {
    const sourceId = await bulkSourceRow(ctx, ws, agentId, `Bulk ${loaded}`, Math.min(perSource, PASSAGES - loaded));
    const size = Math.min(perSource, PASSAGES - loaded);
    figures.sources.push({ sourceId, from: loaded, size });
    for (let offset = 0; offset < size; offset += BATCH) {
      const texts = Array.from({ length: Math.min(BATCH, size - offset) }, (_, i) => passageText(loaded + offset + i));
      const vectors = HYBRID ? await timed(() => embedTexts(ctx, texts)) : { ms: 0, value: [] as number[][] };
      const passages = texts.map((text, i) => ({ position: offset + i, text, vector: vectors.value[i] }));
      const written = await timed(() => addPassages(ctx, { agentId, sourceId, title: 'Bulk', url: null, config: 'english' }, passages));
      figures.embedSeconds += vectors.ms / 1000;
      figures.writeSeconds += written.ms / 1000;
    }
    loaded += size;
    progress(`${loaded} passages: ${figures.writeSeconds.toFixed(0)} s writing, ${figures.embedSeconds.toFixed(0)} s embedding`);
  }
  if (table) {
    progress('building the HNSW index');
    const hnsw = await timed(() =>
      ctx.db.transaction().execute(async (trx) => {
        await sql`set local maintenance_work_mem = '1GB'`.execute(trx);
        await sql`create index if not exists ${sql.raw(`${table}_hnsw`)} on ${sql.table(table)} using hnsw (embedding vector_cosine_ops)`.execute(trx);
      }),
    );
    figures.hnswSeconds = hnsw.ms / 1000;
  }
  if (ctx.database.kind === 'postgres') {
    progress('vacuum analyze');
    // What autovacuum does on a server soon after a load (visibility map, planner statistics). The embedded store
    // is measured as its own maintenance leaves it (docs/knowledge.md).
    figures.vacuumSeconds = (await timed(() => sql`vacuum analyze`.execute(ctx.db))).ms / 1000;
  }
  figures.seconds = (performance.now() - started) / 1000;
  const postings = await sql<{ n: string }>`select count(*)::text as n from passage_postings`.execute(ctx.db);
  figures.postings = Number(postings.rows[0]!.n);
  return figures;
}

// ---------- measuring ----------

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latencies(work: (i: number) => Promise<unknown>, count: number): Promise<number[]> {
  for (let i = 0; i < 10; i++) await work(count + i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push((await timed(() => work(i))).ms);
  return times.sort((a, b) => a - b);
}

/**
 * Lexical search as searchPassages does it when no embedding provider is set (the question's words, their synonyms),
 * but on the service's own context: its kept lists are the ones the hybrid questions use, as in a running service.
 */
function lexicalOnly(ctx: Context, agentId: string, query: string): Promise<unknown> {
  const config = textSearchConfig('en');
  return lexicalSearch(ctx, agentId, query, [config, config], 5, 0, englishAlternatives(query));
}

/**
 * A first pass by MaxScore alone (docs/performance.md, "Search at a million passages", the first pass): the question's
 * parse and top passages (no texts), never reading a question's lists whole (fullRead 0), on a context of its own so
 * that it finds none of the other passes' lists kept. What a first pass would cost if a process answered by MaxScore
 * and read the whole lists for keeping off the answer's path.
 */
async function maxScoreOnly(ctx: Context, agentId: string, query: string): Promise<unknown> {
  const config = textSearchConfig('en');
  const question = await parseQuestion(ctx, agentId, [config, config], query, englishAlternatives(query));
  return question && topPassages(ctx, agentId, question, 5, 0, { fullRead: 0, firstRead: FIRST_READ });
}

/** Moves the agent's index version, as any write to the agent does: the process lets go of its kept lists at the next question. */
async function letKeptListsGo(ctx: Context, agentId: string): Promise<void> {
  await sql`update agent_stats set passage_count = passage_count where agent_id = ${agentId}`.execute(ctx.db);
}

export async function searchFigures(ctx: Context, agentId: string): Promise<Row[]> {
  const random = seeded(77_777);
  const queries = Array.from({ length: QUERIES + 10 }, () => question(random));
  const ids = (await sql<{ id: string }>`select id from passages where agent_id = ${agentId} order by random() limit ${QUERIES + 10}`.execute(ctx.db)).rows.map((r) => r.id);
  const hybrid = (i: number) => searchPassages(ctx, { agentId, query: queries[i]!, topK: 5, minSimilarity: 0, language: 'en' });
  const lexical = (i: number) => lexicalOnly(ctx, agentId, queries[i]!);
  const pk = await latencies((i) => ctx.db.selectFrom('passages').selectAll().where('id', '=', ids[i % ids.length]!).executeTakeFirst(), QUERIES);
  const row = (kind: string, times: number[], target: string): Row => ({
    search: kind,
    'p50 ms': percentile(times, 50).toFixed(2),
    'p95 ms': percentile(times, 95).toFixed(2),
    'p99 ms': percentile(times, 99).toFixed(2),
    target,
    'p95 vs PK lookup p95': ratio(percentile(times, 95), percentile(pk, 95)),
  });
  const rows = [row('primary-key lookup (baseline)', pk, '')];
  // The first pass reads each term's postings from the database (a process after a restart or a write to the agent);
  // the second finds them in memory. Both kinds run on one context, so they would share the kept lists; the lists
  // are let go before the hybrid questions, so that their first pass is one too.
  progress('lexical search');
  rows.push(row('lexical (BM25), first pass: postings read', await latencies(lexical, QUERIES), 'p95 < 50 ms'));
  rows.push(row('lexical (BM25), again: postings in memory', await latencies(lexical, QUERIES), 'p95 < 50 ms'));
  // A process's first question after a write to the agent (or its first ever): the agent's passage table is read
  // before any list (once per index version: the first pass's warm-up above pays it), then the question's lists.
  const afterWrite = (i: number) => letKeptListsGo(ctx, agentId).then(() => timed(() => lexical(i)));
  const firstAfterWrite: number[] = [];
  for (let i = 0; i < AFTER_WRITE_QUESTIONS; i++) firstAfterWrite.push((await afterWrite(i)).ms);
  rows.push(row(`lexical, the first question after a write (the agent's passage table read too; ${AFTER_WRITE_QUESTIONS} questions)`, firstAfterWrite.sort((a, b) => a - b), ''));
  const own: Context = { ...ctx };
  rows.push(row('lexical, first pass by MaxScore alone (parse and top, no texts)', await latencies((i) => maxScoreOnly(own, agentId, queries[i]!), QUERIES), ''));
  if (HYBRID) {
    progress('hybrid search');
    await letKeptListsGo(ctx, agentId);
    rows.push(row(`hybrid (BM25 + ${DIMS}-d HNSW, RRF), first pass: postings read`, await latencies(hybrid, QUERIES), 'p95 < 80 ms'));
    rows.push(row(`hybrid (BM25 + ${DIMS}-d HNSW, RRF), again: postings in memory`, await latencies(hybrid, QUERIES), 'p95 < 80 ms'));
  }
  return rows;
}

// ---------- blocks (the lists stored ready to read, built off the write path: blocks.ts; the base has none) ----------

type BlocksModule = typeof import('../src/modules/knowledge/blocks.ts');

/** The blocks' code, or null on a checkout without it (the same bench file runs on the base for the A/B). */
async function blocksModule(): Promise<BlocksModule | null> {
  return import('../src/modules/knowledge/blocks.ts').catch(() => null);
}

/**
 * Runs the agent's blocks job as the worker would (the service's own worker never runs it here: its threshold is set
 * past the bench's agent, so that the bench says when), then what autovacuum would do to the new rows soon after.
 */
async function runBlocksJob(ctx: Context, agentId: string, blocks: BlocksModule | null): Promise<{ seconds: number; action: string; postings: number; blocks: number } | null> {
  if (!blocks) return null;
  const started = performance.now();
  const outcome = await blocks.buildBlocks({ ...ctx, config: { ...ctx.config, searchBlocksMinPassages: 20_000 } }, agentId);
  if (ctx.database.kind === 'postgres') await sql`vacuum analyze term_blocks, agent_blocks`.execute(ctx.db);
  return { seconds: (performance.now() - started) / 1000, action: outcome.action, postings: outcome.postings, blocks: outcome.blocks };
}

/**
 * A retrain-like write (REWRITTEN_SOURCES of the sources deleted and their passages written again as new sources: a
 * tenth of the agent), then first passes with the blocks behind it, the blocks job, and first passes again.
 */
async function afterRetrainFigures(ctx: Context, ws: SeededWorkspace, agentId: string, loaded: Load, blocks: BlocksModule | null): Promise<Row[]> {
  const rewritten = loaded.sources.slice(0, REWRITTEN_SOURCES);
  const write = await timed(async () => {
    for (const source of rewritten) {
      await deleteSourceAndPassages(ctx, agentId, source.sourceId);
      const sourceId = await bulkSourceRow(ctx, ws, agentId, `Rewritten ${source.from}`, source.size);
      for (let offset = 0; offset < source.size; offset += BATCH) {
        const texts = Array.from({ length: Math.min(BATCH, source.size - offset) }, (_, i) => passageText(source.from + offset + i));
        await addPassages(ctx, { agentId, sourceId, title: 'Bulk', url: null, config: 'english' }, texts.map((text, i) => ({ position: offset + i, text })));
      }
    }
  });
  const random = seeded(55_555);
  const queries = Array.from({ length: AFTER_RETRAIN_QUESTIONS + 10 }, () => question(random));
  const lexical = (i: number) => lexicalOnly(ctx, agentId, queries[i]!);
  const rows: Row[] = [];
  const row = (kind: string, times: number[]): Row => ({ search: kind, 'p50 ms': percentile(times, 50).toFixed(2), 'p95 ms': percentile(times, 95).toFixed(2), 'p99 ms': percentile(times, 99).toFixed(2) });
  rows.push({ search: `the write: ${rewritten.reduce((n, s) => n + s.size, 0)} passages deleted and written again`, 'p50 ms': '', 'p95 ms': '', 'p99 ms': '', seconds: (write.ms / 1000).toFixed(1) });
  rows.push(row('lexical first pass after it, the blocks behind (their tail read from the postings)', await latencies(lexical, AFTER_RETRAIN_QUESTIONS)));
  const job = await runBlocksJob(ctx, agentId, blocks);
  if (job) rows.push({ search: `the blocks job after it (${job.action}: ${job.postings} postings, ${job.blocks} blocks)`, 'p50 ms': '', 'p95 ms': '', 'p99 ms': '', seconds: job.seconds.toFixed(1) });
  await letKeptListsGo(ctx, agentId);
  rows.push(row('lexical first pass after the job (the same questions, lists let go)', await latencies(lexical, AFTER_RETRAIN_QUESTIONS)));
  return rows;
}

// ---------- run ----------

export async function run(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (STORE === 'postgres' && !databaseUrl) {
    console.log('search-scale skipped: it runs on PostgreSQL (set BENCH_DATABASE_URL or TEST_DATABASE_URL; BENCH_SEARCH_SCALE_STORE=embedded for the embedded store).');
    return;
  }
  if (databaseUrl) process.env.TEST_DATABASE_URL = databaseUrl;
  process.env.TEST_REDIS_URL ??= process.env.BENCH_REDIS_URL;
  const previous = process.env.PARLEY_TEST_STORE;
  process.env.PARLEY_TEST_STORE = STORE;
  const started = performance.now();
  const embeddings = await startEmbeddingServer(DIMS);
  try {
    const service = await startService({
      // The blocks' threshold past any agent: the bench runs their job itself (runBlocksJob), so it never runs mid-measure.
      env: { OPENAI_BASE_URL: embeddings.url, OPENAI_API_KEY: 'bench', PARLEY_EMBEDDING_MODEL: 'fake', PARLEY_EMBEDDING_DIMENSIONS: String(DIMS), PARLEY_SEARCH_BLOCKS_MIN_PASSAGES: '2000000000' },
    });
    try {
      const ws = await service.seedWorkspace({ plan: 'enterprise' });
      const agentId = await seedAgent(service, ws, 'Search scale');
      const figures = await load(service.ctx, ws, agentId);
      const blocks = await blocksModule();
      progress('the blocks job');
      const built = await runBlocksJob(service.ctx, agentId, blocks);
      const words = VOCABULARY.length;
      printTable(`Loading ${PASSAGES} passages of ${PASSAGE_WORDS} words (Zipf over ${words} real words) into one agent, ${STORE === 'postgres' ? 'PostgreSQL' : 'embedded store'} (target: index build >= 5,000 passages/s)`, [
        {
          passages: PASSAGES,
          postings: figures.postings,
          'index write s (addPassages)': figures.writeSeconds.toFixed(1),
          'index build passages/s': Math.round(PASSAGES / figures.writeSeconds),
          'embed s (local HTTP)': figures.embedSeconds.toFixed(1),
          'HNSW build s': figures.hnswSeconds.toFixed(1),
          'vacuum analyze s': figures.vacuumSeconds.toFixed(1),
          'whole load s': figures.seconds.toFixed(1),
          'whole load passages/s': Math.round(PASSAGES / figures.seconds),
          'blocks build s (job + vacuum)': built ? built.seconds.toFixed(1) : 'none',
          'blocks build passages/s': built ? Math.round(PASSAGES / built.seconds) : 'none',
          blocks: built ? built.blocks : 'none',
        },
      ]);
      printTable(`Search latency over ${QUERIES} questions (topK 5: 20 candidates a list), one agent, ${PASSAGES} passages, ${STORE}`, await searchFigures(service.ctx, agentId));
      printTable(`After a retrain-like write (${REWRITTEN_SOURCES} of ${SOURCES} sources deleted and written again), ${AFTER_RETRAIN_QUESTIONS} questions`, await afterRetrainFigures(service.ctx, ws, agentId, figures, blocks));
    } finally {
      await service.close();
    }
  } finally {
    await embeddings.close();
    if (previous === undefined) delete process.env.PARLEY_TEST_STORE;
    else process.env.PARLEY_TEST_STORE = previous;
  }
  printTable('Bench runtime', [{ seconds: ((performance.now() - started) / 1000).toFixed(0) }]);
}
