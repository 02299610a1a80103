/**
 * The composition root's shutdown (src/context.ts): what a running job uses is closed only after the job ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startService } from '../test/support/harness.ts';

test('a job running when the service closes finishes with Redis and the database still open', async () => {
  const service = await startService();
  const { ctx } = service;
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const outcome: { redis?: string | null; database?: number; error?: unknown } = {};
  await ctx.queue.define('test.closing', { retryLimit: 0 });
  await ctx.queue.work('test.closing', async () => {
    started();
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      if (ctx.redis) outcome.redis = await ctx.redis.client.set('parley:test:closing', '1', 'EX', 60, 'GET');
      outcome.database = (await ctx.database.executeSql('select 1 as one')).rows.length;
    } catch (error) {
      outcome.error = error;
    }
  });
  await ctx.queue.send('test.closing', {});
  await running;
  await service.close();
  assert.equal(outcome.error, undefined, String(outcome.error));
  assert.equal(outcome.database, 1);
  if (ctx.redis) assert.ok('redis' in outcome, 'the job reached Redis');
});
