import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { extractText } from 'unpdf';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { insertConversation } from '../chat/conversation-seeds.ts';
import { startSmtpCapture, type ReceivedMail, type SmtpCapture } from '../mail/test-support.ts';
import { mailWorker } from '../mail/delivery.ts';
import { clientsWorker, makeReport, sweepReports } from './jobs.ts';
import { attachmentsOf } from './test-support.ts';
import { visitorRequest } from '../visitors/test-support.ts';
import { enableLeads, leaveLead } from '../webhooks/test-support.ts';

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

async function pdfText(bytes: Uint8Array): Promise<string> {
  assert.equal(Buffer.from(bytes.subarray(0, 5)).toString(), '%PDF-');
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return flat(text);
}

/** The archive link written in a mail's text. */
function linkIn(mail: ReceivedMail): string {
  const link = /(https?:\/\/\S+\/reports\/[0-9A-Za-z]{48})/.exec(mail.text)?.[1];
  assert.ok(link, `no archive link in: ${mail.text}`);
  return link;
}

/** Waits until no report is being made (but `leaving`) and no mail waits to be handed over. */
async function settle(service: Service, leaving = ''): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const reports = await service.ctx.db.selectFrom('client_reports').select('id').where('status', 'in', ['pending', 'making']).where('id', '!=', leaving).execute();
    const mails = await service.ctx.db.selectFrom('mails').select('id').where('status', '=', 'pending').execute();
    if (reports.length === 0 && mails.length === 0) return;
    if (Date.now() > deadline) throw new Error(`work still under way: ${reports.length} reports, ${mails.length} mails`);
    await sleep(100);
  }
}

