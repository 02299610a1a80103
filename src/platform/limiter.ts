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
  close(): Promise<void>;
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
  return {
    hit: async (identity) => {
      const { index, resetSeconds } = windowOf(clock.now().getTime());
      if (index !== currentWindow) {
        currentWindow = index;
        counts = new Map();
      }
      const count = (counts.get(identity) ?? 0) + 1;
      counts.set(identity, count);
      return resultOf(count, limit, resetSeconds);
    },
    release: async (identity, countedAt) => {
      const count = counts.get(identity);
      if (windowOf(countedAt.getTime()).index !== currentWindow || count === undefined) return;
      counts.set(identity, Math.max(0, count - 1));
    },
    current: async (identity) => (windowOf(clock.now().getTime()).index === currentWindow ? (counts.get(identity) ?? 0) : 0),
    close: async () => {},
  };
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    countRateWindows(keyCount: number, ...keysThenArgs: Array<string | number>): Result<number[], Context>;
    releaseRateWindow(key: string): Result<number, Context>;
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
 * had been counted alone. The current counts read in a turn (`current`) are read with one MGET in the same write.
 */
export function redisLimiter(limit: number, clock: Clock, redis: SharedRedis): RateLimiter {
  redis.client.defineCommand('countRateWindows', { lua: COUNT_RATE_WINDOWS });
  redis.client.defineCommand('releaseRateWindow', { lua: RELEASE_RATE_WINDOW, numberOfKeys: 1 });
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
  // A turn's reads go with its counts in one write (the visitor API reads the address's noise count on every request).
  const read = redis.batch<string, number>(async (client, windowKeys) => (await client.mget(...windowKeys)).map((count) => Number(count ?? 0)));
  return {
    hit: async (identity) => {
      const { index, resetSeconds } = windowOf(clock.now().getTime());
      return resultOf(await count(windowKey(identity, index)), limit, resetSeconds);
    },
    release: async (identity, countedAt) => {
      await redis.client.releaseRateWindow(windowKey(identity, windowOf(countedAt.getTime()).index));
    },
    current: (identity) => read(windowKey(identity, windowOf(clock.now().getTime()).index)),
    close: async () => {},
  };
}

function windowKey(identity: string, index: number): string {
  return `parley:rl:${identity}:${index}`;
}
