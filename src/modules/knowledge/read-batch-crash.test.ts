/**
 * A worker killed (SIGKILL) in the middle of a batch of small sources: real processes of
 * src/main.ts. Every row reader of the process (two on PostgreSQL, one on the embedded store) is first
 * kept busy (its embedding request held), so the sources posted next wait in the queue; then the endpoint holds
 * only requests of several texts, so a worker is surely inside a batch of many (claimed,
 * not yet written) when the kill comes. A new worker on the same store must finish them:
 * every source accepted is there and ready, each with its one passage, none written twice.
 * The same for a retrain, whose sources go back to the row queue in one statement: the kill comes
 * in its first batch, and the new worker reads them from their rows again (no job is made for them).
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openEmbedded } from '../../platform/db.ts';
import { apiAndWorkerOn, callApi, oneEmbeddedProcess, stopAll, until, type KillableDeployment, type ServiceApi } from '../../../test/support/processes.ts';
import { freshDatabase, storeUnderTest } from '../../../test/support/stores.ts';
import { startEmbeddingServer, type EmbeddingServer } from './test-support.ts';
import { rowReadersOf } from './reading.ts';

/** Sources posted while the readers are busy: the batch the kill comes in. */
const QUEUED = 30;
/** PARLEY_LOST_WORK_AFTER_SECONDS of the processes: a dead worker's reads are taken up after this. */
const LOST_AFTER_SECONDS = 1;

let embeddings: EmbeddingServer | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await stopAll();
  await embeddings?.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** One store's deployment: start it, kill the process doing the reads, start one again, and count passages in its store. */
interface Deployment extends KillableDeployment {
  store: 'embedded' | 'postgres';
  /**
   * Passages a source, the agent's count in its statistics, and its sources read through a job of the
   * queue rather than their rows (read after the processes ended on the embedded store).
   */
  passages(agentId: string): Promise<Tally>;
}

interface Tally {
  bySource: Map<string, number>;
  counted: number;
  readByJob: number;
}

async function sources(api: ServiceApi, agentId: string): Promise<Array<{ id: string; status: string; chunkCount: number }>> {
  return callApi(api, 'GET', `/agents/${agentId}/sources?limit=100`);
}

const qa = (n: number) => ({ type: 'qa', question: `Can parcel ${n} be sent abroad?`, answer: `Parcel number ${n} goes to any country in Europe.` });

/** The deployment started against a local embedding endpoint (its requests can be held), with an agent. */
async function startWithEmbeddings(deployment: Deployment, name: string): Promise<{ api: ServiceApi; agent: { id: string }; endpoint: EmbeddingServer }> {
  const endpoint = (embeddings = await startEmbeddingServer(32));
  const api = await deployment.start({
    PARLEY_RATE_LIMIT_PER_MINUTE: '100000',
    PARLEY_LOST_WORK_AFTER_SECONDS: String(LOST_AFTER_SECONDS),
    OPENAI_BASE_URL: endpoint.url,
    PARLEY_EMBEDDING_MODEL: 'fake',
    PARLEY_EMBEDDING_DIMENSIONS: '32',
  });
  return { api, agent: await callApi(api, 'POST', '/agents', { name, useCase: 'general' }), endpoint };
}

/**
 * Kills the worker while its reads are held, lets the held requests go once the dead worker's reads count as lost,
 * starts a worker again, and waits until no source is pending: the sources as they end.
 */
async function killAndSettle(deployment: Deployment, endpoint: EmbeddingServer, agentId: string, work: string): Promise<Awaited<ReturnType<typeof sources>>> {
  const survivor = await deployment.killWorker();
  if (survivor) {
    const left = await sources(survivor, agentId);
    assert.ok(left.filter((source) => source.status === 'pending').length > 1, `the API outlived the worker: the ${work} shows as unfinished`);
  }
  await new Promise((resolve) => setTimeout(resolve, LOST_AFTER_SECONDS * 1000));
  endpoint.release();
  const after = await deployment.restartWorker();
  return until('no source is pending', () => sources(after, agentId), (list) => list.every((source) => source.status !== 'pending'));
}

/** Every source ready with its one passage, in the index once, counted once, and read from its row, not through a job. */
async function assertReadOnce(deployment: Deployment, agentId: string, settled: Awaited<ReturnType<typeof sources>>, count: number, fromRows: string): Promise<void> {
  assert.deepEqual(
    settled.filter((source) => source.status !== 'ready' || source.chunkCount !== 1),
    [],
    'every source is ready with its one passage',
  );
  const { bySource, counted, readByJob } = await deployment.passages(agentId);
  assert.deepEqual(
    settled.filter((source) => bySource.get(source.id) !== 1).map((source) => ({ id: source.id, passages: bySource.get(source.id) ?? 0 })),
    [],
    'each source’s passage is in the index once',
  );
  assert.equal(counted, count, 'the agent’s statistics count each passage once');
  assert.equal(readByJob, 0, fromRows);
}

