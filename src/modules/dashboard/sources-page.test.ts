/**
 * The dashboard's Sources page (docs/dashboard.md, issue 23) in Chromium, on a real service:
 * a website added from the page is crawled while its progress shows, and the page it turned
 * away is listed with why; a running crawl is stopped with its button; a PDF from disk is
 * uploaded with its progress and becomes ready; a Q&A pair is added, retrained and deleted.
 * Every state passes axe and fits 375 px. One browser for the file; a workspace per test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type { Page } from 'playwright-core';
import { expectFitsPhoneWidth, expectNoSeriousAxeViolations, startDashboard, type DashboardHarness } from '../../../test/support/dashboard.ts';
import { makePdf, startServer } from '../knowledge/test-support.ts';

let dash: DashboardHarness;
before(async () => {
  // The local sites crawled here are on 127.0.0.1.
  dash = await startDashboard({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
});
after(() => dash?.close());

let counter = 0;
const uniqueEmail = (what: string) => `${what}${++counter}-${Date.now()}@example.org`;

const LONG = 'Our bakery bakes sourdough bread every morning from organic flour and sells it in the shop on the market square. '.repeat(6);
const BREAD = 'The rye loaf rises for eighteen hours and keeps fresh for a week when wrapped in linen; the spelt loaf has no wheat at all. '.repeat(5);
const HOURS = 'The shop is open from Tuesday to Saturday, eight in the morning until six in the evening, and closed on public holidays. '.repeat(5);
const html = (title: string, body: string) => `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
const page200 = (body: string) => (_request: http.IncomingMessage, response: http.ServerResponse) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
};

/** A small site: a home page linking to a long page, a sign-in page (turned away) and a page held until `release()`. */
async function siteWithHeldPage() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const site = await startServer({
    '/': page200(html('Bakery', `<p>${LONG}</p><a href="/bread">Bread</a> <a href="/login">Sign in</a> <a href="/slow">Opening hours</a> <a href="/private/prices">Trade prices</a>`)),
    '/private/prices': page200(html('Trade prices', `<p>${BREAD} Trade prices are for resellers only.</p>`)),
    '/bread': page200(html('Bread', `<p>${BREAD}</p>`)),
    '/login': page200(html('Sign in', '<form method="post"><label>Password <input type="password" name="p"></label><button>Sign in</button></form>')),
    '/slow': (_request, response) => {
      void released.then(() => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html('Opening hours', `<p>${HOURS}</p>`)));
    },
  });
  return { site, release };
}

