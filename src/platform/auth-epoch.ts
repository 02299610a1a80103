import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A counter that moves whenever something that authentication depends on
 * changes (a key revoked, a workspace stopped, moved to another plan or given a
 * hostname). Authentication caches what it looked up together with the epoch
 * it read first, and trusts the cache only while the epoch is unchanged, so a
 * revocation takes effect on the very next request in every process.
 */
export interface AuthEpoch {
  read(): Promise<string>;
  bump(): Promise<void>;
}

/** One process (the embedded mode): the counter lives here. */
export function memoryEpoch(): AuthEpoch {
  let epoch = 0;
  return { read: async () => String(epoch), bump: async () => void epoch++ };
}

/** Several processes: the counter lives in Redis; its GET rides in the same pipeline as the rate-limit count. */
export function redisEpoch(redis: Redis): AuthEpoch {
  const key = 'parley:auth-epoch';
  return {
    read: async () => (await redis.get(key)) ?? '0',
    bump: async () => void (await redis.incr(key)),
  };
}

/** Several processes and nothing shared to hold a counter: every read differs, so nothing is cached. */
export function neverCachedEpoch(): AuthEpoch {
  return { read: async () => randomUUID(), bump: async () => {} };
}
