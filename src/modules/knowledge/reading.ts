/**
 * Reading sources in the background: one durable job (pg-boss) per queued source, so
 * an accepted source survives a crash. A job carries the source's generation; a source
 * queued again since (retrain, recovery) leaves the older job with nothing to do.
 *
 * Workers take the jobs in batches (READ_BATCH a fetch, woken by the queue when jobs are
 * sent): the batch's reads are claimed in one statement and its text, Q&A and website
 * sources indexed in one transaction; files are read one at a time after them.
 *
 * Sources whose text is in their own row need no job: those added through the API and a
 * retrain's (all but files) wait in the row queue (ROW_QUEUED, startRowReaders).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import type { Db } from '../../platform/db.ts';
import type { BatchJob } from '../../platform/queue.ts';
import { agentsChanged } from '../agents/access.ts';
import { indexSourcesText, indexSourceText, NoContentError } from './indexing.ts';
import { workBlocks } from './blocks.ts';
import { FileReadError, readFileText } from './read-file.ts';
import { beatEverySeconds, workerId } from '../../platform/heartbeat.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { claimQueuedRows, claimReads, deleteDeadFileFetches, notifyRowReaders, reclaimLostReads, recordReadJobs, releaseRead, ROW_QUEUE_CHANNEL, ROW_QUEUED, type SourceError, type SourceRow } from './store.ts';

export const READ_SOURCE_JOB = 'knowledge.read-source';
/** Attempts after the first for a passing fault (database, embedding endpoint). */
export const READ_RETRY_LIMIT = 2;
/** Reads a worker takes at once: one claim, one transaction for the small ones among them. */
export const READ_BATCH = 50;
/** Time a batch may spend on its files before it hands the rest on (well within QUEUE_OPTIONS.expireInSeconds). */
const FILES_BUDGET_MS = 2 * 60_000;
/** After a short batch, how long a worker lets reads gather before it fetches again. */
const GATHER_MS = 50;
/** Jobs sent per statement when many sources are queued at once (a retrain, a recovery). */
const SEND_BATCH = 1000;
const QUEUE_OPTIONS = { retryLimit: READ_RETRY_LIMIT, retryDelaySeconds: 5, expireInSeconds: 10 * 60, heartbeatSeconds: 30 };
/** Sources queued less than this long ago are left to the request or crawl lane that queued them. */
const SETTLE_SECONDS = 60;
const SWEEP_EVERY_MS = 60_000;

export interface ReadSourceJob {
  sourceId: string;
  generation: number;
}

function retryDelaySeconds(ctx: Context): number {
  return ctx.config.sourceRetryDelaySeconds;
}

/** A new job id for a source's read: written with the source's row, then given to queueReads. */
export function newReadJobId(): string {
  return randomUUID();
}

type QueuedRead = { id: string; generation: number; jobId?: string };

/** Declares the reading jobs' queue: before queueReads within a transaction, outside it. */
export async function defineReads(ctx: Context): Promise<void> {
  await ctx.queue.define(READ_SOURCE_JOB, QUEUE_OPTIONS);
}

/**
 * Sends a read job for each source, SEND_BATCH to a statement. A source that names
 * `jobId` already holds it in its row (written with the row); the others have theirs
 * recorded after the send. `within` the transaction that stores the sources (defineReads
 * called before it), the jobs are written with them: both or neither.
 */
export async function queueReads(ctx: Context, sources: QueuedRead[], within?: Db): Promise<void> {
  if (sources.length === 0) return;
  await defineReads(ctx);
  const options = { retryLimit: READ_RETRY_LIMIT, retryDelaySeconds: retryDelaySeconds(ctx) };
  for (let start = 0; start < sources.length; start += SEND_BATCH) {
    const slice = sources.slice(start, start + SEND_BATCH);
    const ids = await ctx.queue.sendMany<ReadSourceJob>(
      READ_SOURCE_JOB,
      slice.map((source) => ({ data: { sourceId: source.id, generation: source.generation }, options: { ...options, id: source.jobId } })),
      { within },
    );
    const unrecorded = slice.flatMap((source, i) => (source.jobId ? [] : [{ sourceId: source.id, generation: source.generation, jobId: ids[i]! }]));
    await recordReadJobs(within ?? ctx.db, unrecorded);
  }
}

/**
 * A batch of read jobs: each job's outcome (null when done, else the error that has the
 * queue try it again). Reads another worker still holds, or of sources queued again since,
 * are done with nothing to do.
 */
