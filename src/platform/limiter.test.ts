import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { memoryLimiter, redisLimiter, type LimitResult, type RateLimiter } from './limiter.ts';
import type { Redis } from 'ioredis';
import { connectRedis, type SharedRedis } from './redis.ts';
import { systemClock, type Clock } from './clock.ts';

const LIMIT = 7;

/**
 * 40 requests at once for two keys (28 and 12, so their totals differ),
 * interleaved and split over the limiters: for each key exactly LIMIT pass,
 * and each remaining figure is given once.
 */
async function assertExactUnderBurst(limiters: RateLimiter[]): Promise<void> {
  const identities = [`key_${randomUUID()}`, `key_${randomUUID()}`];
  const hits = Array.from({ length: 40 }, (_, i) => ({ identity: identities[i % 10 < 7 ? 0 : 1]!, limiter: limiters[i % limiters.length]! }));
  const results: LimitResult[] = await Promise.all(hits.map(({ identity, limiter }) => limiter.hit(identity)));
  for (const identity of identities) {
    const mine = results.filter((_, i) => hits[i]!.identity === identity);
    const allowed = mine.filter((result) => result.allowed);
    assert.equal(allowed.length, LIMIT);
    assert.deepEqual(
      allowed.map((result) => result.remaining).sort(),
      [0, 1, 2, 3, 4, 5, 6],
    );
    assert.ok(mine.filter((result) => !result.allowed).every((result) => result.remaining === 0));
  }
}

/** A request given back frees its place in its window (current() reads the count); one given back after its window ended changes nothing. */
async function assertReleaseFreesAPlace(limiter: (clock: Clock) => RateLimiter): Promise<void> {
  let now = Date.UTC(2026, 10, 26, 12, 0, 10);
  const clock: Clock = { now: () => new Date(now) };
  const rate = limiter(clock);
  const identity = `key_${randomUUID()}`;
  const countedAt = clock.now();
  for (let i = 0; i < LIMIT; i++) assert.equal((await rate.hit(identity)).allowed, true);
  assert.equal((await rate.hit(identity)).allowed, false);
  await rate.release(identity, countedAt);
  await rate.release(identity, countedAt);
  const again = await rate.hit(identity);
  assert.equal(again.allowed, true);
  assert.equal(again.remaining, 0);
  assert.equal(await rate.current(identity), LIMIT);
  now += 60_000;
  assert.equal(await rate.current(identity), 0);
  await rate.release(identity, countedAt);
  assert.equal((await rate.hit(identity)).remaining, LIMIT - 1, 'the new window starts whole, untouched by the old release');
  assert.equal(await rate.current(identity), 1);
}

describe('rate limiter (platform/limiter.ts)', () => {
  test('in memory: a released request frees its place in its window only', () => assertReleaseFreesAPlace((clock) => memoryLimiter(LIMIT, clock)));

  test('in memory: a burst gets exactly the limit through', () => assertExactUnderBurst([memoryLimiter(LIMIT, systemClock)]));

  const redisUrl = process.env.TEST_REDIS_URL;
  test(
    'in Redis: requests counted in one turn, over two connections as two processes, get exactly the limit through',
    { skip: !redisUrl && 'needs TEST_REDIS_URL' },
    () => withRedis(2, (connections) => assertExactUnderBurst(connections.map((redis) => redisLimiter(LIMIT, systemClock, redis)))),
  );

  test('in memory: a request guarded by another count is counted only while that count is within its bound', () =>
    assertGuardedCount(() => {
      const rate = memoryLimiter(LIMIT, systemClock);
      return { rate, guard: memoryLimiter(LIMIT, systemClock) };
    }));

  test(
    'in Redis: a request guarded by another count is counted only while that count is within its bound, the check and the count in one command',
    { skip: !redisUrl && 'needs TEST_REDIS_URL' },
    () =>
      withRedis(1, async ([redis]) => {
        const [rate, guard] = [redisLimiter(LIMIT, systemClock, redis), redisLimiter(LIMIT, systemClock, redis)];
        // The connection made ready and the scripts loaded first, so that only the counting below is counted.
        await rate.hitUnless(`key_${randomUUID()}`, { limiter: guard, identity: `key_${randomUUID()}`, bound: 1 });
        await guard.hit(`key_${randomUUID()}`);
        const commands = countCommands(redis.client);
        await assertGuardedCount(() => ({ rate, guard }));
        // The guard's two hits, and one command for each turn of guarded requests (where a read and a count took two).
        assert.deepEqual(commands(), ['evalsha', 'evalsha', 'evalsha', 'evalsha', 'evalsha']);
      }),
  );

  test('in Redis: a released request frees its place in its window only', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, () =>
    withRedis(1, ([redis]) => assertReleaseFreesAPlace((clock) => redisLimiter(LIMIT, clock, redis))));
});

/** Runs `use` with `count` new connections to the test Redis (as many processes), closed after it. */
async function withRedis(count: number, use: (connections: SharedRedis[]) => Promise<void>): Promise<void> {
  const connections = Array.from({ length: count }, () => connectRedis(process.env.TEST_REDIS_URL!));
  try {
    await use(connections);
  } finally {
    await Promise.all(connections.map((redis) => redis.close()));
  }
}

/**
 * With the guard at 1 (bound 1): two requests counted; with the guard at 2, nothing counted and
 * undefined; once more within bound the count resumes where it was. Requests of one turn see each other.
 */
async function assertGuardedCount(make: () => { rate: RateLimiter; guard: RateLimiter }): Promise<void> {
  const { rate, guard } = make();
  const [counted, guardIdentity] = [`key_${randomUUID()}`, `key_${randomUUID()}`];
  const guarded = { limiter: guard, identity: guardIdentity, bound: 1 };
  await guard.hit(guardIdentity);
  const [first, second] = await Promise.all([rate.hitUnless(counted, guarded), rate.hitUnless(counted, guarded)]);
  assert.deepEqual([first?.remaining, second?.remaining], [LIMIT - 1, LIMIT - 2]);
  await guard.hit(guardIdentity);
  assert.equal(await rate.hitUnless(counted, guarded), undefined, 'beyond the bound: refused');
  assert.equal(await rate.current(counted), 2, 'and not counted');
  assert.equal((await rate.hitUnless(counted, { ...guarded, bound: 2 }))?.remaining, LIMIT - 3);
}

/** The scripts the client runs from now on (the connection's handshake and reads of `current` left out). */
function countCommands(client: Redis): () => string[] {
  const names: string[] = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, ...rest) => {
    if (command.name.startsWith('eval')) names.push(command.name);
    return send(command, ...rest);
  };
  return () => names;
}
