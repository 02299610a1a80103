import { randomUUID } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Database, Db } from './db.ts';
import { firstUse } from './first-use.ts';
import { underMigrationLock } from './migrate.ts';

export interface JobOptions {
  /** Seconds to wait before the job may start. */
  startAfterSeconds?: number;
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A job with the same key that is still waiting is not queued twice. */
  singletonKey?: string;
  /** The job's id, chosen by the caller (a UUID), so a row can name its job before the job is sent. */
  id?: string;
}

export type JobHandler<T> = (data: T, job: { id: string; retryCount: number }) => Promise<void>;

export interface BatchJob<T> {
  id: string;
  data: T;
  retryCount: number;
}

/**
 * Handles the jobs of one fetch together and answers each one's outcome: null when it is
 * done, else the error that fails it (retried while it has retries left). A throw fails them all.
 */
export type BatchHandler<T> = (jobs: Array<BatchJob<T>>) => Promise<Map<string, Error | null>>;

/**
 * Background jobs on the service's own database (pg-boss), so an accepted job
 * survives a restart and several workers share the work.
 */
export interface Queue {
  /**
   * Declares a kind of job; every process declares the kinds before sending. `oneWaitingPerKey`: a send whose
   * singletonKey already has a job waiting (not yet started, a delayed one included) is dropped (null); one sent while
   * that job runs is kept (pg-boss's `short` policy).
   */
  define(name: string, options?: { retryLimit?: number; retryDelaySeconds?: number; expireInSeconds?: number; heartbeatSeconds?: number; oneWaitingPerKey?: boolean }): Promise<void>;
  send<T extends object>(name: string, data: T, options?: JobOptions): Promise<string | null>;
  /**
   * Many jobs of one kind in one statement (waking the workers once); their ids, in order.
   * `within` a transaction (a kind defined before it began), the jobs are written and their
   * workers woken only when it commits, and no other statement is needed meanwhile.
   */
  sendMany<T extends object>(name: string, jobs: Array<{ data: T; options?: Omit<JobOptions, 'singletonKey'> }>, options?: { within?: Db }): Promise<string[]>;
  /**
   * Starts working on a kind of job in this process (worker role only). `pollingSeconds`: how often an idle worker
   * looks for jobs made due by time (half a second unless set; a send wakes it at once).
   */
  work<T>(name: string, handler: JobHandler<T>, options?: { concurrency?: number; pollingSeconds?: number }): Promise<void>;
  /**
   * Works on jobs in batches of up to `batchSize`: a fetch claims that many at once, and
   * while fetches come back full the next follows at once (no polling pause between them).
   * After a short batch the worker waits `gatherMs` before it fetches again: jobs arriving
   * one by one, as requests send them, then come as one batch rather than one each (on the
   * one connection of the embedded store each would take turns with the requests).
   */
  workBatches<T>(name: string, handler: BatchHandler<T>, options: { batchSize: number; concurrency?: number; gatherMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

/** How often an idle worker looks for jobs when no send wakes it (a job made due by time sends none). */
const POLLING_SECONDS = 0.5;

/**
 * `startAtFirstUse`: pg-boss is loaded and started by the first call rather than here (an api process only
 * sends jobs, and an idle one need not hold pg-boss: docs/performance.md, Memory).
 */
export async function createQueue(database: Database, options: { pollingSeconds?: number; startAtFirstUse?: boolean } = {}): Promise<Queue> {
  const polling = options.pollingSeconds ?? POLLING_SECONDS;
  const started = firstUse(() => startBoss(database));
  let stopping = false;
  let latestStart: Promise<PgBoss> | undefined;
  const bossFor = (): Promise<PgBoss> => {
    if (stopping) return Promise.reject(new Error('the queue is stopping'));
    latestStart = started();
    return latestStart;
  };
  if (!options.startAtFirstUse) await bossFor();
  const defined = new Set<string>();
  return {
    define: async (name, options = {}) => {
      if (defined.has(name)) return;
      const boss = await bossFor();
      await boss.createQueue(name, {
        retryLimit: options.retryLimit ?? 3,
        retryDelay: options.retryDelaySeconds ?? 5,
        retryBackoff: true,
        expireInSeconds: options.expireInSeconds ?? 15 * 60,
        ...(options.heartbeatSeconds ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
        ...(options.oneWaitingPerKey ? { policy: 'short' as const } : {}),
        notify: true,
      });
      // A queue made before jobs woke their workers is switched over too (createQueue leaves an existing queue as it is).
      await boss.updateQueue(name, { notify: true } as never);
      // Fills pg-boss's cache of the queue again (updateQueue emptied it), so a send within a transaction
      // needs no statement of its own: on the embedded store's one connection it would wait for that transaction.
      await boss.insert(name, []);
      defined.add(name);
    },
    send: async (name, data, options = {}) =>
      (await bossFor()).send(
        name,
        data,
        withoutUndefined({
          startAfter: options.startAfterSeconds,
          retryLimit: options.retryLimit,
          retryDelay: options.retryDelaySeconds,
          singletonKey: options.singletonKey,
          id: options.id,
        }),
      ),
    async sendMany(name, jobs, options = {}) {
      if (jobs.length === 0) return [];
      const within = options.within;
      const ids = jobs.map((job) => job.options?.id ?? randomUUID());
      const boss = await bossFor();
      // Ids chosen here: insert() answers none when asked for none, and rows it skipped would shift positions.
      await boss.insert(
        name,
        jobs.map((job, i) =>
          withoutUndefined({
            id: ids[i],
            data: job.data,
            startAfter: job.options?.startAfterSeconds,
            retryLimit: job.options?.retryLimit,
            retryDelay: job.options?.retryDelaySeconds,
          }),
        ),
        within ? { db: { executeSql: async (text: string, values?: unknown[]) => ({ rows: (await within.executeQuery(CompiledQuery.raw(text, values ?? []))).rows as any[] }) } } : {},
      );
      return ids;
    },
    // Polled every half second also while woken by NOTIFY (pg-boss would relax to 30 s): a job made
    // due by time (startAfter, a retry's delay) sends no NOTIFY. One pg-boss worker a unit of
    // concurrency, each woken by its own job's end: it fetches again at once rather than after the
    // poll, so a backlog is worked through one job after the other without a pause between them.
    async work<T>(name: string, handler: JobHandler<T>, options: { concurrency?: number; pollingSeconds?: number } = {}) {
      const boss = await bossFor();
      const every = options.pollingSeconds ?? polling;
      for (let i = 0; i < (options.concurrency ?? 1); i++) {
        let known!: (id: string) => void;
        const workerId = new Promise<string>((resolve) => (known = resolve));
        known(
          await boss.work<T>(name, { pollingIntervalSeconds: every, notifyPollingIntervalSeconds: every, batchSize: 1 }, async (jobs) => {
            for (const job of jobs) await handler(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
            if (jobs.length > 0) boss.notifyWorker(await workerId);
          }),
        );
      }
    },
    async workBatches<T>(name: string, handler: BatchHandler<T>, options: { batchSize: number; concurrency?: number; gatherMs?: number }) {
      const boss = await bossFor();
      await boss.work<T>(
        name,
        {
          pollingIntervalSeconds: polling,
          notifyPollingIntervalSeconds: polling,
          batchSize: options.batchSize,
          burstWhenBatchFull: true,
          perJobResults: true,
          localConcurrency: options.concurrency ?? 1,
        },
        async (jobs) => {
          const outcomes = await handler(jobs.map((job) => ({ id: job.id, data: job.data, retryCount: job.retryCount ?? 0 })));
          // The jobs' work is done and committed; only the queue's record of them waits.
          if (jobs.length < options.batchSize && options.gatherMs) await new Promise((resolve) => setTimeout(resolve, options.gatherMs));
          return jobs.map((job) => {
            const error = outcomes.get(job.id);
            return error ? { id: job.id, status: 'failed' as const, output: { message: error.message } } : { id: job.id, status: 'completed' as const };
          });
        },
      );
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      // Never started (or its start failed): nothing to stop, and nothing is loaded for it.
      const boss = await latestStart?.catch(() => undefined);
      await boss?.stop({ graceful: true, timeout: 5_000 } as never);
    },
  };
}

async function startBoss(database: Database): Promise<PgBoss> {
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    // With listen, a job sent wakes the workers of its queue at once (pg-boss's LISTEN/NOTIFY, in every
    // process on PostgreSQL, in the one process on the embedded store); the polling stays as the floor.
    db: { executeSql: database.executeSql, listen: database.listen },
    useListenNotify: true,
    backend: database.kind === 'embedded' ? 'pglite' : 'postgres',
    schema: 'pgboss',
  });
  boss.on('error', (error: unknown) => console.error('[queue]', error));
  // pg-boss installs its schema on the first start: under the migrations' lock, one process at a time.
  await underMigrationLock(database, () => boss.start());
  return boss;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
