/**
 * The dashboard's Inbox and API keys pages (issue 24, docs/dashboard.md) in Chromium on the
 * store under test: a ticket opened through the visitor API is answered from its page with
 * the keyboard alone and the reply reaches a real SMTP server, threaded; a conversation is
 * read and an answer corrected in place; a lead is read with its consent; a key made in the
 * dashboard works on /api/v1/workspace until it is revoked there; below Studio the page
 * explains instead; a member limited to one agent sees only that agent and no keys. Every
 * page passes axe and fits 375 px.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectFitsPhoneWidth, expectNoSeriousAxeViolations, startDashboard, tabTo, type DashboardHarness } from '../../../test/support/dashboard.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { linkIn, signIn, signInWithToken, tokenOf } from '../people/test-support.ts';
import { enableTickets, openTicket, visitorCall } from '../tickets/test-support.ts';
import { seedTexts } from '../chat/test-support.ts';
import { startMailInbound } from '../email-channel/inbound.ts';
import { enableEmail, sendToInbound, testResolver } from '../email-channel/test-support.ts';

let smtp: SmtpCapture;
let dash: DashboardHarness;
before(async () => {
  smtp = await startSmtpCapture();
  dash = await startDashboard({ env: { SMTP_URL: smtp.url } });
});
after(async () => {
  await dash?.close();
  await smtp?.close();
});

async function checkPage(page: import('playwright-core').Page, what: string): Promise<void> {
  await expectNoSeriousAxeViolations(page, what);
  await expectFitsPhoneWidth(page, what);
}

describe('Inbox', () => {
  test("a ticket opened by a visitor is answered from its page with the keyboard alone; the reply reaches the visitor's mail server threaded after the confirmation", async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Inbox tickets' });
    const agentId = await seedAgent(dash.service, ws, 'Fietsenwinkel');
    await enableTickets(dash.service, ws, agentId);
    const visitor = `anna-${Date.now()}@bezoeker.example.org`;
    const ticket = await openTicket(dash.service, agentId, { email: visitor, question: 'Is my bike repaired yet?' });
    const confirmation = await smtp.waitFor((mail) => mail.to.includes(visitor));
    const root = confirmation.headers.get('message-id')!;
    assert.ok(root);

    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    // The tickets list: by status with counts, the ticket a link to its page.
    await page.goto('/app/inbox');
    await page.getByRole('navigation', { name: 'Inbox' }).getByRole('link', { name: 'Conversations', exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Inbox' }).getByRole('link', { name: 'Tickets', exact: true }).click();
    await page.getByRole('link', { name: 'Open (1)' }).waitFor();
    await checkPage(page, 'the tickets list');

    // The address mails link to opens the ticket itself.
    await page.goto(`/app/agents/${agentId}/inbox/tickets/${ticket.id}`);
    await page.getByRole('heading', { level: 2, name: `Ticket #${ticket.number}` }).waitFor();
    await page.getByText('Is my bike repaired yet?').waitFor();
    await checkPage(page, 'one ticket');

    await tabTo(page, 'textbox', 'Reply');
    await page.keyboard.type('Yes: it is ready to be picked up.');
    await tabTo(page, 'button', 'Send reply', 5);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: `The reply is on its way to ${visitor}.` }).waitFor();
    await page.locator('.inbox-entry-team').filter({ hasText: 'Yes: it is ready to be picked up.' }).waitFor();
    // The text box is emptied for the next reply.
    await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('.inbox-compose textarea')?.value === '');

    const reply = await smtp.waitFor((mail) => mail.to.includes(visitor) && mail.text.includes('ready to be picked up'));
    assert.equal(reply.headers.get('in-reply-to'), root);
    assert.equal(reply.headers.get('references'), root);
    assert.match(reply.subject, new RegExp(`ticket #${ticket.number}`));

    // A note and a status change stay in the ticket; nothing more is mailed.
    await page.getByRole('textbox', { name: 'Note' }).fill('Customer prefers Saturday.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.locator('.inbox-entry-note').filter({ hasText: 'Customer prefers Saturday.' }).waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('solved');
    await page.getByRole('status').filter({ hasText: 'The ticket is now Solved.' }).waitFor();
    const read = await dash.service.api('GET', `/agents/${agentId}/tickets/${ticket.id}`, { key: ws.keys.read });
    assert.equal(read.body.data.status, 'solved');
    assert.deepEqual(read.body.data.entries.map((entry: { kind: string }) => entry.kind), ['team', 'note']);
  });

  test('a conversation is read with its sources and an answer corrected in place; a lead shows every field and the consent it was given under', async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Inbox reading' });
    const agentId = await seedAgent(dash.service, ws, 'Bike shop');
    const patched = await dash.service.api('PATCH', `/agents/${agentId}`, { key: ws.keys.manage, body: { leadCapture: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const chat = await visitorCall(dash.service, 'POST', `/agents/${agentId}/chat`, { body: { message: 'Do you repair electric bikes?', page: { url: 'https://shop.example.com/repairs' } } });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const { conversationId, visitorToken } = chat.body.data;
    const lead = await visitorCall(dash.service, 'POST', `/agents/${agentId}/leads`, { body: { conversationId, moment: 'button', name: 'Piet Jansen', email: 'piet@jansen-fietsen.nl', marketing: false }, token: visitorToken });
    assert.equal(lead.status, 201, JSON.stringify(lead.body));

    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    await page.goto(`/app/agents/${agentId}/inbox/conversations`);
    const row = page.getByRole('row').filter({ hasText: 'Do you repair electric bikes?' });
    await row.waitFor();
    await checkPage(page, 'the conversations list');
    // A channel with no conversations filters the list away; the filter is in the address.
    await page.getByRole('combobox', { name: 'Channel' }).selectOption('email');
    await page.getByText('No conversations match these filters.').waitFor();
    assert.match(page.url(), /channel=email/);
    // The export of the filtered set: a link to the PDF, opened without a session.
    await page.getByRole('button', { name: 'Export as PDF' }).click();
    const pdfLink = page.getByRole('link', { name: 'Open the PDF' });
    await pdfLink.waitFor();
    const pdf = await fetch((await pdfLink.getAttribute('href'))!);
    assert.equal(pdf.status, 200);
    assert.match(pdf.headers.get('content-type')!, /^application\/pdf/);
    await page.getByRole('combobox', { name: 'Channel' }).selectOption('');
    await row.getByRole('link').click();

    await page.getByRole('heading', { level: 2, name: 'Do you repair electric bikes?' }).waitFor();
    await page.getByRole('link', { name: 'https://shop.example.com/repairs' }).waitFor();
    await checkPage(page, 'one conversation');
    await page.getByRole('button', { name: 'Correct this answer' }).click();
    assert.equal(await page.getByRole('textbox', { name: 'Question' }).inputValue(), 'Do you repair electric bikes?');
    await page.getByRole('textbox', { name: 'What the answer should have said' }).fill('Yes, we repair electric bikes of every brand within a week.');
    await checkPage(page, 'an answer being corrected');
    await page.getByRole('button', { name: 'Save correction' }).click();
    await page.getByRole('status').filter({ hasText: 'Correction saved' }).waitFor();
    const sources = await dash.service.api('GET', `/agents/${agentId}/sources`, { key: ws.keys.read });
    assert.ok(sources.body.data.some((source: { type: string }) => source.type === 'qa'), JSON.stringify(sources.body.data));

    await page.getByRole('navigation', { name: 'Inbox' }).getByRole('link', { name: 'Leads', exact: true }).click();
    await page.getByRole('link', { name: 'Piet Jansen' }).click();
    await page.getByRole('heading', { level: 2, name: 'Piet Jansen' }).waitFor();
    const shown = page.locator('section').filter({ has: page.getByRole('heading', { name: 'What the form showed when the visitor agreed' }) });
    await shown.getByRole('link', { name: 'https://shop.example.com/privacy' }).waitFor();
    assert.match((await page.locator('.inbox-fields').first().textContent()) ?? '', /jansen-fietsen\.nl/);
    await checkPage(page, 'one lead');
    await page.getByRole('button', { name: 'Delete lead' }).click();
    await page.getByRole('dialog', { name: 'Delete this lead?' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'The lead was deleted.' }).waitFor();
    await page.getByText('No leads yet.').waitFor();
  });

  test('a member limited to one agent sees only that agent in the inbox, no API keys link, and the other agent is not found', async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Inbox member' });
    const theirs = await seedAgent(dash.service, ws, 'Their agent');
    const other = await seedAgent(dash.service, ws, 'Another agent');
    const owner = await signIn(dash.service, ws.id);
    const email = `limited-${Date.now()}@example.org`;
    const invited = await owner.call('POST', '/api/invitations', { email, role: 'member', agentIds: [theirs] });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    await signInWithToken(dash.service, tokenOf(linkIn((await smtp.waitFor((mail) => mail.to.includes(email))).text)));

    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id, email);
    await page.goto('/app/inbox');
    await page.waitForURL(new RegExp(`/app/agents/${theirs}/inbox/conversations$`));
    const choice = page.getByRole('combobox', { name: 'Agent' });
    await choice.locator('option', { hasText: 'Their agent' }).waitFor({ state: 'attached' });
    assert.deepEqual(await choice.locator('option').allTextContents(), ['Their agent']);
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Agents', 'Inbox', 'Analytics', 'Settings']);
    await page.getByText('No conversations yet.').waitFor();
    await checkPage(page, "a limited member's inbox");

    await page.goto(`/app/agents/${other}/inbox/tickets`);
    await page.getByRole('alert').filter({ hasText: /not found|No agent/i }).waitFor();
    await page.goto('/app/keys');
    await page.getByRole('heading', { level: 1, name: 'There is no page at this address.' }).waitFor();
  });
});

describe('Inbox, part 2', () => {
  test("a held e-mail draft is edited and sent from its ticket's page: the person's text reaches the visitor's mail server threaded, and the draft leaves the page; another is discarded after a confirmation and never mailed", async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Inbox drafts', plan: 'studio' });
    const agentId = await seedAgent(dash.service, ws, 'Werkplaats');
    await seedTexts(dash.service, ws.keys.manage, agentId, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    await enableEmail(dash.service, ws, agentId, { address: 'review@werkplaats.example', review: true });
    const inbound = await startMailInbound(dash.service.ctx, { port: 0, host: '127.0.0.1', resolver: testResolver({}) });
    try {
      const sender = `held-${Date.now()}@visitor.example`;
      const { messageId: visitorMessageId } = await sendToInbound(inbound.port, { from: sender, to: 'review@werkplaats.example', subject: 'Hours', text: 'When is the workshop open on Saturday?' });
      const tickets = (await dash.service.api('GET', `/agents/${agentId}/tickets`, { key: ws.keys.read })).body.data;
      const ticket = tickets.find((one: { email: string }) => one.email === sender);
      assert.ok(ticket, JSON.stringify(tickets));

      const page = await dash.newPage();
      await dash.signInDirectly(page, ws.id);
      // The tickets list: the count from the list's counts, the ticket on the first page.
      await page.goto(`/app/agents/${agentId}/inbox/tickets`);
      await page.getByRole('link', { name: 'Open (1)' }).waitFor();
      await page.getByRole('link', { name: `Ticket #${ticket.number}` }).click();
      const drafts = page.getByRole('region', { name: 'Held drafts' });
      await drafts.getByRole('button', { name: 'Send as it is' }).waitFor();
      await drafts.getByRole('button', { name: 'Discard' }).waitFor();
      await checkPage(page, 'a ticket with a held draft');

      await drafts.getByRole('button', { name: 'Edit and send' }).click();
      const box = drafts.getByRole('textbox', { name: 'The answer to send' });
      // The box holds the draft and has the focus.
      await page.waitForFunction(() => ((document.activeElement as HTMLTextAreaElement | null)?.value?.length ?? 0) > 0);
      assert.ok((await box.inputValue()).length > 0);
      await box.fill('Saturday 10 to 4. See you at the workshop!');
      await checkPage(page, 'a held draft being edited');
      await drafts.getByRole('button', { name: 'Send edited answer' }).click();
      await page.getByRole('status').filter({ hasText: 'The answer is on its way to the visitor.' }).waitFor();
      await drafts.waitFor({ state: 'detached' });
      await page.locator('.inbox-entry-team').filter({ hasText: 'Saturday 10 to 4. See you at the workshop!' }).waitFor();

      const mail = await smtp.waitFor((one) => one.to.includes(sender));
      assert.match(mail.text, /Saturday 10 to 4\. See you at the workshop!/);
      assert.equal(mail.headers.get('in-reply-to'), `<${visitorMessageId}>`);
      const left = await dash.service.api('GET', `/agents/${agentId}/tickets/${ticket.id}`, { key: ws.keys.read });
      assert.deepEqual(left.body.data.entries.map((entry: { kind: string }) => entry.kind), ['held', 'team']);

      // Another visitor's held draft, discarded after the confirmation: never mailed, gone from the ticket.
      const second = `discarded-${Date.now()}@visitor.example`;
      await sendToInbound(inbound.port, { from: second, to: 'review@werkplaats.example', subject: 'Hours', text: 'Are you open on Sunday?' });
      const secondTicket = (await dash.service.api('GET', `/agents/${agentId}/tickets`, { key: ws.keys.read })).body.data.find((one: { email: string }) => one.email === second);
      await page.goto(`/app/agents/${agentId}/inbox/tickets/${secondTicket.id}`);
      await drafts.getByRole('button', { name: 'Discard' }).click();
      await page.getByRole('dialog', { name: 'Discard this draft?' }).getByRole('button', { name: 'Discard', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'The draft was discarded.' }).waitFor();
      await drafts.waitFor({ state: 'detached' });
      const discarded = await dash.service.api('GET', `/agents/${agentId}/tickets/${secondTicket.id}`, { key: ws.keys.read });
      assert.deepEqual(discarded.body.data.entries, []);
      // Nothing is queued for that visitor either (the mail job would send it later).
      assert.equal((await dash.service.ctx.db.selectFrom('mails').select('id').where('recipient', '=', second).execute()).length, 0);
    } finally {
      await inbound.close();
    }
  });

  test('the text search finds a conversation by a word of its answer and keeps it in the address; ?correct= opens that answer\'s correction with the focus; the leads download as CSV', async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Inbox search' });
    const agentId = await seedAgent(dash.service, ws, 'Zoekwinkel');
    const patched = await dash.service.api('PATCH', `/agents/${agentId}`, { key: ws.keys.manage, body: { leadCapture: { enabled: true, privacyUrl: 'https://zoek.example.com/privacy' } } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const first = await visitorCall(dash.service, 'POST', `/agents/${agentId}/chat`, { body: { message: 'Do you sell tandem bicycles?' } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await visitorCall(dash.service, 'POST', `/agents/${agentId}/chat`, { body: { message: 'Quelle heure ferme le magasin?' } });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const read = async (id: string) => (await dash.service.api('GET', `/agents/${agentId}/conversations/${id}`, { key: ws.keys.read })).body.data;
    const one = await read(first.body.data.conversationId);
    const other = await read(second.body.data.conversationId);
    const answer = one.messages.find((message: { role: string }) => message.role === 'assistant');
    assert.ok(answer, JSON.stringify(one));
    const wordsOf = (text: string) => text.toLowerCase().match(/[a-z]{5,}/g) ?? [];
    const elsewhere = new Set([...wordsOf(one.messages[0].content), ...other.messages.flatMap((message: { content: string }) => wordsOf(message.content))]);
    // A word only the first conversation's answer has.
    const word = wordsOf(answer.content).find((candidate) => !elsewhere.has(candidate));
    assert.ok(word, `no word of its own in ${answer.content}`);
    const lead = await visitorCall(dash.service, 'POST', `/agents/${agentId}/leads`, { body: { conversationId: first.body.data.conversationId, moment: 'button', name: 'Kees de Vries', email: 'kees@devries.example', marketing: false }, token: first.body.data.visitorToken });
    assert.equal(lead.status, 201, JSON.stringify(lead.body));

    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    await page.goto(`/app/agents/${agentId}/inbox/conversations`);
    const found = page.getByRole('row').filter({ hasText: 'Do you sell tandem bicycles?' });
    const notFound = page.getByRole('row').filter({ hasText: 'Quelle heure ferme le magasin?' });
    await notFound.waitFor();
    await page.getByRole('textbox', { name: 'Search' }).fill(word.toUpperCase());
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`[?&]q=${word.toUpperCase()}`));
    await notFound.waitFor({ state: 'detached' });
    await found.waitFor();
    await page.getByRole('combobox', { name: 'Feedback' }).selectOption('up');
    await page.getByText('No conversations match these filters.').waitFor();
    assert.match(page.url(), /feedback=up/);
    await page.getByRole('combobox', { name: 'Feedback' }).selectOption('none');
    await found.waitFor();
    await checkPage(page, 'the conversations searched and filtered');

    // The Analytics page's "Correct it" link: the form open under that answer, its first box focused.
    await page.goto(`/app/agents/${agentId}/inbox/conversations/${one.id}?correct=${answer.id}`);
    const question = page.getByRole('textbox', { name: 'Question' });
    await question.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'INPUT' || document.activeElement?.tagName === 'TEXTAREA');
    assert.equal(await question.evaluate((element) => element === document.activeElement), true);
    assert.equal(await question.inputValue(), 'Do you sell tandem bicycles?');
    await checkPage(page, 'a conversation opened to correct an answer');

    await page.goto(`/app/agents/${agentId}/inbox/leads`);
    const csvLink = page.getByRole('link', { name: 'Download CSV' });
    await csvLink.waitFor();
    await checkPage(page, 'the leads with Download CSV');
    const csv = await page.request.get(new URL((await csvLink.getAttribute('href'))!, page.url()).href);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type']!, /^text\/csv/);
    assert.match(await csv.text(), /kees@devries\.example/);
  });
});

describe('API keys', () => {
  test('a key made in the dashboard is shown once and works on /api/v1/workspace; revoked there, it is refused at once', async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Keys page' });
    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    await page.goto('/app/keys');
    await page.getByRole('row').filter({ hasText: 'manage key' }).waitFor();
    await checkPage(page, 'the API keys page');

    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Reporting script');
    await dialog.getByRole('combobox', { name: 'Scope' }).selectOption('read');
    await checkPage(page, 'the Create key dialog');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'The new key' });
    await box.waitFor();
    const key = await box.inputValue();
    assert.match(key, /^cl_[0-9A-Za-z]{48}$/);
    assert.ok((await page.locator('main').innerText()).includes(key), 'the key is in the page as text too, not only as a text box value');
    await page.getByRole('row').filter({ hasText: 'Reporting script' }).waitFor();
    await checkPage(page, 'the new key shown');

    const workspace = await fetch(`${dash.service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(workspace.status, 200);
    assert.equal((await workspace.json()).data.key.name, 'Reporting script');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    await box.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Revoke Reporting script' }).click();
    await page.getByRole('dialog', { name: 'Revoke Reporting script?' }).getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Reporting script was revoked.' }).waitFor();
    // The list is read again after the revocation: the row goes.
    await page.getByRole('row').filter({ hasText: 'Reporting script' }).waitFor({ state: 'detached' });
    const refused = await fetch(`${dash.service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(refused.status, 401);
  });

  test('below Studio the page explains that the API comes with Studio instead of offering keys', async () => {
    // Seeding keys needs Studio: a bare workspace on Starter, its owner signed in.
    const workspaceId = await dash.newWorkspace(`starter-${Date.now()}@example.org`, { plan: 'starter' });
    const page = await dash.newPage();
    await dash.signInDirectly(page, workspaceId);
    await page.goto('/app/keys');
    await page.getByRole('heading', { level: 2, name: 'The API is part of Studio and up' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);
    await checkPage(page, 'the API keys page below Studio');
  });
});
