/** The knowledge verbs: add, list, read and delete sources; retrain an agent. */
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, pageOf } from '../../domain/paging.ts';
import { newId } from '../../platform/ids.ts';
import { utcDay } from '../../platform/clock.ts';
import { agentsChanged, requireAgent, type AgentRef } from '../agents/access.ts';
import { requireAgentReach, type Principal } from '../../domain/principal.ts';
import type { Plan } from '../../domain/plans.ts';
import { isCrawlRunning, startCrawl, type CrawlObject } from './crawl/service.ts';
import { fetchFile, fetchRecordLifetimeMs, MAX_FILE_BYTES } from './fetch-file.ts';
import { detectFileKind } from './file-kind.ts';
import { deleteSourceAndPassages } from './indexing.ts';
import { newReadJobId, queueReads } from './reading.ts';
import {
  countPendingSources,
  endFileFetch,
  findSource,
  hasFileFetchUnderWay,
  insertSourceFile,
  insertWithinAllowance,
  listSourcesPage,
  requeueForRetrain,
  ROW_QUEUED,
  recordFileFetch,
  refusalOf,
  storageUsed,
  type NewSourceRow,
  type SourceRow,
  type SourceSummary,
} from './store.ts';

export type NewSource =
  | { type: 'text'; title: string; content: string }
  | { type: 'qa'; question: string; answer: string }
  | { type: 'file'; url: string; name?: string }
  | { type: 'website'; url: string; mode?: 'links' | 'sitemap' | 'single'; excludePaths?: string[] };

export const RETRAINS_PER_DAY = 10;

type AddedSource = { kind: 'source'; source: SourceRow } | { kind: 'crawl'; crawl: CrawlObject };

/** A text, Q&A or file source (pending), or for a website the crawl it started. */
export async function addSource(ctx: Context, agent: AgentRef, plan: Plan, input: NewSource): Promise<AddedSource> {
  if (input.type === 'website') return { kind: 'crawl', crawl: await startCrawl(ctx, agent, input) };
  if (input.type === 'file') return { kind: 'source', source: await addFileSource(ctx, agent, plan, input) };
  return { kind: 'source', source: await insertPendingSource(ctx, agent, plan, smallSource(input)) };
}

/**
 * addSource for a caller who names the agent (POST /agents/:id/sources): the same checks as
 * requireAgent with `active`. A text or Q&A source is stored by the one statement that also checks
 * the agent (insertWithinAllowance), with no read of the agent before it: the API's many small
 * POSTs each cost one statement less.
 */
export async function addSourceAs(ctx: Context, caller: Principal, agentId: string, input: NewSource): Promise<AddedSource> {
  if (input.type === 'text' || input.type === 'qa') {
    requireAgentReach(caller, agentId);
    return { kind: 'source', source: await insertPendingSource(ctx, { id: agentId, workspaceId: caller.workspaceId }, caller.plan, smallSource(input)) };
  }
  return addSource(ctx, await requireAgent(ctx, caller, agentId, { active: true }), caller.plan, input);
}

function smallSource(input: Extract<NewSource, { type: 'text' | 'qa' }>): PendingSource {
  const [name, content] = input.type === 'text' ? [input.title, input.content] : [input.question, input.answer];
  const sizeBytes = Buffer.byteLength(input.type === 'qa' ? `${name}\n\n${content}` : content, 'utf8');
  return { type: input.type, name, url: null, title: input.type === 'text' ? input.title : null, content, sizeBytes };
}

/**
 * Fetches the file in the request. While it is fetched a durable record makes the agent
 * busy (spec 4.6), for every API process; storing the source ends it in the same
 * transaction, so the agent is busy without a gap until the source is read.
 */
async function addFileSource(ctx: Context, agent: AgentRef, plan: Plan, input: { url: string; name?: string }): Promise<SourceRow> {
  const allowanceLeftBytes = plan.storagePerAgentBytes - (await storageUsed(ctx.db, agent.id));
  if (allowanceLeftBytes <= 0) throw errors.storageLimitReached();
  const startedAt = ctx.clock.now();
  const fetchId = await recordFileFetch(ctx.db, agent.id, startedAt, new Date(startedAt.getTime() + fetchRecordLifetimeMs(ctx)));
  if (fetchId === null) throw errors.notFound('agent');
  try {
    const file = await fetchFile(ctx, input.url, { allowanceLeftBytes });
    return await insertPendingSource(
      ctx,
      agent,
      plan,
      {
        type: 'file',
        name: input.name?.trim() || nameFromUrl(file.url) || nameFromUrl(input.url) || 'file',
        url: input.url,
        title: null,
        content: '',
        sizeBytes: file.bytes.length,
        file: { kind: file.kind, bytes: file.bytes },
      },
      { endsFetch: fetchId },
    );
  } catch (error) {
    // Should this fail too, the record lapses at its deadline.
    await endFileFetch(ctx.db, fetchId).catch(() => {});
    throw error;
  }
}

