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

    for (const [name, path, usable] of [
      ['Agents', '/app/agents', USABLE],
      ['Analytics', '/app/analytics', USABLE_ANALYTICS],
    ] as const) {
      const cold: number[] = [];
      const warm: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const context = await browser.newContext({ storageState: state });
        cold.push(await timeToUsable(context, `${origin}${path}`, usable));
        warm.push(await timeToUsable(context, `${origin}${path}`, usable));
        await context.close();
      }
      printTable(`Time to a usable ${name} page (ms, from navigation start)`, [
        { load: 'cold (empty cache)', median: median(cold), max: Math.max(...cold) },
        { load: 'warm (cached assets)', median: median(warm), max: Math.max(...warm) },
      ]);
    }
  } finally {
    await browser.close();
    await service.stop();
  }
}

async function timeToUsable(context: BrowserContext, url: string, usable: string): Promise<number> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction((selector) => (document.querySelector(selector) ? performance.now() : undefined), usable, { polling: 'raf' });
  const ms = Math.round((await handle.jsonValue()) as number);
  await page.close();
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
