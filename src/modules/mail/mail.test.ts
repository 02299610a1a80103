import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service } from '../../../test/support/harness.ts';
import { compose } from './compose.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, sweepMail } from './delivery.ts';
import { startSmtpCapture, type SmtpCapture } from './test-support.ts';
import type { MailRow } from '../../platform/mail.ts';

/** Polls the database for a state the background worker reaches (no fixed sleeps). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function mailTo(service: Service, to: string): Promise<MailRow | undefined> {
  return service.ctx.db.selectFrom('mails').selectAll().where('recipient', '=', to).executeTakeFirst();
}

async function advance(service: Service, seconds: number): Promise<void> {
  assert.equal((await service.admin('POST', '/clock', { advanceSeconds: seconds })).status, 200);
}

describe('mail through SMTP (SMTP_URL): recorded, delivered by a job, retried', () => {
  let smtp: SmtpCapture;
  let service: Service;

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_PUBLIC_URL: 'https://chat.example.com' } });
  });
  after(async () => {
    await service?.close();
    await smtp?.close();
  });

  test('a mail arrives with a text part and an HTML part saying the same, from the service’s no-reply address under the given name', async () => {
    const content = compose('de', {
      subject: 'Grüße aus Köln',
      blocks: [{ text: 'Guten Tag,' }, { quote: 'Wann öffnet der Laden?\nUnd am Sonntag?' }, { fields: [['Größe', '42 €']] }, { text: 'Datenschutz:', link: 'https://example.com/datenschutz?a=1&b=2' }],
    });
    await service.ctx.mailer.send({ to: 'kunde@example.org', fromName: 'Fahrrad Müller', ...content });
    const mail = await smtp.waitFor((m) => m.to.includes('kunde@example.org'));
    assert.equal(mail.subject, 'Grüße aus Köln');
    assert.match(mail.from, /Fahrrad Müller/);
    assert.match(mail.from, /<no-reply@chat\.example\.com>/);
    assert.match(mail.headers.get('content-type') ?? '', /^multipart\/alternative/);
    assert.equal(mail.text, 'Guten Tag,\n\n> Wann öffnet der Laden?\n> Und am Sonntag?\n\nGröße: 42 €\n\nDatenschutz: https://example.com/datenschutz?a=1&b=2\n');
    assert.ok(mail.html);
    assert.match(mail.html, /<html lang="de">/);
    assert.match(mail.html, /Wann öffnet der Laden\?\nUnd am Sonntag\?<\/blockquote>/);
    assert.match(mail.html, /<a href="https:\/\/example\.com\/datenschutz\?a=1&amp;b=2"/);
    const row = await until(() => mailTo(service, 'kunde@example.org'), (r) => r?.status === 'sent');
    assert.equal(row?.attempts, 1);
    assert.ok(row?.sent_at);
  });

  test('what a visitor typed is escaped in the HTML part and never becomes markup or a link', async () => {
    const hostile = '<script>alert(1)</script> <a href="javascript:x">click</a> & "quotes"';
    const content = compose('en', { subject: 'Escaping\r\nBcc: victim@example.org', blocks: [{ quote: hostile }, { text: 'See', link: 'javascript:alert(1)' }] });
    await service.ctx.mailer.send({ to: 'escape@example.org', ...content });
    const mail = await smtp.waitFor((m) => m.to.includes('escape@example.org'));
    assert.equal(mail.subject, 'Escaping Bcc: victim@example.org', 'a line break cannot start another header');
    assert.equal(mail.headers.get('bcc'), undefined);
    assert.ok(mail.html);
    assert.ok(!mail.html.includes('<script>'));
    assert.ok(!mail.html.includes('href="javascript'));
    assert.match(mail.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &lt;a href=&quot;javascript:x&quot;&gt;click&lt;\/a&gt; &amp; &quot;quotes&quot;/);
    assert.match(mail.text, /^> <script>alert\(1\)<\/script>/, 'the text part keeps the words as typed');
  });

  test('sending returns once the mail is recorded: a mail server that refuses does not fail the sender', async () => {
    smtp.refuseNext(1, 451);
    const started = Date.now();
    await service.ctx.mailer.send({ to: 'patient@example.org', subject: 'Later', text: 'Eventually.' });
    assert.ok(Date.now() - started < 1000);
    await smtp.waitForRefusals(1);
    const row = await until(() => mailTo(service, 'patient@example.org'), (r) => r?.attempts === 1 && r.last_error !== null);
    assert.equal(row?.status, 'pending');
    assert.match(row?.last_error ?? '', /451|Try again later/);
    // the clean-up after the test: the retry is due in a minute
    await advance(service, RETRY_DELAYS_SECONDS[0]! + 1);
    await smtp.waitFor((m) => m.to.includes('patient@example.org'));
  });

  test('a mail the server refused for now (451) arrives on the retry, once its delay has passed on the clock, and not before', async () => {
    smtp.refuseNext(1, 451);
    await service.ctx.mailer.send({ to: 'retry@example.org', subject: 'Second try', text: 'Arrives on the second attempt.' });
    const failed = await until(() => mailTo(service, 'retry@example.org'), (r) => r?.attempts === 1 && r.last_error !== null);
    const delay = failed!.next_attempt_at.getTime() - service.ctx.clock.now().getTime();
    assert.ok(delay > (RETRY_DELAYS_SECONDS[0]! - 5) * 1000 && delay <= RETRY_DELAYS_SECONDS[0]! * 1000, `retry in ${delay} ms`);

    await advance(service, RETRY_DELAYS_SECONDS[0]! / 2);
    assert.equal(await sweepMail(service.ctx), 0, 'not due yet: nothing is queued');
    assert.ok(!smtp.received.some((m) => m.to.includes('retry@example.org')));

    await advance(service, RETRY_DELAYS_SECONDS[0]! / 2 + 1);
    const mail = await smtp.waitFor((m) => m.to.includes('retry@example.org'));
    assert.equal(mail.subject, 'Second try');
    const sent = await until(() => mailTo(service, 'retry@example.org'), (r) => r?.status === 'sent');
    assert.equal(sent?.attempts, 2);
    assert.equal(smtp.received.filter((m) => m.to.includes('retry@example.org')).length, 1, 'delivered once');
  });

  test('a permanent refusal (550) is not tried again: the mail is given up after one attempt', async () => {
    const refusedBefore = smtp.refused;
    smtp.refuseNext(1, 550);
    await service.ctx.mailer.send({ to: 'nobody@example.org', subject: 'Refused', text: 'No such mailbox.' });
    const row = await until(() => mailTo(service, 'nobody@example.org'), (r) => r?.status === 'failed');
    assert.equal(row?.attempts, 1);
    await advance(service, 86_400);
    assert.equal(await sweepMail(service.ctx), 0);
    assert.equal(smtp.refused, refusedBefore + 1);
  });

  test('a mail server down for a day: the waits between attempts follow the schedule, and after the last attempt the mail is given up', async () => {
    smtp.refuseNext(MAX_ATTEMPTS, 421);
    const refusedBefore = smtp.refused;
    await service.ctx.mailer.send({ to: 'down@example.org', subject: 'Never', text: 'The server stays down.' });
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const row = await until(() => mailTo(service, 'down@example.org'), (r) => r?.attempts === attempt && r.next_attempt_at > service.ctx.clock.now() && r.last_error !== null);
      const wait = (row!.next_attempt_at.getTime() - service.ctx.clock.now().getTime()) / 1000;
      assert.ok(Math.abs(wait - RETRY_DELAYS_SECONDS[attempt - 1]!) < 5, `attempt ${attempt}: waits ${wait} s`);
      await advance(service, RETRY_DELAYS_SECONDS[attempt - 1]! + 1);
    }
    const row = await until(() => mailTo(service, 'down@example.org'), (r) => r?.status === 'failed');
    assert.equal(row?.attempts, MAX_ATTEMPTS);
    assert.equal(smtp.refused - refusedBefore, MAX_ATTEMPTS);
  });

  test('a mail whose job was lost (a process killed after recording it) is sent by the sweep a minute later', async () => {
    const id = await service.ctx.mailer.record(service.ctx.db, { to: 'orphan@example.org', subject: 'Orphan', text: 'Recorded, never queued.' });
    assert.ok(id);
    await advance(service, 61);
    const mail = await smtp.waitFor((m) => m.to.includes('orphan@example.org'));
    assert.equal(mail.subject, 'Orphan');
  });

  test('a mail recorded in a transaction that is rolled back is never sent', async () => {
    await assert.rejects(
      service.ctx.db.transaction().execute(async (trx) => {
        await service.ctx.mailer.record(trx, { to: 'rolledback@example.org', subject: 'Never', text: 'Rolled back.' });
        throw new Error('the change failed');
      }),
    );
    assert.equal(await mailTo(service, 'rolledback@example.org'), undefined);
  });

  test('delivered mails are deleted 7 days after sending, with the addresses and text they hold', async () => {
    await service.ctx.mailer.send({ to: 'kept@example.org', subject: 'Kept a week', text: 'x' });
    await until(() => mailTo(service, 'kept@example.org'), (r) => r?.status === 'sent');
    await advance(service, 6 * 86_400);
    await sweepMail(service.ctx);
    assert.ok(await mailTo(service, 'kept@example.org'));
    await advance(service, 86_400 + 60);
    await until(() => mailTo(service, 'kept@example.org'), (r) => r === undefined);
  });
});

describe('mail without SMTP_URL: the outbox', () => {
  let service: Service;
  before(async () => {
    service = await startService();
  });
  after(async () => service?.close());

  test('the mail is in the outbox at once, text listed by GET /admin/v1/outbox, its HTML part kept beside it; nothing is queued', async () => {
    const content = compose('fr', { subject: 'Bonjour', blocks: [{ text: 'Votre question\u00a0:' }, { quote: '<b>Prix ?</b>' }] });
    await service.ctx.mailer.send({ to: 'client@example.fr', ...content });
    const listed = (await service.admin('GET', '/outbox')).body.data.find((m: { to: string }) => m.to === 'client@example.fr');
    assert.equal(listed.subject, 'Bonjour');
    assert.equal(listed.text, 'Votre question\u00a0:\n\n> <b>Prix ?</b>\n');
    const stored = await sql<{ html: string }>`select html from outbox where recipient = 'client@example.fr'`.execute(service.ctx.db);
    assert.match(stored.rows[0]!.html, /&lt;b&gt;Prix \?&lt;\/b&gt;/);
    assert.equal((await service.ctx.db.selectFrom('mails').select('id').execute()).length, 0);
  });
});
