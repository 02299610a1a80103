/**
 * One agent's Playground, Settings and Install pages of the dashboard (docs/dashboard.md), in
 * Chromium: asking in the playground shows the answer with its
 * sources; a correction made there is learned and used by the next answer; a change of the
 * welcome message shows in the preview before it is saved and the API's field error shows
 * beside its field; the script snippet copied from Install, pasted into a page of an allowed
 * site, gives a widget that answers; every page passes axe and fits 375 px; Dutch on Settings.
 * It runs on one store (test/run.ts ONE_STORE: the API rules behind its checks are proven on both by their own files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { expectFitsPhoneWidth, expectNoSeriousAxeViolations, startDashboard, type DashboardHarness } from '../../../test/support/dashboard.ts';
import { seedTexts } from '../chat/test-support.ts';
import { hostPage, startHostSite, type HostSite } from '../widget/browser.ts';

const KNOWLEDGE = [
  { title: 'Opening hours', content: 'Our shop in Utrecht is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00.' },
  { title: 'Shipping costs', content: 'Delivery is free for orders above 50 euros. Below that amount we charge a flat fee of 4.95 euros per parcel.' },
];

let dash: DashboardHarness;
let site: HostSite;
before(async () => {
  dash = await startDashboard({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  site = await startHostSite();
});
after(async () => {
  await site?.close();
  await dash?.close();
});

let counter = 0;

/** A workspace with a support agent that knows KNOWLEDGE, and a signed-in page. */
async function agentWithKnowledge(options: { locale?: string } = {}): Promise<{ page: Page; workspaceId: string; key: string; agentId: string; base: string }> {
  const workspaceId = await dash.newWorkspace(`pages${++counter}-${Date.now()}@example.org`);
  const created = await dash.service.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'test', scope: 'manage' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const key = created.body.data.key as string;
  const agent = await dash.service.api('POST', '/agents', { key, body: { name: 'Bike shop', useCase: 'support' } });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  const agentId = agent.body.data.id as string;
  await seedTexts(dash.service, key, agentId, KNOWLEDGE);
  const page = await dash.newPage(options);
  await dash.signInDirectly(page, workspaceId);
  return { page, workspaceId, key, agentId, base: `/app/agents/${agentId}` };
}

/** Asks in the playground with the contract's names and returns the answer's list item once complete. */
async function askInPlayground(page: Page, question: string) {
  const turns = page.getByRole('list', { name: 'Test conversation' }).getByRole('listitem').filter({ hasText: question });
  const before = await turns.count();
  await page.getByRole('textbox', { name: 'Message' }).fill(question);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const turn = turns.nth(before);
  await turn.locator('.playground-answer:not([aria-busy])').waitFor();
  return turn;
}

