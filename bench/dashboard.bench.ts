/**
 * The dashboard (docs/dashboard.md, "Budget"):
 * - the bytes of the first load of /app as served (the entry, the chunks it imports at once,
 *   the style sheet, the English catalogue; the Dutch one beside): raw and gzip, against the
 *   budget of 60 KB gzip;
 * - in Chromium (playwright-core, /usr/bin/chromium), against `npm start`'s entry point on
 *   the embedded store, signed in with the first start's link: the time from navigation to a
 *   usable Agents page (its data shown), cold (a new browser context: empty cache) and warm
 *   (the same context again). Medians and maxima of BENCH_ROUNDS loads;
 * - the Analytics page: the bytes of its lazily loaded chunks (the page and uPlot), and the time
 *   to a usable page (its figures shown) for an agent the bench makes, cold and warm;
 * - on PostgreSQL (TEST_DATABASE_URL or DATABASE_URL, with Redis when TEST_REDIS_URL or REDIS_URL
 *   is set; else skipped, said so), one agent holding the inbox bench's 10,000 conversations and
 *   1,000 tickets (bench/inbox.bench.ts, seedInbox): the time to a usable Inbox conversations page,
 *   tickets page and Analytics page, p50 and p95 of BENCH_ROUNDS loads cold and warm, and the
 *   conversation search (a word typed, Enter pressed, until the filtered list shows) p95.
 *   Target (issue 24): under 300 ms p95 each. With BENCH_DASHBOARD_BEFORE=<a checkout of the code
 *   before a change, node_modules linked in it> that code is served too, on its own database with
 *   the same data, and each round loads both in turns (the first of the two alternating), so
 *   before and after are compared under the same load of the machine.
 * The HTML's time is the page received whole: signed in, its head (the assets to fetch) comes
 * first and the person's data (GET /app/api/me's) after, so the assets may end before it.
 */
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../src/modules/widget/browser.ts';
import { buildDashboard } from '../src/dashboard/build.ts';
import type { BuiltAsset } from '../src/platform/bundle.ts';
import { manageApi, printTable, scratchDatabase, startParley, type RunningService } from './support.ts';
import { CONVERSATIONS, TICKETS, seedInbox } from './inbox.bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BUDGET_GZIP = 60 * 1024;
/** The Agents page is usable when its list or the first run's preset is shown. */
const USABLE = 'main table, main .preset';
/** The Analytics page is usable when its figures and its chart are drawn. */
const USABLE_ANALYTICS = 'main .analytics-figures ~ .card canvas';