export async function readSources(ctx: Context, jobs: Array<BatchJob<ReadSourceJob>>, worker: string): Promise<Map<string, Error | null>> {
  const outcomes = new Map<string, Error | null>(jobs.map((job) => [job.id, null]));
  const claimed = await claimReads(ctx.db, jobs.map((job) => job.data), worker, ctx.config.lostWorkAfterSeconds);
  const attemptOf = (source: SourceRow) => {
    const job = jobs.find((j) => j.data.sourceId === source.id && j.data.generation === source.generation)!;
    return { jobId: job.id, retryCount: job.retryCount };
  };
  const texts = claimed.filter((source) => source.type !== 'file');
  const settleEach = async (sources: SourceRow[]) => {
    for (const source of sources) {
      const attempt = attemptOf(source);
      outcomes.set(attempt.jobId, await readOne(ctx, source, attempt, worker));
    }
  };
  if (texts.length > 0) {
    try {
      const indexed = await indexSourcesText(ctx, texts);
      for (const source of texts) if (indexed.get(source.id) === 'no_content') await markFailed(ctx, source.id, source.generation, 'no_content');
    } catch {
      // One at a time, so that a source that cannot be indexed fails alone and a passing fault is retried per source.
      await settleEach(texts);
    }
  }
  const files = claimed.filter((source) => source.type === 'file');
  const started = Date.now();
  for (const [i, file] of files.entries()) {
    if (Date.now() - started > FILES_BUDGET_MS) {
      await handOn(ctx, files.slice(i), worker);
      break;
    }
    await settleEach([file]);
  }
  for (const agentId of new Set(claimed.map((source) => source.agent_id))) await markTrainedWhenDone(ctx, agentId);
  // pg-boss fetches a full batch's successor at once: the same starvation as the row readers'.
  await nextTurnOfEventLoop();
  return outcomes;
}

/**
 * Resolves after the event loop has polled for I/O. On the embedded store every statement is a
 * promise that PGlite settles without I/O, so a reader going from batch to batch never leaves the
 * microtask queue: no request is read, no timer fires, until the queue of rows is empty (a retrain
 * of 1,000 texts starved the HTTP server for 84 s and its idle sockets were closed under the
 * requests waiting on them: ECONNRESET). Between two batches a reader lets the loop take its turn.
 */
function nextTurnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Row readers a worker process runs. On PostgreSQL two, whose statements overlap on connections of their own.
 * On the embedded store one: its statements all take turns on the one connection in the one thread, so a second
 * reader overlaps nothing (the same retrain's time with one or two) and only queues a second batch transaction
 * ahead of a request's statements (the slowest GET during a retrain of 10,000 passages: 8.1 s with two, 4.0 s with one).
 */
export function rowReadersOf(store: 'embedded' | 'postgres'): number {
  return store === 'embedded' ? 1 : 2;
}

/** How often an idle row reader looks for rows without being woken: the floor under the notifications. */
const ROW_POLL_MS = 2_000;

/**
 * One batch of the row queue (text and Q&A sources added through the API, and a retrain's text, Q&A and
 * website sources, carry no job: their pending row is the queue): up to READ_BATCH rows claimed in one
 * statement and indexed in one transaction.
 * Should the batch fail, its sources go to the job queue, each with a job of its own and the queue's
 * retries, so that one source's fault is retried (or fails) alone. The number of sources claimed.
 */
export async function readQueuedRows(ctx: Context, worker: string): Promise<number> {
  const claimed = await claimQueuedRows(ctx.db, worker, READ_BATCH);
  if (claimed.length === 0) return 0;
  try {
    const indexed = await indexSourcesText(ctx, claimed);
    for (const source of claimed) if (indexed.get(source.id) === 'no_content') await markFailed(ctx, source.id, source.generation, 'no_content');
  } catch {
    await handToJobs(ctx, claimed, worker);
  }
  for (const agentId of new Set(claimed.map((source) => source.agent_id))) await markTrainedWhenDone(ctx, agentId);
  return claimed.length;
}

/**
 * Row-queued sources this worker holds, given each a job of the queue instead. They leave the row queue
 * and this worker's hold in one statement (job_id null until the send records the job's id: a row queue
 * reader never takes them again, and should the send not happen the recovery sweep finds no job).
 */
async function handToJobs(ctx: Context, sources: SourceRow[], worker: string): Promise<void> {
  await sql`update sources set worker_id = null, job_id = null
    from unnest(${sources.map((source) => source.id)}::text[], ${sources.map((source) => source.generation)}::int[]) as held(id, generation)
    where sources.id = held.id and sources.generation = held.generation and sources.worker_id = ${worker}`.execute(ctx.db);
  await queueReads(ctx, sources.map((source) => ({ id: source.id, generation: source.generation })));
}

/**
 * The row queue's readers of a worker process: `concurrency` loops, each claiming a batch after another
 * while there are rows, woken by the notification an insert sends at its commit (LISTEN, on PostgreSQL a
 * connection of its own, on the embedded store the one connection), and looking every `pollMs` anyway.
 * After a short batch, or an empty one with a wake-up meanwhile, a reader waits GATHER_MS, so sources posted one
 * by one are read as batches of several.
 */
export async function startRowReaders(ctx: Context, worker: string, options: { concurrency?: number; pollMs?: number } = {}): Promise<{ stop(): Promise<void> }> {
  const pollMs = options.pollMs ?? ROW_POLL_MS;
  let stopped = false;
  // Counts the wake-ups: a reader whose claim came back empty waits only if none came since it claimed.
  let wakeUps = 0;
  const waiting = new Set<() => void>();
  const wake = () => {
    wakeUps++;
    for (const resume of [...waiting]) resume();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const resume = () => {
        clearTimeout(timer);
        waiting.delete(resume);
        resolve();
      };
      const timer = setTimeout(resume, ms);
      waiting.add(resume);
    });
  const listener = await ctx.database.listen(ROW_QUEUE_CHANNEL, wake, wake);
  const reader = async () => {
    while (!stopped) {
      const seen = wakeUps;
      let claimed = 0;
      try {
        claimed = await readQueuedRows(ctx, worker);
      } catch (error) {
        if (stopped) break;
        console.error('[knowledge] reading queued rows', error);
        await pause(pollMs);
        continue;
      }
      if (claimed >= READ_BATCH) {
        await nextTurnOfEventLoop();
        continue;
      }
      // Sources arriving one by one (each insert a wake-up) are left to gather for GATHER_MS rather than
      // claimed one a statement: on the embedded store every claim waits its turn for the one connection
      // with the inserts themselves (a first version that claimed again at once slowed the POSTs 3 to 4 times).
      if (claimed > 0 || seen !== wakeUps) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      else await pause(pollMs);
    }
  };
  const readers = Array.from({ length: options.concurrency ?? 2 }, () => reader());
  return {
    stop: async () => {
      stopped = true;
      wake();
      await Promise.all(readers);
      await listener.close();
    },
  };
}

