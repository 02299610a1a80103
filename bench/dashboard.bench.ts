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

    const cold: number[] = [];
    const warm: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext({ storageState: state });
      cold.push(await timeToUsable(context, `${origin}/app/agents`));
      warm.push(await timeToUsable(context, `${origin}/app/agents`));
      await context.close();
    }
    printTable('Time to a usable Agents page (ms, from navigation start)', [
      { load: 'cold (empty cache)', median: median(cold), max: Math.max(...cold) },
      { load: 'warm (cached assets)', median: median(warm), max: Math.max(...warm) },
    ]);
  } finally {
    await browser.close();
    await service.stop();
  }
}

async function timeToUsable(context: BrowserContext, url: string): Promise<number> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction((selector) => (document.querySelector(selector) ? performance.now() : undefined), USABLE, { polling: 'raf' });
  const ms = Math.round((await handle.jsonValue()) as number);
  await page.close();
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
