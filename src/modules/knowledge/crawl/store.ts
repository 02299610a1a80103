/** Queries of the crawler: crawls, their frontier (crawl_pages), and the website sources a page's spellings fold into one. */
import { sql } from 'kysely';
import type { Db } from '../../../platform/db.ts';
import { isAlive } from '../../../platform/heartbeat.ts';

export type CrawlMode = 'links' | 'sitemap' | 'single';
export type CrawlStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type StopReason = 'page_limit' | 'storage_limit';
/**
 * queued and fetching are pending; done, failed, turned_away and skipped are processed;
 * dropped is what a cancelled or limited crawl left unread.
 */
export type PageStatus = 'queued' | 'fetching' | 'done' | 'failed' | 'turned_away' | 'skipped' | 'dropped';

export interface CrawlRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  url: string;
  mode: CrawlMode;
  exclude_paths: string[];
  status: CrawlStatus;
  stop_reason: StopReason | null;
  error: string | null;
  site: string;
  seeded: boolean;
  robots_txt: string | null;
  /** Made before migration 006: the addresses it recorded lost their trailing slash. */
  dropped_trailing_slash: boolean;
  /** The prefix or suffix most of the crawl's page titles share: the site's name (site-name.ts). */
  title_prefix: string | null;
  title_suffix: string | null;
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
}

export interface CrawlPageRow {
  crawl_id: string;
  url: string;
  depth: number;
  status: PageStatus;
  counted: boolean;
  attempts: number;
  claimed_at: Date | null;
  /** The worker process holding the page while it is fetching (platform/heartbeat.ts). */
  worker_id: string | null;
  content_hash: string | null;
  reason: string | null;
}

declare module '../../../platform/db.ts' {
  interface Tables {
    crawls: CrawlRow;
    crawl_pages: CrawlPageRow;
  }
}

export interface CrawlCounts {
  discovered: number;
  processed: number;
  pending: number;
  queued: number;
  failed: number;
  /** Pages that answered at all (read, turned away or skipped). */
  answered: number;
}

const UNFINISHED: CrawlStatus[] = ['queued', 'running'];

