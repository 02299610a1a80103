/**
 * Small sources are read in batches: reads queued while no worker runs are claimed
 * together and indexed together (one round of embedding requests for the batch, not
 * one a source), each source ready with its passage once, no passage written twice. A
 * source in the batch with nothing to index fails alone; the others are ready.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { startWorkers } from '../../workers.ts';
import { queueReads } from './reading.ts';
import { startEmbeddingServer, type EmbeddingServer } from './test-support.ts';

const SOURCES = 30;

describe('reading small sources in batches', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let embeddings: EmbeddingServer;

  before(async () => {
    embeddings = await startEmbeddingServer(16);
    service = await startService({
      workers: false,
      env: { OPENAI_BASE_URL: embeddings.url, PARLEY_EMBEDDING_MODEL: 'fake', PARLEY_EMBEDDING_DIMENSIONS: '16', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    ws = await service.seedWorkspace({ plan: 'studio' });
  });
  after(async () => {
    await service?.close();
    await embeddings?.close();
  });

  test('reads queued while no worker ran are indexed together: a request to the embedding endpoint a batch, not a source, every source ready with its one passage', async () => {
    const agent = await seedAgent(service, ws, 'Batched');
    const ids: string[] = [];
    for (let n = 0; n < SOURCES; n++) {
      const body = n % 2 === 0 ? { type: 'qa', question: `Does parcel ${n} ship abroad?`, answer: `Parcel ${n} ships to every country in Europe.` } : { type: 'text', title: `Note ${n}`, content: `Note ${n}: the shop opens at nine.` };
      const reply = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      ids.push(reply.body.data.id);
    }
    assert.equal(embeddings.calls(), 0, 'nothing is read before a worker runs');

    await startWorkers(service.ctx);
    await waitUntil('every source is settled', async () => (await pendingCount(agent)) === 0);

    // The process works with two batch workers side by side: the reads may come as two batches.
    assert.ok(embeddings.calls() <= 2, `the batches' passages are embedded a batch to a request (${SOURCES} passages, ${embeddings.calls()} requests)`);
    const rows = await sql<{ id: string; status: string; chunk_count: number; passages: number }>`
      select s.id, s.status, s.chunk_count, (select count(*)::int from passages p where p.source_id = s.id) as passages
      from sources s where s.agent_id = ${agent}`.execute(service.ctx.db);
    assert.equal(rows.rows.length, SOURCES);
    assert.deepEqual(rows.rows.filter((row) => row.status !== 'ready' || row.chunk_count !== 1 || row.passages !== 1), [], 'each source ready with one passage');
    const stats = await sql<{ passage_count: number }>`select passage_count from agent_stats where agent_id = ${agent}`.execute(service.ctx.db);
    assert.equal(Number(stats.rows[0]?.passage_count), SOURCES, 'the statistics count each passage once');
    const agentRow = await service.api('GET', `/agents/${agent}`, { key: ws.keys.manage });
    assert.ok(agentRow.body.data.lastTrainedAt, 'the agent shows as trained once the batch is done');
  });

  test('a source with nothing to index in a batch fails alone as no_content; the others of the batch are ready', async () => {
    const agent = await seedAgent(service, ws, 'Mixed batch');
    const empty = await insertPending(agent, '   \n  ');
    const full = [await insertPending(agent, 'Opening hours: nine to five.'), await insertPending(agent, 'Returns within thirty days.')];
    await queueReads(service.ctx, [empty, ...full].map((id) => ({ id, generation: 0 })));
    await waitUntil('every source is settled', async () => (await pendingCount(agent)) === 0);
    const rows = await service.ctx.db.selectFrom('sources').select(['id', 'status', 'error']).where('agent_id', '=', agent).execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    assert.deepEqual({ status: byId.get(empty)!.status, error: byId.get(empty)!.error }, { status: 'failed', error: 'no_content' });
    for (const id of full) assert.equal(byId.get(id)!.status, 'ready');
  });

  async function insertPending(agent: string, content: string): Promise<string> {
    const id = `src_${Math.random().toString(36).slice(2, 14)}`;
    await service.ctx.db
      .insertInto('sources')
      .values({ id, workspace_id: ws.id, agent_id: agent, type: 'text', name: 'Inserted', status: 'pending', size_bytes: content.length, content, generation: 0, queued_at: new Date(), created_at: new Date() } as never)
      .execute();
    return id;
  }

  async function pendingCount(agent: string): Promise<number> {
    const row = await sql<{ n: number }>`select count(*)::int as n from sources where agent_id = ${agent} and status = 'pending'`.execute(service.ctx.db);
    return Number(row.rows[0]!.n);
  }
});

async function waitUntil(what: string, done: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