async function openNewAgentSources(page: Page, workspaceId: string, name: string): Promise<void> {
  await dash.signInDirectly(page, workspaceId);
  await page.goto('/app/agents');
  await page.getByRole('button', { name: 'New agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await dialog.getByRole('button', { name: 'Create agent' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

async function addWebsite(page: Page, url: string, excluded = ''): Promise<void> {
  await page.getByRole('button', { name: 'Add a website' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a website' });
  await dialog.getByRole('textbox', { name: 'Website address' }).fill(url);
  await dialog.getByRole('combobox', { name: 'What to read' }).selectOption('links');
  if (excluded) await dialog.getByRole('textbox', { name: /Paths to leave out/ }).fill(excluded);
  await expectNoSeriousAxeViolations(page, 'the "Add a website" dialog');
  await dialog.getByRole('button', { name: 'Start reading' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

describe('the Sources page: websites, files, Q&A pairs, deleting and retraining without a line of code', () => {
  test('a website added from the page is crawled while its progress shows; the excluded path is never fetched and the sign-in page it turned away is listed with why', async () => {
    const { site, release } = await siteWithHeldPage();
    try {
      const workspaceId = await dash.newWorkspace(uniqueEmail('crawl'));
      const page = await dash.newPage();
      await openNewAgentSources(page, workspaceId, 'Bakery agent');
      await addWebsite(page, `${site.url}/`, '/private/\n');
      // The held page keeps the crawl running: its progress and the stop button show, without a reload.
      await page.getByRole('status').filter({ hasText: /Reading the website: \d+ pages read of \d+ found/ }).waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Stop reading the website' }).waitFor();
      await page.getByRole('row').filter({ hasText: `${site.url}/bread` }).waitFor({ timeout: 60_000 });
      await expectNoSeriousAxeViolations(page, 'the sources page while a crawl runs');
      await expectFitsPhoneWidth(page, 'the sources page while a crawl runs');
      release();
      await page.getByRole('button', { name: 'Stop reading the website' }).waitFor({ state: 'detached', timeout: 60_000 });
      await page.getByRole('row').filter({ hasText: `${site.url}/slow` }).waitFor({ timeout: 60_000 });
      assert.equal(await page.getByRole('row').filter({ hasText: `${site.url}/login` }).count(), 0, 'the sign-in page is not a source');
      assert.equal(site.hits.get('/private/prices'), undefined, 'the excluded path was never fetched');
      await page.getByText('Pages the last crawl left out (1)').click();
      const turnedAway = page.getByRole('listitem').filter({ hasText: `${site.url}/login` });
      await turnedAway.waitFor();
      assert.match((await turnedAway.textContent()) ?? '', /A sign-in page/);
      await expectNoSeriousAxeViolations(page, 'the sources page with the pages turned away');
      await expectFitsPhoneWidth(page, 'the sources page with the pages turned away');
    } finally {
      release();
      await site.close();
    }
  });

  test('a running crawl stops with its button and the page says after how many pages', async () => {
    const { site, release } = await siteWithHeldPage();
    try {
      const workspaceId = await dash.newWorkspace(uniqueEmail('stop'));
      const page = await dash.newPage();
      await openNewAgentSources(page, workspaceId, 'Stopped agent');
      await addWebsite(page, `${site.url}/`);
      await page.getByRole('button', { name: 'Stop reading the website' }).click({ timeout: 60_000 });
      await page.getByRole('status').filter({ hasText: /The last crawl was stopped after \d+ pages\./ }).waitFor({ timeout: 30_000 });
      assert.equal(await page.getByRole('button', { name: 'Stop reading the website' }).count(), 0);
    } finally {
      release();
      await site.close();
    }
  });

  test('a PDF chosen from disk is sent with its progress and becomes a ready source; a second file at once has its own line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'parley-upload-'));
    try {
      const pdf = path.join(dir, 'price-list.pdf');
      await writeFile(pdf, await makePdf(['Price list 2026. A sourdough loaf costs 4.50 euro; a rye loaf costs 5.20 euro. Orders above 40 euro are delivered free.']));
      const notes = path.join(dir, 'notes.txt');
      await writeFile(notes, 'Opening hours: Monday to Saturday from 8 to 18. Closed on Sundays and public holidays.\n');
      const workspaceId = await dash.newWorkspace(uniqueEmail('upload'));
      const page = await dash.newPage();
      await openNewAgentSources(page, workspaceId, 'Upload agent');
      await page.getByLabel('Choose files').setInputFiles([pdf, notes]);
      const uploads = page.getByRole('list', { name: 'Files being added' });
      await uploads.getByRole('progressbar', { name: 'Sending price-list.pdf' }).waitFor();
      await uploads.getByRole('progressbar', { name: 'Sending notes.txt' }).waitFor();
      await uploads.getByRole('listitem').filter({ hasText: 'price-list.pdf' }).filter({ hasText: 'Sent.' }).waitFor({ timeout: 30_000 });
      const row = page.getByRole('row').filter({ hasText: 'price-list.pdf' });
      await row.filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
      assert.match((await row.textContent()) ?? '', /File/);
      await page.getByRole('row').filter({ hasText: 'notes.txt' }).filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
      await expectNoSeriousAxeViolations(page, 'the sources page after uploads');
      await expectFitsPhoneWidth(page, 'the sources page after uploads');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a Q&A pair is added and read; a retrain says how many are left today; the pair is deleted after asking', async () => {
    const workspaceId = await dash.newWorkspace(uniqueEmail('qa'));
    const page = await dash.newPage();
    await openNewAgentSources(page, workspaceId, 'Q&A agent');
    await page.getByRole('button', { name: 'Add a Q&A pair' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a Q&A pair' });
    // The API's message shows beside the field it names; nothing is checked in the browser.
    await dialog.getByRole('textbox', { name: 'Question' }).fill('Do you deliver on Sundays?');
    await dialog.getByRole('button', { name: 'Add' }).click();
    await dialog.getByRole('textbox', { name: 'Answer' }).and(page.locator('[aria-invalid="true"]')).waitFor();
    await dialog.getByRole('textbox', { name: 'Answer' }).fill('No, we deliver from Monday to Saturday.');
    await dialog.getByRole('button', { name: 'Add' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Do you deliver on Sundays?' });
    await row.filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    assert.match((await row.textContent()) ?? '', /Q&A/);

    await page.getByText('Up to 10 retrains a day.').waitFor();
    await page.getByRole('button', { name: 'Retrain' }).click();
    await page.getByText('Retrains left today: 9 of 10.').waitFor();
    // The pair is read again and the list follows without a reload.
    await row.filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });

    await row.getByRole('button', { name: 'Delete Do you deliver on Sundays?' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Do you deliver on Sundays??' });
    await expectNoSeriousAxeViolations(page, 'the delete dialog');
    await expectFitsPhoneWidth(page, 'the delete dialog');
    await confirm.getByRole('button', { name: 'Delete source' }).click();
    await page.getByRole('status').filter({ hasText: 'Do you deliver on Sundays? was deleted.' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Do you deliver on Sundays?' }).waitFor({ state: 'detached' });
    await page.getByText('No sources yet.', { exact: false }).waitFor();
  });
});