export async function insertCrawl(
  db: Db,
  row: Omit<CrawlRow, 'stop_reason' | 'error' | 'seeded' | 'robots_txt' | 'dropped_trailing_slash' | 'title_prefix' | 'title_suffix' | 'started_at' | 'ended_at'>,
): Promise<CrawlRow> {
  return db
    .insertInto('crawls')
    .values({ ...row, exclude_paths: JSON.stringify(row.exclude_paths) as never, seeded: false, dropped_trailing_slash: false })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function latestCrawl(db: Db, workspaceId: string, agentId: string): Promise<CrawlRow | undefined> {
  return db
    .selectFrom('crawls')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** For the worker, which has only the id from its job. */
export function crawlById(db: Db, crawlId: string): Promise<CrawlRow | undefined> {
  return db.selectFrom('crawls').selectAll().where('id', '=', crawlId).executeTakeFirst();
}

export function crawlStatus(db: Db, crawlId: string): Promise<CrawlStatus | undefined> {
  return db
    .selectFrom('crawls')
    .select('status')
    .where('id', '=', crawlId)
    .executeTakeFirst()
    .then((row) => row?.status);
}

export async function unfinishedCrawlIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('crawls').select('id').where('status', 'in', UNFINISHED).execute();
  return rows.map((row) => row.id);
}

/** By agent id alone: callers reached the agent through requireAgent. */
export async function hasUnfinishedCrawl(db: Db, agentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('crawls')
    .select('id')
    .where('agent_id', '=', agentId)
    .where('status', 'in', UNFINISHED)
    .executeTakeFirst();
  return row !== undefined;
}

/** Cancels every unfinished crawl of the agent (or just one); returns the ids it stopped. */
export async function cancelCrawls(db: Db, where: { workspaceId: string; agentId: string; crawlId?: string }, now: Date): Promise<string[]> {
  let query = db
    .updateTable('crawls')
    .set({ status: 'cancelled', ended_at: now })
    .where('workspace_id', '=', where.workspaceId)
    .where('agent_id', '=', where.agentId)
    .where('status', 'in', UNFINISHED);
  if (where.crawlId) query = query.where('id', '=', where.crawlId);
  const rows = await query.returning('id').execute();
  for (const row of rows) await dropUnread(db, row.id);
  return rows.map((row) => row.id);
}

export async function markRunning(db: Db, crawlId: string, now: Date): Promise<void> {
  await db.updateTable('crawls').set({ status: 'running', started_at: now }).where('id', '=', crawlId).where('status', '=', 'queued').execute();
}

export async function markSeeded(db: Db, crawlId: string, robotsTxt: string): Promise<void> {
  await db.updateTable('crawls').set({ seeded: true, robots_txt: robotsTxt }).where('id', '=', crawlId).execute();
}

export async function moveSite(db: Db, crawlId: string, site: string): Promise<void> {
  await db.updateTable('crawls').set({ site }).where('id', '=', crawlId).execute();
}

/** Ends a crawl unless it already ended (a cancel that came first wins). */
export async function endCrawl(
  db: Db,
  crawlId: string,
  outcome: { status: 'completed' | 'failed'; stopReason?: StopReason | null; error?: string | null },
  now: Date,
): Promise<boolean> {
  const rows = await db
    .updateTable('crawls')
    .set({ status: outcome.status, stop_reason: outcome.stopReason ?? null, error: outcome.error ?? null, ended_at: now })
    .where('id', '=', crawlId)
    .where('status', 'in', UNFINISHED)
    .returning('id')
    .execute();
  if (rows.length > 0) await dropUnread(db, crawlId);
  return rows.length > 0;
}

/** An ended crawl has nothing pending: what it did not read is dropped. */
async function dropUnread(db: Db, crawlId: string): Promise<void> {
  // worker_id stays: the worker with the page in hand still records what it found.
  await db.updateTable('crawl_pages').set({ status: 'dropped', claimed_at: null }).where('crawl_id', '=', crawlId).where('status', 'in', ['queued', 'fetching']).execute();
}

export async function crawlCounts(db: Db, crawlId: string): Promise<CrawlCounts> {
  const result = await sql<Record<keyof CrawlCounts, number>>`
    select
      count(*)::int as discovered,
      (count(*) filter (where status in ('done', 'failed', 'turned_away', 'skipped')))::int as processed,
      (count(*) filter (where status in ('queued', 'fetching')))::int as pending,
      (count(*) filter (where status = 'queued'))::int as queued,
      (count(*) filter (where status = 'failed'))::int as failed,
      (count(*) filter (where status in ('done', 'turned_away', 'skipped')))::int as answered
    from crawl_pages where crawl_id = ${crawlId} and counted`.execute(db);
  return result.rows[0];
}

/**
 * New addresses join the frontier; ones already known are left as they are. Nothing
 * joins a crawl that has ended (a page in hand when it was cancelled still finds links).
 */
export async function addPages(db: Db, crawlId: string, urls: string[], depth: number): Promise<void> {
  for (let start = 0; start < urls.length; start += 500) {
    await sql`
      insert into crawl_pages (crawl_id, url, depth, status, counted, attempts)
      select ${crawlId}, u, ${depth}, 'queued', true, 0 from unnest(${urls.slice(start, start + 500)}::text[]) as u
      where exists (select 1 from crawls where id = ${crawlId} and status in ('queued', 'running'))
      on conflict (crawl_id, url) do nothing`.execute(db);
  }
}

export async function frontierSize(db: Db, crawlId: string): Promise<number> {
  const row = await db
    .selectFrom('crawl_pages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('crawl_id', '=', crawlId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Takes the next page for this worker, shallowest first. SKIP LOCKED keeps two
 * workers of one crawl (after a restart, say) from taking the same page.
 */
export async function claimPage(db: Db, crawlId: string, now: Date, workerId: string): Promise<CrawlPageRow | undefined> {
  const result = await sql<CrawlPageRow>`
    update crawl_pages set status = 'fetching', claimed_at = ${now}, worker_id = ${workerId}, attempts = attempts + 1
    where crawl_id = ${crawlId} and url = (
      select url from crawl_pages where crawl_id = ${crawlId} and status = 'queued'
      order by depth, url limit 1 for update skip locked)
      and exists (select 1 from crawls where id = ${crawlId} and status = 'running')
    returning *`.execute(db);
  return result.rows[0];
}

/**
 * Pages held by a worker that died (its heartbeat older than `lostAfterSeconds`) are
 * read again, or failed once tried too often (a page that kills its worker). A page a
 * live worker holds stays its own however long it takes. Pages claimed by a process from
 * before heartbeats (no worker id) count as lost once claimed before `legacyCutoff`. The
 * caller's own pages are never lost: a pause long enough to miss its beats must not make
 * it take its own pages back.
 * Returns the crawls (still unfinished) that got pages back.
 */
export async function reclaimLostPages(
  db: Db,
  options: { crawlId?: string; lostAfterSeconds: number; legacyCutoff: Date; maxAttempts: number; ownWorkerId: string },
): Promise<string[]> {
  const { rows } = await sql<{ crawl_id: string }>`
    update crawl_pages
    set status = case when attempts >= ${options.maxAttempts} then 'failed' else 'queued' end,
        reason = case when attempts >= ${options.maxAttempts} then 'never_finished' else reason end,
        claimed_at = null, worker_id = null
    where status = 'fetching' ${options.crawlId ? sql`and crawl_id = ${options.crawlId}` : sql``}
      and worker_id is distinct from ${options.ownWorkerId}
      and case when worker_id is null then claimed_at < ${options.legacyCutoff}
               else not ${isAlive(sql.ref('crawl_pages.worker_id'), options.lostAfterSeconds)} end
    returning crawl_id`.execute(db);
  return [...new Set(rows.map((row) => row.crawl_id))];
}

/**
 * Records a page's outcome, only while this worker still holds it: a worker taken for
 * dead whose page was given to another writes nothing (no page is counted twice).
 */
export async function finishPage(db: Db, crawlId: string, url: string, workerId: string, status: PageStatus, reason: string | null = null): Promise<boolean> {
  const rows = await db
    .updateTable('crawl_pages')
    .set({ status, reason, claimed_at: null, worker_id: null })
    .where('crawl_id', '=', crawlId)
    .where('url', '=', url)
    .where('status', 'in', ['fetching', 'dropped'])
    .where('worker_id', '=', workerId)
    .returning('url')
    .execute();
  return rows.length > 0;
}

/** Whether this worker still holds the page (checked before its text is kept). */
export async function holdsPage(db: Db, crawlId: string, url: string, workerId: string): Promise<boolean> {
  const row = await db
    .selectFrom('crawl_pages')
    .select('url')
    .where('crawl_id', '=', crawlId)
    .where('url', '=', url)
    .where('status', '=', 'fetching')
    .where('worker_id', '=', workerId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Puts a page this worker claimed but did not read back in the queue. */
export async function releasePage(db: Db, crawlId: string, url: string): Promise<void> {
  await db
    .updateTable('crawl_pages')
    .set({ status: 'queued', claimed_at: null, worker_id: null, attempts: sql`greatest(attempts - 1, 0)` as never })
    .where('crawl_id', '=', crawlId)
    .where('url', '=', url)
    .where('status', '=', 'fetching')
    .execute();
}

/**
 * Records the address a page really has (its canonical or where it redirected to) as
 * read; false when that address is already known to the crawl, so this page is a duplicate.
 */
export async function claimAlias(db: Db, crawlId: string, url: string, depth: number): Promise<boolean> {
  const rows = await db
    .insertInto('crawl_pages')
    .values({ crawl_id: crawlId, url, depth, status: 'done', counted: false, attempts: 0, reason: 'alias' })
    .onConflict((oc) => oc.columns(['crawl_id', 'url']).doNothing())
    .returning('url')
    .execute();
  return rows.length > 0;
}

/**
 * false when another page of the crawl already had exactly this text. The page's own
 * hash does not count: a page read again after its worker died is not its own duplicate.
 */
export async function claimContentHash(db: Db, crawlId: string, url: string, hash: string): Promise<boolean> {
  const rows = await sql<{ url: string }>`
    update crawl_pages set content_hash = ${hash}
    where crawl_id = ${crawlId} and url = ${url}
      and not exists (select 1 from crawl_pages where crawl_id = ${crawlId} and content_hash = ${hash} and url <> ${url})
    returning url`
    .execute(db)
    .catch((error: { code?: string }) => {
      if (error.code === '23505') return { rows: [] }; // two lanes with the same text at once
      throw error;
    });
  return rows.rows.length > 0;
}

/** The agent's website source at this address, if it has one. */
export async function websiteSourceAt(db: Db, agentId: string, url: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('sources')
    .select('id')
    .where('agent_id', '=', agentId)
    .where('type', '=', 'website')
    .where('url', '=', url)
    .executeTakeFirst();
  return row?.id;
}

/** Whether the agent was crawled before migration 006 (those crawls dropped trailing slashes). */
export async function hasSlashDroppedCrawl(db: Db, agentId: string): Promise<boolean> {
  const row = await db.selectFrom('crawls').select('id').where('agent_id', '=', agentId).where('dropped_trailing_slash', '=', true).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether the agent's website source at this address was last recorded by a crawl that dropped trailing slashes. */
export async function isSlashDroppedSource(db: Db, agentId: string, url: string): Promise<boolean> {
  const row = await db
    .selectFrom('sources')
    .innerJoin('crawls', 'crawls.id', 'sources.crawl_id')
    .select('sources.id')
    .where('sources.agent_id', '=', agentId)
    .where('sources.type', '=', 'website')
    .where('sources.url', '=', url)
    .where('crawls.dropped_trailing_slash', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Gives a website source (and its passages, which carry the address) another address;
 * false when the agent already has a website source there.
 */
export async function moveWebsiteSource(db: Db, agentId: string, sourceId: string, url: string): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('sources')
        .set({ url, name: sql`case when name = url then ${url} else name end` as never })
        .where('id', '=', sourceId)
        .where('agent_id', '=', agentId)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('sources as other').select('other.id').where('other.agent_id', '=', agentId).where('other.type', '=', 'website').where('other.url', '=', url))),
        )
        .returning('id')
        .executeTakeFirst();
      if (moved) await trx.updateTable('passages').set({ url }).where('source_id', '=', sourceId).execute();
      return moved !== undefined;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return false; // the address's own source was written just now
    throw error;
  }
}
