/**
 * What a crawl did with each address it met (crawl_pages): the turned-away count on
 * the crawl object and the page list the dashboard shows, with each page's reason.
 */
import { sql } from 'kysely';
import type { Db } from '../../../platform/db.ts';
import type { PageStatus } from './store.ts';

/** The statuses a page of a crawl may be listed by. */
export const LISTED_STATUSES = ['done', 'turned_away', 'skipped', 'failed', 'queued', 'fetching', 'dropped'] as const satisfies readonly PageStatus[];
export type ListedStatus = (typeof LISTED_STATUSES)[number];

export interface CrawlPageItem {
  url: string;
  status: ListedStatus;
  reason: string | null;
}

export async function turnedAwayCount(db: Db, crawlId: string): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::int as n from crawl_pages where crawl_id = ${crawlId} and counted and status = 'turned_away'`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** The crawl's own pages (not the addresses it learned pages by), in address order, after `afterUrl`. */
export async function listCrawlPages(db: Db, crawlId: string, filter: { status?: ListedStatus; afterUrl?: string; limit: number }): Promise<CrawlPageItem[]> {
  let query = db.selectFrom('crawl_pages').select(['url', 'status', 'reason']).where('crawl_id', '=', crawlId).where('counted', '=', true);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.afterUrl !== undefined) query = query.where('url', '>', filter.afterUrl);
  const rows = await query.orderBy('url').limit(filter.limit + 1).execute();
  return rows as CrawlPageItem[];
}
