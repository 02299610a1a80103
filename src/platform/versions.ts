import { randomUUID } from 'node:crypto';
import type { SharedRedis } from './redis.ts';

/**
 * Values that change whenever something a cache depends on changes. A reader
 * caches what it looked up together with the versions it read first, and
 * trusts the copy only while they are unchanged (and for at most a minute);
 * every process reads the same values, so a change takes effect on the very
 * next request everywhere.
 *
 * - `auth`: what authentication depends on (a key revoked or deleted, a
 *   workspace stopped, moved to another plan or given a hostname).
 * - `workspace:<id>`: what GET /workspace reports (name, plan, agents, credits).
 * - `agents:<workspace id>`: the rows of the workspace's agents (settings, status,
 *   last trained), read for every answer.
 */
export interface Versions {
  /** The current values, in the order asked, in one round trip. */
  read(names: readonly string[]): Promise<string[]>;
  bump(name: string): Promise<void>;
}

export const versionNames = {
  auth: 'auth',
  workspace: (workspaceId: string) => `workspace:${workspaceId}`,
  agents: (workspaceId: string) => `agents:${workspaceId}`,
};

const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Per-process copies of looked-up values, each stored with a stamp made of the
 * versions read before the lookup. A copy is current while the stamp read now
 * is the same, and for at most a minute of real time (not the service clock):
 * that bounds how long a lost bump can go unnoticed.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, { stamp: string; storedAt: number; value: T }>();

  /** The stored value, current or not: it may tell which versions to read. */
  peek(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  /** The stored value if it was stored with this stamp, less than a minute ago. */
  current(key: string, stamp: string): T | undefined {
    const entry = this.entries.get(key);
    return entry && entry.stamp === stamp && Date.now() - entry.storedAt < MAX_AGE_MS ? entry.value : undefined;
  }

  set(key: string, stamp: string, value: T): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { stamp, storedAt: Date.now(), value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** One process (the embedded mode): the counters live here. */
export function memoryVersions(): Versions {
  const counters = new Map<string, number>();
  return {
    read: async (names) => names.map((name) => String(counters.get(name) ?? 0)),
    bump: async (name) => void counters.set(name, (counters.get(name) ?? 0) + 1),
  };
}

/**
 * Several processes: the versions live in Redis. A bump writes a new random
 * value rather than counting up, so a Redis that restarts from an old snapshot
 * (or empty) can never hand back a value a cache saw before; a missing value is
 * created on first read. A bump that fails (Redis away) is logged, not thrown:
 * the change is committed already, and every cache trusts a copy for at most a
 * minute.
 */
export function redisVersions(redis: SharedRedis): Versions {
  const keyOf = (name: string) => `parley:version:${name}`;
  // SET NX GET: the value another process created first, or ours.
  const create = async (name: string) => {
    const fresh = randomUUID();
    return (await redis.client.set(keyOf(name), fresh, 'NX', 'GET')) ?? fresh;
  };
  // The reads of one event-loop turn are one MGET of the names they ask for.
  const read = redis.batch<readonly string[], string[]>(async (client, requests) => {
    const names = [...new Set(requests.flat())];
    const found = await client.mget(names.map(keyOf));
    // A name seen for the first time (or lost with Redis' data) is created; the rest need no further round trip.
    const values = found.includes(null) ? await Promise.all(names.map((name, i) => found[i] ?? create(name))) : (found as string[]);
    const byName = new Map(names.map((name, i) => [name, values[i]!]));
    return requests.map((asked) => asked.map((name) => byName.get(name)!));
  });
  // The bumps of one turn are one MSET (a name bumped twice in the turn gets one new value), sent in the same write as
  // the turn's other batched commands: every answer bumps its workspace's version after the charge.
  const bumpAll = redis.batch<string, void>(async (client, names) => {
    const unique = [...new Set(names)];
    await client.mset(unique.flatMap((name) => [keyOf(name), randomUUID()]));
    return names.map(() => undefined);
  });
  return {
    read,
    bump: async (name) => {
      await bumpAll(name).catch((error: unknown) => console.error(`[versions] could not bump ${name}:`, error));
    },
  };
}

/** Several processes and nothing shared to hold a counter: every read differs, so nothing is cached. */
export function uncachedVersions(): Versions {
  return { read: async (names) => names.map(() => randomUUID()), bump: async () => {} };
}
