/**
 * The owners' dashboard at /app (docs/dashboard.md): how it is served, and in Chromium what
 * a person does in it: signs in with the link from the outbox, creates an agent from a
 * preset, adds a text; every page passes axe, fits 375 px and works with the keyboard alone;
 * the Dutch interface. One browser for the file; each test its own workspace and context.
 * It runs on one store (test/run.ts ONE_STORE: the API rules behind its checks are proven on both by their own files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { expectFitsPhoneWidth, expectNoSeriousAxeViolations, startDashboard, tabTo, type DashboardHarness } from '../../../test/support/dashboard.ts';
import { SIGN_IN_SCRIPT } from '../people/sign-in-page.ts';
import { latestMailTo, linkIn } from '../people/test-support.ts';
import { createHash } from 'node:crypto';
import { fixtureSiteNames, serveFixtureSite } from '../../../test/support/fixture-sites.ts';

let dash: DashboardHarness;
before(async () => {
  // The local site crawled by the agent made with a website is on 127.0.0.1.
  dash = await startDashboard({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
});
after(() => dash?.close());

let counter = 0;
const uniqueEmail = (what: string) => `${what}${++counter}-${Date.now()}@example.org`;

describe('serving: /app is the application, its files are hashed and cached, /app/api stays the API', () => {
  test('/app and every client path under it give the page, never cached, with a strict policy and no framing', async () => {
    for (const path of ['/app', '/app/', '/app/agents', '/app/agents/ag_x/sources', '/app/no/such/page?x=1']) {
      const reply = await fetch(`${dash.service.url}${path}`);
      assert.equal(reply.status, 200, path);
      assert.match(reply.headers.get('content-type')!, /^text\/html/);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      const policy = reply.headers.get('content-security-policy')!;
      assert.match(policy, /default-src 'none'/);
      assert.match(policy, /script-src 'self'(;|$)/);
      assert.match(policy, /frame-ancestors 'none'/);
      assert.equal(reply.headers.get('x-frame-options'), 'DENY');
      const html = await reply.text();
      assert.match(html, /<script type="module" src="\/app\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
      assert.match(html, /<link rel="stylesheet" href="\/app\/assets\/main-[A-Z0-9]+\.css">/);
    }
  });

  test('the files are served under content-hashed names, cached for a year, and answered 304 to their ETag', async () => {
    const html = await (await fetch(`${dash.service.url}/app`)).text();
    for (const path of [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
      const reply = await fetch(`${dash.service.url}${path}`);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(reply.headers.get('content-type')!, path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      const again = await fetch(`${dash.service.url}${path}`, { headers: { 'if-none-match': reply.headers.get('etag')! } });
      assert.equal(again.status, 304);
    }
    const missing = await fetch(`${dash.service.url}/app/assets/main-NOPE.js`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'not_found');
  });

  test('/app/api and /app/sign-in are not the page: an unknown API path is the API 404, the sign-in page is the people module\'s', async () => {
    const unknown = await fetch(`${dash.service.url}/app/api/no-such-route`);
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, 'not_found');
    // The people's copy of the API answers its own unknown paths, through its session check.
    const unknownV1 = await fetch(`${dash.service.url}/app/api/v1/no-such-route`);
    assert.equal(unknownV1.status, 401);
    assert.equal((await unknownV1.json()).error.code, 'unauthorized');
    const posted = await fetch(`${dash.service.url}/app/agents`, { method: 'POST' });
    assert.equal(posted.status, 404);
    const me = await fetch(`${dash.service.url}/app/api/me`);
    assert.equal(me.status, 401);
    const signInPage = await fetch(`${dash.service.url}/app/sign-in?token=x`);
    assert.match(await signInPage.text(), /<form method="post" action="\/app\/sign-in">/);
  });

  test('the sign-in link\'s page submits itself with its one inline script, allowed by its hash', async () => {
    const reply = await fetch(`${dash.service.url}/app/sign-in?token=abc`);
    const html = await reply.text();
    assert.ok(html.includes(`<script>${SIGN_IN_SCRIPT}</script>`));
    const hash = createHash('sha256').update(SIGN_IN_SCRIPT).digest('base64');
    assert.match(reply.headers.get('content-security-policy')!, new RegExp(`script-src 'sha256-${hash.replace(/[+/=]/g, '\\$&')}'(;|$)`));
  });
});

describe('in Chromium', () => {
  test('a person signs in with the link from the outbox and sees the navigation; signed out again, /app asks for the address', async () => {
    const email = uniqueEmail('owner');
    await dash.newWorkspace(email);
    const page = await dash.newPage();
    await page.goto('/app');
    await expectNoSeriousAxeViolations(page, 'the sign-in page');
    await expectFitsPhoneWidth(page, 'the sign-in page');
    const lastLink = await dash.signInByMail(page, email);
    await page.waitForURL((url) => url.pathname === '/app/agents');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Agents', 'Inbox', 'Analytics', 'Webhooks', 'API keys', 'Settings']) await nav.getByRole('link', { name, exact: true }).waitFor();
    // The link works once: opened again, it leads back to the sign-in page, which says so.
    const used = await page.context().browser()!.newContext({ baseURL: dash.service.url });
    const again = await used.newPage();
    await again.goto(lastLink);
    await again.getByRole('alert').filter({ hasText: 'used already or has expired' }).waitFor();
    await again.getByRole('textbox', { name: 'E-mail' }).waitFor();
    await expectNoSeriousAxeViolations(again, 'the sign-in page after a used link');
    await used.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('textbox', { name: 'E-mail' }).waitFor();
    await page.goto('/app/agents');
    await page.getByRole('button', { name: 'Send sign-in link' }).waitFor();
  });

  test('a person with a passkey signs in with it (a virtual authenticator in Chromium)', async () => {
    // WebAuthn takes no IP address as the relying party: the service is reached as localhost here.
    const local = dash.service.url.replace('127.0.0.1', 'localhost');
    const before = dash.service.ctx.config.publicUrl;
    dash.service.ctx.config.publicUrl = local;
    try {
      const email = uniqueEmail('passkey');
      await dash.newWorkspace(email);
      const page = await dash.newPage();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
      await page.goto(`${local}/app`);
      await page.getByRole('textbox', { name: 'E-mail' }).fill(email);
      await page.getByRole('button', { name: 'Send sign-in link' }).click();
      await page.getByRole('status').filter({ hasText: email }).waitFor();
      await page.goto(linkIn((await latestMailTo(dash.service, email)).text));
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      // A passkey registered through the people's routes (the account page of issue 24 will call the same).
      const registered = await page.evaluate(async () => {
        const csrf = (await (await fetch('/app/api/me')).json()).data.csrfToken as string;
        const options = (await (await fetch('/app/api/me/passkeys/options', { method: 'POST', headers: { 'x-csrf-token': csrf } })).json()).data;
        const credential = (await navigator.credentials.create({ publicKey: (PublicKeyCredential as any).parseCreationOptionsFromJSON(options) })) as PublicKeyCredential;
        const reply = await fetch('/app/api/me/passkeys', { method: 'POST', headers: { 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ response: credential.toJSON(), name: 'Test key' }) });
        return reply.status;
      });
      assert.equal(registered, 201);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Agents', exact: true }).count(), 1);
    } finally {
      dash.service.ctx.config.publicUrl = before;
    }
  });

  test('a first run leads from a preset to a new agent; a text added shows up and is read; each page passes axe and fits 375 px', async () => {
    const email = uniqueEmail('first');
    const workspaceId = await dash.newWorkspace(email);
    const page = await dash.newPage();
    await dash.signInDirectly(page, workspaceId);
    await page.goto('/app');
    await page.getByRole('heading', { name: 'Set up your first agent' }).waitFor();
    await page.getByRole('radio', { name: 'Support' }).check();
    // The preset: its purpose, features with reasons, sources to gather and ten test questions.
    await page.getByRole('heading', { name: 'Questions to test it with' }).waitFor();
    assert.equal(await page.locator('.preset ol li').count(), 10);
    await expectNoSeriousAxeViolations(page, 'the first run');
    await expectFitsPhoneWidth(page, 'the first run');

    await page.getByRole('button', { name: 'Use this preset' }).click();
    const dialog = page.getByRole('dialog', { name: 'New agent' });
    assert.equal(await dialog.getByRole('combobox', { name: 'Use case' }).inputValue(), 'support');
    // The API's message for a field shows beside it.
    await dialog.getByRole('button', { name: 'Create agent' }).click();
    await dialog.locator('.field-error').first().waitFor();
    assert.equal(await dialog.getByRole('textbox', { name: 'Name' }).getAttribute('aria-invalid'), 'true');
    await expectNoSeriousAxeViolations(page, 'the New agent dialog');
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Help desk');
    await dialog.getByRole('button', { name: 'Create agent' }).click();

    await page.getByRole('heading', { level: 1, name: 'Help desk' }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/app\/agents\/ag_[^/]+\/sources$/);
    const tabs = page.getByRole('navigation', { name: 'Agent' });
    for (const name of ['Sources', 'Playground', 'Settings', 'Install']) await tabs.getByRole('link', { name, exact: true }).waitFor();
    await page.getByText('No sources yet').waitFor();

    await page.getByRole('button', { name: 'Add text' }).click();
    const add = page.getByRole('dialog', { name: 'Add text' });
    await add.getByRole('textbox', { name: 'Title' }).fill('Opening hours');
    await add.getByRole('textbox', { name: 'Content' }).fill('We are open from nine to five on weekdays, and closed on Sundays and public holidays.');
    await expectNoSeriousAxeViolations(page, 'the Add text dialog');
    await add.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Opening hours' });
    await row.waitFor();
    // Read within seconds, the list follows without a reload.
    await row.getByText('Ready').waitFor({ timeout: 30_000 });
    await expectNoSeriousAxeViolations(page, 'the sources page');
    await expectFitsPhoneWidth(page, 'the sources page');

    await page.getByRole('link', { name: 'Back to the agents' }).click();
    await page.getByRole('link', { name: 'Help desk' }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the agents list');
    await expectFitsPhoneWidth(page, 'the agents list');
  });

  test('an agent is created with the keyboard alone', async () => {
    const workspaceId = await dash.newWorkspace(uniqueEmail('keys'));
    const page = await dash.newPage();
    await dash.signInDirectly(page, workspaceId);
    await page.goto('/app/agents');
    await page.getByRole('heading', { name: 'Set up your first agent' }).waitFor();
    await tabTo(page, 'button', 'New agent');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New agent' }).waitFor();
    // Focus is inside the dialog, on its first field.
    await tabTo(page, 'textbox', 'Name', 5);
    await page.keyboard.type('Keyboard agent');
    await tabTo(page, 'combobox', 'Use case', 3);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await tabTo(page, 'button', 'Create agent', 5);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keyboard agent' }).waitFor();
    await tabTo(page, 'link', 'Back to the agents');
    await page.keyboard.press('Enter');
    const row = page.getByRole('row').filter({ hasText: 'Keyboard agent' });
    await row.waitFor();
    assert.match(await row.textContent() ?? '', /Sales/);
  });

  test('an agent made with a website crawls it at once: its pages appear as sources without a reload', async () => {
    const site = await serveFixtureSite(fixtureSiteNames()[0]!);
    try {
      const workspaceId = await dash.newWorkspace(uniqueEmail('crawl'));
      const page = await dash.newPage();
      await dash.signInDirectly(page, workspaceId);
      await page.goto('/app/agents');
      await page.getByRole('button', { name: 'New agent' }).click();
      const dialog = page.getByRole('dialog', { name: 'New agent' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill('Site agent');
      await dialog.getByRole('textbox', { name: /Website to crawl/ }).fill(`${site.origin}/`);
      await dialog.getByRole('button', { name: 'Create agent' }).click();
      await page.getByRole('heading', { level: 1, name: 'Site agent' }).waitFor();
      await page.getByRole('row').filter({ hasText: site.origin }).first().waitFor({ timeout: 60_000 });
      assert.ok((await page.getByRole('row').filter({ hasText: 'Web page' }).count()) >= 1);
      await expectNoSeriousAxeViolations(page, 'the sources page with a crawl');
    } finally {
      await site.close();
    }
  });

  test('an agent is deleted only with its name typed', async () => {
    const workspaceId = await dash.newWorkspace(uniqueEmail('delete'));
    const created = await dash.service.admin('GET', `/workspaces/${workspaceId}`);
    assert.equal(created.status, 200);
    const page = await dash.newPage();
    await dash.signInDirectly(page, workspaceId);
    await createAgent(page, 'Short lived');
    await page.goto('/app/agents');
    await page.getByRole('button', { name: 'Delete Short lived' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Short lived?' });
    await dialog.getByRole('textbox', { name: 'Type the name of the agent to confirm' }).fill('Short');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByText('The name typed does not match.').waitFor();
    await dialog.getByRole('textbox', { name: 'Type the name of the agent to confirm' }).fill('Short lived');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Short lived was deleted.' }).waitFor();
    await page.getByRole('heading', { name: 'Set up your first agent' }).waitFor();
  });

  test('the Dutch interface: the sign-in page in a Dutch browser, and two pages once the person chooses Nederlands', async () => {
    const page = await dash.newPage({ locale: 'nl-NL' });
    await page.goto('/app');
    await page.getByRole('button', { name: 'Stuur inloglink' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'nl');

    const workspaceId = await dash.newWorkspace(uniqueEmail('nl'));
    const english = await dash.newPage();
    await dash.signInDirectly(english, workspaceId);
    await createAgent(english, 'Balie');
    await english.getByRole('combobox', { name: 'Language' }).selectOption('nl');
    await english.getByRole('navigation', { name: 'Hoofdmenu' }).getByRole('link', { name: 'Statistieken' }).waitFor();
    await english.getByRole('heading', { level: 2, name: 'Bronnen' }).waitFor();
    await english.getByRole('button', { name: 'Tekst toevoegen' }).waitFor();
    await expectNoSeriousAxeViolations(english, 'the sources page in Dutch');
    await english.getByRole('link', { name: 'Terug naar de agents' }).click();
    await english.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await english.getByRole('columnheader', { name: 'Laatst getraind' }).waitFor();
    await english.getByRole('button', { name: 'Nieuwe agent' }).waitFor();
    await expectNoSeriousAxeViolations(english, 'the agents page in Dutch');
    // The choice is the person's: a new page opens in Dutch.
    await english.reload();
    await english.getByRole('button', { name: 'Nieuwe agent' }).waitFor();
  });

  test('a member sees no Webhooks or API keys in the navigation', async () => {
    const ownerEmail = uniqueEmail('boss');
    const workspaceId = await dash.newWorkspace(ownerEmail);
    const { signIn, addPerson } = await import('../people/test-support.ts');
    const owner = await signIn(dash.service, workspaceId);
    const memberEmail = uniqueEmail('member');
    await addPerson(dash.service, owner, memberEmail, 'member');
    const page = await dash.newPage();
    await dash.signInDirectly(page, workspaceId, memberEmail);
    await page.goto('/app/agents');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Agents' }).waitFor();
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Agents', 'Inbox', 'Analytics', 'Settings']);
  });
});

async function createAgent(page: Page, name: string): Promise<void> {
  await page.goto('/app/agents');
  await page.getByRole('button', { name: 'New agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await dialog.getByRole('button', { name: 'Create agent' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}