/** A file received from a person's computer (docs/people.md, "Uploading files"), kept on disk until it is stored. */
export interface ReceivedFile {
  name: string;
  path: string;
}

/** How long an upload may make the agent busy (spec 4.6: "while a source is being uploaded") before its record lapses. */
export const UPLOAD_RECORD_LIFETIME_MS = 15 * 60_000;

/**
 * Files uploaded from the computer (spec 1.5): the same kinds, size limits and storage
 * allowance as a file source by address, and read by the same bounded reader (the
 * reading job). While `receive` takes the files in, a durable record makes the agent
 * busy, as a fetch does. `receive` is told the most it may take in all (the allowance
 * left, each file at most MAX_FILE_BYTES) and refuses past it. Every file's kind is
 * checked before any is stored: one refused file refuses the request and stores nothing.
 */
export async function addUploadedFiles(
  ctx: Context,
  agent: AgentRef,
  plan: Plan,
  receive: (limits: { allowanceLeftBytes: number; maxFileBytes: number }) => Promise<ReceivedFile[]>,
): Promise<SourceRow[]> {
  const allowanceLeftBytes = plan.storagePerAgentBytes - (await storageUsed(ctx.db, agent.id));
  if (allowanceLeftBytes <= 0) throw errors.storageLimitReached();
  const startedAt = ctx.clock.now();
  const fetchId = await recordFileFetch(ctx.db, agent.id, startedAt, new Date(startedAt.getTime() + UPLOAD_RECORD_LIFETIME_MS));
  if (fetchId === null) throw errors.notFound('agent');
  try {
    const files = await receive({ allowanceLeftBytes, maxFileBytes: MAX_FILE_BYTES });
    const kinds: Array<'pdf' | 'docx' | 'markdown' | 'text'> = [];
    // One file in memory at a time: its kind now, its bytes again when it is stored.
    for (const file of files) {
      const kind = await detectFileKind(await readFile(file.path));
      if (!kind) throw errors.unsupportedFileType(`"${file.name}" is not a PDF, a Word document (.docx), Markdown or plain text.`);
      kinds.push(kind);
    }
    const stored: SourceRow[] = [];
    for (const [i, file] of files.entries()) {
      const bytes = await readFile(file.path);
      const last = i === files.length - 1;
      stored.push(
        await insertPendingSource(
          ctx,
          agent,
          plan,
          { type: 'file', name: file.name, url: null, title: null, content: '', sizeBytes: bytes.length, file: { kind: kinds[i]!, bytes } },
          // The record ends with the last source, which keeps the agent busy from then on.
          last ? { endsFetch: fetchId } : {},
        ),
      );
    }
    return stored;
  } catch (error) {
    await endFileFetch(ctx.db, fetchId).catch(() => {});
    throw error;
  }
}

/** A source as a caller adds it, before it has an id, an agent or a queue (store.ts's NewSourceRow). */
interface PendingSource extends Pick<NewSourceRow, 'type' | 'name' | 'url' | 'title' | 'content' | 'sizeBytes'> {
  file?: { kind: 'pdf' | 'docx' | 'markdown' | 'text'; bytes: Uint8Array };
}

/**
 * Stores a source and queues its reading. The storage allowance is checked in the statement
 * that stores it, with the agent's storage row locked (insertWithinAllowance): sources added at
 * the same time (two files fetched side by side, sixteen texts posted at once) are counted one
 * after the other, so together they cannot pass it either. A text or Q&A source is that one
 * statement; a file's also ends its fetch record, in the same transaction. A file's bytes are
 * written after it, holding no lock that chats, tickets or other sources of the agent need, and
 * only then is its job sent.
 */
async function insertPendingSource(
  ctx: Context,
  agent: { id: string; workspaceId: string },
  plan: Plan,
  input: PendingSource,
  options: { endsFetch?: number } = {},
): Promise<SourceRow> {
  // A text or Q&A source needs no job: its pending row is the queue (ROW_QUEUED, reading.ts), and its
  // insert wakes the workers at the commit (migration 044). A file's job waits for its bytes; its id is
  // named in the row before it is sent: no second write to record it. Should the send not happen, the
  // recovery sweep finds no such job.
  const jobId = input.file ? newReadJobId() : ROW_QUEUED;
  const source = {
    id: newId('src'),
    workspaceId: agent.workspaceId,
    agentId: agent.id,
    type: input.type,
    name: input.name.slice(0, 500),
    url: input.url,
    title: input.title,
    content: input.content,
    sizeBytes: input.sizeBytes,
    jobId,
    now: ctx.clock.now(),
  };
  const endsFetch = options.endsFetch;
  const row =
    endsFetch === undefined
      ? await insertWithinAllowance(ctx.db, source, plan.storagePerAgentBytes)
      : await ctx.db.transaction().execute(async (trx) => {
          const stored = await insertWithinAllowance(trx, source, plan.storagePerAgentBytes);
          if (stored) await endFileFetch(trx, endsFetch);
          return stored;
        });
  if (!row) throw await refusalOf(ctx.db, agent.id, agent.workspaceId);
  if (input.file) {
    await storeFileBytes(ctx, row.id, input.file);
    await queueReads(ctx, [{ id: row.id, generation: row.generation, jobId }]);
  }
  return row;
}

