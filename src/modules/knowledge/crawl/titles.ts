/**
 * A crawl's part in keeping the site's name out of its pages' indexed titles
 * (site-name.ts): it finds the prefix or suffix the site's titles share, early and then
 * once more when it ends, and at the end indexes again the pages it read before the part
 * was known (or while it was another).
 */
import type { Context } from '../../../context.ts';
import { indexSourcesText, passageTitle } from '../indexing.ts';
import { SITE_FACTS_FRAGMENT } from './contact-details.ts';
import { sharedTitleAffix, type TitleAffix } from './site-name.ts';
import type { CrawlRow } from './store.ts';
import { isOnSite } from './urls.ts';

/** Sources indexed again at once by the end's pass. */
const REINDEX_BATCH = 50;

/**
 * Finds what the titles of the agent's pages on the crawl's site share (those earlier
 * crawls read count: a crawl of the same site again knows it from its first page) and
 * records it on the crawl; the pages indexed from then on are indexed by their own part.
 */
export async function decideTitleAffix(ctx: Context, crawl: Pick<CrawlRow, 'id' | 'agent_id' | 'site'>): Promise<TitleAffix> {
  const rows = await ctx.db
    .selectFrom('sources')
    .select(['url', 'title'])
    .where('agent_id', '=', crawl.agent_id)
    .where('type', '=', 'website')
    .execute();
  const titles = rows
    .filter((row) => row.url !== null && row.title !== null && !row.url.endsWith(SITE_FACTS_FRAGMENT) && isOnSite(row.url, crawl.site))
    .map((row) => row.title!);
  const affix = sharedTitleAffix(titles);
  await ctx.db.updateTable('crawls').set({ title_prefix: affix.prefix, title_suffix: affix.suffix }).where('id', '=', crawl.id).execute();
  return affix;
}

/**
 * When the crawl ends: the shared part decided from every page it read, and the pages of
 * this crawl indexed under another title than that gives indexed again (those read before
 * the part was known: the first few of a new site's crawl).
 */
export async function settleTitles(ctx: Context, crawl: Pick<CrawlRow, 'id' | 'agent_id' | 'site'>): Promise<number> {
  await decideTitleAffix(ctx, crawl);
  const titles = await ctx.db.selectFrom('crawls').select(['id', 'url', 'mode', 'title_prefix', 'title_suffix']).where('id', '=', crawl.id).execute();
  const crawls = new Map(titles.map((row) => [row.id, row]));
  const pages = await ctx.db
    .selectFrom('sources as s')
    .innerJoin('passages as p', (join) => join.onRef('p.source_id', '=', 's.id').on('p.position', '=', 0))
    .select(['s.id', 's.type', 's.title', 's.name', 's.url', 's.crawl_id', 'p.title as indexed'])
    .where('s.agent_id', '=', crawl.agent_id)
    .where('s.type', '=', 'website')
    .where('s.crawl_id', '=', crawl.id)
    .where('s.status', '=', 'ready')
    .execute();
  const stale = pages.filter((page) => passageTitle(page, crawls) !== page.indexed).map((page) => page.id);
  for (let start = 0; start < stale.length; start += REINDEX_BATCH) {
    const sources = await ctx.db
      .selectFrom('sources')
      .selectAll()
      .where('id', 'in', stale.slice(start, start + REINDEX_BATCH))
      .where('status', '=', 'ready')
      .execute();
    // Read as they are now, at their generation: one read again since is left to that reading.
    if (sources.length > 0) await indexSourcesText(ctx, sources);
  }
  return stale.length;
}
