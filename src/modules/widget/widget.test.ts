/**
 * The widget in a real browser (Chromium through playwright-core, test-support.ts): loading and its budgets, the
 * chat and its sources, what a source or the host page cannot do to it, languages, the keyboard, layout, the
 * JavaScript API, the iframe, branding. The proactive messages and the forms: widget-forms.test.ts.
 * It runs on one store (test/run.ts ONE_STORE: the API rules behind its checks are proven on both by their own files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import type { SeededWorkspace, Service } from '../../../test/support/harness.ts';
import type { HostSite } from './browser.ts';
import { ask, launcher, PARKING, REPAIR_PRICES, SCREENSHOTS, startWidgetFixture, waitFor, type WidgetFixture } from './test-support.ts';

const LOADER_BUDGET = 3 * 1024;
const WIDGET_BUDGET = 30 * 1024;

describe('the widget in a real browser: loading, the chat, safety, the keyboard, layout', () => {
  let fixture: WidgetFixture;
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  let site: HostSite;
  before(async () => {
    fixture = await startWidgetFixture();
    ({ service, ws, agent, site } = fixture);
  });
  after(() => fixture?.close());
  const patchAgent: WidgetFixture['patchAgent'] = (body) => fixture.patchAgent(body);
  const visit: WidgetFixture['visit'] = (path, options) => fixture.visit(path, options);
  const conversationOf: WidgetFixture['conversationOf'] = (page) => fixture.conversationOf(page);
  const conversations: WidgetFixture['conversations'] = () => fixture.conversations();

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
