/** The crawl verbs: start one, read the latest, stop it. */
import type { Context } from '../../../context.ts';
import { errors } from '../../../domain/errors.ts';
import { DEFAULT_PAGE_SIZE } from '../../../domain/paging.ts';
import { newId } from '../../../platform/ids.ts';
import { SafeFetchError } from '../../../platform/safe-fetch-error.ts';
import type { AgentRef } from '../../agents/access.ts';
import { cancelCrawls, crawlCounts, hasUnfinishedCrawl, insertCrawl, latestCrawl, type CrawlMode, type CrawlRow } from './store.ts';
import { listCrawlPages, turnedAwayCount, type CrawlPageItem, type ListedStatus } from './pages.ts';
import { normaliseUrl, siteOf } from './urls.ts';

export const CRAWL_BATCH_JOB = 'crawl.batch';
export interface CrawlBatchJob {
  v: 1;
  crawlId: string;
}
/** A crawl job holds the worker for one batch (at most ~20 s of pages) plus seeding; pg-boss retries it after this. */
export const CRAWL_JOB_OPTIONS = { retryLimit: 5, retryDelaySeconds: 10, expireInSeconds: 300 };

export interface CrawlObject {
  id: string;
  status: CrawlRow['status'];
  processed: number;
  discovered: number;
  pending: number;
  failed: number;
  /** Pages read and not kept (login_page, too_little_content): listed by GET /crawl/pages?status=turned_away. */
  turnedAway: number;
  stopReason: CrawlRow['stop_reason'];
}

export interface StartCrawlInput {
  url: string;
  mode?: CrawlMode;
  excludePaths?: string[];
}

const MODES: CrawlMode[] = ['links', 'sitemap', 'single'];
const MAX_EXCLUDE_PATHS = 100;

/**
 * Starts a crawl of the agent's website. A crawl already under way for the agent is
 * cancelled: the newest request wins (pages it read stay as sources).
 */
export async function startCrawl(ctx: Context, agent: AgentRef, input: StartCrawlInput): Promise<CrawlObject> {
  const url = await checkedStartUrl(ctx, input.url);
  const mode = input.mode ?? 'links';
  if (!MODES.includes(mode)) throw errors.invalidField('mode', 'mode must be links, sitemap or single');
  const excludePaths = checkedExcludePaths(input.excludePaths ?? []);
  const now = ctx.clock.now();
  await cancelCrawls(ctx.db, { workspaceId: agent.workspaceId, agentId: agent.id }, now);
  const row = await insertCrawl(ctx.db, {
    id: newId('crawl'),
    workspace_id: agent.workspaceId,
    agent_id: agent.id,
    url,
    mode,
    exclude_paths: excludePaths,
    status: 'queued',
    site: siteOf(url),
    created_at: now,
  });
  await queueCrawlBatch(ctx, row.id);
  return crawlObject(ctx, row);
}

export async function queueCrawlBatch(ctx: Context, crawlId: string, startAfterSeconds?: number): Promise<void> {
  await ctx.queue.define(CRAWL_BATCH_JOB, CRAWL_JOB_OPTIONS);
  await ctx.queue.send<CrawlBatchJob>(CRAWL_BATCH_JOB, { v: 1, crawlId }, { startAfterSeconds });
}

/**
 * Whether a crawl of the agent is queued or running (retrain answers 409 agent_busy then).
 * The caller has reached the agent through requireAgent, which settled the workspace.
 */
export function isCrawlRunning(ctx: Context, agentId: string): Promise<boolean> {
  return hasUnfinishedCrawl(ctx.db, agentId);
}

export async function getLatestCrawl(ctx: Context, agent: AgentRef): Promise<CrawlObject> {
  const row = await latestCrawl(ctx.db, agent.workspaceId, agent.id);
  if (!row) throw errors.notFound('crawl');
  return crawlObject(ctx, row);
}

/** DELETE /crawl: stops the latest crawl; 404 when it already ended or there never was one. */
export async function cancelLatestCrawl(ctx: Context, agent: AgentRef): Promise<{ id: string; cancelled: true; processed: number }> {
  const row = await latestCrawl(ctx.db, agent.workspaceId, agent.id);
  if (!row) throw errors.notFound('crawl');
  const stopped = await cancelCrawls(ctx.db, { workspaceId: agent.workspaceId, agentId: agent.id, crawlId: row.id }, ctx.clock.now());
  if (stopped.length === 0) throw errors.notFound('crawl');
  const counts = await crawlCounts(ctx.db, row.id);
  return { id: row.id, cancelled: true, processed: counts.processed };
}

export async function crawlObject(ctx: Context, row: CrawlRow): Promise<CrawlObject> {
  const counts = await crawlCounts(ctx.db, row.id);
  return {
    id: row.id,
    status: row.status,
    processed: counts.processed,
    discovered: counts.discovered,
    pending: counts.pending,
    failed: counts.failed,
    turnedAway: await turnedAwayCount(ctx.db, row.id),
    stopReason: row.stop_reason,
  };
}

/**
 * GET /crawl/pages: the latest crawl's pages with what became of each (a turned-away
 * page with its reason), in address order. The cursor is the last address of a page.
 */
export async function listLatestCrawlPages(
  ctx: Context,
  agent: AgentRef,
  query: { status?: ListedStatus; limit?: number; cursor?: string },
): Promise<{ items: CrawlPageItem[]; nextCursor: string | null }> {
  const row = await latestCrawl(ctx.db, agent.workspaceId, agent.id);
  if (!row) throw errors.notFound('crawl');
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listCrawlPages(ctx.db, row.id, { status: query.status, afterUrl: decodePageCursor(query.cursor), limit });
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: Buffer.from(items[items.length - 1].url).toString('base64url') };
}

function decodePageCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const url = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^https?:\/\/\S+$/.test(url) || Buffer.from(url).toString('base64url') !== cursor) {
    throw errors.invalidField('cursor', 'The cursor is not one this service gave out.');
  }
  return url;
}

async function checkedStartUrl(ctx: Context, raw: string): Promise<string> {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2000) throw errors.invalidField('url', 'url must be an http or https address of at most 2,000 characters');
  const url = normaliseUrl(raw);
  if (!url) throw errors.invalidField('url', 'url must be an http or https address');
  try {
    await ctx.safeFetch.check(url);
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    if (error.kind === 'unsafe_url') throw errors.unsafeUrl();
    if (error.kind === 'invalid_url') throw errors.invalidField('url', error.message);
    // A name that does not resolve right now: the crawl itself fails and says so.
  }
  return url;
}

function checkedExcludePaths(paths: unknown): string[] {
  if (!Array.isArray(paths) || paths.length > MAX_EXCLUDE_PATHS || paths.some((p) => typeof p !== 'string' || p.trim() === '' || p.length > 500)) {
    throw errors.invalidField('excludePaths', `excludePaths must be a list of at most ${MAX_EXCLUDE_PATHS} paths such as "/blog"`);
  }
  return paths.map((p: string) => `/${p.trim().replace(/^\/+/, '')}`);
}
