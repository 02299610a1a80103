/**
 * What the website crawler (./crawl/) hands to the knowledge area: one page at a time.
 *
 * A crawled page is indexed at once (chunked, embedded when a provider is configured,
 * written to the search index) in the call, so when ingestWebsitePage returns the page
 * is a ready, searchable source.
 */
import type { Context } from '../../context.ts';
import type { Db } from '../../platform/db.ts';
import { newId } from '../../platform/ids.ts';
import { indexSourceText } from './indexing.ts';
import { errors } from '../../domain/errors.ts';
import { checkStorageAllowance, lockAgent, storageUsed as storageUsedQuery, type FileKind, type TurnedAway } from './store.ts';

export interface WebsitePageInput {
  workspaceId: string;
  agentId: string;
  crawlId: string;
  url: string;
  title: string;
  text: string;
}

/**
 * Creates the website source for this page or, when the agent already has one for the
 * same url, replaces its title, text and passages (and clears turnedAway).
 */
export async function ingestWebsitePage(ctx: Context, input: WebsitePageInput): Promise<{ sourceId: string }> {
  const row = await saveWebsitePage(ctx.db, input, ctx.clock.now());
  await indexSourceText(ctx, { sourceId: row.id, agentId: input.agentId, generation: row.generation });
  return { sourceId: row.id };
}

/**
 * The site's header and footer facts (one website source at `input.url`), grown by the
 * crawl's batches on any worker: `textFrom` is given the source as held and answers the
 * text to keep, or null to leave it. Read and written in one transaction with the agent's
 * row locked (lockAgent; the source may not exist yet, so its row cannot be the lock):
 * two batches never both read the text before the other's write, so neither loses facts.
 */
export async function ingestSiteFacts(
  ctx: Context,
  input: Omit<WebsitePageInput, 'text'>,
  textFrom: (held: { content: string; crawl_id: string | null } | undefined) => string | null,
): Promise<void> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockAgent(trx, input.agentId))) return null;
    const held = await trx
      .selectFrom('sources')
      .select(['content', 'crawl_id'])
      .where('agent_id', '=', input.agentId)
      .where('type', '=', 'website')
      .where('url', '=', input.url)
      .executeTakeFirst();
    const text = textFrom(held);
    return text === null ? null : saveWebsitePage(trx, { ...input, text }, ctx.clock.now());
  });
  if (row) await indexSourceText(ctx, { sourceId: row.id, agentId: input.agentId, generation: row.generation });
}

function saveWebsitePage(db: Db, input: WebsitePageInput, now: Date): Promise<{ id: string; generation: number }> {
  const sizeBytes = Buffer.byteLength(input.text, 'utf8');
  const name = input.title.trim() || input.url;
  return db
    .insertInto('sources')
    .values({
      id: newId('src'),
      workspace_id: input.workspaceId,
      agent_id: input.agentId,
      type: 'website',
      name,
      url: input.url,
      title: input.title,
      status: 'pending',
      error: null,
      turned_away: null,
      size_bytes: sizeBytes,
      chunk_count: 0,
      content: input.text,
      crawl_id: input.crawlId,
      generation: 0,
      job_id: null,
      // Read right here: the recovery sweep leaves it alone while it settles.
      queued_at: now,
      created_at: now,
      processed_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['agent_id', 'url'])
        .where('type', '=', 'website')
        .doUpdateSet({
          name,
          title: input.title,
          content: input.text,
          size_bytes: sizeBytes,
          crawl_id: input.crawlId,
          turned_away: null,
          status: 'pending',
          error: null,
          queued_at: now,
          // A page read again is read here, not by an earlier job: recovery must not judge it by that job.
          job_id: null,
          // Read here, not by the worker that read it last.
          worker_id: null,
          generation: (eb) => eb('sources.generation', '+', 1),
        }),
    )
    .returning(['id', 'generation'])
    .executeTakeFirstOrThrow();
}

/**
 * A page a crawl turned away. Choice (docs/knowledge.md): only a page the agent already
 * holds as a website source is marked (turnedAway set, its earlier text and passages kept
 * so the agent does not lose knowledge over a passing login wall); a page never kept
 * before creates no source.
 */
export async function recordTurnedAwayPage(
  ctx: Context,
  input: { workspaceId: string; agentId: string; crawlId: string; url: string; title: string; reason: TurnedAway },
): Promise<{ sourceId: string | null }> {
  const row = await ctx.db
    .updateTable('sources')
    .set({ turned_away: input.reason, crawl_id: input.crawlId })
    .where('workspace_id', '=', input.workspaceId)
    .where('agent_id', '=', input.agentId)
    .where('type', '=', 'website')
    .where('url', '=', input.url)
    .returning('id')
    .executeTakeFirst();
  return { sourceId: row?.id ?? null };
}

/** Bytes the agent's sources take: what counts against plan.storagePerAgentBytes. */
export function storageUsedBytes(ctx: Context, agentId: string): Promise<number> {
  return storageUsedQuery(ctx.db, agentId);
}

export interface CrawledFileInput {
  workspaceId: string;
  agentId: string;
  crawlId: string;
  url: string;
  name: string;
  kind: FileKind;
  bytes: Uint8Array;
  /** Read from the bytes by readFileText, as a file source is read. */
  text: string;
  /** The plan's storagePerAgentBytes: checked again here, as for a file the owner adds. */
  allowanceBytes: number;
}

/**
 * A document (PDF, DOCX) a crawl found linked from the site: a file source, kept with its
 * bytes so a retrain reads it again like any file source. A file source an earlier crawl
 * made from the same address is replaced; one the owner added by hand is left alone.
 * Throws storage_limit_reached when it would take the agent past its allowance: lanes that
 * each passed the check made before their fetch are counted here one after the other.
 */
export async function ingestCrawledFile(ctx: Context, input: CrawledFileInput): Promise<{ sourceId: string }> {
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockAgent(trx, input.agentId))) throw errors.notFound('agent');
    const earlier = await trx
      .selectFrom('sources')
      .select(['id', 'size_bytes'])
      .where('agent_id', '=', input.agentId)
      .where('type', '=', 'file')
      .where('url', '=', input.url)
      .where('crawl_id', 'is not', null)
      .forUpdate()
      .executeTakeFirst();
    await checkStorageAllowance(trx, input.agentId, input.bytes.length - Number(earlier?.size_bytes ?? 0), input.allowanceBytes);
    const fields = {
      name: input.name.slice(0, 500),
      content: input.text,
      size_bytes: input.bytes.length,
      crawl_id: input.crawlId,
      status: 'pending' as const,
      error: null,
      queued_at: now,
      job_id: null,
    };
    const saved = earlier
      ? await trx
          .updateTable('sources')
          .set({ ...fields, generation: (eb) => eb('generation', '+', 1) })
          .where('id', '=', earlier.id)
          .returning(['id', 'generation'])
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('sources')
          .values({
            ...fields,
            id: newId('src'),
            workspace_id: input.workspaceId,
            agent_id: input.agentId,
            type: 'file',
            url: input.url,
            title: null,
            turned_away: null,
            chunk_count: 0,
            generation: 0,
            created_at: now,
            processed_at: null,
          })
          .returning(['id', 'generation'])
          .executeTakeFirstOrThrow();
    await trx.deleteFrom('source_files').where('source_id', '=', saved.id).execute();
    await trx.insertInto('source_files').values({ source_id: saved.id, kind: input.kind, bytes: input.bytes }).execute();
    return saved;
  });
  await indexSourceText(ctx, { sourceId: row.id, agentId: input.agentId, generation: row.generation });
  return { sourceId: row.id };
}
