/**
 * A source's read is held by one worker at a time. The queue may hand the same job (same
 * source, same generation) to a second worker while the first still reads it: the second
 * must leave it alone while the first is alive, and take it once the first is dead (its
 * heartbeat older than the lost-work window). Both stores: the rule is one statement.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { newId } from '../../platform/ids.ts';
import { claimRead, claimReads } from './store.ts';

const LOST_AFTER_SECONDS = 30;

describe('claiming a source read', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;

  before(async () => {
    service = await startService();
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws, 'Claims');
  });
  after(async () => {
    await service?.close();
  });

  const beat = (workerId: string, secondsAgo: number) =>
    sql`insert into worker_heartbeats (worker_id, beat_at) values (${workerId}, now() - make_interval(secs => ${secondsAgo}))
      on conflict (worker_id) do update set beat_at = excluded.beat_at`.execute(service.ctx.db);

  async function pendingSource(): Promise<string> {
    const id = newId('src');
    await service.ctx.db
      .insertInto('sources')
      .values({ id, workspace_id: ws.id, agent_id: agent, type: 'text', name: 'held', status: 'pending', size_bytes: 10, content: 'Held text.', generation: 0, queued_at: new Date(), created_at: new Date() } as never)
      .execute();
    return id;
  }

  test('the same job delivered again to another worker leaves a read a live worker holds, and takes a dead worker’s', async () => {
    const [first, second] = [`wrk_${randomUUID()}`, `wrk_${randomUUID()}`];
    await beat(first, 0);
    await beat(second, 0);
    const source = await pendingSource();
    assert.ok(await claimRead(service.ctx.db, source, 0, first, LOST_AFTER_SECONDS), 'the first delivery takes the read');
    assert.equal(await claimRead(service.ctx.db, source, 0, second, LOST_AFTER_SECONDS), undefined, 'a live worker’s read is not taken');
    assert.ok(await claimRead(service.ctx.db, source, 0, first, LOST_AFTER_SECONDS), 'its own read, delivered again, it keeps');
    await beat(first, LOST_AFTER_SECONDS + 5);
    const taken = await claimRead(service.ctx.db, source, 0, second, LOST_AFTER_SECONDS);
    assert.equal(taken?.worker_id, second, 'a dead worker’s read is taken');
  });

  test('a batch of reads is claimed in one statement: the live worker’s and the moved-on generation’s are left out', async () => {
    const [first, second] = [`wrk_${randomUUID()}`, `wrk_${randomUUID()}`];
    await beat(first, 0);
    await beat(second, 0);
    const [free, held, requeued] = [await pendingSource(), await pendingSource(), await pendingSource()];
    assert.ok(await claimRead(service.ctx.db, held, 0, first, LOST_AFTER_SECONDS));
    await service.ctx.db.updateTable('sources').set({ generation: 1 }).where('id', '=', requeued).execute();
    const taken = await claimReads(
      service.ctx.db,
      [free, held, requeued].map((sourceId) => ({ sourceId, generation: 0 })),
      second,
      LOST_AFTER_SECONDS,
    );
    assert.deepEqual(taken.map((source) => [source.id, source.worker_id]), [[free, second]]);
  });
});
