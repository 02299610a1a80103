import type { Result } from 'ioredis';
import type { Clock } from './clock.ts';
import type { SharedRedis } from './redis.ts';

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * Fixed one-minute windows per identity (a key id). Shared by the REST API and,
 * later, the MCP server so one key has one budget.
 */
export interface RateLimiter {
  hit(identity: string): Promise<LimitResult>;
  /**
   * Gives back one request counted at `countedAt`, while its window lasts (a
   * request that turned out to be noise, such as an invalid body, uses no budget).
   */
  release(identity: string, countedAt: Date): Promise<void>;
  /** The identity's count in the current window, without counting anything. */
  current(identity: string): Promise<number>;
  /**
   * Counts a request as `hit` does unless the guard's count in the current window is above its
   * bound: then nothing is counted and the result is undefined. In Redis the read and the count
   * are one script call (one round trip where `current` then `hit` take two).
   */
  hitUnless(identity: string, guard: Guard): Promise<LimitResult | undefined>;
  close(): Promise<void>;
}

/** Another identity's count that stops a request from being counted; its limiter shares the store (the same Redis). */
export interface Guard {
  limiter: RateLimiter;
  identity: string;
  bound: number;
}

const WINDOW_MS = 60_000;

function windowOf(now: number): { index: number; resetSeconds: number } {
  const index = Math.floor(now / WINDOW_MS);
  return { index, resetSeconds: Math.max(1, Math.ceil(((index + 1) * WINDOW_MS - now) / 1000)) };
}

function resultOf(count: number, limit: number, resetSeconds: number): LimitResult {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/** For one process (the embedded mode): counters in memory, old windows dropped as they pass. */
export function memoryLimiter(limit: number, clock: Clock): RateLimiter {
  let currentWindow = -1;
  let counts = new Map<string, number>();
  const hit = async (identity: string): Promise<LimitResult> => {
    const { index, resetSeconds } = windowOf(clock.now().getTime());
    if (index !== currentWindow) {
      currentWindow = index;
      counts = new Map();
    }
    const count = (counts.get(identity) ?? 0) + 1;
    counts.set(identity, count);
    return resultOf(count, limit, resetSeconds);
  };
  return {
    hit,
    release: async (identity, countedAt) => {
      const count = counts.get(identity);
      if (windowOf(countedAt.getTime()).index !== currentWindow || count === undefined) return;
      counts.set(identity, Math.max(0, count - 1));
    },
    current: async (identity) => (windowOf(clock.now().getTime()).index === currentWindow ? (counts.get(identity) ?? 0) : 0),
    hitUnless: async (identity, guard) => ((await guard.limiter.current(guard.identity)) > guard.bound ? undefined : hit(identity)),
    close: async () => {},
  };
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    countRateWindows(keyCount: number, ...keysThenArgs: Array<string | number>): Result<number[], Context>;
    releaseRateWindow(key: string): Result<number, Context>;
    countGuardedWindows(keyCount: number, ...keysThenArgs: Array<string | number>): Result<number[], Context>;
  }
}

/**
 * Counts several windows at once: KEYS are the windows, ARGV[1] their expiry
 * and ARGV[i + 1] the number of requests for KEYS[i]. A window gets its expiry
 * on its first requests. Returns each window's count after adding.
 */
const COUNT_RATE_WINDOWS = `local counts = {}
for i, key in ipairs(KEYS) do
  local added = tonumber(ARGV[i + 1])
  local count = redis.call('INCRBY', key, added)
  if count == added then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = count
end
return counts`;

/**
 * Counts one request in each of several windows unless its guard's window is above a bound:
 * KEYS[2i - 1] is the i-th request's window and KEYS[2i] its guard's, ARGV[1] the expiry and
 * ARGV[i + 1] the i-th guard's bound. In order, so each request sees the ones before it.
 * Returns each window's count after adding, or -1 where the guard refused (nothing counted).
 */
const COUNT_GUARDED_WINDOWS = `local counts = {}
for i = 1, #KEYS / 2 do
  local key = KEYS[2 * i - 1]
  if tonumber(redis.call('GET', KEYS[2 * i]) or 0) > tonumber(ARGV[i + 1]) then
    counts[i] = -1
  else
    local count = redis.call('INCR', key)
    if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
    counts[i] = count
  end
end
return counts`;

/** One request less in a window that still exists (an expired window is not brought back). */
const RELEASE_RATE_WINDOW = `if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0`;

/**
 * For several API processes: one counter per key and window in Redis, exact
 * across processes. The requests of one event-loop turn are counted with one
 * script call: a window counted n times in a turn goes up by n at once, and
 * its requests get the counts in between in the order they came, as if each
 * had been counted alone.
 */
export function redisLimiter(limit: number, clock: Clock, redis: SharedRedis): RateLimiter {
  redis.client.defineCommand('countRateWindows', { lua: COUNT_RATE_WINDOWS });
  redis.client.defineCommand('releaseRateWindow', { lua: RELEASE_RATE_WINDOW, numberOfKeys: 1 });
  redis.client.defineCommand('countGuardedWindows', { lua: COUNT_GUARDED_WINDOWS });
  const count = redis.batch<string, number>(async (client, windowKeys) => {
    const added = new Map<string, number>();
    for (const key of windowKeys) added.set(key, (added.get(key) ?? 0) + 1);
    const totals = await client.countRateWindows(added.size, ...added.keys(), WINDOW_MS * 2, ...added.values());
    const next = new Map([...added].map(([key, n], i) => [key, totals[i]! - n + 1]));
    return windowKeys.map((key) => {
      const count = next.get(key)!;
      next.set(key, count + 1);
      return count;
    });
  });
  const countGuarded = redis.batch<GuardedWindow, number>(async (client, windows) => {
    const keys = windows.flatMap(({ key, guardKey }) => [key, guardKey]);
    return client.countGuardedWindows(keys.length, ...keys, WINDOW_MS * 2, ...windows.map(({ bound }) => bound));
  });
  return {
    hit: async (identity) => {
      const { index, resetSeconds } = windowOf(clock.now().getTime());
      return resultOf(await count(windowKey(identity, index)), limit, resetSeconds);
    },
    hitUnless: async (identity, guard) => {
      const { index, resetSeconds } = windowOf(clock.now().getTime());
      const counted = await countGuarded({ key: windowKey(identity, index), guardKey: windowKey(guard.identity, index), bound: guard.bound });
      return counted < 0 ? undefined : resultOf(counted, limit, resetSeconds);
    },
    release: async (identity, countedAt) => {
      await redis.client.releaseRateWindow(windowKey(identity, windowOf(countedAt.getTime()).index));
    },
    current: async (identity) => Number((await redis.client.get(windowKey(identity, windowOf(clock.now().getTime()).index))) ?? 0),
    close: async () => {},
  };
}

interface GuardedWindow {
  key: string;
  guardKey: string;
  bound: number;
}

function windowKey(identity: string, index: number): string {
  return `parley:rl:${identity}:${index}`;
}
