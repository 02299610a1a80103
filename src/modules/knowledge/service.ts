/** The knowledge verbs: add, list, read and delete sources; retrain an agent. */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { errors } from '../../http/errors.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, pageOf } from '../../http/paging.ts';
import { newId } from '../../platform/ids.ts';
import { utcDay } from '../../platform/clock.ts';
import type { AgentRef } from '../agents/access.ts';
import type { Plan } from '../workspace/plans.ts';
import { isCrawlRunning, startCrawl, type CrawlObject } from './crawl/service.ts';
import { fetchFile } from './fetch-file.ts';
import { deleteSourceAndPassages } from './indexing.ts';
import { queueReads } from './reading.ts';
import {
  countPendingSources,
  findSource,
  listSourcesPage,
  storageUsed,
  type SourceRow,
  type SourceSummary,
  type SourceType,
} from './store.ts';

export type NewSource =
  | { type: 'text'; title: string; content: string }
  | { type: 'qa'; question: string; answer: string }
  | { type: 'file'; url: string; name?: string }
  | { type: 'website'; url: string; mode?: 'links' | 'sitemap' | 'single'; excludePaths?: string[] };

export const RETRAINS_PER_DAY = 10;

/** A text, Q&A or file source (pending), or for a website the crawl it started. */
export async function addSource(
  ctx: Context,
  agent: AgentRef,
  plan: Plan,
  input: NewSource,
): Promise<{ kind: 'source'; source: SourceRow } | { kind: 'crawl'; crawl: CrawlObject }> {
  if (input.type === 'website') return { kind: 'crawl', crawl: await startCrawl(ctx, agent, input) };
  if (input.type === 'file') {
    const remaining = plan.storagePerAgentBytes - (await storageUsed(ctx.db, agent.id));
    if (remaining <= 0) throw errors.storageLimitReached();
    const file = await fetchFile(ctx, input.url, { planLimitBytes: plan.storagePerAgentBytes });
    if (file.bytes.length > remaining) throw errors.storageLimitReached();
    const source = await insertPendingSource(ctx, agent, {
      type: 'file',
      name: input.name?.trim() || nameFromUrl(file.url) || nameFromUrl(input.url) || 'file',
      url: input.url,
      title: null,
      content: '',
      sizeBytes: file.bytes.length,
      file: { kind: file.kind, bytes: file.bytes },
    });
    return { kind: 'source', source };
  }
  const [name, content] = input.type === 'text' ? [input.title, input.content] : [input.question, input.answer];
  const sizeBytes = Buffer.byteLength(input.type === 'qa' ? `${name}\n\n${content}` : content, 'utf8');
  if ((await storageUsed(ctx.db, agent.id)) + sizeBytes > plan.storagePerAgentBytes) throw errors.storageLimitReached();
  const source = await insertPendingSource(ctx, agent, { type: input.type, name, url: null, title: input.type === 'text' ? input.title : null, content, sizeBytes });
  return { kind: 'source', source };
}

interface PendingSource {
  type: SourceType;
  name: string;
  url: string | null;
  title: string | null;
  content: string;
  sizeBytes: number;
  file?: { kind: 'pdf' | 'docx' | 'markdown' | 'text'; bytes: Uint8Array };
}

async function insertPendingSource(ctx: Context, agent: AgentRef, input: PendingSource): Promise<SourceRow> {
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('sources')
      .values({
        id: newId('src'),
        workspace_id: agent.workspaceId,
        agent_id: agent.id,
        type: input.type,
        name: input.name.slice(0, 500),
        url: input.url,
        title: input.title,
        status: 'pending',
        error: null,
        turned_away: null,
        size_bytes: input.sizeBytes,
        chunk_count: 0,
        content: input.content,
        crawl_id: null,
        generation: 0,
        job_id: null,
        queued_at: now,
        created_at: now,
        processed_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.file) await trx.insertInto('source_files').values({ source_id: inserted.id, kind: input.file.kind, bytes: input.file.bytes }).execute();
    return inserted;
  });
  await queueReads(ctx, [{ id: row.id, generation: row.generation }]);
  return row;
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
export async function retrain(ctx: Context, agent: AgentRef): Promise<{ id: string; queued: true; sourceCount: number }> {
  if ((await countPendingSources(ctx.db, agent.id)) > 0 || (await isCrawlRunning(ctx, agent.id))) throw errors.agentBusy();
  const now = ctx.clock.now();
  const queued = await ctx.db.transaction().execute(async (trx) => {
    // The count row is locked until commit, so two retrains of one agent run one after the other.
    const counted = await sql<{ count: number }>`
      insert into retrain_counts (agent_id, day, count) values (${agent.id}, ${utcDay(now)}, 1)
      on conflict (agent_id, day) do update set count = retrain_counts.count + 1
      returning count`.execute(trx);
    if (Number(counted.rows[0].count) > RETRAINS_PER_DAY) throw errors.retrainLimitReached(secondsToNextUtcDay(now));
    const pending = await trx.selectFrom('sources').select('id').where('agent_id', '=', agent.id).where('status', '=', 'pending').executeTakeFirst();
    if (pending) throw errors.agentBusy();
    return trx
      .updateTable('sources')
      .set((eb) => ({ status: 'pending', error: null, generation: eb('generation', '+', 1), queued_at: now }))
      .where('agent_id', '=', agent.id)
      .where('workspace_id', '=', agent.workspaceId)
      .returning(['id', 'generation'])
      .execute();
  });
  if (queued.length === 0) await sql`update agents set last_trained_at = ${now} where id = ${agent.id}`.execute(ctx.db);
  await queueReads(ctx, queued);
  return { id: newId('job'), queued: true, sourceCount: queued.length };
}

export function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