async function killMidBatch(deployment: Deployment): Promise<void> {
  const { api, agent, endpoint } = await startWithEmbeddings(deployment, 'Batch crash');

  // Every row reader of the process held inside a read of one source each (two on PostgreSQL, one embedded).
  endpoint.holdWhen(() => true);
  const readers = rowReadersOf(deployment.store);
  for (let n = 0; n < readers; n++) {
    await callApi(api, 'POST', `/agents/${agent.id}/sources`, qa(1000 + n));
    await until(`${n + 1} of the ${readers} readers held`, async () => endpoint.held().length, (held) => held === n + 1);
  }

  // These wait in the queue; once the readers are let go, they take them as batches, held again.
  await Promise.all(Array.from({ length: QUEUED }, (_, n) => callApi(api, 'POST', `/agents/${agent.id}/sources`, qa(n))));
  // No reader beyond the store's count takes any of them meanwhile (on the embedded store a second reader would
  // only queue its batch transaction ahead of the requests' statements on the one connection).
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(endpoint.held().length, readers, `the process reads rows with ${readers} reader(s)`);
  endpoint.release();
  endpoint.holdWhen((texts) => texts.length > 1);
  await until('a batch of several sources reaches the embedding endpoint', async () => endpoint.held().map((texts) => texts.length), (held) => held.some((n) => n > 1));
  const accepted = await sources(api, agent.id);
  assert.equal(accepted.length, QUEUED + readers, 'every source is accepted');
  assert.ok(accepted.some((source) => source.status === 'pending'), 'the batch is unfinished when the kill comes');

  const settled = await killAndSettle(deployment, endpoint, agent.id, 'batch');
  assert.deepEqual(
    accepted.filter((source) => !settled.some((kept) => kept.id === source.id)).map((source) => source.id),
    [],
    'no source accepted before the kill was lost',
  );
  await assertReadOnce(deployment, agent.id, settled, QUEUED + readers, 'the dead worker’s rows went back to the row queue, none to a job');
}

/**
 * A retrain killed in its first batch: the agent's sources, all read once, are retrained; the endpoint
 * holds the first request of several texts (a reader's batch of the retrain's rows), the worker is
 * killed, and a new one reads them again from their rows: each ready with its one passage, once.
 */
async function killMidRetrain(deployment: Deployment): Promise<void> {
  const { api, agent, endpoint } = await startWithEmbeddings(deployment, 'Retrain crash');
  await Promise.all(Array.from({ length: QUEUED }, (_, n) => callApi(api, 'POST', `/agents/${agent.id}/sources`, qa(n))));
  await until('the sources are read a first time', () => sources(api, agent.id), (list) => list.every((source) => source.status === 'ready'));

  endpoint.holdWhen((texts) => texts.length > 1);
  const retrain = await callApi(api, 'POST', `/agents/${agent.id}/retrain`);
  assert.equal(retrain.sourceCount, QUEUED);
  await until('a batch of the retrain reaches the embedding endpoint', async () => endpoint.held().map((texts) => texts.length), (held) => held.some((n) => n > 1));
  const accepted = await sources(api, agent.id);
  assert.ok(accepted.some((source) => source.status === 'pending'), 'the retrain is unfinished when the kill comes');

  const settled = await killAndSettle(deployment, endpoint, agent.id, 'retrain');
  await assertReadOnce(deployment, agent.id, settled, QUEUED, 'the retrain and its recovery read every source from its row, none through a job');
}

const PASSAGES_SQL = `select source_id, count(*)::int as n from passages where agent_id = $1 group by source_id`;
const COUNTED_SQL = `select passage_count from agent_stats where agent_id = $1`;
const READ_BY_JOB_SQL = `select count(*)::int as n from sources where agent_id = $1 and job_id is distinct from 'rows'`;

function tallied(rows: Array<{ source_id: string; n: number }>, counted: Array<{ passage_count: number }>, byJob: Array<{ n: number }>): Tally {
  return { bySource: new Map(rows.map((row) => [row.source_id, Number(row.n)])), counted: Number(counted[0]?.passage_count ?? 0), readByJob: Number(byJob[0]?.n ?? 0) };
}

const SCENARIOS = [
  { what: 'mid-batch of small sources', run: killMidBatch },
  { what: 'mid-retrain', run: killMidRetrain },
];

for (const scenario of SCENARIOS) {
  describe(`a worker killed ${scenario.what}, on PostgreSQL`, { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass' }, () => {
    test('a new worker process reads the batch again: every source ready, each passage indexed once', async () => {
      const database = await freshDatabase('postgres');
      await database.database.close();
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-batch-crash-pg-'));
      cleanups.push(() => database.drop(), () => rm(dataDir, { recursive: true, force: true }));
      await scenario.run({
        ...apiAndWorkerOn(database.url!, dataDir),
        store: 'postgres',
        async passages(agentId) {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          try {
            const query = async (text: string) => (await client.query(text, [agentId])).rows;
            return tallied(await query(PASSAGES_SQL), await query(COUNTED_SQL), await query(READ_BY_JOB_SQL));
          } finally {
            await client.end();
          }
        },
      });
    });
  });

  describe(`the service killed ${scenario.what}, on the embedded database`, { skip: storeUnderTest() !== 'embedded' && 'the embedded pass tries it' }, () => {
    test('started again on the same data directory, it reads the batch again: every source ready, each passage indexed once', async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-batch-crash-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      await scenario.run({
        ...oneEmbeddedProcess(dataDir),
        store: 'embedded',
        async passages(agentId) {
          // The store is the process's own while it runs: read once it has stopped.
          await stopAll();
          const database = await openEmbedded(path.join(dataDir, 'db'));
          try {
            const query = async (text: string) => (await database.executeSql(text, [agentId])).rows as never;
            return tallied(await query(PASSAGES_SQL), await query(COUNTED_SQL), await query(READ_BY_JOB_SQL));
          } finally {
            await database.close();
          }
        },
      });
    });
  });
}
