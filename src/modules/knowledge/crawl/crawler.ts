/**
 * One batch of a crawl: up to BATCH_MS of pages read by PAGES_AT_ONCE lanes, after
 * which the batch queues the next one. All state is in the database (crawls and the
 * crawl_pages frontier), so any worker can take the next batch, and a worker that
 * stops in the middle leaves nothing that another cannot pick up.
 */
import { createHash } from 'node:crypto';
import robotsParserModule from 'robots-parser';
import type { Context } from '../../../context.ts';
import { SafeFetchError } from '../../../platform/safe-fetch-error.ts';
import type { SafeResponse } from '../../../platform/safe-fetch.ts';
import { planOf, type Plan } from '../../../domain/plans.ts';
import { getWorkspace } from '../../workspace/store.ts';
import { ApiError } from '../../../domain/errors.ts';
import { fetchFile } from '../fetch-file.ts';
import { ingestCrawledFile, ingestSiteFacts, ingestWebsitePage, recordTurnedAwayPage, storageUsedBytes } from '../ingest.ts';
import { nameFromUrl } from '../service.ts';
import { FileReadError, readFileText } from '../read-file.ts';
import { hasContactDetails, SITE_FACTS_FRAGMENT } from './contact-details.ts';
import type { ExtractedPage } from './extract.ts';
import { queueCrawlBatch } from './service.ts';
import { parseSitemap } from './sitemap.ts';
import { decideTitleAffix, settleTitles } from './titles.ts';
import { foldSpelling, slashDroppedSpelling } from './spellings.ts';
import {
  addPages,
  claimAlias,
  claimContentHash,
  claimPage,
  crawlById,
  crawlCounts,
  crawlStatus,
  endCrawl,
  finishPage,
  frontierSize,
  hasSlashDroppedCrawl,
  holdsPage,
  markRunning,
  markSeeded,
  moveSite,
  reclaimLostPages,
  type CrawlPageRow,
  type CrawlRow,
  type PageStatus,
  type StopReason,
} from './store.ts';
import { isExcluded, isOnSite, looksLikeFile, normaliseUrl, siteOf } from './urls.ts';

// A CommonJS module whose typings declare an ES default export: at run time the default is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** Pages of one site fetched at once by one batch. */
export const PAGES_AT_ONCE = 4;
const BATCH_MS = 20_000;
const PAGE_FETCH = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };
const ROBOTS_FETCH = { timeoutMs: 10_000, maxBytes: 512 * 1024, maxRedirects: 5 };
export const MAX_ATTEMPTS = 3;
/** Below this much main text a page is turned away as too_little_content. */
export const MIN_TEXT_CHARS = 200;
/** A page that carries contact details (a contact page) needs only a sentence of its own. */
export const MIN_CONTACT_PAGE_CHARS = 60;
/** Documents linked from the site's pages, read as file sources in the same crawl. */
const DOCUMENT_LINK = /\.(pdf|docx)$/i;
/** Pages a batch keeps before it looks for the site's name in their titles (titles.ts), when none is known yet. */
const TITLES_TO_DECIDE = 6;
/** The site-wide source of header and footer facts holds at most this much (distinct footers add up). */
const MAX_SITE_FACTS_CHARS = 8_000;
const MAX_SITEMAP_FILES = 50;
const SEED_MS = 60_000;
const USER_AGENT = 'Parley';
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';

interface Outcome {
  status: Exclude<PageStatus, 'queued' | 'fetching' | 'dropped'>;
  reason: string | null;
}

/** What the lanes of one batch share. */
interface Run {
  ctx: Context;
  /** This process's worker id: the pages it claims carry it (platform/heartbeat.ts). */
  workerId: string;
  crawl: CrawlRow;
  plan: Plan;
  site: string;
  robots: (url: string) => boolean;
  /** The agent was crawled before migration 006: its sources may lack a trailing slash their pages have. */
  hasSlashDroppedSources: boolean;
  stopReason: StopReason | null;
  firstError: string | null;
  /** Lanes of this batch holding or claiming a page right now. */
  inFlight: number;
  /** Pages of the crawl read or being read: what the plan's crawlPageLimit counts. */
  taken: number;
  /** Addresses in the frontier, at least. */
  frontier: number;
  /** Hashes of the header and footer facts this batch has kept, and the write under way. */
  siteFacts: { hashes: Set<string>; writing: Promise<void> };
  /** Pages this batch kept, and whether the site's name in their titles is known (titles.ts). */
  titles: { kept: number; known: boolean };
}