describe('monthly reports (spec 4.12): made on reportDay by a durable job, mailed, archived', () => {
  let smtp: SmtpCapture;
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'agency' });
  });
  after(async () => {
    await service?.close();
    await smtp?.close();
  });

  /**
   * Moves the test clock once the work under way is done: a jump of days while a mail is
   * being handed to the server would run out its claim and send it again.
   */
  const setClock = async (now: string, options: { leaving?: string } = {}) => {
    await settle(service, options.leaving);
    return service.admin('POST', '/clock', { now });
  };
  /** The archive as served by this test's server (the public address in config is not its random port). */
  const open = (link: string) => fetch(`${service.url}${new URL(link, service.url).pathname}`);
  const where = (agentId: string) => ({ workspaceId: ws.id, agentId });
  const mailsTo = async (address: string) =>
    (await service.ctx.db.selectFrom('mails').select(['id', 'subject']).where('recipient', '=', address).execute()).length;
  const reportsOf = (agentId: string) =>
    service.ctx.db.selectFrom('client_reports').select(['id', 'month', 'status', 'attempts']).where('agent_id', '=', agentId).orderBy('month').execute();

  async function clientFor(body: Record<string, unknown>, agentName = 'Assistent Jansen'): Promise<{ agent: string; link: string }> {
    const agent = await seedAgent(service, ws, agentName);
    const reply = await service.api('PUT', `/agents/${agent}/client`, { key: ws.keys.manage, body });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return { agent, link: reply.body.data.report.link };
  }

  async function converse(agent: string, at: string, question: string, channel: 'api' | 'widget' | 'playground' = 'widget') {
    await insertConversation(service, where(agent), { at: new Date(at), channel, messages: [{ role: 'user', content: question }, { role: 'assistant', content: `Antwoord op: ${question}` }] });
  }

  test('walked across a month end: the report of the month before, in Dutch, mailed with charts inline, the report and the transcripts as PDFs; the archive; rotation and deletion kill the links', async () => {
    await setClock('2027-03-25T10:00:00.000Z');
    const email = 'info@jansen.example';
    const { agent } = await clientFor({
      name: 'Bakkerij Jansen',
      email,
      language: 'nl',
      reportsEnabled: true,
      transcripts: true,
      reportDay: 1,
      intro: 'Hierbij het overzicht van uw chatassistent.',
      signature: 'Met vriendelijke groet, Webbureau Zuid',
    });
    await converse(agent, '2027-02-14T09:00:00.000Z', 'Zijn jullie open op zondag?');
    await converse(agent, '2027-03-03T09:00:00.000Z', 'Bezorgen jullie ook in Utrecht?');
    await converse(agent, '2027-03-10T11:00:00.000Z', 'Hebben jullie glutenvrij brood?', 'api');
    await converse(agent, '2027-03-10T15:00:00.000Z', 'Hebben jullie glutenvrij brood?');
    await converse(agent, '2027-03-20T08:00:00.000Z', 'Wat kost een verjaardagstaart?');
    await converse(agent, '2027-03-12T08:00:00.000Z', 'Een testvraag uit de speeltuin', 'playground');
    // On the 25th of March (the clock): a visitor starts a conversation on a page, and a lead is left.
    const chat = await visitorRequest(service, 'POST', `/agents/${agent}/chat`, { body: { message: 'Waar vind ik jullie winkel?', openedBy: 'launcher', page: { url: 'https://jansen.example/contact' } } });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    await enableLeads(service, ws, agent);
    await leaveLead(service.url, agent, 'Anna de Vries');

    // The last minute of March: nothing is due yet.
    await setClock('2027-03-31T23:59:00.000Z');
    await sweepReports(service.ctx);
    assert.deepEqual(await reportsOf(agent), []);

    await setClock('2027-04-01T00:00:30.000Z');
    const mail = await smtp.waitFor((m) => m.to.includes(email), 60_000);
    assert.equal(mail.subject, 'Assistent Jansen: uw rapport over maart 2027');
    assert.match(mail.headers.get('reply-to') ?? '', /owner@example\.com/);
    assert.match(mail.text, /^Beste Bakkerij Jansen,/);
    assert.match(mail.text, /Hierbij het overzicht van uw chatassistent\./);
    assert.match(mail.text, /Gesprekken: 5 \(Maand ervoor: 1\)/);
    assert.match(mail.text, /Vragen: 5 \(Maand ervoor: 1\)/);
    assert.match(mail.text, /Leads: 1 \(Maand ervoor: 0\)/);
    assert.match(mail.text, /Tickets: 0 \(Maand ervoor: 0\)/);
    assert.match(mail.text, /Pagina's waar gesprekken begonnen\n.*https:\/\/jansen\.example\/contact \(1\)/);
    assert.match(mail.text, /1\. Hebben jullie glutenvrij brood\? \(2\)/);
    assert.match(mail.text, /De 5 gesprekken van deze maand zijn bijgevoegd als pdf\./);
    assert.match(mail.text, /Met vriendelijke groet, Webbureau Zuid/);
    assert.match(mail.html ?? '', /<html lang="nl">/);
    assert.match(mail.html ?? '', /<img src="cid:conversations-chart@parley" alt="Gesprekken per dag"/);
    assert.match(mail.html ?? '', /<img src="cid:confidence-chart@parley" alt="Antwoorden naar zekerheid"/);

    const attachments = attachmentsOf(mail.raw);
    const images = attachments.filter((a) => a.contentType === 'image/png');
    assert.deepEqual(images.map((a) => a.contentId).sort(), ['confidence-chart@parley', 'conversations-chart@parley']);
    for (const image of images) assert.equal(image.content.subarray(1, 4).toString(), 'PNG');
    const pdfs = attachments.filter((a) => a.contentType === 'application/pdf');
    assert.deepEqual(pdfs.map((a) => a.fileName), ['report-2027-03.pdf', 'conversations-2027-03.pdf']);

    const report = await pdfText(pdfs[0]!.content);
    for (const words of ['Maandrapport', 'maart 2027 · Bakkerij Jansen', 'Chatassistent: Assistent Jansen', 'Hierbij het overzicht van uw chatassistent.', 'De maand in cijfers', 'Gesprekken per dag', 'Antwoorden naar zekerheid', 'Meest gestelde vragen', '1. Hebben jullie glutenvrij brood? (2)', "Pagina's waar gesprekken begonnen", 'https://jansen.example/contact (1)', 'Met vriendelijke groet, Webbureau Zuid', 'Pagina 1']) {
      assert.ok(report.includes(words), `the report PDF says "${words}": ${report}`);
    }
    const transcripts = await pdfText(pdfs[1]!.content);
    for (const question of ['Bezorgen jullie ook in Utrecht?', 'Hebben jullie glutenvrij brood?', 'Wat kost een verjaardagstaart?', 'Waar vind ik jullie winkel?']) assert.ok(transcripts.includes(question), question);
    assert.ok(!transcripts.includes('testvraag'), 'test conversations stay out');
    assert.ok(!transcripts.includes('zondag'), 'only the month of the report');

    // The archive, opened with the link from the mail.
    const link = linkIn(mail);
    const page = await open(link);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const html = await page.text();
    assert.match(html, /<html lang="nl">/);
    assert.match(html, /<h1>Rapporten voor Bakkerij Jansen<\/h1>/);
    const pdfPath = /href="([^"]+\.pdf)">Rapport over maart 2027 \(pdf\)</.exec(html)?.[1];
    assert.ok(pdfPath, html);
    const download = await open(pdfPath);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'application/pdf');
    assert.ok((await pdfText(new Uint8Array(await download.arrayBuffer()))).includes('maart 2027 · Bakkerij Jansen'));

    // A new link: the one in the mail stops at once, page and PDF alike.
    const rotated = await service.api('POST', `/agents/${agent}/client/report-link`, { key: ws.keys.manage });
    assert.equal(rotated.status, 200);
    assert.equal((await open(link)).status, 404);
    assert.equal((await open(pdfPath)).status, 404);
    const fresh = rotated.body.data.report.link as string;
    const freshPage = await (await open(fresh)).text();
    assert.match(freshPage, /Rapport over maart 2027 \(pdf\)/);

    // Taking the client off: the current link stops too; the agent and its conversations stay.
    assert.equal((await service.api('DELETE', `/agents/${agent}/client`, { key: ws.keys.manage })).status, 200);
    assert.equal((await open(fresh)).status, 404);
    const conversations = await service.api('GET', `/agents/${agent}/conversations`, { key: ws.keys.manage });
    assert.equal(conversations.status, 200);
    assert.ok(conversations.body.data.length >= 5);
    assert.deepEqual(await reportsOf(agent), []);

    // No more reports: the next report day passes without one.
    await setClock('2027-05-01T00:00:30.000Z');
    await sweepReports(service.ctx);
    await settle(service);
    assert.deepEqual(await reportsOf(agent), []);
    assert.equal(smtp.received.filter((m) => m.to.includes(email)).length, 1);
  });

  test('the report is in the client’s language: en, nl, fr, de, es', async () => {
    await setClock('2027-05-20T10:00:00.000Z');
    const expected = {
      en: { subject: 'Shop bot: your report for May 2027', title: 'Monthly report', heading: 'May 2027 · Client en' },
      nl: { subject: 'Shop bot: uw rapport over mei 2027', title: 'Maandrapport', heading: 'mei 2027 · Client nl' },
      fr: { subject: 'Shop bot : votre rapport de mai 2027', title: 'Rapport mensuel', heading: 'mai 2027 · Client fr' },
      de: { subject: 'Shop bot: Ihr Bericht für Mai 2027', title: 'Monatsbericht', heading: 'Mai 2027 · Client de' },
      es: { subject: 'Shop bot: su informe de mayo de 2027', title: 'Informe mensual', heading: 'mayo de 2027 · Client es' },
    };
    for (const language of Object.keys(expected)) {
      const { agent } = await clientFor({ name: `Client ${language}`, email: `${language}@clients.example`, language, reportsEnabled: true }, 'Shop bot');
      await converse(agent, '2027-05-04T10:00:00.000Z', 'Hello?');
    }
    await setClock('2027-06-01T00:00:30.000Z');
    for (const [language, words] of Object.entries(expected)) {
      const mail = await smtp.waitFor((m) => m.to.includes(`${language}@clients.example`), 60_000);
      assert.equal(mail.subject, words.subject);
      const pdf = attachmentsOf(mail.raw).find((a) => a.contentType === 'application/pdf')!;
      const text = await pdfText(pdf.content);
      assert.ok(text.startsWith(`${words.title} ${words.heading}`), text);
      assert.equal(attachmentsOf(mail.raw).filter((a) => a.contentType === 'application/pdf').length, 1, 'no transcripts unless asked for');
    }
  });

  test('held for review: kept, not mailed to the client nor listed in the archive; the owner is told it waits', async () => {
    await setClock('2027-06-20T10:00:00.000Z');
    const email = 'held@clients.example';
    const { agent, link } = await clientFor({ name: 'Garage Peters', email, reportsEnabled: true, holdForReview: true, reportDay: 3 });
    await converse(agent, '2027-06-21T10:00:00.000Z', 'Do you do tyre changes?');
    await setClock('2027-07-03T00:00:30.000Z');
    const notice = await smtp.waitFor((m) => m.to.includes('owner@example.com') && m.subject.includes('Garage Peters'), 60_000);
    assert.equal(notice.subject, 'The report of June 2027 for Garage Peters waits for your review');
    assert.deepEqual((await reportsOf(agent)).map((r) => [r.month, r.status]), [['2027-06', 'held']]);
    assert.equal(await mailsTo(email), 0);
    const html = await (await open(link)).text();
    assert.match(html, /There are no reports yet\./);
  });

  test('exactly once per client and month: sweeps and jobs run together make one report and one mail; a later sweep in the month makes none', async () => {
    await setClock('2027-07-20T10:00:00.000Z');
    const email = 'once@clients.example';
    const { agent } = await clientFor({ name: 'Once', email, reportsEnabled: true });
    await setClock('2027-08-01T00:00:30.000Z');
    // Several workers sweeping and working at once (this process's own worker sweeps too).
    await Promise.all([sweepReports(service.ctx), sweepReports(service.ctx), sweepReports(service.ctx)]);
    const [report] = await reportsOf(agent);
    assert.ok(report);
    await Promise.all([makeReport(service.ctx, report.id), makeReport(service.ctx, report.id), sweepReports(service.ctx)]);
    await smtp.waitFor((m) => m.to.includes(email), 60_000);
    // Within the week sent mail is kept for the operator, so the mails table still shows it.
    await setClock('2027-08-05T10:00:00.000Z');
    await sweepReports(service.ctx);
    await makeReport(service.ctx, report.id);
    assert.deepEqual((await reportsOf(agent)).map((r) => [r.month, r.status]), [['2027-07', 'sent']]);
    assert.equal(await mailsTo(email), 1);
    assert.equal(smtp.received.filter((m) => m.to.includes(email)).length, 1);
  });

  test('after a crash mid-way the report is made once its claim runs out, and mailed once', async () => {
    await setClock('2027-08-20T12:00:00.000Z');
    const email = 'crash@clients.example';
    const { agent } = await clientFor({ name: 'Crash', email, reportsEnabled: true });
    const client = await service.ctx.db.selectFrom('clients').select(['id']).where('agent_id', '=', agent).executeTakeFirstOrThrow();
    // A worker took the report at the start of September and died: its claim runs to 00:10.
    await service.ctx.db
      .insertInto('client_reports')
      .values({ id: 'rep_crashcrashcrashcrash', client_id: client.id, workspace_id: ws.id, agent_id: agent, month: '2027-08', status: 'making', language: 'en', attempts: 1, lease_until: new Date('2027-09-01T00:10:00.000Z'), last_error: null, pdf: null, created_at: new Date('2027-09-01T00:00:00.000Z'), finished_at: null })
      .execute();
    await setClock('2027-09-01T00:05:00.000Z', { leaving: 'rep_crashcrashcrashcrash' });
    await sweepReports(service.ctx);
    await makeReport(service.ctx, 'rep_crashcrashcrashcrash');
    assert.deepEqual((await reportsOf(agent)).map((r) => r.status), ['making']);
    assert.equal(await mailsTo(email), 0);
    await setClock('2027-09-01T00:10:30.000Z', { leaving: 'rep_crashcrashcrashcrash' });
    await smtp.waitFor((m) => m.to.includes(email), 60_000);
    assert.deepEqual((await reportsOf(agent)).map((r) => [r.month, r.status, r.attempts]), [['2027-08', 'sent', 2]]);
    assert.equal(await mailsTo(email), 1);
  });

  test('switching reports on does not make the month before’s report at once: the first one comes on the next report day', async () => {
    await setClock('2027-09-10T10:00:00.000Z');
    const { agent } = await clientFor({ name: 'Later', email: 'later@clients.example', reportDay: 5 });
    await service.api('PUT', `/agents/${agent}/client`, { key: ws.keys.manage, body: { reportsEnabled: true } });
    await sweepReports(service.ctx);
    assert.deepEqual(await reportsOf(agent), []);
    await setClock('2027-10-05T00:00:30.000Z');
    await sweepReports(service.ctx);
    assert.deepEqual((await reportsOf(agent)).map((r) => r.month), ['2027-09']);
  });

  test('a workspace below the agency plan (or stopped) gets no report and its archive link is 404; back on the plan, both return', async () => {
    await setClock('2027-10-20T10:00:00.000Z');
    const other = await service.seedWorkspace({ plan: 'agency' });
    const agent = await seedAgent(service, other);
    const put = await service.api('PUT', `/agents/${agent}/client`, { key: other.keys.manage, body: { name: 'Downgraded', email: 'down@clients.example', reportsEnabled: true } });
    const link = put.body.data.report.link as string;
    assert.equal((await open(link)).status, 200);
    assert.equal((await service.admin('PATCH', `/workspaces/${other.id}`, { plan: 'studio' })).status, 200);
    assert.equal((await open(link)).status, 404);
    await setClock('2027-11-01T00:00:30.000Z');
    await sweepReports(service.ctx);
    assert.deepEqual(await reportsOf(agent), []);
    assert.equal((await service.admin('PATCH', `/workspaces/${other.id}`, { status: 'stopped', plan: 'agency' })).status, 200);
    assert.equal((await open(link)).status, 404);
    await sweepReports(service.ctx);
    assert.deepEqual(await reportsOf(agent), []);
    assert.equal((await service.admin('PATCH', `/workspaces/${other.id}`, { status: 'active' })).status, 200);
    assert.equal((await open(link)).status, 200);
    await sweepReports(service.ctx);
    assert.deepEqual((await reportsOf(agent)).map((r) => r.month), ['2027-10']);
  });
});

describe('a report day missed while the service was down is caught up when it starts', () => {
  let smtp: SmtpCapture;
  let service: Service;

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ workers: false, env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  after(async () => {
    await service?.close();
    await smtp?.close();
  });

  test('down from before reportDay until after it: the report comes at start', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    await service.admin('POST', '/clock', { now: '2027-10-20T10:00:00.000Z' });
    const agent = await seedAgent(service, ws);
    const put = await service.api('PUT', `/agents/${agent}/client`, { key: ws.keys.manage, body: { name: 'Missed', email: 'missed@clients.example', reportsEnabled: true, reportDay: 5 } });
    assert.equal(put.status, 200);
    // No worker runs while the 5th of November passes.
    await service.admin('POST', '/clock', { now: '2027-11-12T09:00:00.000Z' });
    assert.equal((await service.ctx.db.selectFrom('client_reports').selectAll().execute()).length, 0);
    await mailWorker(service.ctx);
    await clientsWorker(service.ctx);
    const mail = await smtp.waitFor((m) => m.to.includes('missed@clients.example'), 60_000);
    assert.match(mail.subject, /October 2027/);
  });
});
