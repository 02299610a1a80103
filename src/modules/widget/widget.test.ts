import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { seedTexts } from '../chat/test-support.ts';
import { ingestWebsitePage } from '../knowledge/ingest.ts';
import { waitForSource } from '../knowledge/test-support.ts';
import { WEAK_CONFIDENCE } from '../../widget/shared.ts';
import { FORM_TEXTS } from '../leads/texts.ts';
import { hostPage, launchChromium, startHostSite, type HostSite } from './browser.ts';

const LOADER_BUDGET = 3 * 1024;
const WIDGET_BUDGET = 30 * 1024;
const SCREENSHOTS = process.env.WIDGET_SCREENSHOTS === '1';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 667 };
const REPAIR_PRICES = 'https://bikes.example/repairs/prices';
const PARKING = 'http://bikes.example/old/parking';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a00000000049454e44ae426082', 'hex');

describe('the widget in a real browser', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  let site: HostSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    // Private addresses allowed: the agent's logo and icon are fetched from the local host site.
    // The tests poll the API for what the browser did; a test that fails must not use up the keys' minute for the rest.
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
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
    site = await startHostSite();
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
    browser = await launchChromium();
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await site?.close();
    await service?.close();
  });

  const patchAgent = async (body: Record<string, unknown>) => {
    const reply = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  };

  /** A fresh visitor (own storage) on a page of the site. */
  const visit = async (path = '/', options: { origin?: string; locale?: string; viewport?: { width: number; height: number }; clock?: boolean } = {}): Promise<Page> => {
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
  };

  const launcher = (page: Page) => page.locator('[data-parley] >> css=button.launcher');
  /** Asks and waits for the answer to be complete (its thumbs drawn); answers already shown do not count. */
  const ask = async (page: Page, question: string) => {
    const rated = page.locator('[data-parley] .msg.agent .rate');
    const shown = await rated.count();
    await page.locator('[data-parley] textarea').fill(question);
    await page.locator('[data-parley] textarea').press('Enter');
    await rated.nth(shown).waitFor();
  };
  const conversationOf = (page: Page) => page.evaluate((key) => JSON.parse(localStorage.getItem(key)!).conversationId as string, `parley:${agent}`);
  const conversations = async () => (await service.api('GET', `/agents/${agent}/conversations`, { key: ws.keys.read })).body.data as Array<{ id: string; openedBy: string; channel: string }>;

  test('the loader is at most 3 KB gzip and the whole widget at most 30 KB gzip; the loader is short-cached and the module content-hashed and cached a year', async () => {
    const loader = await fetch(`${service.url}/widget.js`);
    assert.equal(loader.status, 200);
    assert.match(loader.headers.get('cache-control')!, /max-age=300/);
    const loaderBody = Buffer.from(await loader.arrayBuffer());
    const modulePath = /"(\/widget\/app-[0-9a-f]{12}\.js)"/.exec(loaderBody.toString())?.[1];
    assert.ok(modulePath, 'the loader names the hashed module');
    const module = await fetch(`${service.url}${modulePath}`);
    assert.equal(module.status, 200);
    assert.match(module.headers.get('cache-control')!, /max-age=31536000, immutable/);
    assert.equal(module.headers.get('access-control-allow-origin'), '*');
    const moduleBody = Buffer.from(await module.arrayBuffer());
    const loaderGzip = gzipSync(loaderBody, { level: 9 }).length;
    const totalGzip = loaderGzip + gzipSync(moduleBody, { level: 9 }).length;
    assert.ok(loaderGzip <= LOADER_BUDGET, `loader ${loaderGzip} bytes gzip`);
    assert.ok(totalGzip <= WIDGET_BUDGET, `widget ${totalGzip} bytes gzip`);
    assert.equal((await fetch(`${service.url}/widget/app-000000000000.js`)).status, 404);
    for (const path of ['/widget.js', modulePath]) {
      const etag = (await fetch(`${service.url}${path}`)).headers.get('etag');
      assert.ok(etag, path);
      assert.equal((await fetch(`${service.url}${path}`, { headers: { 'if-none-match': etag } })).status, 304, path);
    }
  });

  test('on an admitted origin the launcher opens the chat; the answer streams in with its source, feedback is recorded, and the conversation survives a reload', async () => {
    const page = await visit();
    await launcher(page).waitFor();
    assert.equal(await launcher(page).getAttribute('aria-label'), 'Chat with us');
    if (SCREENSHOTS) await page.screenshot({ path: 'docs/images/widget-launcher.png' });
    await launcher(page).click();
    await page.locator('[data-parley] [role=dialog]').waitFor();
    assert.equal(await launcher(page).getAttribute('aria-expanded'), 'true');
    await page.getByText('Hi! Ask me about repairs.').waitFor();
    await ask(page, 'When are you open on Saturday?');
    const answer = page.locator('[data-parley] .msg.agent').last();
    assert.match(await answer.innerText(), /10:00 to 16:00/);
    assert.match(await answer.locator('.sources').innerText(), /Opening hours/);
    assert.equal(await answer.locator('.sources a').count(), 0, 'a text source has no address: its name is text');
    assert.equal(await page.locator('[data-parley] a[href="https://calendly.com/bike-shop/repair"]').count(), 1);

    await answer.getByRole('button', { name: 'Helpful', exact: true }).click();
    const [conversation] = await conversations();
    assert.equal(conversation!.openedBy, 'launcher');
    assert.equal(conversation!.channel, 'widget');
    await waitFor(async () => {
      const messages = (await service.api('GET', `/agents/${agent}/conversations/${conversation!.id}`, { key: ws.keys.read })).body.data.messages as Array<{ role: string; feedback: number | null }>;
      return messages.at(-1)!.feedback === 1;
    });

    await page.reload();
    await launcher(page).click();
    await page.getByText('When are you open on Saturday?').waitFor();
    await ask(page, 'And on Monday?');
    assert.equal((await conversations()).length, 1, 'the second question continues the same conversation');
    await page.getByRole('button', { name: 'New conversation' }).click();
    assert.equal(await page.getByText('When are you open on Saturday?').count(), 0);
  });

  test('a navigation to another page of the same site continues the conversation; Parley.setPage names the page a question is asked on', async () => {
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    const first = await conversationOf(page);
    await page.goto(`${site.origin}/contact`);
    await launcher(page).click();
    await page.locator('[data-parley] .msg.user').getByText('When are you open on Saturday?').waitFor();
    await page.evaluate((url) => (window as any).Parley.setPage(url), `${site.origin}/bikes/city`);
    await ask(page, 'And on Monday?');
    assert.equal(await conversationOf(page), first, 'the same conversation');
    const messages = (await service.api('GET', `/agents/${agent}/conversations/${first}`, { key: ws.keys.read })).body.data.messages as Array<{ role: string; page: { url: string } | null }>;
    assert.deepEqual(messages.filter((m) => m.role === 'user').map((m) => m.page?.url), [`${site.origin}/`, `${site.origin}/bikes/city`]);
  });

  test("actions: the agent's enabled actions are links (web, mail, phone), a disabled one is not shown, and the booking button opens calendlyUrl", async () => {
    const action = (kind: string, label: string, url: string, enabled = true) => ({ kind, enabled, name: label, whenToUse: `When the visitor wants ${label}`, label, url });
    await patchAgent({
      actions: [
        action('link', 'Our shop', 'https://bikes.example/shop'),
        action('email', 'Write to us', 'mailto:help@bikes.example'),
        action('phone', 'Call the workshop', 'tel:+31201234567'),
        action('link', 'Old offers', 'https://bikes.example/offers', false),
      ],
    });
    const page = await visit();
    await launcher(page).click();
    // The click loads the widget's module; its actions are drawn once it has mounted.
    await page.locator('[data-parley] .actions a').first().waitFor();
    const links = await page.locator('[data-parley] .actions a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')]));
    const rel = 'noopener noreferrer nofollow';
    assert.deepEqual(links, [
      ['Our shop', 'https://bikes.example/shop', '_blank', rel],
      ['Write to us', 'mailto:help@bikes.example', '_blank', rel],
      ['Call the workshop', 'tel:+31201234567', '_blank', rel],
      ['Book a meeting', 'https://calendly.com/bike-shop/repair', '_blank', rel],
    ]);
    // The booking page, served in place of Calendly's (the test machine has no way out).
    await page.context().route('https://calendly.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Book</title>' }));
    const opened = page.context().waitForEvent('page');
    await page.locator('[data-parley] .actions').getByRole('link', { name: 'Book a meeting' }).click();
    const booking = await opened;
    await booking.waitForLoadState();
    assert.equal(booking.url(), 'https://calendly.com/bike-shop/repair');
    assert.equal(await booking.evaluate(() => window.opener), null, 'opened without a handle on the host page');
    await patchAgent({ actions: [] });
  });

  test('sources with an https address are links (new tab, noopener noreferrer); a source at an http address is its name as text; a reload draws them again', async () => {
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'What does mending a flat tyre cost?');
    const linked = page.locator('[data-parley] .msg.agent').last().locator('.sources').getByRole('link', { name: 'Repair prices' });
    assert.equal(await linked.getAttribute('href'), REPAIR_PRICES);
    assert.equal(await linked.getAttribute('target'), '_blank');
    const rel = (await linked.getAttribute('rel'))!.split(' ');
    assert.ok(rel.includes('noopener') && rel.includes('noreferrer'), rel.join(' '));
    if (SCREENSHOTS) await page.screenshot({ path: 'docs/images/widget-answer.png' });

    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'Where can customers leave their bicycles?');
    const plain = page.locator('[data-parley] .msg.agent').last().locator('.sources');
    await plain.getByText('Parking', { exact: true }).waitFor();
    assert.equal(await plain.getByRole('link', { name: 'Parking' }).count(), 0, 'an http address is no link');
    const latest = { id: await conversationOf(page) };
    const messages = (await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as Array<{ sources: Array<{ name: string; url: string | null }> }>;
    assert.equal(messages[1]!.sources.find((s) => s.name === 'Parking')?.url, PARKING);

    await page.reload();
    await launcher(page).click();
    await page.getByRole('button', { name: 'New conversation' }).waitFor();
    assert.equal(await page.locator('[data-parley] .sources a[href="https://bikes.example/repairs/prices"]').count(), 0, 'the new conversation holds only its own answers');
    await page.locator('[data-parley] .sources').getByText('Parking', { exact: true }).waitFor();
  });

  test('a source holding script tags is shown as text and runs nothing on the host page', async () => {
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'Can I buy gift cards?');
    const answer = page.locator('[data-parley] .msg.agent').last();
    assert.match(await answer.innerText(), /<script>window\.pwned = 1<\/script>/);
    assert.equal(await answer.locator('script, img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
  });

  test('a prompt-injected source: only its https link becomes a link; javascript: and data: links stay text and run nothing', async () => {
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'How long is the warranty on a frame?');
    const body = page.locator('[data-parley] .msg.agent').last().locator('> div').first();
    const links = await body.locator('a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('target'), a.getAttribute('rel')]));
    assert.deepEqual(links, [['https://bikes.example/warranty', 'the warranty terms', '_blank', 'noopener noreferrer nofollow']]);
    assert.match(await body.innerText(), /\[claim it here\]\(javascript:window\.pwned=4\)/);
    assert.match(await body.innerText(), /data:text\/html,<script>/);
    assert.equal(await body.locator('script').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
  });

  test('the answer streams in: the visitor sees it grow part by part before it is complete', async () => {
    const page = await visit();
    await launcher(page).click();
    await page.locator('[data-parley] [role=dialog]').waitFor();
    // Every text the answer bubble shows while it is being written, as the page renders it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      const log = document.querySelector('[data-parley]')!.shadowRoot!.querySelector('[role=log]')!;
      new MutationObserver(() => {
        const writing = log.querySelector('[aria-busy=true]');
        if (writing && writing.textContent && seen.at(-1) !== writing.textContent) seen.push(writing.textContent);
      }).observe(log, { subtree: true, childList: true, characterData: true });
    });
    await ask(page, 'When are you open on Saturday?');
    const final = await page.locator('[data-parley] .msg.agent').last().locator('> div').first().evaluate((body) => body.textContent!);
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    assert.ok(seen.length >= 2, `drawn in parts: ${JSON.stringify(seen)}`);
    assert.ok(seen.every((text, i) => final.startsWith(text) && (i === 0 || text.length > seen[i - 1]!.length)), `each part adds to the answer: ${JSON.stringify(seen)}`);
    assert.ok(seen[0]!.length < final.length, 'the first part is not yet the whole answer');
  });

  test('on a refused origin the visitor API answers 403 and no launcher is drawn', async () => {
    const page = await visit('/', { origin: site.otherOrigin });
    const refused = await fetch(`${service.url}/visitor/v1/agents/${agent}`, { headers: { origin: site.otherOrigin } });
    assert.equal(refused.status, 403);
    await page.waitForTimeout(500);
    assert.equal(await page.locator('[data-parley]').count(), 0);
  });

  test("the widget speaks the browser's language among the agent's, with the agent's translations", async () => {
    const page = await visit('/', { locale: 'de-AT' });
    await launcher(page).waitFor();
    assert.equal(await launcher(page).getAttribute('aria-label'), 'Fragen Sie uns');
    await launcher(page).click();
    assert.equal(await page.locator('[data-parley] textarea').getAttribute('placeholder'), 'Ihre Frage an uns');
    await page.locator('[data-parley] .msg.agent').getByText('Hallo! Fragen Sie uns zu Reparaturen.').waitFor();
    await page.getByRole('button', { name: 'Neues Gespräch' }).waitFor();
    const asked = page.waitForRequest((request) => request.url().endsWith(`/agents/${agent}/chat`));
    await ask(page, 'Wann haben Sie am Samstag geöffnet?');
    assert.equal((await asked).postDataJSON().language, 'de', 'the answer is asked in the visitor’s language');
    const french = await visit('/', { locale: 'fr-FR' });
    await launcher(french).click();
    await french.getByRole('button', { name: 'New conversation' }).waitFor();
  });

  test('keyboard only: Tab reaches the launcher, Enter opens with focus in the message box, Escape closes and gives focus back', async () => {
    const page = await visit();
    await launcher(page).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.hasAttribute('data-parley')), true);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Bike shop' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.tagName), 'TEXTAREA');
    await page.keyboard.type('When are you open on Saturday?');
    await page.keyboard.press('Enter');
    await page.locator('[data-parley] .msg.agent .rate').waitFor();
    assert.equal(await page.locator('[data-parley] [role=log]').getAttribute('aria-live'), 'polite');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('[data-parley] [role=dialog]').isHidden(), true);
    assert.equal(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.className), 'launcher');
  });

  test('keyboard only: every control of the open chat is reached with Tab and shows a visible focus ring; a thumb is pressed with Space', async () => {
    const page = await visit();
    await launcher(page).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.keyboard.type('When are you open on Saturday?');
    await page.keyboard.press('Enter');
    await page.locator('[data-parley] .msg.agent .rate').waitFor();
    /** The control focused inside the widget: its name and whether a focus ring is drawn around it. */
    const focused = () =>
      page.evaluate(() => {
        const active = document.querySelector('[data-parley]')!.shadowRoot!.activeElement as HTMLElement | null;
        if (!active || document.activeElement?.hasAttribute('data-parley') !== true) return null;
        const style = getComputedStyle(active);
        return { name: active.getAttribute('aria-label') || active.textContent!.trim(), ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 };
      });
    // Backwards from the message box to the launcher, every control on the way.
    const reached: Array<{ name: string; ring: boolean }> = [];
    for (let step = 0; step < 20; step++) {
      const now = (await focused())!;
      reached.push(now);
      if (now.name === 'Chat with us') break;
      await page.keyboard.press('Shift+Tab');
    }
    const names = reached.map((r) => r.name);
    for (const control of ['Chat with us', 'New conversation', 'Close chat', 'Helpful', 'Not helpful', 'Book a meeting']) assert.ok(names.includes(control), `${control} in ${names.join(' | ')}`);
    assert.deepEqual(reached.filter((r) => !r.ring), [], 'every focused control shows its focus');
    for (let step = 0; step < 20 && (await focused())?.name !== 'Helpful'; step++) await page.keyboard.press('Tab');
    // The first feedback call is held on the wire until the second thumb is pressed: the last one pressed must still win.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let calls = 0;
    await page.route('**/visitor/v1/agents/*/feedback', async (route) => {
      if (++calls === 1) await firstHeld;
      await route.continue();
    });
    await page.keyboard.press('Space');
    assert.equal(await page.locator('[data-parley] .rate button[aria-label=Helpful]').getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('[data-parley] .rate button[aria-label="Not helpful"]').getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('[data-parley] .rate button[aria-label=Helpful]').getAttribute('aria-pressed'), 'false');
    releaseFirst();
    const conversationId = await conversationOf(page);
    await waitFor(async () => {
      const messages = (await service.api('GET', `/agents/${agent}/conversations/${conversationId}`, { key: ws.keys.read })).body.data.messages as Array<{ feedback: number | null }>;
      return messages.at(-1)!.feedback === -1;
    }, 15_000);
  });

  test('the widget takes no room in the page: no layout shift, the host page laid out as without it, the module fetched only after the page is parsed', async () => {
    const layoutOf = (page: Page) => page.evaluate(() => ({ h1: document.querySelector('h1')!.getBoundingClientRect().toJSON(), height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth }));
    const blank = await visit('/blank');
    const page = await visit();
    await launcher(page).waitFor();
    await page.locator('[data-parley] [role=dialog]').waitFor({ state: 'attached' });
    assert.deepEqual(await layoutOf(page), await layoutOf(blank));
    const shifts = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) total += (entry as unknown as { value: number }).value;
          }).observe({ type: 'layout-shift', buffered: true });
          setTimeout(() => resolve(total), 300);
        }),
    );
    assert.equal(shifts, 0);
    const timing = await page.evaluate(() => ({
      parsed: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
      module: performance.getEntriesByType('resource').find((r) => /\/widget\/app-/.test(r.name))!.startTime,
    }));
    assert.ok(timing.module > timing.parsed, JSON.stringify(timing));
  });

  test('below 640 px the panel takes the whole screen and the page behind it does not scroll', async () => {
    const page = await visit('/long', { viewport: { width: 375, height: 667 } });
    await launcher(page).click();
    const box = await page.locator('[data-parley] [role=dialog]').boundingBox();
    assert.deepEqual(box, { x: 0, y: 0, width: 375, height: 667 });
    await page.mouse.move(180, 300);
    await page.mouse.wheel(0, 1500);
    await page.keyboard.press('PageDown');
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => scrollY), 0, 'the long page behind the panel stays where it was');
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).overflow), 'hidden');
    if (SCREENSHOTS) await page.screenshot({ path: 'docs/images/widget-mobile.png' });
    await page.getByRole('button', { name: 'Close chat' }).click();
    assert.notEqual(await page.evaluate(() => getComputedStyle(document.documentElement).overflow), 'hidden');
  });

  test('hostile host CSS neither hides nor breaks the widget', async () => {
    const page = await visit('/hostile');
    await launcher(page).waitFor();
    const box = (await launcher(page).boundingBox())!;
    assert.ok(box.width < 300 && box.height < 100, JSON.stringify(box));
    assert.ok(box.x > 900 && box.y > 650, `bottom right: ${JSON.stringify(box)}`);
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    const panel = (await page.locator('[data-parley] [role=dialog]').boundingBox())!;
    assert.equal(panel.width, 380);
  });

  test('under a strict Content-Security-Policy (no inline script or style, no eval) the widget works', async () => {
    const page = await visit('/strict');
    const violations: string[] = [];
    page.on('console', (message) => message.type() === 'error' && violations.push(message.text()));
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    assert.deepEqual(violations.filter((v) => /Content Security Policy/i.test(v)), []);
  });

  test('the JavaScript API opens, closes and toggles the chat, and the widget adds no other global name', async () => {
    const page = await visit();
    await launcher(page).waitFor();
    const names = await page.evaluate(() => Object.getOwnPropertyNames(window));
    const blank = await visit('/blank');
    const before = new Set(await blank.evaluate(() => Object.getOwnPropertyNames(window)));
    assert.deepEqual(names.filter((n) => !before.has(n)), ['Parley']);
    await page.evaluate(() => (window as any).Parley.open());
    await page.locator('[data-parley] [role=dialog]').waitFor();
    assert.equal(await page.evaluate(() => (window as any).Parley.isOpen()), true);
    await page.evaluate(() => (window as any).Parley.close());
    assert.equal(await page.evaluate(() => (window as any).Parley.isOpen()), false);
    await page.evaluate(() => (window as any).Parley.toggle());
    assert.equal(await page.evaluate(() => (window as any).Parley.isOpen()), true);
  });

  test('the iframe page serves the chat in its own document, framed by an admitted origin and refused by frame-ancestors elsewhere', async () => {
    const reply = await fetch(`${service.url}/chat/${agent}`);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-security-policy')!, new RegExp(`frame-ancestors ${site.origin}(;|$)`));
    // The page calls the visitor API from the service's own host, which allowedOrigins need not list.
    assert.equal((await fetch(`${service.url}/visitor/v1/agents/${agent}`, { headers: { origin: service.url } })).status, 200);
    const page = await visit('/framed');
    const frame = page.frameLocator('iframe');
    await frame.locator('[data-parley] textarea').fill('When are you open on Saturday?');
    await frame.locator('[data-parley] textarea').press('Enter');
    await frame.locator('[data-parley] .rate').waitFor();
    assert.ok((await conversations()).some((c) => c.channel === 'iframe'));

    const refused = await visit('/framed', { origin: site.otherOrigin });
    await refused.waitForTimeout(500);
    const inner = refused.frames().find((f) => f !== refused.mainFrame());
    assert.ok(inner);
    assert.equal(await inner.locator('[data-parley]').count(), 0);
    assert.equal((await fetch(`${service.url}/chat/ag_doesnotexist`)).status, 404);
  });

  test('the greeting bubble opens a chat recorded as openedBy greeting; the nudge opens one by itself, recorded as nudge', async () => {
    await patchAgent({ proactive: { greeting: { enabled: true, text: 'Need a repair?', delaySeconds: 0 } } });
    const page = await visit();
    await page.locator('[data-parley] .bubble').getByText('Need a repair?').click();
    await ask(page, 'When are you open on Saturday?');
    const byGreeting = (await conversations())[0]!;
    assert.equal(byGreeting.openedBy, 'greeting');

    await patchAgent({ proactive: { greeting: { enabled: false }, nudge: { enabled: true, text: 'Can I help you find a bike?', afterSeconds: 0 } } });
    const nudged = await visit();
    await nudged.locator('[data-parley] [role=dialog]').getByText('Can I help you find a bike?').waitFor();
    await ask(nudged, 'When are you open on Saturday?');
    assert.equal((await conversations())[0]!.openedBy, 'nudge');
    await patchAgent({ proactive: { nudge: { enabled: false } } });
  });

  test('proactive on the page clock: the greeting and the nudge wait their delays, show only on the paths set, not on a phone unless mobile, once per visitor', async () => {
    await patchAgent({ proactive: { greeting: { enabled: true, text: 'Need a repair?', delaySeconds: 30 }, nudge: { enabled: false }, pages: 'only', paths: ['/bikes/*'], mobile: false } });
    const bubble = (page: Page) => page.locator('[data-parley] .bubble');
    const dialog = (page: Page) => page.locator('[data-parley] [role=dialog]');
    /** The module is mounted and its timers set: the loader fetches it when the page is idle. */
    const mounted = async (page: Page) => {
      await launcher(page).waitFor();
      await page.clock.runFor(5_000);
      await dialog(page).waitFor({ state: 'attached' });
    };
    const page = await visit('/bikes/city', { clock: true });
    await mounted(page);
    await page.clock.runFor(29_000);
    assert.equal(await bubble(page).count(), 0, 'no greeting before its 30 s');
    await page.clock.runFor(2_000);
    await bubble(page).getByText('Need a repair?').waitFor();
    await page.reload();
    await mounted(page);
    await page.clock.runFor(60_000);
    assert.equal(await bubble(page).count(), 0, 'once per visitor: not again after a reload');

    const elsewhere = await visit('/contact', { clock: true });
    await mounted(elsewhere);
    await elsewhere.clock.runFor(60_000);
    assert.equal(await bubble(elsewhere).count(), 0, 'not on a path outside paths');

    const phone = await visit('/bikes/city', { clock: true, viewport: PHONE });
    await mounted(phone);
    await phone.clock.runFor(60_000);
    assert.equal(await bubble(phone).count(), 0, 'mobile false: not on a phone');
    await patchAgent({ proactive: { mobile: true } });
    const phoneAllowed = await visit('/bikes/city', { clock: true, viewport: PHONE });
    await mounted(phoneAllowed);
    await phoneAllowed.clock.runFor(31_000);
    await bubble(phoneAllowed).getByText('Need a repair?').waitFor();

    await patchAgent({ proactive: { greeting: { enabled: false }, nudge: { enabled: true, text: 'Looking for a city bike?', afterSeconds: 45 }, pages: 'except', paths: ['/contact'] } });
    const nudged = await visit('/bikes/city', { clock: true });
    await mounted(nudged);
    await nudged.clock.runFor(44_000);
    assert.equal(await dialog(nudged).isHidden(), true, 'no nudge before its 45 s');
    await nudged.clock.runFor(2_000);
    await dialog(nudged).getByText('Looking for a city bike?').waitFor();
    await nudged.reload();
    await mounted(nudged);
    await nudged.clock.runFor(60_000);
    assert.equal(await dialog(nudged).isHidden(), true, 'once per visitor: no nudge again after a reload');
    const excepted = await visit('/contact', { clock: true });
    await mounted(excepted);
    await excepted.clock.runFor(60_000);
    assert.equal(await dialog(excepted).isHidden(), true, 'pages except: not on the path excepted');
    await patchAgent({ proactive: { nudge: { enabled: false }, pages: 'all', paths: [], mobile: false } });
  });

  test('the lead form before the first question, after N questions and behind its button, as set; a skipped form is recorded as declined', async () => {
    await patchAgent({
      leadCapture: {
        enabled: true, timing: 'before_chat', skippable: true, privacyUrl: 'https://shop.example.com/privacy', fields: [{ name: 'email', required: true }, { name: 'name' }],
        intro: 'Tell us who you are.', marketing: { enabled: true, label: 'Bike news, please' }, thanks: 'Thanks, we will write soon.', button: 'Keep me posted',
      },
    });
    const page = await visit();
    await launcher(page).click();
    const form = page.locator('[data-parley] form.lead');
    await form.getByText('Tell us who you are.').waitFor();
    await form.getByText('Bike news, please').waitFor();
    assert.equal(await form.locator('a[href="https://shop.example.com/privacy"]').count(), 1);
    assert.equal(await page.locator('[data-parley] form.compose').isHidden(), true);
    if (SCREENSHOTS) await page.screenshot({ path: 'docs/images/widget-lead-form.png' });
    const leadsNow = async () => (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data as Array<{ moment: string; email: string; name: string | null; marketing: boolean; shown: { intro: string; privacyUrl: string | null; marketing: string | null } }>;
    const before = (await leadsNow()).length;
    // The e-mail is required: the form is not sent without it.
    await form.getByRole('button', { name: 'Keep me posted' }).click();
    assert.equal(await form.getByLabel('E-mail').evaluate((box: HTMLInputElement) => box.validity.valueMissing), true);
    assert.equal((await leadsNow()).length, before);
    await form.getByLabel('E-mail').fill('ana@bikes.example');
    await form.getByLabel('Name').fill('Ana');
    await form.getByLabel('Bike news, please').check();
    await form.getByRole('button', { name: 'Keep me posted' }).click();
    await page.getByText('Thanks, we will write soon.').waitFor();
    let leads = await leadsNow();
    assert.equal(leads[0]!.moment, 'before');
    assert.equal(leads[0]!.email, 'ana@bikes.example');
    assert.equal(leads[0]!.name, 'Ana');
    assert.equal(leads[0]!.marketing, true);
    assert.equal(leads[0]!.shown.intro, 'Tell us who you are.');
    assert.equal(leads[0]!.shown.privacyUrl, 'https://shop.example.com/privacy');
    assert.equal(leads[0]!.shown.marketing, 'Bike news, please');

    const declinedSoFar = async () => (await service.api('GET', `/agents/${agent}/analytics`, { key: ws.keys.read })).body.data.widget.leadFormsDeclined as number;
    const declinedBefore = await declinedSoFar();
    const skipper = await visit();
    await launcher(skipper).click();
    await skipper.getByRole('button', { name: 'Skip' }).click();
    await skipper.locator('[data-parley] form.compose').waitFor();
    await waitFor(async () => (await declinedSoFar()) === declinedBefore + 1);
    await skipper.reload();
    await launcher(skipper).click();
    await skipper.locator('[data-parley] form.compose').waitFor();
    assert.equal(await skipper.locator('[data-parley] form.lead').count(), 0, 'a skipped form does not come back');

    await patchAgent({ leadCapture: { timing: 'during_chat', afterQuestions: 1, afterWeakAnswer: false, skippable: false } });
    const later = await visit();
    await launcher(later).click();
    await ask(later, 'When are you open on Saturday?');
    await later.locator('[data-parley] form.lead').waitFor();
    assert.equal(await later.locator('[data-parley] form.lead').getByRole('button', { name: 'Skip' }).count(), 0, 'not skippable: no Skip button');
    await later.locator('[data-parley] form.lead').getByLabel('E-mail').fill('bo@bikes.example');
    await later.locator('[data-parley] form.lead').getByRole('button', { name: 'Keep me posted' }).click();
    await later.getByText('Thanks, we will write soon.').waitFor();

    const button = await visit();
    await launcher(button).click();
    await button.getByRole('button', { name: 'Leave your details' }).click();
    await button.locator('[data-parley] form.lead').getByLabel('E-mail').fill('cy@bikes.example');
    await button.locator('[data-parley] form.lead').getByRole('button', { name: 'Keep me posted' }).click();
    await button.getByText('Thanks, we will write soon.').waitFor();
    leads = (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data;
    assert.deepEqual(leads.slice(0, 2).map((l) => l.moment).sort(), ['button', 'questions']);
    await patchAgent({ leadCapture: { enabled: false, button: '' } });
  });

  test('tickets: a weak answer offers the ticket form with the question; a signed-in visitor does not type an address; the visitor sees the ticket number', async () => {
    await patchAgent({ tickets: { enabled: true, privacyUrl: 'https://shop.example.com/privacy', answerTime: 'We answer within one working day.' } });
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'Do you rent out submarines for weddings?');
    const form = page.locator('[data-parley] form.lead');
    assert.equal(await form.getByLabel('Your question').inputValue(), 'Do you rent out submarines for weddings?');
    await form.getByText('We answer within one working day.').waitFor();
    assert.equal(await form.locator('a[href="https://shop.example.com/privacy"]').count(), 1);
    await form.getByLabel('E-mail').fill('dee@bikes.example');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Thank you! Your ticket number is #1.').waitFor();

    const secret = (await service.api('GET', `/agents/${agent}/identity-secret`, { key: ws.keys.manage })).body.data.secret as string;
    const hash = createHmac('sha256', secret).update('eve@bikes.example').digest('hex');
    const signedIn = await visit();
    await launcher(signedIn).waitFor();
    await signedIn.evaluate((who) => (window as any).Parley.identify(who), { email: 'eve@bikes.example', hash });
    await launcher(signedIn).click();
    await signedIn.getByRole('button', { name: 'Talk to a person' }).click();
    const signedForm = signedIn.locator('[data-parley] form.lead');
    assert.equal(await signedForm.getByLabel('E-mail').count(), 0);
    await signedForm.getByLabel('Your question').fill('Where is my order?');
    await signedForm.getByRole('button', { name: 'Send' }).click();
    await signedIn.getByText('Thank you! Your ticket number is #2.').waitFor();
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data as Array<{ email: string; signedIn: boolean }>;
    const eve = tickets.find((ticket) => ticket.email === 'eve@bikes.example');
    assert.equal(eve?.signedIn, true);
    await patchAgent({ tickets: { enabled: false } });
  });

  test(`afterWeakAnswer: an answer below confidence ${WEAK_CONFIDENCE} or without a source brings the lead form, and the lead records moment weak_answer`, async () => {
    await patchAgent({ leadCapture: { enabled: true, timing: 'during_chat', afterQuestions: 20, afterWeakAnswer: true, skippable: true, privacyUrl: 'https://shop.example.com/privacy', fields: [{ name: 'email', required: true }] } });
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    assert.equal(await page.locator('[data-parley] form.lead').count(), 0, 'a strong answer brings no form');
    await ask(page, 'Do you rent out submarines for weddings?');
    const form = page.locator('[data-parley] form.lead');
    await form.getByLabel('E-mail').fill('fay@bikes.example');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.waitFor({ state: 'detached' });
    const latest = { id: await conversationOf(page) };
    const answers = ((await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as Array<{ role: string; confidence: number; sources: unknown[] }>).filter((m) => m.role === 'assistant');
    assert.ok(answers[0]!.confidence >= WEAK_CONFIDENCE && answers[0]!.sources.length > 0, `strong: ${JSON.stringify(answers[0])}`);
    assert.ok(answers[1]!.confidence < WEAK_CONFIDENCE || answers[1]!.sources.length === 0, `weak: ${JSON.stringify(answers[1])}`);
    const leads = (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data as Array<{ moment: string; email: string; conversationId: string }>;
    const lead = leads.find((l) => l.email === 'fay@bikes.example');
    assert.equal(lead?.moment, 'weak_answer');
    assert.equal(lead?.conversationId, latest!.id);
    await patchAgent({ leadCapture: { enabled: false } });
  });

  test('after a weak answer, on a desktop and on a phone: the answer and the form it brings are in view together with one Send button, the thanks and the ticket number come into view, and the ticket form reuses the lead form\'s e-mail and name', async (t) => {
    // Put back even when an assertion fails, so the tests after this one do not meet its lead form.
    t.after(() => patchAgent({ leadCapture: { enabled: false }, tickets: { enabled: false } }));
    await patchAgent({
      leadCapture: { enabled: true, timing: 'during_chat', afterQuestions: 20, afterWeakAnswer: true, skippable: true, privacyUrl: 'https://shop.example.com/privacy', fields: [{ name: 'email', required: true }, { name: 'name' }], intro: '', thanks: 'Thanks, we will write soon.', button: '' },
      tickets: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' },
    });
    for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await visit('/', { viewport });
      await launcher(page).click();
      // Enough conversation above that the log scrolls.
      await ask(page, 'When are you open on Saturday?');
      await ask(page, 'What does mending a flat tyre cost?');
      await ask(page, 'Do you rent out submarines for weddings?');
      const answer = page.locator('[data-parley] .msg.agent').filter({ has: page.locator('.rate') }).last();
      const leadForm = page.locator('[data-parley] form.lead[aria-label="Leave your details"]');
      await leadForm.waitFor();
      await assertInView(answer, `${size}: the weak answer, with the lead form`);
      await assertInView(leadForm.getByText(FORM_TEXTS.en.intro), `${size}: the lead form's reason`);
      await assertInView(leadForm, `${size}: the lead form`);
      await assertOnePrimary(page, `${size}: lead form`);
      await leadForm.getByLabel('E-mail').fill('hal@bikes.example');
      await leadForm.getByLabel('Name').fill('Hal');
      await leadForm.getByRole('button', { name: 'Send' }).click();
      await leadForm.waitFor({ state: 'detached' });
      await assertInView(page.locator('[data-parley] .msg.agent').getByText('Thanks, we will write soon.'), `${size}: the thanks`);

      await ask(page, 'Do you rent out submarines for weddings?');
      const ticketForm = page.locator('[data-parley] form.lead[aria-label="Talk to a person"]');
      await ticketForm.waitFor();
      await assertInView(answer, `${size}: the weak answer, with the ticket form`);
      await assertInView(ticketForm, `${size}: the ticket form`);
      await assertOnePrimary(page, `${size}: ticket form`);
      if (SCREENSHOTS && size === 'phone') await page.screenshot({ path: 'docs/images/widget-ticket-form.png' });
      assert.equal(await ticketForm.getByLabel('E-mail').inputValue(), 'hal@bikes.example', `${size}: the lead's e-mail again`);
      assert.equal(await ticketForm.getByLabel('Name').inputValue(), 'Hal');
      await ticketForm.getByRole('button', { name: 'Send' }).click();
      await ticketForm.waitFor({ state: 'detached' });
      await assertInView(page.locator('[data-parley] .msg.agent').getByText(/Your ticket number is #\d+\./), `${size}: the ticket number`);
      assert.equal(await page.locator('[data-parley] form.compose').isVisible(), true, `${size}: back to the chat`);
    }
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data as Array<{ email: string }>;
    assert.equal(tickets.filter((ticket) => ticket.email === 'hal@bikes.example').length, 2);
  });

  test('asking for a person in words, in each of the five languages, brings the ticket form (with the last question) instead of an answer', async () => {
    await patchAgent({ tickets: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } });
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    const box = page.locator('[data-parley] textarea');
    const form = page.locator('[data-parley] form.lead[aria-label="Talk to a person"]');
    for (const words of ['I want to talk to a person', 'Ik wil een mens spreken', 'Je voudrais parler à une personne, s’il vous plaît', 'Ich möchte mit einem Menschen sprechen', 'Quiero hablar con una persona']) {
      await box.fill(words);
      await box.press('Enter');
      await form.waitFor();
      assert.equal(await form.getByLabel('Your question').inputValue(), 'When are you open on Saturday?', words);
      if (words.startsWith('Quiero')) break;
      await form.getByRole('button', { name: 'Back to the chat' }).click();
      await form.waitFor({ state: 'detached' });
    }
    await form.getByLabel('E-mail').fill('gus@bikes.example');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/Your ticket number is #\d+\./).waitFor();
    const latest = { id: await conversationOf(page) };
    const messages = (await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as unknown[];
    assert.equal(messages.length, 2, 'the requests for a person went to the ticket form, not to the agent');
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data as Array<{ email: string; conversationId: string | null; question: string }>;
    const ticket = tickets.find((t) => t.email === 'gus@bikes.example');
    assert.equal(ticket?.conversationId, latest!.id);
    assert.equal(ticket?.question, 'When are you open on Saturday?');

    await patchAgent({ tickets: { enabled: false } });
    const untouched = await visit();
    await launcher(untouched).click();
    await ask(untouched, 'I want to talk to a person');
    assert.equal(await untouched.locator('[data-parley] form.lead').count(), 0, 'without tickets the agent answers');
  });

  test('attachments: the file button sends a file that goes with the next question', async () => {
    const without = await visit();
    await launcher(without).click();
    await without.locator('[data-parley] form.compose').waitFor();
    assert.equal(await without.locator('[data-parley] input[type=file], [data-parley] .attach').count(), 0, 'no file button while attachmentsEnabled is off');
    await patchAgent({ attachmentsEnabled: true });
    const page = await visit();
    await launcher(page).click();
    await page.locator('[data-parley] input[type=file]').setInputFiles({ name: 'order.txt', mimeType: 'text/plain', buffer: Buffer.from('Order 4711: a blue bike frame, its repair is booked for Tuesday.\n') });
    await page.locator('[data-parley] .file').getByText('order.txt').waitFor();
    await ask(page, 'When is the repair of my order booked?');
    assert.equal(await page.locator('[data-parley] .file').count(), 0);
    const latest = { id: await conversationOf(page) };
    const messages = (await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as Array<{ role: string; attachments: Array<{ fileName: string }> }>;
    assert.deepEqual(messages[0]!.attachments.map((a) => a.fileName), ['order.txt']);
    await patchAgent({ attachmentsEnabled: false });
  });

  test("the launcher shows the agent's icon and the panel its logo", async () => {
    for (const image of ['logo', 'icon']) {
      const reply = await service.api('PUT', `/agents/${agent}/branding/${image}`, { key: ws.keys.manage, body: { url: `${site.origin}/logo.png` } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    const { branding } = (await service.api('GET', `/agents/${agent}`, { key: ws.keys.read })).body.data as { branding: { logoUrl: string; iconUrl: string } };
    const page = await visit();
    await launcher(page).waitFor();
    assert.deepEqual(await launcher(page).locator('img').evaluate((img: HTMLImageElement) => [img.getAttribute('src'), img.alt]), [branding.iconUrl, '']);
    assert.equal(await launcher(page).locator('svg').count(), 0, 'the icon replaces the standard one');
    await launcher(page).click();
    assert.equal(await page.locator('[data-parley] header img').getAttribute('src'), branding.logoUrl);
    for (const image of ['logo', 'icon']) assert.equal((await service.api('DELETE', `/agents/${agent}/branding/${image}`, { key: ws.keys.manage })).status, 200);
    const plain = await visit();
    await launcher(plain).locator('svg').waitFor();
    await launcher(plain).click();
    assert.equal(await plain.locator('[data-parley] header img').count(), 0);
  });

  test('a text colour too light for the branding colour is replaced by a readable one', async () => {
    await patchAgent({ branding: { color: '#fde047', textColor: '#ffffff' } });
    const page = await visit();
    await launcher(page).waitFor();
    assert.equal(await launcher(page).evaluate((button) => getComputedStyle(button).color), 'rgb(0, 0, 0)');
    await patchAgent({ branding: { color: '#2563eb', textColor: '#ffffff' } });
  });
});

/** The element wholly inside the visible part of the area that scrolls it, and of the window. */
async function assertInView(item: Locator, what: string): Promise<void> {
  const seen = await item.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const area = { top: 0, bottom: innerHeight };
    for (let up = node.parentElement; up; up = up.parentElement) {
      if (!/auto|scroll/.test(getComputedStyle(up).overflowY)) continue;
      const rect = up.getBoundingClientRect();
      area.top = Math.max(area.top, rect.top);
      area.bottom = Math.min(area.bottom, rect.bottom);
    }
    return { top: box.top, bottom: box.bottom, areaTop: area.top, areaBottom: area.bottom };
  });
  assert.ok(seen.top >= seen.areaTop - 1 && seen.bottom <= seen.areaBottom + 1, `${what} in view: ${JSON.stringify(seen)}`);
}

/** One button named Send in view, and one button drawn as the primary action. */
async function assertOnePrimary(page: Page, what: string): Promise<void> {
  assert.equal(await page.locator('[data-parley]').getByRole('button', { name: 'Send', exact: true }).filter({ visible: true }).count(), 1, `${what}: Send buttons`);
  assert.equal(await page.locator('[data-parley] .primary').filter({ visible: true }).count(), 1, `${what}: primary buttons`);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
