import { sql, type GeneratedAlways } from 'kysely';
import { errors } from '../../domain/errors.ts';
import type { Db } from '../../platform/db.ts';
import { isAlive } from '../../platform/heartbeat.ts';

export type SourceType = 'website' | 'file' | 'text' | 'qa';
export type SourceStatus = 'pending' | 'ready' | 'failed';
export type SourceError = 'file_unreadable' | 'no_content' | 'too_large' | 'never_finished' | 'temporary' | 'file_too_complex';
export type TurnedAway = 'login_page' | 'too_little_content';
export type FileKind = 'pdf' | 'docx' | 'markdown' | 'text';

export interface SourceRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  type: SourceType;
  name: string;
  url: string | null;
  title: string | null;
  status: SourceStatus;
  error: SourceError | null;
  turned_away: TurnedAway | null;
  size_bytes: number;
  chunk_count: number;
  content: string;
  crawl_id: string | null;
  generation: number;
  job_id: string | null;
  /** The worker process reading it while pending (platform/heartbeat.ts). */
  worker_id: string | null;
  queued_at: Date | null;
  created_at: Date;
  processed_at: Date | null;
}

export interface PassageRow {
  id: string;
  agent_id: string;
  source_id: string;
  position: number;
  title: string;
  url: string | null;
  text: string;
  length: number;
  /** Numbered in insertion order: what postings point at. */
  seq: number;
  /** The agent_term_stats term ids of its lexemes (a forward index, for removal). */
  term_ids: number[];
}

declare module '../../platform/db.ts' {
  interface Tables {
    sources: SourceRow;
    source_files: { source_id: string; kind: FileKind; bytes: Uint8Array };
    passages: PassageRow;
    passage_postings: { term_id: number; passage_seq: number; tf: number; length: number };
    agent_term_stats: { agent_id: string; term: string; term_id: number; df: number; max_tf: number; min_length: number };
    agent_stats: { agent_id: string; passage_count: number; total_length: number };
    /** Kept by triggers on sources: never written by the application. */
    agent_storage: { agent_id: string; used_bytes: number };
    retrain_counts: { agent_id: string; day: string; count: number };
    file_fetches: { id: GeneratedAlways<number>; agent_id: string; started_at: Date; expires_at: Date };
  }
}

/** Columns of a source without its content (lists leave content out). */
export const SOURCE_SUMMARY = [
  'id',
  'workspace_id',
  'agent_id',
  'type',
  'name',
  'url',
  'title',
  'status',
  'error',
  'turned_away',
  'size_bytes',
  'chunk_count',
  'crawl_id',
  'generation',
  'job_id',
  'worker_id',
  'queued_at',
  'created_at',
  'processed_at',
] as const;

export type SourceSummary = Omit<SourceRow, 'content'>;