describe('an agent\'s Playground, Settings and Install pages in Chromium', () => {
  test('asking in the playground shows the answer with confidence, grounding and its sources as links, filed as a test conversation; the preset\'s ten test questions are offered', async () => {
    const { page, key, agentId, base } = await agentWithKnowledge();
    await page.goto(`${base}/playground`);
    await page.getByRole('heading', { level: 2, name: 'Playground' }).waitFor();
    const suggestions = page.locator('.playground-suggestions').getByRole('button');
    await suggestions.first().waitFor();
    assert.equal(await suggestions.count(), 10, 'the setup guide\'s ten test questions');

    const turn = await askInPlayground(page, 'When are you open on Saturday?');
    assert.match(await turn.locator('.playground-answer-text').innerText(), /10:00 to 16:00/);
    assert.match(await turn.innerText(), /Confidence \d+%/);
    assert.match(await turn.innerText(), /Grounding: (supported|partly|not)/);
    const source = turn.getByRole('list', { name: 'Sources' }).getByRole('link', { name: 'Opening hours' });
    await source.waitFor();
    assert.equal(await source.getAttribute('href'), `${base}/sources`, 'a text source has no address: it links to the agent\'s sources');

    const conversations = await dash.service.api('GET', `/agents/${agentId}/conversations?channel=playground`, { key });
    assert.equal(conversations.body.data.length, 1, 'the playground files a test conversation (channel playground)');
    assert.equal(conversations.body.data[0].firstMessage, 'When are you open on Saturday?');
    const api = await dash.service.api('GET', `/agents/${agentId}/conversations?channel=api`, { key });
    assert.equal(api.body.data.length, 0);

    await expectNoSeriousAxeViolations(page, 'the playground with an answer');
    await expectFitsPhoneWidth(page, 'the playground with an answer');
  });

  test('an answer corrected in place becomes a Q&A source, and once learned the next answer uses it', async () => {
    const { page, key, agentId, base } = await agentWithKnowledge();
    await page.goto(`${base}/playground`);
    const question = 'Do you repair espresso machines?';
    const first = await askInPlayground(page, question);
    assert.match(await first.locator('.playground-answer-text').innerText(), /don't have information/);

    await first.getByRole('button', { name: 'Correct this answer' }).click();
    const form = first.getByRole('form', { name: 'Correct this answer' });
    assert.equal(await form.getByRole('textbox', { name: 'Question' }).inputValue(), question, 'the question is filled in');
    await form.getByRole('textbox', { name: 'Correct answer' }).fill('Yes: our workshop repairs espresso machines of every brand within five working days.');
    await form.getByRole('button', { name: 'Save correction' }).click();
    await first.getByText('Learned: the next answer to this question uses the correction.').waitFor({ timeout: 20_000 });

    const sources = await dash.service.api('GET', `/agents/${agentId}/sources`, { key });
    assert.ok(sources.body.data.some((s: { type: string; name: string }) => s.type === 'qa' && s.name === question), 'the correction is a Q&A source');

    const second = await askInPlayground(page, question);
    assert.match(await second.locator('.playground-answer-text').innerText(), /repairs espresso machines of every brand within five working days/);
    await second.getByRole('list', { name: 'Sources' }).getByRole('link', { name: question }).waitFor();
  });

  test('a changed welcome message shows in the preview before it is saved; saving stores it; a refused allowed site shows the API\'s error beside its field; an icon uploaded is cropped to the square offered', async () => {
    const { page, key, agentId, base } = await agentWithKnowledge();
    await page.goto(`${base}/settings`);
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('Hello! How can I help you?').waitFor();
    await page.getByRole('textbox', { name: 'Welcome message' }).first().fill('Hi! Ask me about repairs.');
    await preview.getByText('Hi! Ask me about repairs.').waitFor();
    await page.getByRole('checkbox', { name: 'Show a greeting beside the chat button' }).check();
    await page.getByRole('textbox', { name: 'Greeting' }).fill('Need a hand with your bike?');
    await preview.getByText('Need a hand with your bike?').waitFor();
    assert.equal((await dash.service.api('GET', `/agents/${agentId}`, { key })).body.data.welcomeMessage, '', 'nothing is saved yet');

    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'The settings are saved.' }).waitFor();
    const saved = (await dash.service.api('GET', `/agents/${agentId}`, { key })).body.data;
    assert.equal(saved.welcomeMessage, 'Hi! Ask me about repairs.');
    assert.deepEqual(saved.proactive.greeting, { enabled: true, text: 'Need a hand with your bike?', delaySeconds: 5 });

    const sites = page.getByRole('textbox', { name: 'Allowed sites' });
    await sites.fill('https://*.com');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForFunction(() => document.querySelector('textarea[aria-invalid="true"]') !== null);
    assert.equal(await sites.getAttribute('aria-invalid'), 'true');
    const described = (await sites.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    assert.ok((await page.locator(`[id="${described}"]`).innerText()).length > 0, 'the API\'s message is beside the field');
    assert.deepEqual((await dash.service.api('GET', `/agents/${agentId}`, { key })).body.data.allowedOrigins, []);

    // An icon from the computer, cropped to the centred square offered for a launcher: kept as that square.
    const wide = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#2563eb' } }).png().toBuffer();
    await page.getByLabel('Choose an image for the icon from your computer').setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: wide });
    assert.equal(await page.getByRole('spinbutton', { name: 'From the left' }).inputValue(), '10');
    assert.equal(await page.getByRole('spinbutton', { name: 'Width' }).inputValue(), '20');
    await page.getByRole('button', { name: 'Upload the icon' }).click();
    await page.getByRole('img', { name: 'Current icon' }).waitFor();
    const iconUrl = (await dash.service.api('GET', `/agents/${agentId}`, { key })).body.data.branding.iconUrl as string;
    assert.ok(iconUrl, 'the agent has the icon');
    await preview.locator(`img[src="${iconUrl}"]`).waitFor();
    const kept = await sharp(Buffer.from(await (await fetch(new URL(iconUrl, dash.service.url))).arrayBuffer())).metadata();
    assert.deepEqual([kept.width, kept.height], [20, 20]);

    await expectNoSeriousAxeViolations(page, 'the settings');
    await expectFitsPhoneWidth(page, 'the settings');
  });

  test('the script snippet copied from Install, pasted into a page of an allowed site, gives a widget that answers there', async () => {
    const { page, key, agentId, base } = await agentWithKnowledge();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dash.service.url });
    // The allowed site is set in Settings.
    await page.goto(`${base}/settings`);
    await page.getByRole('textbox', { name: 'Allowed sites' }).fill(site.origin);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'The settings are saved.' }).waitFor();

    await page.getByRole('navigation', { name: 'Agent' }).getByRole('link', { name: 'Install' }).click();
    await page.getByRole('heading', { level: 2, name: 'Script snippet' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Allowed sites' }).locator('..').getByText(site.origin).waitFor();
    const snippet = await page.locator('#install-script-code').innerText();
    assert.equal(snippet, `<script src="${dash.service.url}/widget.js" data-agent="${agentId}" defer></script>`);
    await page.getByRole('button', { name: 'Copy the script snippet' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    const pasted = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(pasted, snippet);
    for (const platform of ['Plain HTML', 'WordPress', 'Shopify', 'Wix', 'Squarespace', 'Webflow', 'Google Tag Manager']) {
      await page.getByText(platform, { exact: true }).waitFor();
    }
    await expectNoSeriousAxeViolations(page, 'install');
    await expectFitsPhoneWidth(page, 'install');

    site.page('/', { body: hostPage(pasted) });
    const visitor = await (await dash.browser.newContext()).newPage();
    await visitor.goto(site.origin);
    await visitor.locator('[data-parley] >> css=button.launcher').click();
    await visitor.locator('[data-parley] textarea').fill('When are you open on Saturday?');
    await visitor.locator('[data-parley] textarea').press('Enter');
    await visitor.locator('[data-parley] .msg.agent .rate').first().waitFor();
    assert.match(await visitor.locator('[data-parley] .msg.agent').last().innerText(), /10:00 to 16:00/);
    const widget = await dash.service.api('GET', `/agents/${agentId}/conversations?channel=widget`, { key });
    assert.equal(widget.body.data.length, 1, 'the question came through the widget');
    await visitor.context().close();
  });

  test('Settings in Dutch once the person chooses Nederlands', async () => {
    const { page, base } = await agentWithKnowledge();
    await page.goto(`${base}/settings`);
    await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('nl');
    await page.getByRole('button', { name: 'Instellingen bewaren' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Uiterlijk van de widget' }).waitFor();
    await page.getByRole('textbox', { name: 'Toegestane sites' }).waitFor();
    await page.getByRole('region', { name: 'Voorbeeld' }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the settings in Dutch');
  });
});