export async function runCrawlBatch(ctx: Context, crawlId: string, workerId: string, isStopping: () => boolean): Promise<void> {
  const crawl = await crawlById(ctx.db, crawlId);
  if (!crawl || (crawl.status !== 'queued' && crawl.status !== 'running')) return;
  await markRunning(ctx.db, crawlId, ctx.clock.now());
  const run: Run = {
    ctx,
    workerId,
    crawl,
    plan: planOf((await getWorkspace(ctx.db, crawl.workspace_id))?.plan ?? 'free'),
    site: crawl.site,
    robots: robotsRule(crawl.url, crawl.robots_txt ?? ''),
    hasSlashDroppedSources: await hasSlashDroppedCrawl(ctx.db, crawl.agent_id),
    stopReason: null,
    firstError: crawl.error,
    inFlight: 0,
    taken: 0,
    frontier: 0,
    siteFacts: { hashes: new Set(), writing: Promise.resolve() },
    titles: { kept: 0, known: crawl.title_prefix !== null || crawl.title_suffix !== null },
  };
  if (!crawl.seeded) await seed(run);
  // The pages an earlier crawl of the site read tell it at once.
  if (!run.titles.known) run.titles.known = await knowsSiteName(ctx, crawl);
  await reclaimLostPages(ctx.db, lostPagesRule(ctx, workerId, crawlId));
  run.taken = await pagesTaken(ctx, crawlId);
  run.frontier = await frontierSize(ctx.db, crawlId);
  const deadline = Date.now() + BATCH_MS;
  await Promise.all(Array.from({ length: PAGES_AT_ONCE }, () => lane(run, deadline, isStopping)));
  if (isStopping()) {
    // The process is going down: the next batch is queued for whoever starts next (the
    // worker start-up also picks up unfinished crawls, should this not reach the queue).
    await queueCrawlBatch(ctx, crawlId).catch(() => {});
    return;
  }
  await settle(run);
}

/** Which fetching pages count as lost: those of dead workers (jobs.ts sweeps for them every few seconds too). */
export function lostPagesRule(ctx: Context, ownWorkerId: string, crawlId?: string) {
  const lostAfterSeconds = ctx.config.lostWorkAfterSeconds;
  return { crawlId, ownWorkerId, lostAfterSeconds, legacyCutoff: new Date(ctx.clock.now().getTime() - lostAfterSeconds * 1000), maxAttempts: MAX_ATTEMPTS };
}

/** Ends a crawl whose batches kept failing, so it never stays running. */
export async function failCrawl(ctx: Context, crawlId: string, error: string): Promise<void> {
  await endCrawl(ctx.db, crawlId, { status: 'failed', error }, ctx.clock.now());
}