export async function findSource(db: Db, workspaceId: string, agentId: string, sourceId: string): Promise<SourceRow | undefined> {
  return db
    .selectFrom('sources')
    .selectAll()
    .where('id', '=', sourceId)
    .where('agent_id', '=', agentId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export async function listSourcesPage(
  db: Db,
  workspaceId: string,
  agentId: string,
  limit: number,
  after: { at: string; id: string } | undefined,
): Promise<SourceSummary[]> {
  let query = db
    .selectFrom('sources')
    .select(SOURCE_SUMMARY)
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId);
  if (after) {
    const at = new Date(after.at);
    query = query.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', after.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

/**
 * Storage an agent uses: the sum of its sources' sizes, as the running total kept beside them
 * (migrations/037_agent_storage.sql) holds it: one row read, however many sources the agent has.
 */
export async function storageUsed(db: Db, agentId: string): Promise<number> {
  const row = await db.selectFrom('agent_storage').select('used_bytes').where('agent_id', '=', agentId).executeTakeFirst();
  return Number(row?.used_bytes ?? 0);
}

/**
 * Locks the agent's row until the transaction ends against other such locks and updates of
 * the row; false when the agent is gone. Not FOR UPDATE: rows that refer to the agent
 * (conversations, tickets) are written meanwhile, their foreign-key check not kept waiting.
 */
export async function lockAgent(db: Db, agentId: string): Promise<boolean> {
  const row = await db.selectFrom('agents').select('id').where('id', '=', agentId).forNoKeyUpdate().executeTakeFirst();
  return row !== undefined;
}

/**
 * Throws storage_limit_reached when `addedBytes` more would take the agent past its allowance.
 * Locks the agent's agent_storage row (FOR UPDATE) until the transaction that stores the source
 * ends, and reads its total as the last holder of that lock left it: sources added at the same
 * time (here or by insertWithinAllowance) are counted one after the other and together cannot
 * pass it either.
 */
export async function checkStorageAllowance(db: Db, agentId: string, addedBytes: number, allowanceBytes: number): Promise<void> {
  const row = await db.selectFrom('agent_storage').select('used_bytes').where('agent_id', '=', agentId).forUpdate().executeTakeFirst();
  if (Number(row?.used_bytes ?? 0) + addedBytes > allowanceBytes) throw errors.storageLimitReached();
}

/** A source as insertWithinAllowance writes it: pending, generation 0, nothing read yet. */
export interface NewSourceRow {
  id: string;
  workspaceId: string;
  agentId: string;
  type: SourceType;
  name: string;
  url: string | null;
  title: string | null;
  content: string;
  sizeBytes: number;
  jobId: string;
  now: Date;
}

/**
 * Stores a pending source if its agent is there (in the source's workspace, not paused) and its size
 * fits in the agent's allowance, in one statement: the agent's agent_storage row (made with the agent,
 * migration 046) locked FOR UPDATE, its total checked and the source inserted (whose trigger adds its
 * size to that row). After waiting for another writer's lock, PostgreSQL checks the condition again
 * against the total as that writer left it, so concurrent sources are counted one after the other.
 * Undefined when it is refused: refusalOf tells why.
 */
export async function insertWithinAllowance(db: Db, source: NewSourceRow, allowanceBytes: number): Promise<SourceRow | undefined> {
  const { rows } = await sql<SourceRow>`
    insert into sources (id, workspace_id, agent_id, type, name, url, title, status, size_bytes, chunk_count, content, generation, job_id, queued_at, created_at)
    select ${source.id}::text, a.workspace_id, a.id, ${source.type}::text, ${source.name}::text, ${source.url}::text, ${source.title}::text,
      'pending', ${source.sizeBytes}::bigint, 0, ${source.content}::text, 0, ${source.jobId}::text, ${source.now}::timestamptz, ${source.now}::timestamptz
    from agent_storage s join agents a on a.id = s.agent_id
    where s.agent_id = ${source.agentId} and a.workspace_id = ${source.workspaceId} and a.status <> 'paused'
      and s.used_bytes + ${source.sizeBytes}::bigint <= ${allowanceBytes}::bigint
    for update of s
    returning *`.execute(db);
  return rows[0];
}

/** Why insertWithinAllowance stored nothing: the agent is not there (404), is paused (402), or the source would pass its allowance (402). */
export async function refusalOf(db: Db, agentId: string, workspaceId: string): Promise<Error> {
  const agent = await db.selectFrom('agents').select('status').where('id', '=', agentId).where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (!agent) return errors.notFound('agent');
  if (agent.status === 'paused') return errors.agentPaused();
  return errors.storageLimitReached();
}

export async function insertSourceFile(db: Db, sourceId: string, kind: FileKind, bytes: Uint8Array): Promise<void> {
  await db.insertInto('source_files').values({ source_id: sourceId, kind, bytes }).execute();
}

/** Records a file fetch under way for the agent (it is busy meanwhile); its id, to end it by, or null when the agent is gone. */
export async function recordFileFetch(db: Db, agentId: string, startedAt: Date, expiresAt: Date): Promise<number | null> {
  const row = await db
    .insertInto('file_fetches')
    .columns(['agent_id', 'started_at', 'expires_at'])
    .expression((eb) =>
      eb
        .selectFrom('agents')
        .select(['id', sql<Date>`${startedAt}::timestamptz`.as('started_at'), sql<Date>`${expiresAt}::timestamptz`.as('expires_at')])
        .where('id', '=', agentId),
    )
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

export async function endFileFetch(db: Db, fetchId: number): Promise<void> {
  await db.deleteFrom('file_fetches').where('id', '=', fetchId).execute();
}

/** Whether a file fetch for the agent is under way: recorded and not past its deadline (a dead process's rows are). */
export async function hasFileFetchUnderWay(db: Db, agentId: string, now: Date): Promise<boolean> {
  const row = await db.selectFrom('file_fetches').select('id').where('agent_id', '=', agentId).where('expires_at', '>', now).executeTakeFirst();
  return row !== undefined;
}

/** Rows of fetches past their deadline: left by processes that died mid-fetch. */
export async function deleteDeadFileFetches(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('file_fetches').where('expires_at', '<=', now).execute();
}

/**
 * Takes a pending source's read for this worker; undefined when the source was queued again
 * since (its generation moved on), is no longer pending, or another worker still alive holds
 * the read (the queue delivered the same job again while the first read runs): nothing to do then.
 */
export async function claimRead(db: Db, sourceId: string, generation: number, workerId: string, lostAfterSeconds: number): Promise<SourceRow | undefined> {
  return (await claimReads(db, [{ sourceId, generation }], workerId, lostAfterSeconds))[0];
}

/**
 * claimRead for a batch of reads in one statement: the sources this worker now holds
 * (those left out have nothing to do here, as with claimRead).
 */
export async function claimReads(db: Db, reads: Array<{ sourceId: string; generation: number }>, workerId: string, lostAfterSeconds: number): Promise<SourceRow[]> {
  if (reads.length === 0) return [];
  const { rows } = await sql<SourceRow>`
    update sources set worker_id = ${workerId}
    from unnest(${reads.map((read) => read.sourceId)}::text[], ${reads.map((read) => read.generation)}::int[]) as wanted(id, generation)
    where sources.id = wanted.id and sources.generation = wanted.generation and sources.status = 'pending'
      and (sources.worker_id is null or sources.worker_id = ${workerId} or not ${isAlive(sql.ref('sources.worker_id'), lostAfterSeconds)})
    returning sources.*`.execute(db);
  return rows;
}

/** The job_id of a source read from its own pending row (the row queue, migration 044), not by a job of the queue. */
export const ROW_QUEUED = 'rows';

/**
 * Takes up to `limit` text and Q&A sources waiting in the row queue for this worker, oldest first,
 * in one statement: rows another worker is claiming at the same moment are skipped (SKIP LOCKED),
 * so no read is claimed twice.
 */
export async function claimQueuedRows(db: Db, workerId: string, limit: number): Promise<SourceRow[]> {
  const { rows } = await sql<SourceRow>`
    update sources set worker_id = ${workerId}
    where id in (
      select id from sources
      where status = 'pending' and job_id = ${ROW_QUEUED} and worker_id is null
      order by queued_at
      limit ${limit}
      for update skip locked)
    and status = 'pending' and worker_id is null
    returning sources.*`.execute(db);
  return rows;
}

/** The channel row-queued sources are announced on (migration 044's insert trigger, notifyRowReaders), delivered at the commit. */
export const ROW_QUEUE_CHANNEL = 'parley_source_rows';

/** Wakes the row readers at this transaction's commit (equal notifications of one transaction are sent once). */
export async function notifyRowReaders(db: Db): Promise<void> {
  await sql`select pg_notify(${ROW_QUEUE_CHANNEL}, '')`.execute(db);
}

/**
 * Every source of the agent back to pending under a new generation, in one statement. Those whose
 * text is stored in their row (text, Q&A, website pages) go to the row queue (ROW_QUEUED) and the
 * readers are woken at the commit; a file keeps its job_id until the job that reads its bytes again
 * is sent (queueReads records it). The sources, each with the job_id it now has.
 */
export async function requeueForRetrain(db: Db, agent: { id: string; workspaceId: string }, now: Date): Promise<Array<{ id: string; generation: number; job_id: string | null }>> {
  const { rows } = await sql<{ id: string; generation: number; job_id: string | null }>`
    update sources set status = 'pending', error = null, generation = generation + 1, queued_at = ${now}, worker_id = null,
      job_id = case when type = 'file' then job_id else ${ROW_QUEUED} end
    where agent_id = ${agent.id} and workspace_id = ${agent.workspaceId}
    returning id, generation, job_id`.execute(db);
  if (rows.some((row) => row.job_id === ROW_QUEUED)) await notifyRowReaders(db);
  return rows;
}

/** Lets go of a read this worker holds, so the queue's retry may run on any worker. */
export async function releaseRead(db: Db, sourceId: string, generation: number, workerId: string): Promise<void> {
  await db.updateTable('sources').set({ worker_id: null }).where('id', '=', sourceId).where('generation', '=', generation).where('worker_id', '=', workerId).execute();
}

/** Records each source's read job (the queue's id), for the recovery sweep; one statement for many. */
export async function recordReadJobs(db: Db, jobs: Array<{ sourceId: string; generation: number; jobId: string }>): Promise<void> {
  if (jobs.length === 0) return;
  await sql`update sources set job_id = t.job_id
    from unnest(${jobs.map((job) => job.sourceId)}::text[], ${jobs.map((job) => job.generation)}::int[], ${jobs.map((job) => job.jobId)}::text[]) as t(id, generation, job_id)
    where sources.id = t.id and sources.generation = t.generation`.execute(db);
}

/**
 * Reads held by a worker that died (its heartbeat older than `lostAfterSeconds`) are
 * queued again under a new generation, so anything the dead worker might still write is
 * refused; never the caller's own (a long pause must not make it take them back).
 * Returns the sources, each with its job_id: a row-queued one (ROW_QUEUED) is back in the
 * row queue as it is, the others need a job.
 */
export async function reclaimLostReads(db: Db, lostAfterSeconds: number, now: Date, ownWorkerId: string): Promise<Array<{ id: string; generation: number; job_id: string | null }>> {
  const { rows } = await sql<{ id: string; generation: number; job_id: string | null }>`
    update sources set generation = generation + 1, queued_at = ${now}, worker_id = null
    where status = 'pending' and worker_id is not null and worker_id <> ${ownWorkerId}
      and not ${isAlive(sql.ref('sources.worker_id'), lostAfterSeconds)}
    returning id, generation, job_id`.execute(db);
  return rows;
}

export async function countPendingSources(db: Db, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('sources')
    .select(sql<number>`count(*)`.as('n'))
    .where('agent_id', '=', agentId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The agent's language, read defensively: the agents area adds the column. */
export async function agentLanguage(db: Db, agentId: string): Promise<string> {
  const result = await sql<Record<string, unknown>>`select * from agents where id = ${agentId}`.execute(db);
  const language = result.rows[0]?.language;
  return typeof language === 'string' ? language : 'en';
}
