import path from 'node:path';
import type { Config } from './config.ts';
import type { Clock } from './platform/clock.ts';
import { SettableClock, systemClock } from './platform/clock.ts';
import type { Database, Db } from './platform/db.ts';
import { openEmbedded, openPostgres } from './platform/db.ts';
import { migrate } from './platform/migrate.ts';
import { followClockOffset } from './platform/shared-clock.ts';
import { startEmbeddedVacuum } from './platform/embedded-vacuum.ts';
import { memoryLimiter, redisLimiter, type RateLimiter } from './platform/limiter.ts';
import type { SharedRedis } from './platform/redis.ts';
import { memoryVersions, redisVersions, uncachedVersions, type Versions } from './platform/versions.ts';
import { createMailer, type Mailer } from './platform/mail.ts';
import { createQueue, type Queue } from './platform/queue.ts';
import { createModelCatalogue, type ModelCatalogue } from './modules/workspace/models.ts';
import type { SafeFetch } from './platform/safe-fetch.ts';
import { checkUrl } from './platform/safe-address.ts';
import { firstUse } from './platform/first-use.ts';
import { createFileReader, type FileReader } from './platform/file-reader.ts';

/** Everything a service verb may need, wired once and passed down. */
export interface Context {
  config: Config;
  clock: Clock;
  /** Present only with PARLEY_TEST_CLOCK=1 (or in tests). */
  testClock: SettableClock | undefined;
  database: Database;
  db: Db;
  /** Present only with REDIS_URL. */
  redis: SharedRedis | undefined;
  limiter: RateLimiter;
  versions: Versions;
  mailer: Mailer;
  queue: Queue;
  models: ModelCatalogue;
  safeFetch: SafeFetch;
  /** The bounded reader of untrusted files, with this process's bound on reads at once. */
  fileReader: FileReader;
  /** Work to run when the process stops, in reverse order of registration. */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** Tests hand in a database opened from a prepared template. */
  database?: Database;
}

/**
 * One full collection once the database is open and migrated. On a first embedded start
 * PGlite runs initdb in instances of its own, a few hundred MB that nothing references
 * afterwards but that an idle process would otherwise keep until some later collection.
 * `npm start` passes --expose-gc for this; without it nothing happens.
 */
function releaseStartUpMemory(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The composition root. */
export async function createContext(config: Config, options: ContextOptions = {}): Promise<Context> {
  const closers: Array<() => Promise<void>> = [];
  const testClock = config.testClock ? new SettableClock() : undefined;
  const clock = testClock ?? systemClock;
  const database =
    options.database ?? (config.databaseUrl ? await openPostgres(config.databaseUrl) : await openEmbedded(`${config.dataDir}/db`));
  closers.push(() => database.close());
  if (database.kind === 'embedded') closers.push(startEmbeddedVacuum(database));
  await migrate(database);
  if (testClock) closers.push(await followClockOffset(database.db, testClock));
  // An api process only sends jobs: pg-boss loads with its first send.
  const queue = await createQueue(database, { startAtFirstUse: config.role === 'api' });
  releaseStartUpMemory();
  // ioredis loads only with REDIS_URL.
  const redis = config.redisUrl ? (await import('./platform/redis.ts')).connectRedis(config.redisUrl, config.redisKeyPrefix) : undefined;
  if (redis) closers.push(() => redis.close());
  const limiter = redis ? redisLimiter(config.rateLimitPerMinute, clock, redis) : memoryLimiter(config.rateLimitPerMinute, clock);
  closers.push(() => limiter.close());
  // The embedded database is one process's, so a counter in memory is exact there.
  const fileReader = createFileReader({ concurrency: config.fileReadConcurrency, compileCacheDir: path.join(config.dataDir, 'reader-compile-cache') });
  closers.push(() => fileReader.close());
  // Closed in reverse: the jobs running finish before the file reader, Redis and the database they use are closed.
  closers.push(() => queue.stop());
  const versions = redis ? redisVersions(redis) : database.kind === 'embedded' ? memoryVersions() : uncachedVersions();
  return {
    config,
    clock,
    testClock,
    database,
    db: database.db,
    redis,
    limiter,
    versions,
    mailer: createMailer(config.smtpUrl, database.db, clock, queue),
    queue,
    models: createModelCatalogue(config.extraModels, Boolean(config.openaiBaseUrl || config.openaiApiKey)),
    safeFetch: safeFetchAtFirstUse(config.allowPrivateUrls),
    fileReader,
    onClose: (fn) => void closers.push(fn),
    close: async () => {
      for (const close of closers.reverse()) await close().catch((error) => console.error('[close]', error));
    },
  };
}

/** The HTTP client (undici, about 10 MB) is loaded by the first outbound request; checking an address needs none of it. */
function safeFetchAtFirstUse(allowPrivate: boolean): SafeFetch {
  const client = firstUse(async () => (await import('./platform/safe-fetch.ts')).createSafeFetch({ allowPrivate }));
  return {
    fetch: async (url, request) => (await client()).fetch(url, request),
    check: (url) => checkUrl(url, allowPrivate),
  };
}
