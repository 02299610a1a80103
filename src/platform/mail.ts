/**
 * Mail out: the one way the product sends mail. A mail is recorded first and
 * delivered by a durable job (modules/mail/delivery.ts), so a slow or failing
 * mail server never holds up, nor fails, the request that caused the mail; a
 * failed delivery is tried again later (docs/visitors.md, "Mail").
 *
 * Without SMTP_URL the outbox is the delivery: the mail is written there at once
 * (readable through GET /admin/v1/outbox) and nothing is queued.
 */
import { sql } from 'kysely';
import type { Db } from './db.ts';
import type { Clock } from './clock.ts';
import type { Queue } from './queue.ts';
import { newId } from './ids.ts';
import { fingerprint } from './crypto.ts';

export interface Mail {
  to: string;
  subject: string;
  /** The plain-text part; every mail has one. */
  text: string;
  /** The HTML part (see modules/mail/compose.ts, which writes both parts from one content). */
  html?: string;
  /** Display name of the sender, such as the agent's name; the address is the service's own. */
  fromName?: string;
  /** Where replies go (Reply-To), when not to the service's no-reply address. */
  replyTo?: string;
  /** Files sent with the mail; an image with a contentId is shown inline by the HTML part (cid:<contentId>). */
  attachments?: MailAttachment[];
  /** Sent from this address (the agent's, in the e-mail channel) instead of the service's no-reply one. */
  fromAddress?: string;
  /** Threading headers, each with its angle brackets (`<id@host>`); without messageId nodemailer makes one. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /**
   * Written by an agent, not a person: sent with `Auto-Submitted: auto-replied` and
   * `X-Auto-Response-Suppress: All`, so other robots (another agent, an out-of-office) do not answer it.
   */
  autoReply?: boolean;
}

export interface MailAttachment {
  fileName: string;
  contentType: string;
  contentId?: string;
  content: Uint8Array;
}

export interface Mailer {
  /** Records the mail and queues its delivery; returns once it is recorded, never waiting for the mail server. */
  send(mail: Mail): Promise<void>;
  /**
   * The same in two steps, for mail that belongs to a change made in a transaction:
   * `record` writes it with the caller's transaction (so the mail exists exactly when
   * the change does), `dispatch` queues what was recorded once it is committed.
   */
  record(db: Db, mail: Mail): Promise<string | null>;
  dispatch(mailIds: Array<string | null>): Promise<void>;
}

export const DELIVER_MAIL_JOB = 'mail.deliver';
export const DELIVER_MAIL_QUEUE = { retryLimit: 2, retryDelaySeconds: 10, expireInSeconds: 5 * 60 };

export interface DeliverMailJob {
  v: 1;
  mailId: string;
}

export type MailStatus = 'pending' | 'sent' | 'failed';

export interface MailRow {
  id: string;
  recipient: string;
  from_name: string | null;
  subject: string;
  text_body: string;
  html_body: string | null;
  status: MailStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
  reply_to: string | null;
  from_address: string | null;
  /** Threading headers (migration 024); references separated by spaces. */
  message_id: string | null;
  in_reply_to: string | null;
  references_ids: string | null;
  /** Mail.autoReply (migration 030). */
  auto_reply: boolean;
}

export interface MailAttachmentRow {
  mail_id: string;
  position: number;
  file_name: string;
  content_type: string;
  content_id: string | null;
  content: Uint8Array;
}

declare module './db.ts' {
  interface Tables {
    mails: MailRow;
    mail_attachments: MailAttachmentRow;
    mail_recipient_counts: { recipient_hash: string; hour_start: Date; mails: number };
  }
}

