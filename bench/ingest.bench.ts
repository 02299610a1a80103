/**
 * Ingestion: small sources (Q&A pairs and short texts) posted through the REST API to a
 * running Parley (`npm start`'s entry point; on PostgreSQL an api process and a worker
 * process), timed from the first POST until every source is ready; then a retrain of an
 * agent holding 10,000 passages. Each beside a baseline measured in the same run on the
 * same store: the search index's own rate for the same texts (indexSourceText in this
 * process, one source after the other, no queue in between).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { startService, type Service } from '../test/support/harness.ts';
import { seedAgent } from '../test/support/seed-agent.ts';
import { newId } from '../src/platform/ids.ts';
import { indexSourceText } from '../src/modules/knowledge/indexing.ts';
import { manageApi, NPM_START_FLAGS, printTable, ratio, scratchDatabase, startParley, type RunningService } from './support.ts';

const SMALL_SOURCES = Number(process.env.BENCH_INGEST_SOURCES ?? 1000);
const RETRAIN_PASSAGES = Number(process.env.BENCH_RETRAIN_PASSAGES ?? 10_000);
/** Passages a source of the retrain's agent holds (one a section). */
const PASSAGES_A_SOURCE = 10;
/** POSTs in flight at once. */
const CONNECTIONS = 16;

type Row = Record<string, string | number>;

function progress(message: string): void {
  if (process.env.BENCH_VERBOSE) console.error(`  [ingest] ${new Date().toISOString().slice(11, 19)} ${message}`);
}

// ---------- texts ----------

const WORDS = 'order parcel return refund invoice address warranty size colour delivery courier store account password voucher gift wrap label tracking exchange'.split(' ');

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function words(random: () => number, count: number): string {
  return Array.from({ length: count }, () => `${WORDS[Math.floor(random() * WORDS.length)]}${Math.floor(random() * 500)}`).join(' ');
}

type SmallSource = { type: 'qa'; question: string; answer: string } | { type: 'text'; title: string; content: string };

/** Half Q&A pairs, half short texts: one passage each. */
function smallSource(n: number): SmallSource {
  const random = seeded(n + 1);
  return n % 2 === 0
    ? { type: 'qa', question: `How does ${words(random, 6)} work?`, answer: `${words(random, 40)}.` }
    : { type: 'text', title: `Note ${n}`, content: `${words(random, 60)}.` };
}

/** A text of PASSAGES_A_SOURCE sections, each one passage. */
function largerSource(n: number): { type: 'text'; title: string; content: string } {
  const random = seeded(100_000 + n);
  const sections = Array.from({ length: PASSAGES_A_SOURCE }, (_, s) => `## Part ${s + 1}\n\n${words(random, 80)}.`);
  return { type: 'text', title: `Manual ${n}`, content: sections.join('\n\n') };
}

// ---------- baseline: the index's own rate, in this process ----------

/** Passages a second indexSourceText writes for these sources, one after the other, on `store`. */
async function indexRate(store: 'embedded' | 'postgres', sources: SmallSource[]): Promise<{ sourcesPerSecond: number; passagesPerSecond: number }> {
  const previous = process.env.PARLEY_TEST_STORE;
  process.env.PARLEY_TEST_STORE = store;
  let service: Service | undefined;
  try {
    service = await startService({ workers: false, checkResponses: false });
    const ws = await service.seedWorkspace({ plan: 'enterprise' });
    const agentId = await seedAgent(service, ws, 'Index baseline');
    const now = new Date();
    const ids = sources.map(() => newId('src'));
    await service.ctx.db
      .insertInto('sources')
      .values(
        sources.map((source, i) => ({
          id: ids[i],
          workspace_id: ws.id,
          agent_id: agentId,
          type: source.type,
          name: source.type === 'qa' ? source.question : source.title,
          title: source.type === 'qa' ? null : source.title,
          content: source.type === 'qa' ? source.answer : source.content,
          status: 'pending',
          size_bytes: 100,
          generation: 0,
          queued_at: now,
          created_at: now,
        })) as never,
      )
      .execute();
    const ctx = service.ctx;
    const start = performance.now();
    for (const id of ids) await indexSourceText(ctx, { sourceId: id, agentId, generation: 0 });
    const seconds = (performance.now() - start) / 1000;
    const row = await sql<{ n: number }>`select count(*)::int as n from passages where agent_id = ${agentId}`.execute(ctx.db);
    return { sourcesPerSecond: sources.length / seconds, passagesPerSecond: Number(row.rows[0].n) / seconds };
  } finally {
    await service?.close();
    if (previous === undefined) delete process.env.PARLEY_TEST_STORE;
    else process.env.PARLEY_TEST_STORE = previous;
  }
}

