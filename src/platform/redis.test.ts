import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connectRedis, type SharedRedis } from './redis.ts';

const redisUrl = process.env.TEST_REDIS_URL;

async function withRedis(work: (redis: SharedRedis) => Promise<void>): Promise<void> {
  const redis = connectRedis(redisUrl!);
  try {
    await work(redis);
  } finally {
    await redis.close();
  }
}

/** Counts the round trips (pipelines sent) the connection makes. */
function countRoundTrips(redis: SharedRedis): () => number {
  let sent = 0;
  const pipeline = redis.client.pipeline.bind(redis.client);
  redis.client.pipeline = ((...args: Parameters<typeof pipeline>) => {
    sent++;
    return pipeline(...args);
  }) as typeof redis.client.pipeline;
  return () => sent;
}

describe('batched Redis calls (platform/redis.ts)', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, () => {
  test('the calls of one turn, from several batches, share one round trip and get their own results in order', () =>
    withRedis(async (redis) => {
      const roundTrips = countRoundTrips(redis);
      const key = `parley:test:${randomUUID()}`;
      const increment = redis.batch<number, number>((pipeline, amounts) => {
        for (const amount of amounts) pipeline.incrby(key, amount);
        return { commands: amounts.length, read: (totals) => totals as number[] };
      });
      const echo = redis.batch<string, string>((pipeline, words) => {
        pipeline.echo(words.join(' '));
        return { commands: 1, read: ([joined]) => words.map((word, i) => `${word}:${String(joined).split(' ')[i]}`) };
      });
      const results = await Promise.all([increment(1), echo('a'), increment(10), echo('b')]);
      assert.deepEqual(results, [1, 'a:a', 11, 'b:b']);
      assert.equal(roundTrips(), 1);
      assert.equal(await increment(100), 111, 'a later call goes out in the next turn');
      assert.equal(roundTrips(), 2);
    }));

  test('a command that fails fails the calls of its own batch only', () =>
    withRedis(async (redis) => {
      const key = `parley:test:${randomUUID()}`;
      await redis.client.set(key, 'not a number');
      const broken = redis.batch<string, number>((pipeline, items) => {
        pipeline.incr(key);
        return { commands: 1, read: ([value]) => items.map(() => value as number) };
      });
      const working = redis.batch<string, string>((pipeline, items) => {
        pipeline.echo('ok');
        return { commands: 1, read: ([value]) => items.map(() => String(value)) };
      });
      const [failed, fine] = await Promise.allSettled([broken('x'), working('y')]);
      assert.equal(failed.status, 'rejected');
      assert.deepEqual(fine, { status: 'fulfilled', value: 'ok' });
    }));
});