async function lane(run: Run, deadline: number, isStopping: () => boolean): Promise<void> {
  const { ctx, crawl } = run;
  while (Date.now() < deadline && !isStopping() && run.stopReason === null) {
    if (run.taken >= run.plan.crawlPageLimit) {
      // Another lane's page may yet turn out not to exist: the limit is final once no lane holds one.
      if (run.inFlight === 0) run.stopReason = 'page_limit';
      else await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    // Cancellation is seen between pages.
    if ((await crawlStatus(ctx.db, crawl.id)) !== 'running') return;
    if (await storageLimitReached(run)) {
      run.stopReason = 'storage_limit';
      return;
    }
    // Another lane may have taken the last page while this one waited on the queries above.
    if (run.taken >= run.plan.crawlPageLimit) continue;
    // Counted in the same step as the page-limit check, with no wait between: lanes must not all pass it together.
    run.taken++;
    // Busy from the claim on: a lane that finds no page must see the one another lane is just taking.
    run.inFlight++;
    let page: CrawlPageRow | undefined;
    try {
      page = await claimPage(ctx.db, crawl.id, ctx.clock.now(), run.workerId);
      if (page) await takePage(run, page);
    } finally {
      run.inFlight--;
      if (!page) run.taken--;
    }
    if (page) continue;
    // Pages in other lanes' hands may still bring links (a links crawl starts from one page).
    if (run.inFlight === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function takePage(run: Run, page: CrawlPageRow): Promise<void> {
  const outcome = await readPage(run, page).catch((error: unknown): Outcome => {
    console.error('[crawl] page failed', run.crawl.id, page.url, error);
    return { status: 'failed', reason: 'error' };
  });
  await finishPage(run.ctx.db, run.crawl.id, page.url, run.workerId, outcome.status, outcome.reason);
}

async function storageLimitReached(run: Run): Promise<boolean> {
  return (await storageUsedBytes(run.ctx, run.crawl.agent_id)) >= run.plan.storagePerAgentBytes;
}

/** Pages read or in hand when the batch starts; the lanes count on from there. */
async function pagesTaken(ctx: Context, crawlId: string): Promise<number> {
  const counts = await crawlCounts(ctx.db, crawlId);
  return counts.processed + (counts.pending - counts.queued);
}

/** After a batch: end the crawl, or queue the next batch. */
async function settle(run: Run): Promise<void> {
  const { ctx, crawl } = run;
  const counts = await crawlCounts(ctx.db, crawl.id);
  const fetching = counts.pending - counts.queued;
  const now = ctx.clock.now();
  if (counts.pending === 0) {
    const failed = counts.answered === 0 && run.stopReason === null;
    if (!failed) await settleCrawlTitles(run);
    await endCrawl(ctx.db, crawl.id, failed ? { status: 'failed', error: run.firstError ?? 'no page could be read' } : { status: 'completed' }, now);
  } else if (run.stopReason && fetching === 0) {
    await settleCrawlTitles(run);
    await endCrawl(ctx.db, crawl.id, { status: 'completed', stopReason: run.stopReason }, now);
  } else if (counts.queued > 0 && run.stopReason === null) {
    await queueCrawlBatch(ctx, crawl.id);
  } else {
    // Pages another worker holds: it ends the crawl, or its claims go stale and are read again.
    await queueCrawlBatch(ctx, crawl.id, 10);
  }
}

/** Before the crawl ends: its pages indexed by their own part of their titles (titles.ts). A failure costs only that. */
async function settleCrawlTitles(run: Run): Promise<void> {
  try {
    await settleTitles(run.ctx, { ...run.crawl, site: run.site });
  } catch (error) {
    console.error('[crawl] titles not settled', run.crawl.id, error);
  }
}

async function seed(run: Run): Promise<void> {
  const { ctx, crawl } = run;
  const robotsTxt = await fetchRobots(ctx, crawl.url);
  run.robots = robotsRule(crawl.url, robotsTxt);
  if (crawl.mode === 'sitemap') {
    const pages = await pagesFromSitemaps(run, robotsTxt);
    if (pages.length === 0) run.firstError = 'no sitemap listing pages of the site was found';
    await addPages(ctx.db, crawl.id, pages, 0);
  } else if (run.robots(crawl.url)) {
    await addPages(ctx.db, crawl.id, [crawl.url], 0);
  } else {
    run.firstError = 'robots.txt does not allow the address';
  }
  if (run.firstError) await ctx.db.updateTable('crawls').set({ error: run.firstError }).where('id', '=', crawl.id).execute();
  await markSeeded(ctx.db, crawl.id, robotsTxt);
}

async function fetchRobots(ctx: Context, startUrl: string): Promise<string> {
  try {
    const response = await ctx.safeFetch.fetch(new URL('/robots.txt', startUrl).href, { ...ROBOTS_FETCH, headers: { accept: 'text/plain' } });
    return response.status === 200 ? new TextDecoder().decode(response.body) : '';
  } catch {
    return ''; // no robots.txt to be had: everything is allowed
  }
}

/** robots.txt applies by path; it is read once, from the start address's origin, for the whole site. */
function robotsRule(startUrl: string, robotsTxt: string): (url: string) => boolean {
  const origin = new URL(startUrl).origin;
  const robots = robotsParser(`${origin}/robots.txt`, robotsTxt);
  return (url) => {
    const parsed = new URL(url);
    return robots.isAllowed(`${origin}${parsed.pathname}${parsed.search}`, USER_AGENT) !== false;
  };
}

async function pagesFromSitemaps(run: Run, robotsTxt: string): Promise<string[]> {
  const { ctx, crawl, plan } = run;
  const start = new URL(crawl.url);
  const toRead = /\.xml$/i.test(start.pathname)
    ? [crawl.url]
    : [...robotsParser(`${start.origin}/robots.txt`, robotsTxt).getSitemaps(), `${start.origin}/sitemap.xml`];
  const seen = new Set<string>();
  const pages = new Set<string>();
  const maxPages = plan.crawlPageLimit * 2;
  const deadline = Date.now() + SEED_MS;
  while (toRead.length > 0 && seen.size < MAX_SITEMAP_FILES && pages.size < maxPages && Date.now() < deadline) {
    const address = normaliseUrl(toRead.shift()!);
    if (!address || seen.has(address) || !isOnSite(address, run.site)) continue;
    seen.add(address);
    const xml = await fetchText(ctx, address);
    if (!xml) continue;
    const sitemap = parseSitemap(xml);
    toRead.push(...sitemap.sitemaps);
    for (const loc of sitemap.pages) {
      const url = pageToFollow(run, loc, start.href);
      if (url && pages.size < maxPages) pages.add(url);
    }
  }
  return [...pages];
}

async function fetchText(ctx: Context, url: string): Promise<string | null> {
  try {
    const response = await ctx.safeFetch.fetch(url, PAGE_FETCH);
    return response.status === 200 ? new TextDecoder().decode(response.body) : null;
  } catch {
    return null;
  }
}

/** The address to queue for a link, or null when the crawl leaves it alone. */
function pageToFollow(run: Run, href: string, base: string): string | null {
  const url = normaliseUrl(href, base);
  if (!url || !isOnSite(url, run.site) || (looksLikeFile(url) && !isDocumentLink(url))) return null;
  if (isExcluded(url, run.crawl.exclude_paths) || !run.robots(url)) return null;
  return url;
}

function isDocumentLink(url: string): boolean {
  return DOCUMENT_LINK.test(new URL(url).pathname);
}

async function readPage(run: Run, page: CrawlPageRow): Promise<Outcome> {
  const { ctx, crawl } = run;
  if (isDocumentLink(page.url)) return readDocument(run, page);
  let response: SafeResponse;
  try {
    response = await ctx.safeFetch.fetch(page.url, { ...PAGE_FETCH, headers: { accept: ACCEPT } });
  } catch (error) {
    if (error instanceof SafeFetchError) return failed(run, page, error.kind);
    throw error;
  }
  const finalUrl = normaliseUrl(response.url) ?? page.url;
  if (!isOnSite(finalUrl, run.site)) {
    // The start address may send the crawl to the site's real home (another host); every other page must stay.
    if (page.url !== crawl.url || crawl.mode === 'sitemap') return { status: 'skipped', reason: 'off_site' };
    run.site = siteOf(finalUrl);
    await moveSite(ctx.db, crawl.id, run.site);
  }
  if (response.status >= 300) return failed(run, page, `http_${response.status}`);
  if (!isHtml(response)) return { status: 'skipped', reason: 'not_html' };
  // Links resolve against the address that served the page, as a browser resolves them (or the page's <base href>).
  // The HTML parsers are loaded at the first page crawled, not by every process that starts (docs/performance.md, Memory).
  const { extractPage } = await import('./extract.ts');
  const extracted = extractPage(decode(response), response.url);
  const canonical = extracted.canonical ? normaliseUrl(extracted.canonical) : null;
  const address = canonical && isOnSite(canonical, run.site) ? canonical : finalUrl;
  // Same page under another address (its canonical, or where it redirected): read once, kept as one source.
  const isNew = address === page.url || (await claimAlias(ctx.db, crawl.id, address, page.depth));
  await foldOtherSpellings(run, { address, requested: page.url, servedAt: finalUrl, isNew });
  if (!isNew) return { status: 'skipped', reason: 'duplicate' };
  if (crawl.mode === 'links' && !extracted.nofollow) await queueLinks(run, extracted.links, response.url, page.depth + 1);
  if (extracted.noindex) return { status: 'skipped', reason: 'noindex' };
  if (extracted.siteFacts) await keepSiteFacts(run, extracted, response.url);
  const turnedAway = turnedAwayReason(extracted);
  const title = extracted.title || address;
  if (turnedAway) {
    await recordTurnedAwayPage(ctx, { workspaceId: crawl.workspace_id, agentId: crawl.agent_id, crawlId: crawl.id, url: address, title, reason: turnedAway });
    return { status: 'turned_away', reason: turnedAway };
  }
  const hash = createHash('sha256').update(extracted.text).digest('hex');
  if (!(await claimContentHash(ctx.db, crawl.id, page.url, hash))) return { status: 'skipped', reason: 'duplicate' };
  // Taken for dead and the page given to another worker: that one keeps its text.
  if (!(await holdsPage(ctx.db, crawl.id, page.url, run.workerId))) return { status: 'skipped', reason: 'lost' };
  await ingestWebsitePage(ctx, { workspaceId: crawl.workspace_id, agentId: crawl.agent_id, crawlId: crawl.id, url: address, title, text: extracted.text });
  // Once a few pages are kept, their titles tell the site's name, and the pages after them are indexed without it.
  if (!run.titles.known && ++run.titles.kept === TITLES_TO_DECIDE) run.titles.known = await knowsSiteName(ctx, { ...crawl, site: run.site });
  return { status: 'done', reason: null };
}

async function knowsSiteName(ctx: Context, crawl: CrawlRow): Promise<boolean> {
  const affix = await decideTitleAffix(ctx, crawl);
  return affix.prefix !== null || affix.suffix !== null;
}

/** A source the agent holds under another spelling of this page becomes the page's source (spellings.ts). */
async function foldOtherSpellings(run: Run, page: { address: string; requested: string; servedAt: string; isNew: boolean }): Promise<void> {
  const { ctx, crawl } = run;
  for (const alias of new Set([page.requested, page.servedAt])) await foldSpelling(ctx, crawl.agent_id, alias, page.address);
  // The lane that reads the page asks the server about the old spelling; a duplicate's lane leaves it to that one.
  if (!page.isNew || !run.hasSlashDroppedSources) return;
  const oldSpelling = await slashDroppedSpelling(ctx, { agentId: crawl.agent_id, address: page.address, servedAt: page.servedAt, allowed: run.robots });
  if (oldSpelling) await foldSpelling(ctx, crawl.agent_id, oldSpelling, page.address);
}

async function queueLinks(run: Run, links: string[], base: string, depth: number): Promise<void> {
  const { ctx, crawl, plan } = run;
  const urls = [...new Set(links.map((href) => pageToFollow(run, href, base)).filter((url): url is string => url !== null))];
  if (urls.length === 0) return;
  // The frontier is bounded: a site of endless addresses (calendars, filters) cannot fill the database.
  // run.frontier over-counts (known links are offered again), so it is only recounted near the bound.
  const cap = plan.crawlPageLimit * 4;
  if (run.frontier + urls.length > cap) run.frontier = await frontierSize(ctx.db, crawl.id);
  const room = cap - run.frontier;
  if (room <= 0) return;
  await addPages(ctx.db, crawl.id, urls.slice(0, room), depth);
  run.frontier += Math.min(room, urls.length);
}

function failed(run: Run, page: CrawlPageRow, reason: string): Outcome {
  if (page.url === run.crawl.url && !run.firstError) run.firstError = `the start address could not be read: ${reason}`;
  return { status: 'failed', reason };
}

function isHtml(response: SafeResponse): boolean {
  const type = response.headers.get('content-type');
  if (type) return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(type);
  const head = new TextDecoder().decode(response.body.subarray(0, 512)).trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

function decode(response: SafeResponse): string {
  const declared = /charset=["']?([\w-]+)/i.exec(response.headers.get('content-type') ?? '')?.[1];
  const sniffed = /<meta[^>]+charset=["']?([\w-]+)/i.exec(new TextDecoder().decode(response.body.subarray(0, 2048)))?.[1];
  try {
    return new TextDecoder(declared ?? sniffed ?? 'utf-8').decode(response.body);
  } catch {
    return new TextDecoder().decode(response.body);
  }
}

/** Why a page is not kept, or null. A short page is kept when it carries contact details. */
export function turnedAwayReason(page: Pick<ExtractedPage, 'isLoginForm' | 'text' | 'siteFacts'>): 'login_page' | 'too_little_content' | null {
  if (page.isLoginForm) return 'login_page';
  if (page.text.length >= MIN_TEXT_CHARS) return null;
  const carriesContact = hasContactDetails(page.text) || (page.siteFacts !== null && hasContactDetails(page.siteFacts));
  return carriesContact && page.text.length >= MIN_CONTACT_PAGE_CHARS ? null : 'too_little_content';
}

const SITE_FACTS_TITLES: Record<string, string> = {
  en: 'Contact details',
  nl: 'Contactgegevens',
  fr: 'Coordonnées',
  de: 'Kontaktdaten',
  es: 'Datos de contacto',
};

/**
 * The facts of the site's header and footer (contact details, opening hours) are one
 * website source for the whole site, at the site's home address with #contact-details:
 * written by the first page that has them, and grown only by a header or footer whose
 * text (by hash) this crawl has not kept yet. Lanes take turns, so none loses another's;
 * batches on other workers are kept apart by the write's transaction (ingestSiteFacts).
 */
function keepSiteFacts(run: Run, page: ExtractedPage, servedAt: string): Promise<void> {
  const write = run.siteFacts.writing.then(() => writeSiteFacts(run, page, servedAt));
  run.siteFacts.writing = write.catch(() => {});
  return write;
}

async function writeSiteFacts(run: Run, page: ExtractedPage, servedAt: string): Promise<void> {
  const { ctx, crawl } = run;
  const facts = page.siteFacts!;
  const hash = createHash('sha256').update(facts).digest('hex');
  if (run.siteFacts.hashes.has(hash)) return;
  run.siteFacts.hashes.add(hash);
  const url = `${new URL(servedAt).origin}/${SITE_FACTS_FRAGMENT}`;
  const title = SITE_FACTS_TITLES[page.language.slice(0, 2)] ?? SITE_FACTS_TITLES.en;
  await ingestSiteFacts(ctx, { workspaceId: crawl.workspace_id, agentId: crawl.agent_id, crawlId: crawl.id, url, title }, (held) => {
    // A batch after a restart, or on another worker, starts with no hashes: the text this crawl kept tells it.
    const keptByThisCrawl = held?.crawl_id === crawl.id ? held.content : '';
    if (keptByThisCrawl.includes(facts)) return null;
    // Under a heading of their own, every passage of the facts says what it is ("Contact details › Opening hours").
    const text = keptByThisCrawl ? `${keptByThisCrawl}\n\n${facts}` : `# ${title}\n\n${facts}`;
    return keptByThisCrawl && text.length > MAX_SITE_FACTS_CHARS ? null : text;
  });
}

/**
 * A PDF or Word document linked from the site: fetched within the storage allowance and
 * read as a file source is (fetchFile, readFileText), in this crawl's lane.
 */
async function readDocument(run: Run, page: CrawlPageRow): Promise<Outcome> {
  const { ctx, crawl } = run;
  const allowanceLeftBytes = run.plan.storagePerAgentBytes - (await storageUsedBytes(ctx, crawl.agent_id));
  let file;
  try {
    file = await fetchFile(ctx, page.url, { allowanceLeftBytes });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'storage_limit_reached') return { status: 'skipped', reason: 'storage_limit' };
    if (error.code === 'unsupported_file_type') return { status: 'skipped', reason: 'not_a_document' };
    return failed(run, page, error.code);
  }
  if (file.kind !== 'pdf' && file.kind !== 'docx') return { status: 'skipped', reason: 'not_a_document' };
  let text: string;
  try {
    text = await readFileText(ctx, file.kind, file.bytes);
  } catch (error) {
    if (error instanceof FileReadError) return failed(run, page, error.failure);
    throw error;
  }
  if (text.trim().length < MIN_CONTACT_PAGE_CHARS) return { status: 'turned_away', reason: 'too_little_content' };
  const hash = createHash('sha256').update(text).digest('hex');
  if (!(await claimContentHash(ctx.db, crawl.id, page.url, hash))) return { status: 'skipped', reason: 'duplicate' };
  // Taken for dead and the page given to another worker: that one keeps the document (one source for the address).
  if (!(await holdsPage(ctx.db, crawl.id, page.url, run.workerId))) return { status: 'skipped', reason: 'lost' };
  const url = normaliseUrl(file.url) ?? page.url;
  try {
    await ingestCrawledFile(ctx, {
      workspaceId: crawl.workspace_id,
      agentId: crawl.agent_id,
      crawlId: crawl.id,
      url,
      name: nameFromUrl(url) || url,
      kind: file.kind,
      bytes: file.bytes,
      text,
      allowanceBytes: run.plan.storagePerAgentBytes,
    });
  } catch (error) {
    // Lanes that fetched side by side are counted one after the other when they store.
    if (error instanceof ApiError && error.code === 'storage_limit_reached') return { status: 'skipped', reason: 'storage_limit' };
    throw error;
  }
  return { status: 'done', reason: null };
}
