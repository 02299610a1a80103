/**
 * Delivering recorded mail (platform/mail.ts). Each mail gets a job the moment it
 * is recorded; the job claims the mail and hands it to SMTP (SMTP_URL) or the outbox.
 * A failed attempt schedules the next on the mail's row, and a sweep (every 15 s and
 * whenever the test clock moves) queues the mails that have fallen due, so retries
 * follow the service's clock and a job lost with a crashed process is made up for.
 * A mail server's permanent refusal (5xx) is not retried.
 */
import type { Transporter } from 'nodemailer';
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { DELIVER_MAIL_JOB, DELIVER_MAIL_QUEUE, oneLineHeader, senderOf, writeOutbox, type DeliverMailJob, type MailRow } from '../../platform/mail.ts';
import { runPeriodically } from '../../platform/periodic.ts';

/** The wait after each failed attempt: 8 attempts over about 22 hours, then the mail is given up. */
export const RETRY_DELAYS_SECONDS = [60, 5 * 60, 15 * 60, 60 * 60, 3 * 3600, 6 * 3600, 12 * 3600];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** An attempt's claim: a worker that dies mid-send leaves the mail to be tried again after this. */
const LEASE_SECONDS = 5 * 60;
/** A mail recorded this recently is left to the job queued with it. */
const FRESH_SECONDS = 60;
const SWEEP_EVERY_MS = 15_000;
/** Rows kept for the operator's inspection, then deleted with the addresses and text they hold. */
const KEEP_SENT_DAYS = 7;
const KEEP_FAILED_DAYS = 30;

export interface MailTransport {
  deliver(mail: MailRow): Promise<void>;
}

export function mailTransport(ctx: Context): MailTransport {
  const smtpUrl = ctx.config.smtpUrl;
  if (!smtpUrl) {
    // SMTP_URL was set when the mail was recorded and is not any more: the outbox takes it.
    return { deliver: (mail) => writeOutbox(ctx.db, { to: mail.recipient, subject: mail.subject, text: mail.text_body, html: mail.html_body ?? undefined }, ctx.clock.now()) };
  }
  // nodemailer is loaded with the first mail sent, not by every process that starts.
  let opened: Promise<Transporter> | undefined;
  const openTransport = async () => {
    const { default: mailer } = await import('nodemailer');
    const transport = mailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000 } as never);
    ctx.onClose(async () => transport.close());
    return transport;
  };
  return {
    deliver: async (mail) => {
      const transport = await (opened ??= openTransport());
      const attachments = await ctx.db.selectFrom('mail_attachments').selectAll().where('mail_id', '=', mail.id).orderBy('position').execute();
      await transport.sendMail({
        from: mail.from_address ? { name: mail.from_name ?? '', address: mail.from_address } : senderOf(ctx.config.publicUrl, mail.from_name),
        to: mail.recipient,
        subject: oneLineHeader(mail.subject),
        text: mail.text_body,
        ...(mail.html_body ? { html: mail.html_body } : {}),
        ...(mail.reply_to ? { replyTo: mail.reply_to } : {}),
        ...(mail.message_id ? { messageId: mail.message_id } : {}),
        ...(mail.in_reply_to ? { inReplyTo: mail.in_reply_to } : {}),
        ...(mail.references_ids ? { references: mail.references_ids.split(' ') } : {}),
        ...(mail.auto_reply ? { headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' } } : {}),
        ...(attachments.length > 0
          ? {
              attachments: attachments.map((file) => ({
                filename: file.file_name,
                contentType: file.content_type,
                content: Buffer.from(file.content),
                ...(file.content_id ? { cid: file.content_id } : {}),
              })),
            }
          : {}),
      });
    },
  };
}

/** One attempt at one mail; a mail not due (sent, given up, or claimed by another attempt) is left alone. */
export async function deliverMail(ctx: Context, transport: MailTransport, mailId: string): Promise<void> {
  const now = ctx.clock.now();
  const mail = await ctx.db
    .updateTable('mails')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: secondsAfter(now, LEASE_SECONDS), last_error: null }))
    .where('id', '=', mailId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .returningAll()
    .executeTakeFirst();
  if (!mail) return;
  try {
    await transport.deliver(mail);
  } catch (error) {
    await recordFailure(ctx, mail, error);
    return;
  }
  await ctx.db.updateTable('mails').set({ status: 'sent', sent_at: ctx.clock.now(), last_error: null }).where('id', '=', mail.id).execute();
}

async function recordFailure(ctx: Context, mail: MailRow, error: unknown): Promise<void> {
  const now = ctx.clock.now();
  const message = error instanceof Error ? error.message.slice(0, 1000) : String(error);
  const givenUp = isPermanent(error) || mail.attempts >= MAX_ATTEMPTS;
  await ctx.db
    .updateTable('mails')
    .set(givenUp ? { status: 'failed', last_error: message, next_attempt_at: now } : { last_error: message, next_attempt_at: secondsAfter(now, RETRY_DELAYS_SECONDS[mail.attempts - 1]!) })
    .where('id', '=', mail.id)
    .execute();
  console.error(`[mail] ${mail.id} attempt ${mail.attempts} failed${givenUp ? ', given up' : ''}: ${message}`);
}

/** A 5xx reply (no such mailbox, refused): the same mail would be refused again. */
function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** Queues the mails that have fallen due and deletes old rows; returns how many were queued. */
export async function sweepMail(ctx: Context): Promise<number> {
  const now = ctx.clock.now();
  const due = await ctx.db
    .selectFrom('mails')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('attempts', '>', 0), eb('created_at', '<=', secondsAfter(now, -FRESH_SECONDS))]))
    .orderBy('next_attempt_at')
    .limit(500)
    .execute();
  if (due.length > 0) await ctx.queue.define(DELIVER_MAIL_JOB, DELIVER_MAIL_QUEUE);
  for (const { id } of due) await ctx.queue.send<DeliverMailJob>(DELIVER_MAIL_JOB, { v: 1, mailId: id });
  await sql`delete from mails
    where (status = 'sent' and sent_at < ${secondsAfter(now, -KEEP_SENT_DAYS * 86_400)})
       or (status = 'failed' and next_attempt_at < ${secondsAfter(now, -KEEP_FAILED_DAYS * 86_400)})`.execute(ctx.db);
  return due.length;
}

function secondsAfter(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}

/** The worker starter (src/workers.ts). */
export async function mailWorker(ctx: Context): Promise<void> {
  const transport = mailTransport(ctx);
  await ctx.queue.define(DELIVER_MAIL_JOB, DELIVER_MAIL_QUEUE);
  await ctx.queue.work<DeliverMailJob>(DELIVER_MAIL_JOB, (job) => deliverMail(ctx, transport, job.mailId), { concurrency: 4 });
  const sweep = runPeriodically({ name: 'mail', everyMs: SWEEP_EVERY_MS, testClock: ctx.testClock }, () => sweepMail(ctx));
  ctx.onClose(sweep.stop);
}
