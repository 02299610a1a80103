/**
 * The page a signed-in person opens (docs/dashboard.md, "First load"): it preloads the opened
 * page's chunks beside the entry's and carries GET /app/api/me's data in a JSON element, so the
 * application starts without waiting for either; never cached; signed out, the page is as before.
 * And the top bar's switches, which replace that data: a failed one says so and keeps the old choice.
 * It runs on one store (test/run.ts ONE_STORE: the API rules behind its checks are proven on both by their own files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type DashboardHarness } from '../../../test/support/dashboard.ts';
import { buildDashboard, pageModuleOf } from '../../dashboard/build.ts';
import { DEFAULT_ANALYTICS_DAYS, lastDays } from '../../dashboard/first-requests.ts';
import { routes } from '../../dashboard/routes.ts';
import { ME_ELEMENT_ID } from '../../dashboard/types.ts';
import { addPerson, signIn, type SignedIn } from '../people/test-support.ts';

let dash: DashboardHarness;
let owner: SignedIn;
let agentId: string;
before(async () => {
  dash = await startDashboard();
  const workspaceId = await dash.newWorkspace(`first-load-${Date.now()}@example.org`);
  owner = await signIn(dash.service, workspaceId);
  agentId = (await owner.call('POST', '/api/v1/agents', { name: 'First load', useCase: 'general' })).body.data.id;
});
after(() => dash?.close());

const pageOf = async (path: string, cookie?: string, headers: Record<string, string> = {}) => {
  const reply = await fetch(`${dash.service.url}${path}`, { headers: { ...headers, ...(cookie ? { cookie } : {}) } });
  return { reply, html: await reply.text() };
};
const preloadsIn = (html: string) => [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]!);
const meIn = (html: string) => {
  const found = new RegExp(`<script type="application/json" id="${ME_ELEMENT_ID}">([^<]*)</script>`).exec(html);
  return found ? JSON.parse(found[1]!) : undefined;
};

describe('the page for a signed-in person starts without round trips it can spare', () => {
  test('it carries the person\'s GET /app/api/me data, the same as the API gives, and is never cached', async () => {
    const { reply, html } = await pageOf(`/app/agents/${agentId}/inbox/conversations`, owner.cookie);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    const me = await owner.call('GET', '/api/me');
    assert.deepEqual(meIn(html), me.body.data);
  });

  test('it preloads the opened page\'s own chunks (and a redirect\'s page\'s) beside the entry\'s, and the person\'s language\'s texts', async () => {
    const build = await buildDashboard();
    const signedOut = preloadsIn((await pageOf('/app/agents')).html);
    assert.deepEqual(signedOut, [...build.entry.preload, ...build.languageChunks.en]);
    for (const [path, module] of [
      [`/app/agents/${agentId}/inbox/conversations`, './pages/inbox/conversations.tsx'],
      [`/app/agents/${agentId}/inbox/tickets?status=all`, './pages/inbox/tickets.tsx'],
      ['/app/analytics', './pages/analytics/page.tsx'],
      ['/app', './pages/agents/page.tsx'],
    ] as const) {
      const chunks = build.pageChunks.get(module)!;
      assert.ok(chunks.length > 0, module);
      assert.deepEqual(preloadsIn((await pageOf(path, owner.cookie)).html), [...build.entry.preload, ...chunks, ...build.languageChunks.en], path);
      for (const chunk of chunks) assert.equal((await fetch(`${dash.service.url}${chunk}`)).status, 200, chunk);
    }
    // An unknown address preloads nothing more.
    assert.deepEqual(preloadsIn((await pageOf('/app/no/such/page', owner.cookie)).html), [...build.entry.preload, ...build.languageChunks.en]);
  });

  test('a page carries one language\'s texts: the person\'s, else (signed out) the first of Accept-Language\'s the dashboard speaks', async () => {
    const build = await buildDashboard();
    assert.notDeepEqual(build.languageChunks.en, build.languageChunks.nl);
    for (const chunk of [...build.languageChunks.en, ...build.languageChunks.nl]) assert.ok(!build.entry.preload.includes(chunk) && chunk !== build.entry.script, chunk);
    const dutch = 'nl-BE,nl;q=0.9,en;q=0.8';
    assert.deepEqual(preloadsIn((await pageOf('/app/agents', undefined, { 'accept-language': dutch })).html), [...build.entry.preload, ...build.languageChunks.nl]);
    assert.deepEqual(preloadsIn((await pageOf('/app/agents', undefined, { 'accept-language': 'de-DE, nl;q=0, en;q=0.5' })).html), [...build.entry.preload, ...build.languageChunks.en]);
    // Signed in, the browser's language is preloaded at once and the person's, when another, with their data; an ended session gets the browser's (the sign-in page's).
    assert.deepEqual(preloadsIn((await pageOf('/app/agents', owner.cookie, { 'accept-language': dutch })).html), [...build.entry.preload, ...build.pageChunks.get('./pages/agents/page.tsx')!, ...build.languageChunks.nl, ...build.languageChunks.en]);
    assert.deepEqual(preloadsIn((await pageOf('/app/agents', 'parley_session=not-a-session', { 'accept-language': dutch })).html).slice(-build.languageChunks.nl.length), build.languageChunks.nl);
  });

  test('its files go gzipped to a browser that takes gzip (each encoding its own ETag), as they are to one that does not', async () => {
    const build = await buildDashboard();
    for (const file of [build.entry.script, ...build.languageChunks.nl, build.entry.style!]) {
      const plain = await fetch(`${dash.service.url}${file}`, { headers: { 'accept-encoding': 'identity' } });
      const gzipped = await fetch(`${dash.service.url}${file}`, { headers: { 'accept-encoding': 'br, gzip;q=0.8' } });
      assert.equal(plain.headers.get('content-encoding'), null, file);
      assert.equal(gzipped.headers.get('content-encoding'), 'gzip', file);
      for (const reply of [plain, gzipped]) assert.equal(reply.headers.get('vary'), 'accept-encoding', file);
      assert.notEqual(plain.headers.get('etag'), gzipped.headers.get('etag'), file);
      assert.equal(await gzipped.text(), await plain.text(), file);
      const refused = await fetch(`${dash.service.url}${file}`, { headers: { 'accept-encoding': 'gzip;q=0' } });
      assert.equal(refused.headers.get('content-encoding'), null, file);
      await refused.arrayBuffer();
      const again = await fetch(`${dash.service.url}${file}`, { headers: { 'accept-encoding': 'gzip', 'if-none-match': gzipped.headers.get('etag')! } });
      assert.equal(again.status, 304, file);
    }
  });

  test('it preloads the API replies the opened page asks for as it opens, built from its address', async () => {
    const fetchesIn = (html: string) => [...html.matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const agent = encodeURIComponent(agentId);
    for (const [path, expected] of [
      [`/app/agents/${agent}/inbox/conversations?channel=email&q=a%22b&other=1`, ['/app/api/v1/agents', `/app/api/v1/agents/${agent}/conversations?limit=50&channel=email&q=a%22b`]],
      [`/app/agents/${agent}/inbox`, ['/app/api/v1/agents', `/app/api/v1/agents/${agent}/conversations?limit=50`]],
      [`/app/agents/${agent}/inbox/tickets?status=all`, ['/app/api/v1/agents', `/app/api/v1/agents/${agent}/tickets?limit=50`]],
      [`/app/agents/${agent}/inbox/tickets?status=nonsense`, ['/app/api/v1/agents', `/app/api/v1/agents/${agent}/tickets?limit=50&status=open`]],
      ['/app/settings', []],
    ] as const) {
      assert.deepEqual(fetchesIn((await pageOf(path, owner.cookie)).html), expected, path);
    }
    assert.deepEqual(fetchesIn((await pageOf(`/app/agents/${agent}/inbox/conversations`)).html), [], 'none signed out');
  });

  test('Analytics preloads the figures of the agent it shows: the one in its address, else the first the person reaches, for the default period', async () => {
    const fetchesIn = (html: string) => [...html.matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const { from, to } = lastDays(new Date().toISOString().slice(0, 10), DEFAULT_ANALYTICS_DAYS);
    const figuresOf = (id: string) => `/app/api/v1/agents/${encodeURIComponent(id)}/analytics?from=${from}&to=${to}`;
    const second = (await owner.call('POST', '/api/v1/agents', { name: 'First load, second', useCase: 'general' })).body.data.id as string;
    try {
      assert.deepEqual(fetchesIn((await pageOf('/app/analytics', owner.cookie)).html), ['/app/api/v1/agents', figuresOf(agentId)]);
      assert.deepEqual(fetchesIn((await pageOf(`/app/analytics?agent=${encodeURIComponent(second)}`, owner.cookie)).html), ['/app/api/v1/agents', figuresOf(second)]);
      // A member limited to the second agent: their agents list starts with it.
      const member = await addPerson(dash.service, owner, `first-load-member-${Date.now()}@example.org`, 'member', [second]);
      assert.deepEqual(fetchesIn((await pageOf('/app/analytics', member.cookie)).html), ['/app/api/v1/agents', figuresOf(second)]);
      assert.equal((await member.call('GET', '/api/v1/agents')).body.data[0].id, second);
      assert.deepEqual(fetchesIn((await pageOf('/app/analytics')).html), [], 'none signed out');
    } finally {
      assert.equal((await owner.call('DELETE', `/api/v1/agents/${encodeURIComponent(second)}`)).status, 200);
    }
  });

  test('every page in the routes table has its chunks known to the build', async () => {
    const build = await buildDashboard();
    for (const route of routes.filter((r) => r.load)) assert.ok(build.pageChunks.get(pageModuleOf(route)!)?.length, route.path);
  });

  test('without a session the page is the same as for anyone; with an ended one it carries no person\'s data', async () => {
    const anyone = (await pageOf('/app/agents')).html;
    assert.equal(meIn(anyone), undefined);
    assert.doesNotMatch(anyone, /application\/json/);
    assert.equal((await pageOf('/app/agents', 'other=cookie')).html, anyone);
    const ended = await pageOf('/app/agents', 'parley_session=not-a-session');
    assert.equal(ended.reply.status, 200);
    assert.equal(ended.reply.headers.get('cache-control'), 'no-store');
    assert.doesNotMatch(ended.html, /application\/json/);
    assert.match(ended.html, /<\/html>\n$/);
    const head = await fetch(`${dash.service.url}/app/agents`, { method: 'HEAD', headers: { cookie: owner.cookie } });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('a name with </script> and <!-- stays inside the JSON element and reads back whole', async () => {
    const name = 'Ann </script><script>alert(1)</script> <!-- & "quotes"';
    assert.equal((await owner.call('PATCH', '/api/me', { name })).status, 200);
    const { html } = await pageOf('/app/agents', owner.cookie);
    assert.equal(meIn(html).person.name, name);
    assert.doesNotMatch(html, /alert\(1\)<\/script>/);
    assert.equal(html.match(/<\/script>/g)!.length, 2, 'the entry\'s and the JSON element\'s only');
  });
});

describe('in Chromium', () => {
  test('the application starts with the page\'s data: no GET /app/api/me, the person\'s name and language as given', async () => {
    const name = 'Bea </script><!-- Example';
    assert.equal((await owner.call('PATCH', '/api/me', { name, language: 'nl' })).status, 200);
    // A Dutch browser: the head's guess (the browser's language) is the person's, so no English texts are loaded.
    const page = await dash.newPage({ locale: 'nl-NL' });
    await dash.useSession(page, owner);
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    const { languageChunks } = await buildDashboard();
    await page.goto('/app/settings/account');
    const nameField = page.getByRole('textbox', { name: 'Je naam' });
    await nameField.waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'nl');
    assert.equal(await nameField.inputValue(), name);
    assert.ok(!asked.includes('/app/api/me'), asked.join(' '));
    assert.equal(await page.locator(`#${ME_ELEMENT_ID}`).count(), 0, 'taken out of the document');
    assert.ok(languageChunks.nl.every((chunk) => asked.includes(chunk)), 'the Dutch texts');
    assert.ok(!languageChunks.en.some((chunk) => asked.includes(chunk)), 'not the English ones');
    // The session works for changes (the CSRF token came with the page): back to English, its texts loaded then.
    await page.getByRole('combobox', { name: 'Taal', exact: true }).selectOption('en');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByRole('textbox', { name: 'Your name' }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.ok(languageChunks.en.every((chunk) => asked.includes(chunk)), 'the English texts, once switched');
    assert.equal((await owner.call('GET', '/api/me')).body.data.person.language, 'en');
  });
});

describe('the preloaded API replies in Chromium', () => {
  test('the page takes them instead of asking again: one request each, and the page shows its data', async () => {
    assert.equal((await owner.call('PATCH', '/api/me', { language: 'en' })).status, 200);
    const page = await dash.newPage();
    await dash.useSession(page, owner);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/app/api/')) asked.push(`${url.pathname}${url.search}`);
    });
    // Each page's last request: the tickets list; the figures (preloaded with the page too).
    for (const [path, last] of [
      [`/app/agents/${encodeURIComponent(agentId)}/inbox/tickets`, `/app/api/v1/agents/${encodeURIComponent(agentId)}/tickets?`],
      ['/app/analytics', `/app/api/v1/agents/${encodeURIComponent(agentId)}/analytics?`],
    ] as const) {
      asked.length = 0;
      const lastReply = page.waitForResponse((response) => response.url().includes(last));
      await page.goto(path);
      await lastReply;
      for (const request of new Set(asked)) assert.equal(asked.filter((r) => r === request).length, 1, `${request} asked once: ${asked.join(' ')}`);
      assert.ok(asked.includes('/app/api/v1/agents'), asked.join(' '));
      const preloaded = await page.locator('link[rel="preload"][as="fetch"]').evaluateAll((links) => links.map((link) => {
        const url = new URL((link as HTMLLinkElement).href);
        return `${url.pathname}${url.search}`;
      }));
      const lastAsked = asked.find((request) => request.startsWith(last))!;
      assert.ok(preloaded.includes(lastAsked), `${lastAsked} preloaded: ${preloaded.join(' ')}`);
    }
  });
});

describe('the top bar', () => {
  test('a language switch that fails says so and the choice shows the language still in use', async () => {
    assert.equal((await owner.call('PATCH', '/api/me', { language: 'en' })).status, 200);
    const page = await dash.newPage();
    await dash.useSession(page, owner);
    await page.route('**/app/api/me', (route) => (route.request().method() === 'PATCH' ? route.abort('connectionfailed') : route.continue()));
    await page.goto('/app/agents');
    const language = page.getByRole('combobox', { name: 'Language', exact: true });
    await language.selectOption('nl');
    await page.getByRole('alert').filter({ hasText: /network|connection/i }).waitFor();
    assert.equal(await language.inputValue(), 'en');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
  });
});
