/**
 * The widget's browser tests (widget.test.ts, widget-forms.test.ts): one service on the store under test with a
 * seeded agent (texts, two website pages), a host site on an admitted and a refused origin, and one Chromium, per
 * file. The tests were one file of 28 tests; split in two by theme (docs/performance.md, CI), each file sets this
 * up again in its before().
 */
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { seedTexts } from '../chat/test-support.ts';
import { ingestWebsitePage } from '../knowledge/ingest.ts';
import { waitForSource } from '../knowledge/test-support.ts';
import { hostPage, launchChromium, startHostSite, type HostSite } from './browser.ts';

export const SCREENSHOTS = process.env.WIDGET_SCREENSHOTS === '1';
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 667 };
export const REPAIR_PRICES = 'https://bikes.example/repairs/prices';
export const PARKING = 'http://bikes.example/old/parking';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a00000000049454e44ae426082', 'hex');

export interface VisitOptions {
  origin?: string;
  locale?: string;
  viewport?: { width: number; height: number };
  clock?: boolean;
}

export interface WidgetFixture {
  service: Service;
  ws: SeededWorkspace;
  agent: string;
  site: HostSite;
  browser: Browser;
  patchAgent(body: Record<string, unknown>): Promise<void>;
  /** A fresh visitor (own storage) on a page of the site. */
  visit(path?: string, options?: VisitOptions): Promise<Page>;
  conversationOf(page: Page): Promise<string>;
  conversations(): Promise<Array<{ id: string; openedBy: string; channel: string }>>;
  close(): Promise<void>;
}

export async function startWidgetFixture(): Promise<WidgetFixture> {
  // Private addresses allowed: the agent's logo and icon are fetched from the local host site.
  // The tests poll the API for what the browser did; a test that fails must not use up the keys' minute for the rest.
  const service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  let site: HostSite | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const close = async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await site?.close();
    await service.close();
  };
  try {
    return await seeded(service, contexts, close, (opened) => (site = opened), (launched) => (browser = launched));
  } catch (error) {
    await close();
    throw error;
  }
}

async function seeded(
  service: Service,
  contexts: BrowserContext[],
  close: () => Promise<void>,
  siteOpened: (site: HostSite) => void,
  browserLaunched: (browser: Browser) => void,
): Promise<WidgetFixture> {
  let agent = '';
  const patchAgent = async (body: Record<string, unknown>) => {
    const reply = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  };
  const ws = await service.seedWorkspace({ plan: 'studio' });
  agent = await seedAgent(service, ws, 'Bike shop');
  await seedTexts(service, ws.keys.manage, agent, [
    { title: 'Opening hours', content: 'Our workshop is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00.' },
    { title: 'Gift cards <script>window.pwned = 1</script>', content: 'Gift cards <img src=x onerror="window.pwned=2"> can be bought in the shop <script>window.pwned = 3</script> for any amount.' },
    // A prompt-injected source: its markdown links reach the answer; only the https one may become a link.
    { title: 'Warranty', content: 'Every frame carries a warranty of ten years, see [the warranty terms](https://bikes.example/warranty) or [claim it here](javascript:window.pwned=4) and [this one](data:text/html,<script>window.pwned=5</script>).' },
  ]);
  // Website sources: one at an https address (shown as a link), one at plain http (shown as its name).
  for (const [url, title, text] of [
    [REPAIR_PRICES, 'Repair prices', 'Mending a flat tyre costs 12 euros, a new chain 35 euros including fitting.'],
    [PARKING, 'Parking', 'Customers can leave their bicycles in the courtyard behind the workshop while they wait.'],
  ] as const) {
    const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_widget', url, title, text });
    await waitForSource(service, ws.keys.read, agent, sourceId);
  }
  const site = await startHostSite();
  siteOpened(site);
  await patchAgent({
    allowedOrigins: [site.origin],
    welcomeMessage: 'Hi! Ask me about repairs.',
    languages: ['en', 'de'],
    branding: { launcherLabel: 'Chat with us', translations: { de: { welcomeMessage: 'Hallo! Fragen Sie uns zu Reparaturen.', messagePlaceholder: 'Ihre Frage an uns', launcherLabel: 'Fragen Sie uns' } } },
    calendlyUrl: 'https://calendly.com/bike-shop/repair',
  });
  // The snippet names PARLEY_PUBLIC_URL; the test service listens on a port of its own.
  const embed = (await service.api('GET', `/agents/${agent}/embed`, { key: ws.keys.read })).body.data as { script: string; iframe: string };
  const snippet = embed.script.replace(service.ctx.config.publicUrl, service.url);
  const iframeSnippet = embed.iframe.replace(service.ctx.config.publicUrl, service.url);
  assert.ok(iframeSnippet.startsWith(`<iframe src="${service.url}/chat/${agent}"`), iframeSnippet);
  assert.match(snippet, new RegExp(`^<script src="${service.url}/widget.js" data-agent="${agent}" defer></script>$`));
  site.page('/', { body: hostPage(snippet) });
  site.page('/blank', { body: hostPage('') });
  site.page('/long', { body: hostPage(snippet, { text: 'A long page.</p><div style="height:4000px">Our bikes</div><p>The end.' }) });
  site.page('/logo.png', { body: PNG, headers: { 'content-type': 'image/png' } });
  site.page('/bikes/city', { body: hostPage(snippet) });
  site.page('/contact', { body: hostPage(snippet) });
  site.page('/hostile', {
    body: hostPage(snippet, {
      head: '<style>div{display:none!important}*{font-size:40px!important;color:#f0f!important;position:static!important;line-height:0!important}button{background:#0f0!important;width:900px!important}</style>',
    }),
  });
  site.page('/strict', {
    body: hostPage(snippet),
    headers: { 'content-security-policy': `default-src 'none'; script-src ${service.url}; connect-src ${service.url}; img-src ${service.url} https:` },
  });
  site.page('/framed', { body: hostPage(iframeSnippet) });
  const browser = await launchChromium();
  browserLaunched(browser);

  return {
    service,
    ws,
    agent,
    site,
    browser,
    patchAgent,
    visit: async (path = '/', options = {}) => {
      const context = await browser.newContext({ locale: options.locale ?? 'en-US', viewport: options.viewport ?? DESKTOP });
      contexts.push(context);
      const page = await context.newPage();
      if (options.clock) {
        // The page's own clock, paused: its timers fire only when the test moves it (page.clock.runFor), never by waiting.
        // Installed, it runs until paused; the pause is an hour ahead, since a loaded machine took over a second
        // between the two calls and pausing in the clock's past fails ("Cannot fast-forward to the past").
        await context.clock.install({ time: new Date('2026-03-02T09:00:00Z') });
        await page.clock.pauseAt(new Date('2026-03-02T10:00:00Z'));
      }
      await page.goto(`${options.origin ?? site.origin}${path}`);
      return page;
    },
    conversationOf: (page) => page.evaluate((key) => JSON.parse(localStorage.getItem(key)!).conversationId as string, `parley:${agent}`),
    conversations: async () => (await service.api('GET', `/agents/${agent}/conversations`, { key: ws.keys.read })).body.data,
    close,
  };
}

export const launcher = (page: Page) => page.locator('[data-parley] >> css=button.launcher');

/** Asks and waits for the answer to be complete (its thumbs drawn); answers already shown do not count. */
export async function ask(page: Page, question: string): Promise<void> {
  const rated = page.locator('[data-parley] .msg.agent .rate');
  const shown = await rated.count();
  await page.locator('[data-parley] textarea').fill(question);
  await page.locator('[data-parley] textarea').press('Enter');
  await rated.nth(shown).waitFor();
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