/**
 * Files of a batch not begun within its budget go back to the queue as jobs of their own
 * (the batch's jobs share one deadline, their longest expiry: many large files in one batch
 * could pass it). Their jobs here are done; the new ones read them.
 */
async function handOn(ctx: Context, sources: SourceRow[], worker: string): Promise<void> {
  for (const source of sources) await releaseRead(ctx.db, source.id, source.generation, worker);
  await queueReads(ctx, sources.map((source) => ({ id: source.id, generation: source.generation })));
}

/** One claimed source read and indexed on its own; null when settled (ready or failed for good), else the error to retry on. */
async function readOne(ctx: Context, source: SourceRow, attempt: { retryCount: number }, worker: string): Promise<Error | null> {
  try {
    if (source.type === 'file') {
      const text = await readStoredFile(ctx, source.id);
      await ctx.db.updateTable('sources').set({ content: text }).where('id', '=', source.id).where('generation', '=', source.generation).execute();
    }
    await indexSourceText(ctx, { sourceId: source.id, agentId: source.agent_id, generation: source.generation });
    return null;
  } catch (error) {
    const failure = failureOf(error);
    if (failure === 'temporary' && attempt.retryCount < READ_RETRY_LIMIT) {
      // The retry may come to another worker: a read held by this live one would turn it away.
      await releaseRead(ctx.db, source.id, source.generation, worker);
      return error instanceof Error ? error : new Error(String(error));
    }
    if (failure === 'temporary') console.error(`[knowledge] reading ${source.id} failed for good: ${error instanceof Error ? error.message : String(error)}`);
    await markFailed(ctx, source.id, source.generation, failure);
    return null;
  }
}

async function readStoredFile(ctx: Context, sourceId: string): Promise<string> {
  const file = await ctx.db.selectFrom('source_files').select(['kind', 'bytes']).where('source_id', '=', sourceId).executeTakeFirst();
  if (!file) throw new FileReadError('file_unreadable', 'the stored file is missing');
  return readFileText(ctx, file.kind, new Uint8Array(file.bytes));
}

function failureOf(error: unknown): SourceError {
  if (error instanceof FileReadError) return error.failure;
  if (error instanceof NoContentError) return 'no_content';
  return 'temporary';
}

async function markFailed(ctx: Context, sourceId: string, generation: number, failure: SourceError): Promise<void> {
  await ctx.db
    .updateTable('sources')
    .set({ status: 'failed', error: failure, processed_at: ctx.clock.now() })
    .where('id', '=', sourceId)
    .where('generation', '=', generation)
    .where('status', '=', 'pending')
    .execute();
}

/** lastTrainedAt: the moment the agent's last pending source was settled. */
export async function markTrainedWhenDone(ctx: Context, agentId: string): Promise<void> {
  const { rows } = await sql<{ workspace_id: string }>`update agents set last_trained_at = ${ctx.clock.now()}
    where id = ${agentId} and not exists (select 1 from sources where agent_id = ${agentId} and status = 'pending')
    returning workspace_id`.execute(ctx.db);
  if (rows[0]) await agentsChanged(ctx, rows[0].workspace_id);
}

