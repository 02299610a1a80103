/**
 * The widget: what it weighs and what it costs the host page.
 * - sizes of the loader and the module as served (raw, gzip, brotli);
 * - in Chromium (playwright-core, /usr/bin/chromium), against `npm start`'s entry
 *   point on the embedded store: the time from the host page's load event to the
 *   launcher drawn, from a click to the panel ready (focus in the message box), and
 *   the main-thread script time the widget adds to the host page (Chrome's
 *   ScriptDuration with the snippet minus without it, two seconds after load, so
 *   the module loaded on idle is counted too). Medians of BENCH_ROUNDS page loads.
 */
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { hostPage, launchChromium, startHostSite } from '../src/modules/widget/browser.ts';
import { buildWidget } from '../src/widget/build.ts';
import { printTable, startParley } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SETTLE_MS = 2000;

export async function run(): Promise<void> {
  const built = await buildWidget();
  printTable(
    'Widget sizes as served (bytes)',
    [built.loader, built.module].map((asset) => ({
      file: asset.path.replace(/app-[0-9a-f]+/, 'app-<hash>'),
      raw: asset.body.length,
      gzip: gzipSync(asset.body, { level: 9 }).length,
      brotli: brotliCompressSync(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    })),
  );

  const service = await startParley();
  const site = await startHostSite();
  let browser: Browser | undefined;
  try {
    const agent = await createAgent(service.url, service.manageKey);
    const snippet = `<script src="${service.url}/widget.js" data-agent="${agent}" defer></script>`;
    // Notes when the widget's element joins the page (the launcher is drawn inside it before it is added).
    const watch = '<script src="/watch.js"></script>';
    site.page('/with', { body: hostPage(snippet, { head: watch }) });
    site.page('/without', { body: hostPage('') });
    site.page('/watch.js', {
      body: "new MutationObserver(function(){if(!window.__shown&&document.querySelector('[data-parley]'))window.__shown=performance.now()}).observe(document.documentElement,{childList:true,subtree:true});",
      headers: { 'content-type': 'text/javascript' },
    });
    browser = await launchChromium();
    const shown: number[] = [];
    const ready: number[] = [];
    const scriptWith: number[] = [];
    const scriptWithout: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { page, close } = await fresh(browser);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await page.goto(`${site.origin}/with`);
      await page.waitForFunction(() => (window as any).__shown !== undefined);
      shown.push(await page.evaluate(() => (window as any).__shown - performance.getEntriesByType('navigation')[0]!.toJSON().loadEventEnd));
      await page.waitForTimeout(SETTLE_MS);
      scriptWith.push(await scriptDuration(cdp));
      ready.push(await page.evaluate(() => clickToReady()));
      await close();

      const bare = await fresh(browser);
      const bareCdp = await bare.page.context().newCDPSession(bare.page);
      await bareCdp.send('Performance.enable');
      await bare.page.goto(`${site.origin}/without`);
      await bare.page.waitForTimeout(SETTLE_MS);
      scriptWithout.push(await scriptDuration(bareCdp));
      await bare.close();
    }
    printTable(`Widget in Chromium, median of ${ROUNDS} page loads (ms)`, [
      { measure: 'host load event → launcher drawn', ms: median(shown).toFixed(1) },
      { measure: 'click → panel ready (focus in the message box)', ms: median(ready).toFixed(1) },
      { measure: 'main-thread script time added to the host page', ms: (median(scriptWith) - median(scriptWithout)).toFixed(1) },
    ]);
  } finally {
    await browser?.close();
    await site.close();
    await service.stop();
  }
}

async function fresh(browser: Browser): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    (window as any).clickToReady = () =>
      new Promise<number>((resolve) => {
        const root = document.querySelector('[data-parley]')!.shadowRoot!;
        const start = performance.now();
        (root.querySelector('.launcher') as HTMLElement).click();
        const check = () => (root.activeElement?.tagName === 'TEXTAREA' ? resolve(performance.now() - start) : requestAnimationFrame(check));
        check();
      });
  });
  return { page, close: () => context.close() };
}

declare function clickToReady(): Promise<number>;

async function scriptDuration(cdp: { send(method: 'Performance.getMetrics'): Promise<{ metrics: Array<{ name: string; value: number }> }> }): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'ScriptDuration')?.value ?? 0) * 1000;
}

async function createAgent(url: string, key: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Workshop', useCase: 'general' }),
  });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
