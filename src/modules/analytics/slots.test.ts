import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { compactPastDays, dayRows } from './store.ts';

/** Migration 050 keeps an agent's day in up to 16 rows (slots); the worker's job folds the past days into one row each. */
let service: Service;
let ws: SeededWorkspace;

before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ plan: 'enterprise' });
});
after(async () => service?.close());

const PERIOD = { from: '2026-05-01', to: '2026-05-31' };

/** Adds a row of figures to the agent's day in a slot, as a transaction given that slot would. */
async function addToSlot(agentId: string, day: string, slot: number, figures: { questions: number; answers: number; confidence_sum: number; helpful: number }) {
  await sql`insert into analytics_days (agent_id, day, slot, questions, answers, confidence_sum, confidence_count, helpful)
    values (${agentId}, ${day}::date, ${slot}::smallint, ${figures.questions}::integer, ${figures.answers}::integer, ${figures.confidence_sum}, ${figures.answers}::integer, ${figures.helpful}::integer)`.execute(service.ctx.db);
}

async function slotsOf(agentId: string): Promise<Array<{ day: string; slots: number[] }>> {
  const { rows } = await sql<{ day: string; slots: number[] }>`
    select to_char(day, 'YYYY-MM-DD') as day, array_agg(slot order by slot) as slots
    from analytics_days where agent_id = ${agentId} group by day order by day`.execute(service.ctx.db);
  return rows.map((row) => ({ day: row.day, slots: row.slots.map(Number) }));
}

test('folding the past days leaves each of them in one row with the same sums, and today\'s slots as they were', async () => {
  const agentId = await seedAgent(service, ws);
  const other = await seedAgent(service, ws);
  for (const [day, slots] of [['2026-05-10', [0, 3, 7, 15]], ['2026-05-11', [2, 9]], ['2026-05-12', [0, 4]]] as const) {
    for (const slot of slots) {
      await addToSlot(agentId, day, slot, { questions: slot + 1, answers: slot + 2, confidence_sum: 10 * slot + 5, helpful: slot % 2 });
      await addToSlot(other, day, slot, { questions: 1, answers: 1, confidence_sum: 80, helpful: 1 });
    }
  }
  const before = [await dayRows(service.ctx.db, agentId, PERIOD), await dayRows(service.ctx.db, other, PERIOD)];

  assert.equal(await compactPastDays(service.ctx.db, '2026-05-12'), 2 * (3 + 2));
  assert.deepEqual(await slotsOf(agentId), [{ day: '2026-05-10', slots: [0] }, { day: '2026-05-11', slots: [0] }, { day: '2026-05-12', slots: [0, 4] }]);
  assert.deepEqual(await slotsOf(other), await slotsOf(agentId));
  assert.deepEqual([await dayRows(service.ctx.db, agentId, PERIOD), await dayRows(service.ctx.db, other, PERIOD)], before);

  assert.equal(await compactPastDays(service.ctx.db, '2026-05-12'), 0, 'a second fold finds nothing to fold');
  assert.deepEqual([await dayRows(service.ctx.db, agentId, PERIOD), await dayRows(service.ctx.db, other, PERIOD)], before);
});