/**
 * Reads of workers that died, queued again (every few seconds, by every worker: see knowledgeWorker):
 * a row-queued source's row, no longer held, is back in the row queue (its readers woken); the others
 * get a job each.
 */
export async function recoverLostReads(ctx: Context, worker: string): Promise<number> {
  const lost = await reclaimLostReads(ctx.db, ctx.config.lostWorkAfterSeconds, ctx.clock.now(), worker);
  if (lost.some((source) => source.job_id === ROW_QUEUED)) await notifyRowReaders(ctx.db);
  await queueReads(ctx, lost.filter((source) => source.job_id !== ROW_QUEUED));
  return lost.length;
}

/**
 * Sources left pending by work that never finished. Choice (docs/knowledge.md): a
 * source whose job is gone is queued again (a worker that died holding a read is seen
 * by its heartbeat: recoverLostReads); one whose job ended without settling it (failed
 * or expired past its retries) is marked failed with never_finished.
 */
export async function recoverUnfinishedReads(ctx: Context): Promise<{ requeued: number; failed: number }> {
  const settledBefore = new Date(ctx.clock.now().getTime() - SETTLE_SECONDS * 1000);
  // A read no worker took as its own (a process from before heartbeats): judged by its job's
  // heartbeat, which pg-boss writes every QUEUE_OPTIONS.heartbeatSeconds.
  const silentFor = Math.max(ctx.config.lostWorkAfterSeconds, 2 * QUEUE_OPTIONS.heartbeatSeconds);
  const result = await sql<{ id: string; agent_id: string; generation: number; state: string | null; stale: boolean; settling: boolean }>`
    select s.id, s.agent_id, s.generation, j.state::text as state,
           s.worker_id is null and coalesce(j.heartbeat_on, j.started_on) < now() - make_interval(secs => ${silentFor}) as stale,
           coalesce(s.queued_at >= ${settledBefore}, false) as settling
    from sources s left join pgboss.job j on j.id::text = s.job_id and j.name = ${READ_SOURCE_JOB}
    where s.status = 'pending' and s.job_id is distinct from ${ROW_QUEUED}`.execute(ctx.db);
  const requeue: Array<{ id: string; generation: number }> = [];
  let failed = 0;
  for (const row of result.rows) {
    const workerDied = row.state === 'active' && row.stale;
    // Until it settles, a source's job_id may still name the job before the one being sent.
    if (row.settling && !workerDied) continue;
    if (row.state === null || workerDied) {
      const bumped = await ctx.db
        .updateTable('sources')
        .set((eb) => ({ generation: eb('generation', '+', 1), queued_at: ctx.clock.now(), worker_id: null }))
        .where('id', '=', row.id)
        .where('generation', '=', row.generation)
        .where('status', '=', 'pending')
        .returning(['id', 'generation'])
        .executeTakeFirst();
      if (bumped) requeue.push(bumped);
    } else if (row.state === 'failed' || row.state === 'cancelled' || row.state === 'completed') {
      await markFailed(ctx, row.id, row.generation, 'never_finished');
      await markTrainedWhenDone(ctx, row.agent_id);
      failed++;
    }
  }
  await queueReads(ctx, requeue);
  return { requeued: requeue.length, failed };
}

/** The worker starter (src/workers.ts). */
export async function knowledgeWorker(ctx: Context): Promise<void> {
  await ctx.queue.define(READ_SOURCE_JOB, QUEUE_OPTIONS);
  const worker = await workerId(ctx);
  await ctx.queue.workBatches<ReadSourceJob>(READ_SOURCE_JOB, (jobs) => readSources(ctx, jobs, worker), { batchSize: READ_BATCH, concurrency: 2, gatherMs: GATHER_MS });
  await workBlocks(ctx);
  const rowReaders = await startRowReaders(ctx, worker, { concurrency: rowReadersOf(ctx.database.kind) });
  ctx.onClose(() => rowReaders.stop());
  const lostReads = runPeriodically({ name: 'knowledge lost reads', everyMs: beatEverySeconds(ctx) * 1000, testClock: undefined }, () => recoverLostReads(ctx, worker));
  ctx.onClose(() => lostReads.stop());
  const sweep = async () => {
    try {
      await recoverUnfinishedReads(ctx);
      // They no longer count (past their deadline); this only keeps the table small.
      await deleteDeadFileFetches(ctx.db, ctx.clock.now());
    } catch (error) {
      console.error('[knowledge] recovery sweep', error);
    }
  };
  await sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  ctx.onClose(async () => clearInterval(timer));
}
