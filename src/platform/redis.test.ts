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

/** Counts the writes to the connection's socket (a corked socket writes what it holds at once, with _writev). */
async function countWrites(redis: SharedRedis): Promise<() => number> {
  await redis.client.ping(); // connected: the socket exists
  const socket = redis.client.stream as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method].bind(socket);
    socket[method] = (...args) => {
      writes++;
      original(...args);
    };
  }
  return () => writes;
}

describe('batched Redis calls (platform/redis.ts)', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, () => {
  test('the calls of one turn, from several batches, leave in one write and get their own results in order', () =>
    withRedis(async (redis) => {
      const writes = await countWrites(redis);
      const key = `parley:test:${randomUUID()}`;
      const increment = redis.batch<number, number>((client, amounts) => Promise.all(amounts.map((amount) => client.incrby(key, amount))));
      const echo = redis.batch<string, string>(async (client, words) => {
        const joined = await client.echo(words.join(' '));
        return words.map((word, i) => `${word}:${joined.split(' ')[i]}`);
      });
      const results = await Promise.all([increment(1), echo('a'), increment(10), echo('b')]);
      assert.deepEqual(results, [1, 'a:a', 11, 'b:b']);
      assert.equal(writes(), 1);
      assert.equal(await increment(100), 111, 'a later call goes out in the next turn');
      assert.equal(writes(), 2);
    }));

  test('a command that fails fails the calls of its own batch only', () =>
    withRedis(async (redis) => {
      const key = `parley:test:${randomUUID()}`;
      await redis.client.set(key, 'not a number');
      const broken = redis.batch<string, number>(async (client, items) => {
        const value = await client.incr(key);
        return items.map(() => value);
      });
      const working = redis.batch<string, string>(async (client, items) => {
        const value = await client.echo('ok');
        return items.map(() => value);
      });
      const [failed, fine] = await Promise.allSettled([broken('x'), working('y')]);
      assert.equal(failed.status, 'rejected');
      assert.deepEqual(fine, { status: 'fulfilled', value: 'ok' });
    }));
});
