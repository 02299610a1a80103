/**
 * One source per page whatever spelling reached it. Two addresses are one page only
 * where the server says so: a redirect, or a <link rel=canonical>. A website source an
 * earlier crawl recorded under the other spelling then becomes the page's source.
 */
import type { Context } from '../../../context.ts';
import { deleteSourceAndPassages } from '../indexing.ts';
import { isSlashDroppedSource, moveWebsiteSource, websiteSourceAt } from './store.ts';
import { normaliseUrl } from './urls.ts';

/** Asking the server where an old spelling leads: no body is read. */
const SPELLING_CHECK = { method: 'HEAD' as const, timeoutMs: 10_000, maxBytes: 64 * 1024, maxRedirects: 5 };

/** The agent's source under `alias` becomes the source of `address` (or goes, when `address` has its own). */
export async function foldSpelling(ctx: Context, agentId: string, alias: string, address: string): Promise<void> {
  if (alias === address) return;
  const sourceId = await websiteSourceAt(ctx.db, agentId, alias);
  if (!sourceId || (await moveWebsiteSource(ctx.db, agentId, sourceId, address))) return;
  // The page's own source is newer than the copy under the other spelling.
  await deleteSourceAndPassages(ctx, agentId, sourceId);
}

/**
 * Crawls before migration 006 dropped every trailing slash: a page read at ".../docs/"
 * may be held as ".../docs". When the agent holds such a source, the server is asked
 * whether ".../docs" leads to this page; the old spelling is returned when it does.
 */
export async function slashDroppedSpelling(
  ctx: Context,
  page: { agentId: string; address: string; servedAt: string; allowed: (url: string) => boolean },
): Promise<string | null> {
  const url = new URL(page.address);
  const trimmed = url.pathname.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === url.pathname) return null;
  url.pathname = trimmed;
  const spelling = url.href;
  if (!page.allowed(spelling) || !(await isSlashDroppedSource(ctx.db, page.agentId, spelling))) return null;
  try {
    const response = await ctx.safeFetch.fetch(spelling, SPELLING_CHECK);
    const leadsTo = normaliseUrl(response.url);
    return response.status < 300 && (leadsTo === page.servedAt || leadsTo === page.address) ? spelling : null;
  } catch {
    return null; // no answer: the old source stays as it is
  }
}
