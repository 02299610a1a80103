import { PgBoss } from 'pg-boss';
import type { Database } from './db.ts';
import { underMigrationLock } from './migrate.ts';

export interface JobOptions {
  /** Seconds to wait before the job may start. */
  startAfterSeconds?: number;
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A job with the same key that is still waiting is not queued twice. */
  singletonKey?: string;
}

export type JobHandler<T> = (data: T, job: { id: string; retryCount: number }) => Promise<void>;

/**
 * Background jobs on the service's own database (pg-boss), so an accepted job
 * survives a restart and several workers share the work.
 */
export interface Queue {
  /** Declares a kind of job; every process declares the kinds before sending. */
  define(name: string, options?: { retryLimit?: number; retryDelaySeconds?: number; expireInSeconds?: number; heartbeatSeconds?: number }): Promise<void>;
  send<T extends object>(name: string, data: T, options?: JobOptions): Promise<string | null>;
  /** Starts working on a kind of job in this process (worker role only). */
  work<T>(name: string, handler: JobHandler<T>, options?: { concurrency?: number }): Promise<void>;
  stop(): Promise<void>;
}

export async function createQueue(database: Database): Promise<Queue> {
  const boss = new PgBoss({
    // With listen, a job sent wakes the workers of its queue at once (pg-boss's LISTEN/NOTIFY, in every
    // process on PostgreSQL, in the one process on the embedded store); the polling below stays as the floor.
    db: { executeSql: database.executeSql, listen: database.listen },
    useListenNotify: true,
    backend: database.kind === 'embedded' ? 'pglite' : 'postgres',
    schema: 'pgboss',
  });
  boss.on('error', (error: unknown) => console.error('[queue]', error));
  // pg-boss installs its schema on the first start: under the migrations' lock, one process at a time.
  await underMigrationLock(database, () => boss.start());
  const defined = new Set<string>();
  return {
    define: async (name, options = {}) => {
      if (defined.has(name)) return;
      await boss.createQueue(name, {
        retryLimit: options.retryLimit ?? 3,
        retryDelay: options.retryDelaySeconds ?? 5,
        retryBackoff: true,
        expireInSeconds: options.expireInSeconds ?? 15 * 60,
        ...(options.heartbeatSeconds ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
        notify: true,
      });
      // A queue made before jobs woke their workers is switched over too (createQueue leaves an existing queue as it is).
      await boss.updateQueue(name, { notify: true } as never);
      defined.add(name);
    },
    send: (name, data, options = {}) =>
      boss.send(
        name,
        data,
        withoutUndefined({
          startAfter: options.startAfterSeconds,
          retryLimit: options.retryLimit,
          retryDelay: options.retryDelaySeconds,
          singletonKey: options.singletonKey,
        }),
      ),
    // Polled every half second also while woken by NOTIFY (pg-boss would relax to 30 s): a job made
    // due by time (startAfter, a retry's delay) sends no NOTIFY.
    async work<T>(name: string, handler: JobHandler<T>, options: { concurrency?: number } = {}) {
      await boss.work<T>(name, { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5, batchSize: 1, localConcurrency: options.concurrency ?? 1 }, async (jobs) => {
        for (const job of jobs) await handler(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
      });
    },
    stop: () => boss.stop({ graceful: true, timeout: 5_000 } as never),
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