// ---------- Parley from outside ----------

type Api = ReturnType<typeof manageApi>;

/** POSTs every source, CONNECTIONS at a time; then waits until the agent has none pending. Seconds from the first POST. */
async function postUntilReady(api: Api, agentId: string, sources: SmallSource[]): Promise<{ postSeconds: number; readySeconds: number; slowestPostSeconds: number }> {
  const start = performance.now();
  let next = 0;
  let slowest = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < sources.length) {
        const sent = performance.now();
        await api('POST', `/agents/${agentId}/sources`, sources[next++]);
        slowest = Math.max(slowest, performance.now() - sent);
      }
    }),
  );
  const posted = new Date();
  const postSeconds = (performance.now() - start) / 1000;
  await untilTrainedSince(api, agentId, posted);
  return { postSeconds, readySeconds: (performance.now() - start) / 1000, slowestPostSeconds: slowest / 1000 };
}

/**
 * lastTrainedAt is set when the agent's last pending source settles: once it is at or after
 * `since` (when every source had been accepted), none is pending.
 */
async function untilTrainedSince(api: Api, agentId: string, since: Date): Promise<{ slowestPollSeconds: number }> {
  const deadline = Date.now() + 30 * 60_000;
  let slowest = 0;
  for (;;) {
    const sent = performance.now();
    const agent = await api('GET', `/agents/${agentId}`);
    slowest = Math.max(slowest, performance.now() - sent);
    if (agent.lastTrainedAt && new Date(agent.lastTrainedAt).getTime() >= since.getTime()) return { slowestPollSeconds: slowest / 1000 };
    if (Date.now() > deadline) throw new Error('sources not ready within 30 minutes');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every source of the agent, paged: how many are ready, how many not, and their passages. */
async function tally(service: { url: string; manageKey: string }, agentId: string): Promise<{ ready: number; other: number; passages: number }> {
  const counts = { ready: 0, other: 0, passages: 0 };
  let cursor: string | null = null;
  do {
    const query = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await fetch(`${service.url}/api/v1/agents/${agentId}/sources?${query}`, { headers: { authorization: `Bearer ${service.manageKey}` } });
    const page = (await response.json()) as { data: Array<{ status: string; chunkCount: number }>; pagination: { nextCursor: string | null } };
    for (const source of page.data) {
      if (source.status === 'ready') counts.ready++;
      else counts.other++;
      counts.passages += source.chunkCount;
    }
    cursor = page.pagination.nextCursor;
  } while (cursor);
  return counts;
}

interface Deployment {
  api: Api;
  service: RunningService;
  stop(): Promise<void>;
}

async function embeddedDeployment(): Promise<Deployment> {
  const service = await startParley({});
  return { api: manageApi(service), service, stop: () => service.stop() };
}

async function postgresDeployment(databaseUrl: string, redisUrl: string): Promise<Deployment> {
  const database = await scratchDatabase(databaseUrl);
  let service: RunningService | undefined;
  let worker: ChildProcess | undefined;
  try {
    service = await startParley({ DATABASE_URL: database.url, REDIS_URL: redisUrl, PARLEY_ROLE: 'api' });
    worker = await startWorker({ DATABASE_URL: database.url, REDIS_URL: redisUrl });
  } catch (error) {
    await service?.stop();
    await database.drop();
    throw error;
  }
  return {
    api: manageApi(service),
    service,
    stop: async () => {
      worker!.kill('SIGTERM');
      await new Promise((resolve) => worker!.once('exit', resolve));
      await service!.stop();
      await database.drop();
    },
  };
}

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...NPM_START_FLAGS, 'src/main.ts'], {
    env: { ...process.env, ...env, PARLEY_ROLE: 'worker', PARLEY_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (/Parley worker/.test(output)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
  return child;
}

// ---------- the measurement ----------

async function measure(store: 'embedded' | 'postgres', label: string, deploy: () => Promise<Deployment>, tables: Record<string, Row[]>): Promise<void> {
  const small = Array.from({ length: SMALL_SOURCES }, (_, n) => smallSource(n));
  const larger = Array.from({ length: Math.ceil(RETRAIN_PASSAGES / PASSAGES_A_SOURCE) }, (_, n) => largerSource(n));
  // Both baselines first: measured while Parley runs, its idle keep-alive connections could be closed under the next call.
  progress(`${label}: index baselines`);
  const baseline = await indexRate(store, small);
  const largerBaseline = await indexRate(store, larger);
  const deployment = await deploy();
  try {
    const api = deployment.api;
    const agent = await api('POST', '/agents', { name: 'Ingest bench', useCase: 'general' });
    progress(`${label}: ${SMALL_SOURCES} small sources`);
    const { postSeconds, readySeconds, slowestPostSeconds } = await postUntilReady(api, agent.id, small);
    const counted = await tally(deployment.service, agent.id);
    const rate = SMALL_SOURCES / readySeconds;
    tables.small.push({
      store: label,
      sources: SMALL_SOURCES,
      'all posted s': postSeconds.toFixed(1),
      'all ready s': readySeconds.toFixed(1),
      'slowest POST s': slowestPostSeconds.toFixed(2),
      'sources/s POST to ready': Math.round(rate),
      'index alone sources/s': Math.round(baseline.sourcesPerSecond),
      ratio: ratio(rate, baseline.sourcesPerSecond),
      'not ready': counted.other,
    });

    progress(`${label}: retrain of ${RETRAIN_PASSAGES} passages`);
    const big = await api('POST', '/agents', { name: 'Retrain bench', useCase: 'general' });
    const first = await postUntilReady(api, big.id, larger);
    const held = await tally(deployment.service, big.id);
    const retrainStart = performance.now();
    const queued = await api('POST', `/agents/${big.id}/retrain`);
    const accepted = new Date();
    const { slowestPollSeconds } = await untilTrainedSince(api, big.id, accepted);
    const retrainSeconds = (performance.now() - retrainStart) / 1000;
    const after = await tally(deployment.service, big.id);
    tables.retrain.push({
      store: label,
      sources: queued.sourceCount,
      passages: after.passages,
      'first ingest s': first.readySeconds.toFixed(1),
      // A POST waits on the embedded store's one connection behind the reading's transactions.
      'slowest POST of the first ingest s': first.slowestPostSeconds.toFixed(2),
      'retrain s': retrainSeconds.toFixed(1),
      // The bench's GET of the agent, every 50 ms while the retrain is read: how long a request waits behind the reading.
      'slowest GET during it s': slowestPollSeconds.toFixed(2),
      'retrain passages/s': Math.round(after.passages / retrainSeconds),
      'index alone passages/s': Math.round(largerBaseline.passagesPerSecond),
      ratio: ratio(after.passages / retrainSeconds, largerBaseline.passagesPerSecond),
      // The same texts indexed by the same process when first posted (on the embedded store the index alone runs in
      // this process, whose WebAssembly is not held to Liftoff as npm start's is: docs/performance.md, Memory).
      'vs first ingest': ratio(first.readySeconds, retrainSeconds),
      'not ready': after.other + (held.passages === after.passages ? 0 : 1),
    });
  } finally {
    await deployment.stop();
  }
}

/** BENCH_INGEST_STORES: which stores to measure (embedded, postgres; both by default). */
const STORES = (process.env.BENCH_INGEST_STORES ?? 'embedded,postgres').split(',');

export async function run(): Promise<void> {
  const tables: Record<string, Row[]> = { small: [], retrain: [] };
  if (STORES.includes('embedded')) await measure('embedded', 'embedded (PGlite), npm start', embeddedDeployment, tables);
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (STORES.includes('postgres') && databaseUrl && redisUrl) {
    process.env.TEST_DATABASE_URL = databaseUrl;
    process.env.TEST_REDIS_URL = redisUrl;
    await measure('postgres', 'PostgreSQL + Redis, api + worker', () => postgresDeployment(databaseUrl, redisUrl), tables);
  } else if (STORES.includes('postgres')) {
    console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
  }
  printTable(
    `${SMALL_SOURCES} small sources (half Q&A, half text; one passage each) POSTed through the REST API, ${CONNECTIONS} at a time: first POST to all ready, vs the index alone (indexSourceText of the same texts, one after the other, in-process)`,
    tables.small,
  );
  printTable(
    `Retrain of an agent of ${RETRAIN_PASSAGES} passages (${PASSAGES_A_SOURCE} a source): POST retrain to all ready, vs the index alone for the same texts and vs their first ingest (POST to ready) by the same deployment`,
    tables.retrain,
  );
}
