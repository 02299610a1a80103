import { launchChromium } from '../src/modules/widget/browser.ts';
import { manageApi, scratchDatabase, startParley } from './support.ts';
import { seedInbox } from './inbox.bench.ts';
const database = await scratchDatabase('postgres://postgres@127.0.0.1:5432/postgres');
const service = await startParley({ DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:6379' });
const browser = await launchChromium();
try {
  const api = manageApi(service);
  const workspaceId = (await api('GET', '/workspace')).workspace.id as string;
  const agentId = (await api('POST', '/agents', { name: 'Inbox', useCase: 'general' })).id as string;
  await seedInbox(database.url, workspaceId, agentId);
  const link = new URL(await service.signInLink);
  const context = await browser.newContext();
  const p0 = await context.newPage();
  await p0.goto(link.href);
  await p0.waitForSelector('nav[aria-label="Main"]');
  await p0.close();
  for (const [path, usable] of [[`/app/agents/${agentId}/inbox/conversations`, 'main table tbody tr'], ['/app/analytics', 'main .analytics-figures ~ .card canvas']] as const) {
    for (let round = 0; round < 4; round++) {
      const page = await context.newPage();
      await page.goto(link.origin + path, { waitUntil: 'commit' });
      const handle = await page.waitForFunction((s) => (document.querySelector(s) ? performance.now() : undefined), usable, { polling: 'raf' });
      const usableAt = await handle.jsonValue();
      const entries = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const res = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => `${r.name.replace(/^https?:\/\/[^/]+/, '').slice(0, 70).padEnd(70)} start ${r.startTime.toFixed(0).padStart(4)} ttfb ${r.responseStart.toFixed(0).padStart(4)} end ${r.responseEnd.toFixed(0).padStart(4)}`);
        return [`HTML ttfb ${nav.responseStart.toFixed(0)} end ${nav.responseEnd.toFixed(0)} domInteractive ${nav.domInteractive.toFixed(0)} dcl ${nav.domContentLoadedEventEnd.toFixed(0)}`, ...res];
      });
      console.log(`\n${path} round ${round} usable ${Math.round(usableAt as number)}\n${entries.join('\n')}`);
      await page.close();
    }
  }
} finally {
  await browser.close();
  await service.stop();
  await database.drop();
}