/**
 * A file source's bytes, written once its row holds their place. Should the write fail,
 * the source goes (no pending source without its file); should the process die here, the
 * recovery sweep reads the source, finds no file and marks it failed (file_unreadable).
 */
async function storeFileBytes(ctx: Context, sourceId: string, file: NonNullable<PendingSource['file']>): Promise<void> {
  try {
    await insertSourceFile(ctx.db, sourceId, file.kind, file.bytes);
  } catch (error) {
    await ctx.db.deleteFrom('sources').where('id', '=', sourceId).execute().catch(() => {});
    // The source (or its agent) was deleted while its bytes were being written.
    if ((error as { code?: string }).code === '23503') throw errors.notFound('source');
    throw error;
  }
}

/** The last part of an address's path, decoded: a file's default name. */
export function nameFromUrl(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
    try {
      return decodeURIComponent(last);
    } catch {
      return last;
    }
  } catch {
    return '';
  }
}

export async function listSources(
  ctx: Context,
  agent: AgentRef,
  query: { limit?: number; cursor?: string },
): Promise<{ items: SourceSummary[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listSourcesPage(ctx.db, agent.workspaceId, agent.id, limit, decodeCursor(query.cursor));
  return pageOf(rows, limit, (row) => ({ at: row.created_at.toISOString(), id: row.id }));
}

export async function getSource(ctx: Context, agent: AgentRef, sourceId: string): Promise<SourceRow> {
  const source = await findSource(ctx.db, agent.workspaceId, agent.id, sourceId);
  if (!source) throw errors.notFound('source');
  return source;
}

/** Deletes the source and takes its passages out of the index in the same transaction. */
export async function deleteSource(ctx: Context, agent: AgentRef, sourceId: string): Promise<void> {
  await getSource(ctx, agent, sourceId);
  await deleteSourceAndPassages(ctx, agent.id, sourceId);
}

/**
 * Every source back to pending and read again from what was stored (a website's page
 * text, a file's bytes): nothing is fetched again. Passages stay searchable until
 * their source is read again. At most RETRAINS_PER_DAY per agent per UTC day.
 */
export async function retrain(ctx: Context, agent: AgentRef): Promise<{ id: string; queued: true; sourceCount: number; retrainsLeft: number }> {
  const now = ctx.clock.now();
  if (await isLearning(ctx, agent.id, now)) throw errors.agentBusy();
  const result = await ctx.db.transaction().execute(async (trx) => {
    // The count row is locked until commit, so two retrains of one agent run one after the other.
    const counted = await sql<{ count: number }>`
      insert into retrain_counts (agent_id, day, count) values (${agent.id}, ${utcDay(now)}, 1)
      on conflict (agent_id, day) do update set count = retrain_counts.count + 1
      returning count`.execute(trx);
    if (Number(counted.rows[0].count) > RETRAINS_PER_DAY) throw errors.retrainLimitReached(secondsToNextUtcDay(now));
    const pending = await trx.selectFrom('sources').select('id').where('agent_id', '=', agent.id).where('status', '=', 'pending').executeTakeFirst();
    if (pending) throw errors.agentBusy();
    const rows = await requeueForRetrain(trx, agent, now);
    return { rows, left: RETRAINS_PER_DAY - Number(counted.rows[0].count) };
  });
  const { rows: queued, left } = result;
  if (queued.length === 0) {
    await sql`update agents set last_trained_at = ${now} where id = ${agent.id}`.execute(ctx.db);
    await agentsChanged(ctx, agent.workspaceId);
  }
  await queueReads(ctx, queued.filter((source) => source.job_id !== ROW_QUEUED));
  return { id: newId('job'), queued: true, sourceCount: queued.length, retrainsLeft: left };
}

/** Spec 4.6: a source being fetched, waiting or read, or a crawl under way. */
async function isLearning(ctx: Context, agentId: string, now: Date): Promise<boolean> {
  return (
    (await countPendingSources(ctx.db, agentId)) > 0 ||
    (await hasFileFetchUnderWay(ctx.db, agentId, now)) ||
    (await isCrawlRunning(ctx, agentId))
  );
}

export function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