export async function run(): Promise<void> {
  const built = await buildDashboard();
  const sizes = (asset: BuiltAsset, file = asset.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.')) => ({ file, raw: asset.body.length, gzip: gzipSync(asset.body, { level: 9 }).length });
  // The first load carries one language's texts (the person's, preloaded by the HTML): English's here, Dutch's beside.
  const texts = (language: 'en' | 'nl') => built.languageChunks[language].map((chunk) => built.assets.get(chunk)!);
  const rows = [...built.firstLoad, ...texts('en')].map((asset) => sizes(asset, texts('en').includes(asset) ? `${asset.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.')} (English texts)` : undefined));
  const total = { file: 'first load', raw: rows.reduce((sum, row) => sum + row.raw, 0), gzip: rows.reduce((sum, row) => sum + row.gzip, 0) };
  const dutch = texts('nl').map((asset) => sizes(asset, `${asset.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.')} (Dutch texts, instead of the English)`));
  printTable(`Dashboard first load (bytes; budget ${BUDGET_GZIP} gzip)`, [...rows, total, ...dutch]);
  if (total.gzip > BUDGET_GZIP) console.log(`OVER BUDGET: ${total.gzip} > ${BUDGET_GZIP}`);
  // The analytics page's own chunks: those with its chart's class or uPlot's (never in the first load).
  const firstPaths = new Set([...built.firstLoad, ...texts('en'), ...texts('nl')].map((asset) => asset.path));
  const analyticsRows = [...built.assets.values()]
    .filter((asset) => asset.path.endsWith('.js') && !firstPaths.has(asset.path) && /analytics-chart|u-cursor-pt/.test(asset.body.toString('utf8')))
    .map((asset) => ({ file: asset.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.'), raw: asset.body.length, gzip: gzipSync(asset.body, { level: 9 }).length }));
  printTable('Analytics page chunks, loaded when first opened (bytes)', analyticsRows);

  const service = await startParley();
  const browser = await launchChromium();
  try {
    const link = new URL(await service.signInLink);
    const origin = link.origin;
    const signing = await browser.newContext();
    const page = await signing.newPage();
    await page.goto(link.href);
    await page.waitForSelector('nav[aria-label="Main"]');
    const state = await signing.storageState();
    // An agent for the Analytics page (the first start's workspace has none).
    await page.evaluate(async () => {
      const me = await (await fetch('/app/api/me')).json();
      await fetch('/app/api/v1/agents', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.data.csrfToken }, body: JSON.stringify({ name: 'Bench agent', useCase: 'general' }) });
    });
    await signing.close();

    const row = (load: string, timings: Timing[]) => ({
      load,
      'html (median)': median(timings.map((t) => t.html)),
      'assets (median)': median(timings.map((t) => t.assets)),
      'api (median)': median(timings.map((t) => t.api)),
      'usable (median)': median(timings.map((t) => t.usable)),
      'usable (max)': Math.max(...timings.map((t) => t.usable)),
    });
    for (const [name, path, usable] of [
      ['Agents', '/app/agents', USABLE],
      ['Analytics', '/app/analytics', USABLE_ANALYTICS],
    ] as const) {
      const [{ cold, warm }] = (await coldAndWarm(browser, [{ state, url: `${origin}${path}` }], usable)) as [{ cold: Timing[]; warm: Timing[] }];
      printTable(`${name} page, ms from navigation start: the HTML, the last asset and the last API reply received, and usable (its data shown)`, [
        row('cold (empty cache)', cold),
        row('warm (cached assets)', warm),
      ]);
    }
  } finally {
    await browser.close();
    await service.stop();
  }
  await runPostgres();
}

/** A list page is usable when its table's first row is shown. */
const USABLE_LIST = 'main table tbody tr';
const TARGET_MS = 300;

/** One build of the dashboard served on its own scratch PostgreSQL database with the inbox's data, signed in. */
interface Variant {
  name: string;
  origin: string;
  state: StorageState;
  inbox: string;
  stop(): Promise<void>;
}

/**
 * BENCH_DASHBOARD_BEFORE=<a checkout of the code before a change, its node_modules beside it>: that
 * code is served too, on a database of its own with the same data, and every round loads the page
 * from both, in turns (which goes first alternates), so a comparison sees the same load of the machine.
 */
async function startVariant(name: string, databaseUrl: string, redisUrl: string | undefined, browser: Browser, checkout?: string): Promise<Variant> {
  const database = await scratchDatabase(databaseUrl);
  // startParley runs `src/main.ts` of the working directory: the other checkout's, only while it starts.
  const home = process.cwd();
  if (checkout) process.chdir(checkout);
  let service: RunningService;
  try {
    service = await startParley({ DATABASE_URL: database.url, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  } finally {
    process.chdir(home);
  }
  const api = manageApi(service);
  const workspaceId = (await api('GET', '/workspace')).workspace.id as string;
  const agentId = (await api('POST', '/agents', { name: 'Inbox', useCase: 'general' })).id as string;
  const seconds = await seedInbox(database.url, workspaceId, agentId);
  console.log(`${name}: PostgreSQL${redisUrl ? ' + Redis' : ''}: ${CONVERSATIONS} conversations and ${TICKETS} tickets written in ${seconds.toFixed(1)} s`);
  const link = new URL(await service.signInLink);
  const signing = await browser.newContext();
  const signed = await signing.newPage();
  await signed.goto(link.href);
  await signed.waitForSelector('nav[aria-label="Main"]');
  const state = await signing.storageState();
  await signing.close();
  return {
    name,
    origin: link.origin,
    state,
    inbox: `/app/agents/${encodeURIComponent(agentId)}/inbox`,
    stop: async () => {
      await service.stop();
      await database.drop();
    },
  };
}

async function runPostgres(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
  if (!databaseUrl) {
    console.log('Dashboard on PostgreSQL with 10,000 conversations skipped: set TEST_DATABASE_URL or DATABASE_URL.');
    return;
  }
  const before = process.env.BENCH_DASHBOARD_BEFORE;
  const browser = await launchChromium();
  const variants: Variant[] = [];
  try {
    if (before) variants.push(await startVariant(`before (${before})`, databaseUrl, redisUrl, browser, before));
    variants.push(await startVariant(before ? 'after (this checkout)' : 'this checkout', databaseUrl, redisUrl, browser));
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

    const rows: Array<Record<string, string | number>> = [];
    const label = (variant: Variant, text: string) => (variants.length > 1 ? `${variant.name}: ${text}` : text);
    for (const [name, path, usable] of [
      ['Inbox conversations', 'conversations', USABLE_LIST],
      ['Inbox tickets', 'tickets', USABLE_LIST],
      ['Analytics', '', USABLE_ANALYTICS],
    ] as const) {
      const urlOf = (variant: Variant) => `${variant.origin}${path ? `${variant.inbox}/${path}` : '/app/analytics'}`;
      const results = await coldAndWarm(browser, variants.map((variant) => ({ state: variant.state, url: urlOf(variant) })), usable);
      for (const [load, pick] of [['cold', 'cold'], ['warm', 'warm']] as const) {
        variants.forEach((variant, index) => {
          const timings = results[index]![pick];
          const times = timings.map((t) => t.usable);
          rows.push({
            page: label(variant, `${name} (${load})`),
            'html p50': percentile(timings.map((t) => t.html), 0.5),
            'assets p50': percentile(timings.map((t) => t.assets), 0.5),
            'last API reply p50': percentile(timings.map((t) => t.api), 0.5),
            'p50 ms': percentile(times, 0.5),
            'p95 ms': percentile(times, 0.95),
            target: percentile(times, 0.95) < TARGET_MS ? 'met' : `OVER ${TARGET_MS}`,
          });
        });
      }
    }

    const searches = await searchTimes(browser, variants);
    variants.forEach((variant, index) => {
      const times = searches[index]!;
      rows.push({ page: label(variant, 'Conversation search (type, Enter, filtered list shown)'), 'p50 ms': percentile(times, 0.5), 'p95 ms': percentile(times, 0.95), target: percentile(times, 0.95) < TARGET_MS ? 'met' : `OVER ${TARGET_MS}` });
    });
    printTable(`Dashboard on PostgreSQL${redisUrl ? ' + Redis' : ''}, one agent with ${CONVERSATIONS} conversations and ${TICKETS} tickets: ms from navigation start to usable, ${ROUNDS} rounds (target p95 < ${TARGET_MS})`, rows);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await browser.close();
    for (const variant of variants) await variant.stop();
  }
}

/**
 * The search: a word typed in the conversations page's search and Enter pressed, until the
 * filtered list shows (its one row, the conversation naming that order number); each round in
 * every variant's page, in turns.
 */
async function searchTimes(browser: Browser, variants: Variant[]): Promise<number[][]> {
  const pages = [];
  for (const variant of variants) {
    const context = await browser.newContext({ storageState: variant.state });
    const page = await context.newPage();
    await page.goto(`${variant.origin}${variant.inbox}/conversations`);
    await page.waitForSelector(USABLE_LIST);
    pages.push({ context, page, field: page.locator('main form[role="search"] input').first() });
  }
  const times = variants.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = String(10_000 + 1 + round * 499);
    for (const index of turns(variants.length, round)) {
      const { page, field } = pages[index]!;
      await field.fill(`order ${order}`);
      const started = await page.evaluate(() => performance.now());
      await field.press('Enter');
      const handle = await page.waitForFunction(
        (wanted) => {
          const rows = document.querySelectorAll('main table tbody tr');
          return rows.length === 1 && rows[0]!.textContent!.includes(wanted) ? performance.now() : undefined;
        },
        `Order ${order}`,
        { polling: 'raf' },
      );
      times[index]!.push(Math.round(((await handle.jsonValue()) as number) - started));
      await field.fill('');
      await field.press('Enter');
      await page.waitForFunction(() => document.querySelectorAll('main table tbody tr').length > 1, undefined, { polling: 'raf' });
    }
  }
  for (const { context } of pages) await context.close();
  return times;
}

/** The order of the variants in a round: which goes first alternates. */
function turns(count: number, round: number): number[] {
  const order = [...Array(count).keys()];
  return round % 2 === 0 ? order : order.reverse();
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

interface Timing {
  html: number;
  assets: number;
  api: number;
  usable: number;
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** ROUNDS of each target's page opened in a new browser context (cold: empty cache), then again in it (warm); the targets in turns. */
async function coldAndWarm(browser: Browser, targets: { state: StorageState; url: string }[], usable: string): Promise<{ cold: Timing[]; warm: Timing[] }[]> {
  const results = targets.map(() => ({ cold: [] as Timing[], warm: [] as Timing[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of turns(targets.length, round)) {
      const { state, url } = targets[index]!;
      const context = await browser.newContext({ storageState: state });
      results[index]!.cold.push(await timeToUsable(context, url, usable));
      results[index]!.warm.push(await timeToUsable(context, url, usable));
      await context.close();
    }
  }
  return results;
}

async function timeToUsable(context: BrowserContext, url: string, usable: string): Promise<Timing> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction((selector) => (document.querySelector(selector) ? performance.now() : undefined), usable, { polling: 'raf' });
  const usableAt = (await handle.jsonValue()) as number;
  const phases = await page.evaluate(() => {
    const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const last = (part: string) => Math.max(0, ...resources.filter((r) => r.name.includes(part)).map((r) => r.responseEnd));
    return { html: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseEnd, assets: last('/app/assets/'), api: last('/app/api/') };
  });
  await page.close();
  return { html: Math.round(phases.html), assets: Math.round(phases.assets), api: Math.round(phases.api), usable: Math.round(usableAt) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
