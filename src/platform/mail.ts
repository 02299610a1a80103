import nodemailer from 'nodemailer';
import type { Db } from './db.ts';
import type { Clock } from './clock.ts';
import { newId } from './ids.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

const FROM = 'Parley <no-reply@parley.local>';

/** Real SMTP when SMTP_URL is set; otherwise the outbox table, readable through the operator API. */
export function createMailer(smtpUrl: string | undefined, db: Db, clock: Clock): Mailer {
  if (smtpUrl) {
    const transport = nodemailer.createTransport(smtpUrl);
    return { send: async (mail) => void (await transport.sendMail({ from: FROM, ...mail })) };
  }
  return {
    send: async (mail) => {
      await db
        .insertInto('outbox')
        .values({ id: newId('mail'), recipient: mail.to, subject: mail.subject, body: mail.text, created_at: clock.now() })
        .execute();
    },
  };
}
