import assert from 'node:assert/strict';
import nodemailer from 'nodemailer';
import type { SeededWorkspace, Service } from '../../../test/support/harness.ts';
import type { Resolver } from './service.ts';

/**
 * DNS for the sender checks, with no network: TXT records by name; every other
 * lookup finds nothing (ENOTFOUND), so a sender without records has no SPF, DKIM nor DMARC.
 */
export function testResolver(txt: Record<string, string>): Resolver {
  return async (name, rrtype) => {
    const record = txt[name.toLowerCase()];
    if (rrtype === 'TXT' && record !== undefined) return [[record]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
}

export interface SentMail {
  from: string;
  to: string | string[];
  subject: string;
  text: string;
  envelope?: { from: string | false; to: string[] };
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
  raw?: string;
}

/** A mail sent to the service's inbound port over real SMTP (nodemailer as the client). */
export async function sendToInbound(port: number, mail: SentMail): Promise<{ messageId: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true } as never);
  try {
    const info = await transport.sendMail(mail.raw ? { envelope: mail.envelope, raw: mail.raw } : (mail as never));
    return { messageId: String(info.messageId ?? '').replace(/^<|>$/g, '') };
  } finally {
    transport.close();
  }
}

/** The SMTP reply code a refused mail met. */
export async function refusalOf(port: number, mail: SentMail): Promise<number | undefined> {
  try {
    await sendToInbound(port, mail);
    return undefined;
  } catch (error) {
    return (error as { responseCode?: number }).responseCode;
  }
}

export async function enableEmail(service: Service, ws: SeededWorkspace, agentId: string, emailChannel: Record<string, unknown>): Promise<void> {
  const reply = await service.api('PATCH', `/agents/${agentId}`, { key: ws.keys.manage, body: { emailChannel: { enabled: true, review: false, ...emailChannel } } });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
}
