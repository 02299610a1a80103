/**
 * A worker killed (SIGKILL) in the middle of a batch of small sources: real processes of
 * src/main.ts. Both batch workers of the process are first kept busy (their embedding
 * requests held), so the sources posted next wait in the queue; then the endpoint holds
 * only requests of several texts, so a worker is surely inside a batch of many (claimed,
 * not yet written) when the kill comes. A new worker on the same store must finish them:
 * every source accepted is there and ready, each with its one passage, none written twice.
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

/** Sources posted while both workers are busy: the batch the kill comes in. */
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
  /** Passages a source, and the agent's count in its statistics (read after the processes ended on the embedded store). */
  passages(agentId: string): Promise<{ bySource: Map<string, number>; counted: number }>;
}

async function sources(api: ServiceApi, agentId: string): Promise<Array<{ id: string; status: string; chunkCount: number }>> {
  return callApi(api, 'GET', `/agents/${agentId}/sources?limit=100`);
}

const qa = (n: number) => ({ type: 'qa', question: `Can parcel ${n} be sent abroad?`, answer: `Parcel number ${n} goes to any country in Europe.` });

async function killMidBatch(deployment: Deployment): Promise<void> {
  embeddings = await startEmbeddingServer(32);
  const api = await deployment.start({
    PARLEY_RATE_LIMIT_PER_MINUTE: '100000',
    PARLEY_LOST_WORK_AFTER_SECONDS: String(LOST_AFTER_SECONDS),
    OPENAI_BASE_URL: embeddings.url,
    PARLEY_EMBEDDING_MODEL: 'fake',
    PARLEY_EMBEDDING_DIMENSIONS: '32',
  });
  const agent = await callApi(api, 'POST', '/agents', { name: 'Batch crash', useCase: 'general' });

  // Both batch workers of the process held inside a read of one source each.
  embeddings.holdWhen(() => true);
  await callApi(api, 'POST', `/agents/${agent.id}/sources`, qa(1000));
  await until('one worker is held', async () => embeddings!.held().length, (held) => held === 1);
  await callApi(api, 'POST', `/agents/${agent.id}/sources`, qa(1001));
  await until('both workers are held', async () => embeddings!.held().length, (held) => held === 2);

  // These wait in the queue; once the workers are let go, they take them as batches, held again.
  await Promise.all(Array.from({ length: QUEUED }, (_, n) => callApi(api, 'POST', `/agents/${agent.id}/sources`, qa(n))));
  embeddings.release();
  embeddings.holdWhen((texts) => texts.length > 1);
  await until('a batch of several sources reaches the embedding endpoint', async () => embeddings!.held().map((texts) => texts.length), (held) => held.some((n) => n > 1));
  const accepted = await sources(api, agent.id);
  assert.equal(accepted.length, QUEUED + 2, 'every source is accepted');
  assert.ok(accepted.some((source) => source.status === 'pending'), 'the batch is unfinished when the kill comes');

  const survivor = await deployment.killWorker();
  if (survivor) {
    const left = await sources(survivor, agent.id);
    assert.ok(left.filter((source) => source.status === 'pending').length > 1, 'the API outlived the worker: the batch shows as unfinished');
  }

  await new Promise((resolve) => setTimeout(resolve, LOST_AFTER_SECONDS * 1000));
  embeddings.release();
  const after = await deployment.restartWorker();
  const settled = await until('no source is pending', () => sources(after, agent.id), (list) => list.every((source) => source.status !== 'pending'));

  assert.deepEqual(
    accepted.filter((source) => !settled.some((kept) => kept.id === source.id)).map((source) => source.id),
    [],
    'no source accepted before the kill was lost',
  );
  assert.deepEqual(
    settled.filter((source) => source.status !== 'ready' || source.chunkCount !== 1),
    [],
    'every source is ready with its one passage',
  );
  const { bySource, counted } = await deployment.passages(agent.id);
  assert.deepEqual(
    settled.filter((source) => bySource.get(source.id) !== 1).map((source) => ({ id: source.id, passages: bySource.get(source.id) ?? 0 })),
    [],
    'each source’s passage is in the index once',
  );
  assert.equal(counted, QUEUED + 2, 'the agent’s statistics count each passage once');
}

const PASSAGES_SQL = `select source_id, count(*)::int as n from passages where agent_id = $1 group by source_id`;
const COUNTED_SQL = `select passage_count from agent_stats where agent_id = $1`;

function tallied(rows: Array<{ source_id: string; n: number }>, counted: Array<{ passage_count: number }>) {
  return { bySource: new Map(rows.map((row) => [row.source_id, Number(row.n)])), counted: Number(counted[0]?.passage_count ?? 0) };
}

describe('a worker killed mid-batch of small sources, on PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass' }, () => {
  test('a new worker process reads the batch again: every source ready, each passage indexed once', async () => {
    const database = await freshDatabase('postgres');
    await database.database.close();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-batch-crash-pg-'));
    cleanups.push(() => database.drop(), () => rm(dataDir, { recursive: true, force: true }));
    await killMidBatch({
      ...apiAndWorkerOn(database.url!, dataDir),
      async passages(agentId) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return tallied((await client.query(PASSAGES_SQL, [agentId])).rows, (await client.query(COUNTED_SQL, [agentId])).rows);
        } finally {
          await client.end();
        }
      },
    });
  });
});

describe('the service killed mid-batch of small sources, on the embedded database', { skip: storeUnderTest() !== 'embedded' && 'the embedded pass tries it' }, () => {
  test('started again on the same data directory, it reads the batch again: every source ready, each passage indexed once', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-batch-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await killMidBatch({
      ...oneEmbeddedProcess(dataDir),
      async passages(agentId) {
        // The store is the process's own while it runs: read once it has stopped.
        await stopAll();
        const database = await openEmbedded(path.join(dataDir, 'db'));
        try {
          return tallied((await database.executeSql(PASSAGES_SQL, [agentId])).rows, (await database.executeSql(COUNTED_SQL, [agentId])).rows);
        } finally {
          await database.close();
        }
      },
    });
  });
});
