/**
 * The dashboard's pictures for docs/dashboard.md and the guides (docs/guides/{en,nl}/images):
 * `node bench/screenshots.ts`. Not a benchmark (bench/run.ts runs only *.bench.ts): it starts
 * `npm start`'s entry point on the embedded store in a temporary data directory, seeds a
 * workspace like a small bike shop's through the operator, public, visitor and dashboard
 * APIs, signs its owner in with an operator sign-in link, and takes a 1280x800 picture of
 * every page in Chromium (/usr/bin/chromium, playwright-core): in English into
 * docs/images/dashboard-<page>.png and docs/guides/en/images/<page>.png, then, the owner's
 * language switched to Dutch, into docs/guides/nl/images/<page>.png. The pictures are
 * reduced to a palette (sharp) to stay small. SCREENSHOT_PAGES=agents,inbox limits the pages.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium } from '../src/modules/widget/browser.ts';
import { startParley } from './support.ts';

const ADMIN_TOKEN = `screens-${randomBytes(12).toString('hex')}`;
const OWNER = 'anna@bikeshop.example';
const ONLY = process.env.SCREENSHOT_PAGES?.split(',').filter(Boolean);

const KNOWLEDGE = {
  title: 'Opening hours and repairs',
  content:
    'Our shop in Utrecht is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00. ' +
    'Repairs take two working days; a flat tyre is fixed while you wait. Delivery is free for orders above 50 euros.',
};
const QA = { question: 'Do you repair electric bikes?', answer: 'Yes: our workshop repairs electric bikes of every brand, motors and batteries included.' };

async function main(): Promise<void> {
  const service = await startParley({ PARLEY_ADMIN_TOKEN: ADMIN_TOKEN });
  const browser = await launchChromium();
  try {
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> => {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const parsed = text ? JSON.parse(text) : {};
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return parsed.data;
    };
    const admin = (method: string, path: string, body?: unknown) => call(method, `/admin/v1${path}`, body, { authorization: `Bearer ${ADMIN_TOKEN}` });

    // The workspace, its owner and a manage key (the operator's part).
    const workspace = await admin('POST', '/workspaces', { name: 'Bike shop Utrecht', plan: 'agency', ownerEmail: OWNER });
    const { key } = await admin('POST', `/workspaces/${workspace.id}/keys`, { name: 'Website', scope: 'manage' });
    const api = (method: string, path: string, body?: unknown) => call(method, `/api/v1${path}`, body, { authorization: `Bearer ${key}` });
    const visitor = (method: string, path: string, body?: unknown, token?: string) => call(method, `/visitor/v1${path}`, body, token ? { 'x-visitor-token': token } : {});

    // The agent with a text and a question-and-answer pair, leads and tickets switched on.
    const agent = await api('POST', '/agents', { name: 'Bike shop', useCase: 'support' });
    const base = `/app/agents/${agent.id}`;
    await api('PATCH', `/agents/${agent.id}`, {
      leadCapture: { enabled: true, privacyUrl: 'https://bikeshop.example/privacy' },
      tickets: { enabled: true, privacyUrl: 'https://bikeshop.example/privacy' },
    });
    const sources = [await api('POST', `/agents/${agent.id}/sources`, { type: 'text', ...KNOWLEDGE }), await api('POST', `/agents/${agent.id}/sources`, { type: 'qa', ...QA })];
    for (const source of sources) {
      for (let i = 0; i < 600; i++) {
        const state = await api('GET', `/agents/${agent.id}/sources/${source.id}`);
        if (state.status !== 'pending' && state.status !== 'processing' && state.status !== 'queued') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    // Visitors: a few conversations, a lead and a ticket.
    const questions = ['When are you open on Saturday?', 'Do you repair electric bikes?', 'How long does a repair take?', 'Is delivery free?'];
    const conversations: { conversationId: string; visitorToken: string }[] = [];
    for (const message of questions) conversations.push(await visitor('POST', `/agents/${agent.id}/chat`, { message }));
    const lead = await visitor('POST', `/agents/${agent.id}/leads`, { moment: 'button', name: 'Pieter de Vries', email: 'pieter@example.org', conversationId: conversations[1]!.conversationId }, conversations[1]!.visitorToken);
    const ticket = await visitor('POST', `/agents/${agent.id}/tickets`, { email: 'sanne@example.org', name: 'Sanne Bakker', question: 'Is my bike repaired yet? I brought it in on Monday.' });

    // The webhook and a second key (the owner's integrations).
    await api('POST', '/webhooks', { url: 'https://crm.bikeshop.example/parley', events: ['lead.created', 'ticket.created'] }).catch((error) => console.warn(`webhook: ${error.message}`));
    await admin('POST', `/workspaces/${workspace.id}/keys`, { name: 'Reports (read)', scope: 'read' });

    // The owner signs in; a colleague is invited and a ticket answered through the dashboard.
    const link = await admin('POST', `/workspaces/${workspace.id}/sign-in-links`, {});
    // The dashboard accepts changes only from its public address (localhost, not 127.0.0.1).
    const origin = new URL(link.url).origin;
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 }, baseURL: origin });
    const page = await context.newPage();
    await page.goto(new URL(link.url).pathname + new URL(link.url).search);
    await page.waitForSelector('nav[aria-label="Main"]', { timeout: 20_000 }).catch(async (error) => {
      throw new Error(`not signed in with ${link.url}: ${page.url()} ${(await page.locator('body').innerText()).slice(0, 300)}`, { cause: error });
    });
    const dashboard = (method: string, path: string, body?: unknown) =>
      page.evaluate(
        async ({ method, path, body }) => {
          const me = await (await fetch('/app/api/me')).json();
          const response = await fetch(`/app${path}`, { method, headers: { 'content-type': 'application/json', 'x-csrf-token': me.data.csrfToken }, body: body === undefined ? undefined : JSON.stringify(body) });
          if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
          return response.status === 204 ? undefined : (await response.json()).data;
        },
        { method, path, body },
      );
    await dashboard('POST', '/api/invitations', { email: 'joost@bikeshop.example', role: 'member' }).catch((error) => console.warn(`invitation: ${error.message}`));
    await api('PUT', `/agents/${agent.id}/client`, { name: 'Fietsen Bakker', email: 'info@fietsenbakker.example', language: 'nl' }).catch((error) => console.warn(`client: ${error.message}`));
    await dashboard('POST', `/api/agents/${agent.id}/tickets/${ticket.id}/replies`, { body: 'Hello Sanne, yes: your bike is ready to be picked up. Kind regards, Anna' }).catch((error) => console.warn(`reply: ${error.message}`));

    const conversationId = conversations[0]!.conversationId;
    const pages: { name: string; path: string; ready?: string; act?: (page: Page) => Promise<void> }[] = [
      { name: 'agents', path: '/app/agents', ready: 'main table' },
      { name: 'sources', path: `${base}/sources`, ready: 'main table', act: (page) => page.evaluate(() => document.querySelector('main table')?.scrollIntoView({ block: 'center' })) },
      { name: 'playground', path: `${base}/playground`, ready: '.playground-form input', act: ask },
      { name: 'settings', path: `${base}/settings`, ready: 'main form' },
      { name: 'install', path: `${base}/install`, ready: 'main pre, main code' },
      { name: 'client', path: `${base}/client`, ready: 'main h2' },
      { name: 'conversations', path: `${base}/inbox/conversations`, ready: 'main table, main li' },
      { name: 'conversation', path: `${base}/inbox/conversations/${conversationId}`, ready: 'main h2' },
      { name: 'leads', path: `${base}/inbox/leads`, ready: 'main table, main li' },
      { name: 'lead', path: `${base}/inbox/leads/${lead.id}`, ready: 'main h2' },
      { name: 'tickets', path: `${base}/inbox/tickets`, ready: 'main table, main li' },
      { name: 'ticket', path: `${base}/inbox/tickets/${ticket.id}`, ready: 'main h2' },
      { name: 'analytics', path: '/app/analytics', ready: 'main .analytics-figures' },
      { name: 'webhooks', path: '/app/webhooks', ready: 'main h1' },
      { name: 'keys', path: '/app/keys', ready: 'main table' },
      { name: 'workspace', path: '/app/settings', ready: 'main form' },
      { name: 'people', path: '/app/settings/people', ready: 'main table' },
      { name: 'account', path: '/app/settings/account', ready: 'main form' },
      { name: 'audit', path: '/app/settings/audit', ready: 'main table' },
    ];

    for (const language of ['en', 'nl'] as const) {
      await dashboard('PATCH', '/api/me', { language });
      const folder = `docs/guides/${language}/images`;
      await mkdir(folder, { recursive: true });
      // The sign-in page, signed out (a context of its own, in the language's locale).
      if (!ONLY || ONLY.includes('sign-in')) {
        const signedOut = await browser.newContext({ locale: language === 'nl' ? 'nl-NL' : 'en-GB', viewport: { width: 1280, height: 800 }, baseURL: origin });
        const signInPage = await signedOut.newPage();
        await signInPage.goto('/app');
        await signInPage.waitForSelector('main input, form input');
        await shoot(signInPage, language, 'sign-in', folder);
        await signedOut.close();
      }
      for (const entry of pages) {
        if (ONLY && !ONLY.includes(entry.name)) continue;
        await page.goto(entry.path);
        await page.waitForSelector('nav[aria-label]');
        if (entry.ready) await page.waitForSelector(entry.ready, { timeout: 15_000 }).catch(() => console.warn(`${language} ${entry.name}: "${entry.ready}" not seen`));
        await page.waitForLoadState('networkidle').catch(() => {});
        if (entry.act) await entry.act(page);
        await page.waitForTimeout(300);
        await shoot(page, language, entry.name, folder);
      }
    }
    await context.close();
  } finally {
    await browser.close();
    await service.stop();
  }
}

/** Asks the playground the first visitor question and waits for the complete answer. */
async function ask(page: Page): Promise<void> {
  await page.locator('.playground-form input').first().fill('When are you open on Saturday?');
  await page.locator('.playground-form button[type="submit"]').click();
  await page.waitForSelector('.playground-answer:not([aria-busy])', { timeout: 60_000 }).catch(() => console.warn('playground: no answer seen'));
  await page.waitForSelector('.playground-answer-text', { timeout: 5_000 }).catch(() => {});
}

/** A 1280x800 viewport picture, reduced to a palette; the English one also for docs/dashboard.md. */
async function shoot(page: Page, language: string, name: string, folder: string): Promise<void> {
  // A page's picture shows its top (focus moved to a field lower down may have scrolled it).
  if (name !== 'playground') await page.evaluate(() => window.scrollTo(0, 0));
  const raw = await page.screenshot({ animations: 'disabled', caret: 'hide' });
  const small = await sharp(raw).png({ palette: true, quality: 90, effort: 10, compressionLevel: 9 }).toBuffer();
  const target = `${folder}/${name}.png`;
  await writeFile(target, small);
  if (language === 'en') await copyFile(target, `docs/images/dashboard-${name}.png`);
  console.log(`${target} ${Math.round(small.length / 1024)} KB`);
}

await main();
