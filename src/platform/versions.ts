import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Counters that move whenever something a cache depends on changes. A reader
 * caches what it looked up together with the versions it read first, and
 * trusts the copy only while they are unchanged; every process reads the same
 * counters, so a change takes effect on the very next request everywhere.
 *
 * - `auth`: what authentication depends on (a key revoked or deleted, a
 *   workspace stopped, moved to another plan or given a hostname).
 * - `workspace:<id>`: what GET /workspace reports (name, plan, agents, credits).
 */
export interface Versions {
  /** The current values, in the order asked, in one round trip. */
  read(names: readonly string[]): Promise<string[]>;
  bump(name: string): Promise<void>;
}

export const versionNames = {
  auth: 'auth',
  workspace: (workspaceId: string) => `workspace:${workspaceId}`,
};

/** One process (the embedded mode): the counters live here. */
export function memoryVersions(): Versions {
  const counters = new Map<string, number>();
  return {
    read: async (names) => names.map((name) => String(counters.get(name) ?? 0)),
    bump: async (name) => void counters.set(name, (counters.get(name) ?? 0) + 1),
  };
}

/** Several processes: the counters live in Redis; one MGET rides in the same pipeline as the rate-limit count. */
export function redisVersions(redis: Redis): Versions {
  const keyOf = (name: string) => `parley:version:${name}`;
  return {
    read: async (names) => (await redis.mget(names.map(keyOf))).map((value) => value ?? '0'),
    bump: async (name) => void (await redis.incr(keyOf(name))),
  };
}

/** Several processes and nothing shared to hold a counter: every read differs, so nothing is cached. */
export function uncachedVersions(): Versions {
  return { read: async (names) => names.map(() => randomUUID()), bump: async () => {} };
}
