/**
 * The row queue (reading.ts, migration 044): a text or Q&A source added through the API is read
 * from its own pending row, with no job of the job queue written for it; the readers are woken by
 * the insert's notification at its commit (not only by their poll); a row is claimed by one reader
 * only, however many claim at once; a retrain puts the agent's sources back in it. The kill of a
 * worker mid-batch or mid-retrain is read-batch-crash.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { workerId } from '../../platform/heartbeat.ts';
import { ingestWebsitePage } from './ingest.ts';
import { startRowReaders } from './reading.ts';
import { claimQueuedRows, ROW_QUEUED } from './store.ts';

/** A poll no test waits out: only a wake-up reads a source within the tests' bounds. */
const POLL_MS = 120_000;
/** Sources of the long retrain: many batches of the readers (READ_BATCH each). */
const RETRAINED_SOURCES = 1000;

describe('the row queue', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ workers: false, env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
  });
  after(async () => {
    await service?.close();
  });

  const post = async (agent: string, n: number) => {
    const body = n % 2 === 0 ? { type: 'qa', question: `Does parcel ${n} ship abroad?`, answer: `Parcel ${n} ships to every country in Europe.` } : { type: 'text', title: `Note ${n}`, content: `Note ${n}: the shop opens at nine.` };
    const reply = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    return reply.body.data.id as string;
  };

  test('a text or Q&A source is queued as its own row, with no job written for it, and read from there: ready with its one passage', async () => {
    const agent = await seedAgent(service, ws, 'Rows');
    const ids = [await post(agent, 0), await post(agent, 1), await post(agent, 2)];
    const queued = await service.ctx.db.selectFrom('sources').select(['id', 'job_id', 'status']).where('agent_id', '=', agent).execute();
    assert.deepEqual(queued.map((row) => [row.job_id, row.status]), ids.map(() => [ROW_QUEUED, 'pending']));
    assert.equal(await readJobsOf(ids), 0, 'no job of the job queue names these sources');

    const readers = await startRowReaders(service.ctx, await workerId(service.ctx), { pollMs: POLL_MS });
    try {
      await waitUntil('the sources are read', async () => (await pendingCount(agent)) === 0);
    } finally {
      await readers.stop();
    }
    const rows = await sql<{ status: string; chunk_count: number; passages: number }>`
      select s.status, s.chunk_count, (select count(*)::int from passages p where p.source_id = s.id) as passages
      from sources s where s.agent_id = ${agent}`.execute(service.ctx.db);
    assert.deepEqual(rows.rows.map((row) => [row.status, row.chunk_count, row.passages]), ids.map(() => ['ready', 1, 1]));
    assert.equal(await readJobsOf(ids), 0, 'still no job: nothing was handed to the job queue');
    const agentRow = await service.api('GET', `/agents/${agent}`, { key: ws.keys.manage });
    assert.ok(agentRow.body.data.lastTrainedAt, 'the agent shows as trained once its rows are read');
  });

  test('idle readers are woken by the insert: a source posted to them is read long before their poll', async () => {
    const agent = await seedAgent(service, ws, 'Woken');
    const readers = await startRowReaders(service.ctx, await workerId(service.ctx), { pollMs: POLL_MS });
    try {
      // Both readers have found nothing and wait on their two-minute poll.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (let n = 0; n < 3; n++) {
        await post(agent, n);
        await waitUntil(`source ${n} is read`, async () => (await pendingCount(agent)) === 0, 30_000);
      }
    } finally {
      await readers.stop();
    }
  });

  test('rows claimed by several readers at once are each claimed by one of them', async () => {
    const agent = await seedAgent(service, ws, 'Claimed once');
    const ids = [];
    for (let n = 0; n < 12; n++) ids.push(await post(agent, n));
    const claims = await Promise.all(['wrk_a', 'wrk_b', 'wrk_c'].map((worker) => claimQueuedRows(service.ctx.db, worker, 5)));
    const claimed = claims.flat().map((row) => row.id);
    assert.equal(new Set(claimed).size, claimed.length, 'no row claimed twice');
    assert.equal(claimed.length, 12, 'every row is claimed by one of them');
    assert.deepEqual([...claimed].sort(), [...ids].sort());
    assert.deepEqual(await claimQueuedRows(service.ctx.db, 'wrk_d', 5), [], 'a claimed row is not claimed again');
  });

  test('a retrain puts text, Q&A and website sources back in the row queue in one statement, with no job, and its commit wakes the readers', async () => {
    const agent = await seedAgent(service, ws, 'Retrained from rows');
    const ids = [await post(agent, 0), await post(agent, 1)];
    const page = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_rows', url: 'https://shop.example/hours', title: 'Hours', text: 'The shop opens at nine and closes at six.' });
    ids.push(page.sourceId);
    const readers = await startRowReaders(service.ctx, await workerId(service.ctx), { pollMs: POLL_MS });
    try {
      await waitUntil('the sources are read a first time', async () => (await pendingCount(agent)) === 0);
      // Both readers have found nothing since and wait on their two-minute poll.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const retrain = await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage });
      assert.equal(retrain.status, 202, JSON.stringify(retrain.body));
      assert.equal(retrain.body.data.sourceCount, 3);
      const queued = await service.ctx.db.selectFrom('sources').select(['job_id', 'generation']).where('agent_id', '=', agent).execute();
      assert.deepEqual(queued.map((row) => [row.job_id, row.generation]), ids.map(() => [ROW_QUEUED, 1]), 'every source is in the row queue under its next generation');
      await waitUntil('the retrained sources are read', async () => (await pendingCount(agent)) === 0);
    } finally {
      await readers.stop();
    }
    const rows = await sql<{ status: string; passages: number }>`
      select s.status, (select count(*)::int from passages p where p.source_id = s.id) as passages from sources s where s.agent_id = ${agent}`.execute(service.ctx.db);
    assert.deepEqual(rows.rows.map((row) => [row.status, row.passages]), ids.map(() => ['ready', 1]), 'each is read again, its passage written once');
    assert.equal(await readJobsOf(ids), 0, 'no job of the job queue names these sources');
  });

  test('a request is answered while a large retrain is being read: the readers let the event loop take its turn between batches', async () => {
    // A workspace of its own: the plan's agents are taken by the tests above.
    const own = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, own, 'Retrained at length');
    await storeReadySources(own.id, agent, RETRAINED_SOURCES);
    const readers = await startRowReaders(service.ctx, await workerId(service.ctx), { pollMs: POLL_MS });
    try {
      const retrain = await service.api('POST', `/agents/${agent}/retrain`, { key: own.keys.manage });
      assert.equal(retrain.status, 202, JSON.stringify(retrain.body));
      // Sent while the readers go from batch to batch: on the embedded store, readers that never gave the event loop
      // its turn kept this request unread until the last batch (its socket, idle past the keep-alive timeout, was
      // then closed under it).
      const started = performance.now();
      const posted = await service.api('POST', `/agents/${agent}/sources`, { key: own.keys.manage, body: { type: 'text', title: 'Late note', content: 'The shop closes at six.' } });
      const answeredMs = performance.now() - started;
      assert.equal(posted.status, 201, JSON.stringify(posted.body));
      const pendingAtAnswer = await pendingCount(agent);
      assert.ok(pendingAtAnswer > 1, `answered in ${answeredMs.toFixed(0)} ms, before the retrain was read (${pendingAtAnswer} sources still pending)`);
      await waitUntil('the retrained sources are read', async () => (await pendingCount(agent)) === 0, 120_000);
    } finally {
      await readers.stop();
    }
  });

  /** Sources already read (ready), stored directly: what a retrain puts back in the row queue. */
  async function storeReadySources(workspaceId: string, agent: string, count: number): Promise<void> {
    const now = new Date();
    await service.ctx.db
      .insertInto('sources')
      .values(
        Array.from({ length: count }, (_, n) => ({
          id: `src_turns_${agent}_${n}`,
          workspace_id: workspaceId,
          agent_id: agent,
          type: 'text',
          name: `Note ${n}`,
          title: `Note ${n}`,
          content: `Note ${n}: parcel ${n} ships within ${n % 7} days to any country in Europe.`,
          status: 'ready',
          size_bytes: 80,
          generation: 0,
          queued_at: now,
          created_at: now,
        })) as never,
      )
      .execute();
  }

  async function pendingCount(agent: string): Promise<number> {
    const row = await sql<{ n: number }>`select count(*)::int as n from sources where agent_id = ${agent} and status = 'pending'`.execute(service.ctx.db);
    return Number(row.rows[0]!.n);
  }

  /** Jobs of the job queue for these sources (none when pg-boss never made its schema). */
  async function readJobsOf(ids: string[]): Promise<number> {
    const schema = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = 'pgboss' and table_name = 'job'`.execute(service.ctx.db);
    if (Number(schema.rows[0]!.n) === 0) return 0;
    const jobs = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where data->>'sourceId' = any(${ids}::text[])`.execute(service.ctx.db);
    return Number(jobs.rows[0]!.n);
  }
});

async function waitUntil(what: string, done: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
