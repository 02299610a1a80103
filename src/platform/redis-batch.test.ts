import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectRedis } from './limiter.ts';
import { batchedRedis } from './redis-batch.ts';

const redisUrl = process.env.TEST_REDIS_URL;

describe('batched Redis commands (platform/redis-batch.ts)', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, () => {
  test('commands issued while a batch is out all get their own replies, in order', async () => {
    const redis = connectRedis(redisUrl!);
    try {
      const send = batchedRedis(redis);
      const key = `parley:test:batch:${Math.random().toString(36).slice(2)}`;
      const counts = await Promise.all(Array.from({ length: 50 }, () => send<number>((pipeline) => pipeline.incr(key))));
      assert.deepEqual(counts, Array.from({ length: 50 }, (_, i) => i + 1));
      await redis.del(key);
    } finally {
      await redis.quit();
    }
  });

  test('a failing command rejects only its own caller', async () => {
    const redis = connectRedis(redisUrl!);
    try {
      const send = batchedRedis(redis);
      const key = `parley:test:batch:${Math.random().toString(36).slice(2)}`;
      await redis.set(key, 'not a number');
      const [good, bad] = await Promise.allSettled([send((pipeline) => pipeline.get(key)), send((pipeline) => pipeline.incr(key))]);
      assert.deepEqual(good, { status: 'fulfilled', value: 'not a number' });
      assert.equal(bad.status, 'rejected');
      await redis.del(key);
    } finally {
      await redis.quit();
    }
  });
});
