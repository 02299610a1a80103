/**
 * Signs of life of worker processes: each beats its row in worker_heartbeats every few
 * seconds, on the database's clock. Work a worker holds (crawl pages, source reads)
 * carries its id; once its beat is older than PARLEY_LOST_WORK_AFTER_SECONDS the worker
 * counts as dead and its work is taken up again, while a live worker's work, however
 * slow, is never taken from it.
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Database, Db } from './db.ts';

const BEAT_AT_MOST_EVERY_SECONDS = 5;

/** What the heartbeat needs of the service's context. */
interface Beating {
  db: Db;
  database: Pick<Database, 'kind'>;
  config: { lostWorkAfterSeconds: number };
  onClose(fn: () => Promise<void>): void;
}

const workers = new WeakMap<Beating, Promise<string>>();

/** Seconds between beats: several within the lost-work window, so one slow beat does not make a worker dead. */
export function beatEverySeconds(ctx: Beating): number {
  return Math.min(BEAT_AT_MOST_EVERY_SECONDS, Math.max(0.25, ctx.config.lostWorkAfterSeconds / 4));
}

/** This process's worker id, its heartbeat started on the first call (worker role only). */
export function workerId(ctx: Beating): Promise<string> {
  let id = workers.get(ctx);
  if (!id) {
    id = startBeating(ctx);
    workers.set(ctx, id);
  }
  return id;
}

async function startBeating(ctx: Beating): Promise<string> {
  const id = `wrk_${randomUUID()}`;
  // The embedded store is one process's: a worker id left by an earlier start is dead at once.
  if (ctx.database.kind === 'embedded') await sql`delete from worker_heartbeats`.execute(ctx.db);
  await beat(ctx, id);
  const timer = setInterval(() => void beat(ctx, id).catch((error) => console.error('[heartbeat]', error)), beatEverySeconds(ctx) * 1000);
  timer.unref();
  // The row stays: work still in hand while the queue stops gracefully must not be taken meanwhile.
  ctx.onClose(async () => clearInterval(timer));
  return id;
}

async function beat(ctx: Beating, id: string): Promise<void> {
  await sql`insert into worker_heartbeats (worker_id) values (${id})
    on conflict (worker_id) do update set beat_at = now()`.execute(ctx.db);
  // Rows of dead workers only serve to tell they are dead; an hour later nothing refers to them that matters.
  await sql`delete from worker_heartbeats where beat_at < now() - interval '1 hour'`.execute(ctx.db);
}

/** SQL: true when the worker `column` names has beaten within the last `lostAfterSeconds`. */
export function isAlive(column: RawBuilder<unknown>, lostAfterSeconds: number): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from worker_heartbeats h where h.worker_id = ${column}
    and h.beat_at >= now() - make_interval(secs => ${lostAfterSeconds}))`;
}
