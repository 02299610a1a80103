/**
 * The dashboard (docs/dashboard.md, "Budget"):
 * - the bytes of the first load of /app as served (the entry, the chunks it imports at once,
 *   the style sheet): raw and gzip, against the budget of 60 KB gzip;
 * - in Chromium (playwright-core, /usr/bin/chromium), against `npm start`'s entry point on
 *   the embedded store, signed in with the first start's link: the time from navigation to a
 *   usable Agents page (its data shown), cold (a new browser context: empty cache) and warm
 *   (the same context again). Medians and maxima of BENCH_ROUNDS loads;
 * - the Analytics page: the bytes of its lazily loaded chunks (the page and uPlot), and the time
 *   to a usable page (its figures shown) for an agent the bench makes, cold and warm.
 */
import { gzipSync } from 'node:zlib';
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../src/modules/widget/browser.ts';
import { buildDashboard } from '../src/dashboard/build.ts';
import { printTable, startParley } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BUDGET_GZIP = 60 * 1024;
/** The Agents page is usable when its list or the first run's preset is shown. */
const USABLE = 'main table, main .preset';
/** The Analytics page is usable when its figures and its chart are drawn. */
const USABLE_ANALYTICS = 'main .analytics-figures ~ .card canvas';

export async function run(): Promise<void> {
  const built = await buildDashboard();
  const rows = built.firstLoad.map((asset) => ({ file: asset.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.'), raw: asset.body.length, gzip: gzipSync(asset.body, { level: 9 }).length }));
  const total = { file: 'first load', raw: rows.reduce((sum, row) => sum + row.raw, 0), gzip: rows.reduce((sum, row) => sum + row.gzip, 0) };
  printTable(`Dashboard first load (bytes; budget ${BUDGET_GZIP} gzip)`, [...rows, total]);
  if (total.gzip > BUDGET_GZIP) console.log(`OVER BUDGET: ${total.gzip} > ${BUDGET_GZIP}`);
  // The analytics page's own chunks: those with its chart's class or uPlot's (never in the first load).
  const firstPaths = new Set(built.firstLoad.map((asset) => asset.path));
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
      const cold: Timing[] = [];
      const warm: Timing[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const context = await browser.newContext({ storageState: state });
        cold.push(await timeToUsable(context, `${origin}${path}`, usable));
        warm.push(await timeToUsable(context, `${origin}${path}`, usable));
        await context.close();
      }
      printTable(`${name} page, ms from navigation start: the HTML, the last asset and the last API reply received, and usable (its data shown)`, [
        row('cold (empty cache)', cold),
        row('warm (cached assets)', warm),
      ]);
    }
  } finally {
    await browser.close();
    await service.stop();
  }
}

interface Timing {
  html: number;
  assets: number;
  api: number;
  usable: number;
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