/** Mail recorded for SMTP delivery while SMTP_URL is set; the outbox otherwise. */
export function createMailer(smtpUrl: string | undefined, db: Db, clock: Clock, queue: Queue): Mailer {
  const record = async (within: Db, mail: Mail): Promise<string | null> => {
    if (!smtpUrl) {
      await writeOutbox(within, mail, clock.now());
      return null;
    }
    const id = newId('mail');
    const now = clock.now();
    await within
      .insertInto('mails')
      .values({
        id,
        recipient: mail.to,
        from_name: mail.fromName ?? null,
        subject: mail.subject,
        text_body: mail.text,
        html_body: mail.html ?? null,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        sent_at: null,
        reply_to: mail.replyTo ?? null,
        from_address: mail.fromAddress ?? null,
        message_id: mail.messageId ?? null,
        in_reply_to: mail.inReplyTo ?? null,
        references_ids: mail.references?.length ? mail.references.join(' ') : null,
        auto_reply: mail.autoReply ?? false,
      })
      .execute();
    for (const [position, file] of (mail.attachments ?? []).entries()) {
      await within
        .insertInto('mail_attachments')
        .values({ mail_id: id, position, file_name: file.fileName, content_type: file.contentType, content_id: file.contentId ?? null, content: file.content })
        .execute();
    }
    return id;
  };
  const dispatch = async (mailIds: Array<string | null>): Promise<void> => {
    for (const mailId of mailIds) {
      if (mailId === null) continue;
      try {
        await queue.define(DELIVER_MAIL_JOB, DELIVER_MAIL_QUEUE);
        await queue.send<DeliverMailJob>(DELIVER_MAIL_JOB, { v: 1, mailId });
      } catch (error) {
        // The mail is recorded: the delivery sweep sends it a little later. The request goes on.
        console.error(`[mail] queueing ${mailId} failed; the sweep will deliver it`, error);
      }
    }
  };
  return {
    send: async (mail) => dispatch([await record(db, mail)]),
    record,
    dispatch,
  };
}

/** The outbox row of a mail, as GET /admin/v1/outbox lists it (the HTML part is kept beside it). */
export async function writeOutbox(db: Db, mail: Mail, at: Date): Promise<void> {
  await sql`insert into outbox (id, recipient, subject, body, html, created_at)
    values (${newId('mail')}, ${mail.to}, ${mail.subject}, ${mail.text}, ${mail.html ?? null}, ${at})`.execute(db);
}

/** The sender: the service's own no-reply address on its public host name, under the name the mail gives. */
export function senderOf(publicUrl: string, fromName: string | null): { name: string; address: string } {
  let host = 'parley.local';
  try {
    const hostname = new URL(publicUrl).hostname;
    // localhost or an IP address is no mail domain
    if (hostname.includes('.') && !/^[\d.]+$/.test(hostname) && !hostname.includes(':')) host = hostname;
  } catch {
    // a public URL that does not parse: keep the placeholder domain
  }
  return { name: oneLineHeader(fromName ?? '') || 'Parley', address: `no-reply@${host}` };
}

/** Mails a visitor-typed address may be sent in one clock hour, by every workspace together. */
export const MAILS_PER_RECIPIENT_PER_HOUR = 5;
const HOUR_MS = 3_600_000;

/**
 * Counts one mail to an address someone typed into a form (not the owner's own
 * address) and says whether it may be sent: at most MAILS_PER_RECIPIENT_PER_HOUR
 * in a clock hour across the service. Counted in the database, in one statement,
 * so every process of a deployment shares the count and two requests at once
 * cannot both take the last mail. Run outside the caller's transaction: a count
 * held by a transaction would make every form post to that address wait for it.
 */
export async function admitMailTo(db: Db, address: string, now: Date): Promise<boolean> {
  const hourStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  const counted = await db
    .insertInto('mail_recipient_counts')
    .values({ recipient_hash: fingerprint(address.trim().toLowerCase()), hour_start: hourStart, mails: 1 })
    .onConflict((conflict) => conflict.columns(['recipient_hash', 'hour_start']).doUpdateSet({ mails: sql`mail_recipient_counts.mails + 1` }))
    .returning('mails')
    .executeTakeFirstOrThrow();
  await db.deleteFrom('mail_recipient_counts').where('hour_start', '<', hourStart).execute();
  return counted.mails <= MAILS_PER_RECIPIENT_PER_HOUR;
}

/** A header's value on one line: a line break in a name or subject must not start another header. */
export function oneLineHeader(value: string): string {
  return value.replace(/[\r\n\u0085\u2028\u2029]+/g, ' ').trim();
}
