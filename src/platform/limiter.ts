import { Redis, type Result } from 'ioredis';
import type { Clock } from './clock.ts';

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
    close: async () => {},
  };
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    countRateWindow(key: string, windowMs: number): Result<number, Context>;
  }
}

/** INCR, and on a window's first request its expiry, as one command (a script): the cheapest exact count. */
const COUNT_RATE_WINDOW = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** For several API processes: one counter per key and window in Redis, exact across processes. */
export function redisLimiter(limit: number, clock: Clock, redis: Redis): RateLimiter {
  redis.defineCommand('countRateWindow', { numberOfKeys: 1, lua: COUNT_RATE_WINDOW });
  return {
    hit: async (identity) => {
      const { index, resetSeconds } = windowOf(clock.now().getTime());
      const count = await redis.countRateWindow(`parley:rl:${identity}:${index}`, WINDOW_MS * 2);
      return resultOf(count, limit, resetSeconds);
    },
    close: async () => {},
  };
}

/** One connection for the service's Redis work; auto-pipelining sends what one request issues together in one round trip. */
export function connectRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
}
