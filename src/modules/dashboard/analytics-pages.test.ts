/**
 * The dashboard's Analytics page and one agent's Client page (docs/dashboard.md), in Chromium:
 * the page shows the figures GET /agents/{id}/analytics gives for the same period, a period
 * longer than the API allows shows its message beside the field; the client is saved and the
 * archive link renewed; a held report is previewed as its PDF, released (mailed with the PDF to a
 * real SMTP server) or discarded (never mailed); below the agency plan the page explains; axe and
 * 375 px on each; Dutch.
 * It runs on one store (test/run.ts ONE_STORE: the API rules behind its checks are proven on both by their own files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { expectFitsPhoneWidth, expectNoSeriousAxeViolations, startDashboard, type DashboardHarness } from '../../../test/support/dashboard.ts';
import type { SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { seedTexts } from '../chat/test-support.ts';
import { linkIn, signIn, signInWithToken, tokenOf } from '../people/test-support.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { sweepReports } from '../clients/jobs.ts';
import { attachmentsOf } from '../clients/test-support.ts';

let smtp: SmtpCapture;
let dash: DashboardHarness;
let ws: SeededWorkspace;
let agentId: string;

before(async () => {
  smtp = await startSmtpCapture();
  dash = await startDashboard({ env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await dash.service.seedWorkspace({ plan: 'agency' });
  agentId = await seedAgent(dash.service, ws, 'Shop helper');
  await seedTexts(dash.service, ws.keys.manage, agentId, [{ title: 'Opening hours', content: 'The shop is open on Saturday from 10:00 to 16:00. It is closed on Sundays.' }]);
  for (const message of ['When is the shop open on Saturday?', 'Is the shop open on Sunday?', 'Do you sell bicycles on the moon?']) {
    const reply = await dash.service.api('POST', `/agents/${agentId}/chat`, { key: ws.keys.chat, body: { message } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  }
});
after(async () => {
  await dash?.close();
  await smtp?.close();
});

const figure = (page: Page, label: string) => page.locator('.analytics-figure').filter({ has: page.getByText(label, { exact: true }) }).locator('dd');

describe('the Analytics page', () => {
  test('shows the figures the API gives for the same period; a period over 366 days shows the API message beside the field; axe and 375 px', async () => {
    const api = await dash.service.api('GET', `/agents/${agentId}/analytics`, { key: ws.keys.read });
    assert.equal(api.status, 200, JSON.stringify(api.body));
    const expected = api.body.data;
    assert.equal(expected.conversations, 3);

    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    await page.goto('/app/analytics');
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Agent' }).inputValue(), agentId);
    assert.equal(await page.getByRole('combobox', { name: 'Period' }).inputValue(), '30');
    await figure(page, 'Conversations').waitFor();
    const number = (n: number) => new Intl.NumberFormat('en').format(n);
    assert.equal(await figure(page, 'Conversations').textContent(), number(expected.conversations));
    assert.equal(await figure(page, 'Questions').textContent(), number(expected.questions));
    assert.equal(await figure(page, 'Rated helpful').textContent(), number(expected.helpful));
    assert.equal(await figure(page, 'Rated not helpful').textContent(), number(expected.notHelpful));
    // The chart's text alternative: a (hidden) table with one row per day, whose sums are the figures.
    const daily = page.getByRole('table', { name: 'Conversations and questions per day' });
    assert.equal(await daily.locator('tbody tr').count(), expected.series.length);
    const cells = await daily.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => Number(td.textContent))));
    assert.equal(cells.reduce((sum, [conversations]) => sum + conversations!, 0), expected.conversations);
    assert.equal(cells.reduce((sum, [, questions]) => sum + questions!, 0), expected.questions);
    assert.ok(await page.locator('.analytics-chart canvas').count() > 0, 'uPlot drew the chart');
    for (const name of ['high', 'medium', 'low'] as const) {
      const band = expected.bands[name];
      await page.getByText(`${name[0]!.toUpperCase()}${name.slice(1)} (${band.min}–${band.max}): ${band.answers}`, { exact: true }).waitFor();
    }
    // The weakest answers: each a link to its conversation in the inbox and "Correct it".
    const weakest = page.getByRole('table', { name: 'Weakest answers' });
    assert.ok(expected.weakest.length > 0, 'the question off the topic gave a weak answer');
    const first = expected.weakest[0];
    assert.equal(await weakest.getByRole('link', { name: first.question, exact: true }).getAttribute('href'), `/app/agents/${agentId}/inbox/conversations/${first.conversationId}`);
    assert.equal(await weakest.getByRole('link', { name: `Correct it: ${first.question}` }).getAttribute('href'), `/app/agents/${agentId}/inbox/conversations/${first.conversationId}?correct=${first.messageId}`);
    assert.equal(await weakest.locator('tbody tr').count(), expected.weakest.length);
    await page.getByRole('heading', { name: 'The widget' }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the analytics page');
    await expectFitsPhoneWidth(page, 'the analytics page');

    // From–to over 367 days: the API's message beside "To".
    await page.getByRole('combobox', { name: 'Period' }).selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill('2024-01-01');
    await page.getByLabel('To', { exact: true }).fill('2025-12-31');
    await page.locator('.field-error').filter({ hasText: '366 days' }).waitFor();
    assert.equal(await page.getByLabel('To', { exact: true }).getAttribute('aria-invalid'), 'true');
    await expectNoSeriousAxeViolations(page, 'the analytics page with a period too long');
  });


  test('a member limited to one agent is offered only that agent', async () => {
    const other = await seedAgent(dash.service, ws, 'Other agent');
    const email = `member-${Date.now()}@example.org`;
    // The invitation goes to this file's SMTP server (SMTP_URL is set, so the outbox stays empty).
    const invited = await (await signIn(dash.service, ws.id)).call('POST', '/api/invitations', { email, role: 'member', agentIds: [other] });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    await signInWithToken(dash.service, tokenOf(linkIn((await smtp.waitFor((mail) => mail.to.includes(email), 60_000)).text)));
    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id, email);
    await page.goto('/app/analytics');
    const agent = page.getByRole('combobox', { name: 'Agent' });
    await figure(page, 'Conversations').waitFor();
    assert.deepEqual(await agent.locator('option').allTextContents(), ['Other agent']);
    assert.equal(await figure(page, 'Conversations').textContent(), '0');
  });
});

describe('the Client page', () => {
  test('a client is saved with its report settings and the archive link renewed; axe and 375 px', async () => {
    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    await page.goto(`/app/agents/${agentId}/sources`);
    await page.getByRole('navigation', { name: 'Agent' }).getByRole('link', { name: 'Client', exact: true }).click();
    await page.getByRole('heading', { name: 'Client and reports' }).waitFor();
    await page.getByRole('textbox', { name: 'Client name' }).fill('Bakery Jansen');
    await page.getByRole('textbox', { name: 'Client e-mail' }).fill('not an address');
    await page.getByRole('button', { name: 'Save client' }).click();
    // The API's message for the field shows beside it.
    await page.locator('.field-invalid').getByRole('textbox', { name: 'Client e-mail' }).waitFor();
    await page.getByRole('textbox', { name: 'Client e-mail' }).fill('jansen@example.org');
    await page.getByRole('combobox', { name: 'Language of the reports' }).selectOption('nl');
    await page.getByRole('textbox', { name: /Monthly service fee/ }).fill('49.5');
    await page.getByRole('checkbox', { name: 'Mail a report every month' }).check();
    await page.getByRole('combobox', { name: 'Day of the month' }).selectOption('5');
    await page.getByRole('checkbox', { name: 'Hold each report for review before it is sent' }).check();
    await page.getByRole('textbox', { name: /Introduction/ }).fill('Your monthly figures.');
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.getByRole('status').filter({ hasText: 'The client is saved.' }).waitFor();

    const saved = await dash.service.api('GET', `/agents/${agentId}/client`, { key: ws.keys.manage });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const { client, report } = saved.body.data;
    assert.deepEqual({ name: client.name, email: client.email, language: client.language, fee: client.serviceFeeEur }, { name: 'Bakery Jansen', email: 'jansen@example.org', language: 'nl', fee: 49.5 });
    assert.deepEqual({ enabled: report.enabled, day: report.day, hold: report.holdForReview, transcripts: report.transcripts, intro: report.intro }, { enabled: true, day: 5, hold: true, transcripts: false, intro: 'Your monthly figures.' });

    const link = page.getByRole('textbox', { name: 'Archive link' });
    assert.equal(await link.inputValue(), report.link);
    await expectNoSeriousAxeViolations(page, 'the client page');
    await expectFitsPhoneWidth(page, 'the client page');
    await page.getByRole('button', { name: 'Renew link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Renew the archive link' });
    await dialog.getByRole('button', { name: 'Make a new link' }).click();
    await page.getByRole('status').filter({ hasText: 'A new link is made' }).waitFor();
    const renewed = (await dash.service.api('GET', `/agents/${agentId}/client`, { key: ws.keys.manage })).body.data.report.link;
    assert.notEqual(renewed, report.link);
    assert.equal(await link.inputValue(), renewed);

    // "Send report now" (people routes): the month's report is made, mailed and listed as sent.
    await page.getByRole('button', { name: 'Send report now' }).click();
    await page.getByRole('status').filter({ hasText: 'mailed to the client' }).waitFor({ timeout: 60_000 });
    await page.getByRole('table', { name: 'Reports' }).getByText('Sent', { exact: true }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the client page with a report sent');
  });

  test('a held report is listed with its PDF; "Release" mails it to the client with the PDF attached and it shows as sent; another is discarded and never mailed; axe', async () => {
    const { service } = dash;
    // Two clients whose reports are held for review; the clock moves to the next 1st (their report day).
    const clients = [
      { email: 'released@clients.example', agent: await seedAgent(service, ws, 'Garage Peters') },
      { email: 'discarded@clients.example', agent: await seedAgent(service, ws, 'Florist Bos') },
    ];
    for (const { email, agent } of clients) {
      const reply = await service.api('PUT', `/agents/${agent}/client`, { key: ws.keys.manage, body: { name: `Client ${email}`, email, reportsEnabled: true, holdForReview: true, reportDay: 1 } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    const now = new Date((await service.admin('GET', '/clock')).body.data.now);
    const month = now.toISOString().slice(0, 7);
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 30));
    assert.equal((await service.admin('POST', '/clock', { now: first.toISOString() })).status, 200);
    await sweepReports(service.ctx);
    const agents = clients.map((c) => c.agent);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const held = await service.ctx.db.selectFrom('client_reports').select(['agent_id']).where('agent_id', 'in', agents).where('status', '=', 'held').execute();
      if (held.length === 2) break;
      assert.ok(Date.now() < deadline, 'both reports are made and held within a minute');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    const [released, discarded] = clients as [(typeof clients)[0], (typeof clients)[0]];
    await page.goto(`/app/agents/${released.agent}/client`);
    const reports = page.getByRole('table', { name: 'Reports' });
    await reports.getByText('Held for review', { exact: true }).waitFor();
    const pdfLink = reports.getByRole('link', { name: `PDF of ${month}` });
    const pdf = await page.request.get(new URL((await pdfLink.getAttribute('href'))!, dash.service.url).toString());
    assert.equal(pdf.status(), 200);
    assert.match(pdf.headers()['content-type'] ?? '', /^application\/pdf/);
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
    await expectNoSeriousAxeViolations(page, 'the client page with a held report');
    assert.equal(smtp.received.filter((m) => m.to.includes(released.email)).length, 0, 'held: not mailed yet');

    await reports.getByRole('button', { name: `Release ${month}` }).click();
    await page.getByRole('status').filter({ hasText: 'The report is mailed to the client and in the archive.' }).waitFor();
    await reports.getByText('Sent', { exact: true }).waitFor();
    assert.equal(await reports.getByRole('button', { name: `Release ${month}` }).count(), 0);
    const mail = await smtp.waitFor((m) => m.to.includes(released.email), 60_000);
    const attached = attachmentsOf(mail.raw).filter((a) => a.contentType.startsWith('application/pdf'));
    assert.ok(attached.length >= 1, `a PDF is attached: ${JSON.stringify(attachmentsOf(mail.raw).map((a) => a.contentType))}`);
    assert.equal(attached[0]!.content.subarray(0, 5).toString(), '%PDF-');

    await page.goto(`/app/agents/${discarded.agent}/client`);
    await reports.getByText('Held for review', { exact: true }).waitFor();
    await reports.getByRole('button', { name: `Discard ${month}` }).click();
    await page.getByRole('status').filter({ hasText: 'The report is discarded: it is not mailed.' }).waitFor();
    await reports.getByText('Discarded', { exact: true }).waitFor();
    assert.equal(await reports.getByRole('button', { name: `Release ${month}` }).count(), 0);
    await expectNoSeriousAxeViolations(page, 'the client page with a report discarded');
    // A sweep later in the month makes no new report; no mail (queued or handed over) goes to the client.
    await sweepReports(service.ctx);
    const statuses = await service.ctx.db.selectFrom('client_reports').select('status').where('agent_id', '=', discarded.agent).execute();
    assert.deepEqual(statuses.map((r) => r.status), ['discarded']);
    assert.equal((await service.ctx.db.selectFrom('mails').select('id').where('recipient', '=', discarded.email).execute()).length, 0);
    assert.equal(smtp.received.filter((m) => m.to.includes(discarded.email)).length, 0);
  });

  test('below the agency plan the page says clients come with it (402 clients_not_in_plan)', async () => {
    const email = `studio-${Date.now()}@example.org`;
    const workspaceId = await dash.newWorkspace(email, { plan: 'studio' });
    const page = await dash.newPage();
    await dash.signInDirectly(page, workspaceId);
    await page.goto('/app/agents');
    const created = await page.evaluate(async () => {
      const me = await (await fetch('/app/api/me')).json();
      const reply = await fetch('/app/api/v1/agents', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.data.csrfToken }, body: JSON.stringify({ name: 'Own agent', useCase: 'general' }) });
      return (await reply.json()).data.id as string;
    });
    await page.goto(`/app/agents/${created}/client`);
    await page.getByText('Clients and monthly reports come with the Agency plan').waitFor();
    await expectNoSeriousAxeViolations(page, 'the client page below the agency plan');
  });
});

describe('in Dutch', () => {
  test('the analytics page once the person chooses Nederlands', async () => {
    const page = await dash.newPage();
    await dash.signInDirectly(page, ws.id);
    await page.goto('/app/analytics');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('nl');
    await page.getByRole('heading', { name: 'Gesprekken en vragen per dag' }).waitFor();
    await page.getByText('Gesprekken', { exact: true }).first().waitFor();
    await expectNoSeriousAxeViolations(page, 'the analytics page in Dutch');
  });
});
