/**
 * The dashboard (docs/dashboard.md, "Budget"):
 * - the bytes of the first load of /app as served (the entry, the chunks it imports at once,
 *   the style sheet): raw and gzip, against the budget of 60 KB gzip;
 * - in Chromium (playwright-core, /usr/bin/chromium), against `npm start`'s entry point on
 *   the embedded store, signed in with the first start's link: the time from navigation to a
 *   usable Agents page (its data shown), cold (a new browser context: empty cache) and warm
 *   (the same context again). Medians and maxima of BENCH_ROUNDS loads.
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

export async function run(): Promise<void> {
  const built = await buildDashboard();
  const rows = built.firstLoad.map((asset) => ({ file: asset.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.'), raw: asset.body.length, gzip: gzipSync(asset.body, { level: 9 }).length }));
  const total = { file: 'first load', raw: rows.reduce((sum, row) => sum + row.raw, 0), gzip: rows.reduce((sum, row) => sum + row.gzip, 0) };
  printTable(`Dashboard first load (bytes; budget ${BUDGET_GZIP} gzip)`, [...rows, total]);
  if (total.gzip > BUDGET_GZIP) console.log(`OVER BUDGET: ${total.gzip} > ${BUDGET_GZIP}`);

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
    await signing.close();

    const cold: Timing[] = [];
    const warm: Timing[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext({ storageState: state });
      cold.push(await timeToUsable(context, `${origin}/app/agents`));
      warm.push(await timeToUsable(context, `${origin}/app/agents`));
      await context.close();
    }
    const row = (load: string, timings: Timing[]) => ({
      load,
      'html (median)': median(timings.map((t) => t.html)),
      'assets (median)': median(timings.map((t) => t.assets)),
      'api (median)': median(timings.map((t) => t.api)),
      'usable (median)': median(timings.map((t) => t.usable)),
      'usable (max)': Math.max(...timings.map((t) => t.usable)),
    });
    printTable('Agents page, ms from navigation start: the HTML, the last asset and the last API reply received, and usable (its data shown)', [
      row('cold (empty cache)', cold),
      row('warm (cached assets)', warm),
    ]);
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

async function timeToUsable(context: BrowserContext, url: string): Promise<Timing> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction((selector) => (document.querySelector(selector) ? performance.now() : undefined), USABLE, { polling: 'raf' });
  const usable = (await handle.jsonValue()) as number;
  const phases = await page.evaluate(() => {
    const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const last = (part: string) => Math.max(0, ...resources.filter((r) => r.name.includes(part)).map((r) => r.responseEnd));
    return { html: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseEnd, assets: last('/app/assets/'), api: last('/app/api/') };
  });
  await page.close();
  return { html: Math.round(phases.html), assets: Math.round(phases.assets), api: Math.round(phases.api), usable: Math.round(usable) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
