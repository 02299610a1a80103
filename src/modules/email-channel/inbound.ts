/**
 * The SMTP server of the e-mail channel (docs/email.md), on PARLEY_MAIL_INBOUND_PORT
 * in the processes that serve the API (role api or all). A recipient that is no
 * agent's address is refused at RCPT (550); a mail over MAX_MAIL_BYTES at DATA (552).
 * STARTTLS is offered with the configured certificate, or a self-signed one (tls.ts).
 * The mail is checked and answered before the server says 250, so a mail the service
 * could not handle (451) is sent again by the sending server rather than lost.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { Context } from '../../context.ts';
import { receiveMail, takesAddress, TryLater, type Resolver } from './service.ts';
import { mailTls, type MailTls } from './tls.ts';

/** The largest mail taken, attachments included (a little more than 10 MB of files once base64-encoded). */
export const MAX_MAIL_BYTES = 15 * 1024 * 1024;

export const MAX_CLIENTS = 50;
export const SOCKET_TIMEOUT_MS = 60_000;

/**
 * A mail's bytes as they arrive, up to a limit. smtp-server only flags a message
 * over its size and goes on streaming it, so past the limit the chunks are read
 * and dropped: an over-size mail costs no more memory than the limit.
 */
export class MailCollector {
  private chunks: Buffer[] = [];
  keptBytes = 0;
  tooBig = false;

  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  push(chunk: Buffer): void {
    if (this.tooBig) return;
    if (this.keptBytes + chunk.length > this.limit) {
      this.tooBig = true;
      this.chunks = [];
      this.keptBytes = 0;
      return;
    }
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export interface InboundOptions {
  port: number;
  host: string;
  /** DNS lookups for SPF, DKIM and DMARC (tests hand in their records); the system's resolver otherwise. */
  resolver?: Resolver;
  /** The STARTTLS certificate; by default the configured files or a self-signed one (tls.ts); null: no STARTTLS. */
  tls?: MailTls | null;
}

export interface MailInbound {
  port: number;
  /** Where the STARTTLS certificate came from; undefined when STARTTLS is not offered. */
  tls: MailTls['source'] | undefined;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startMailInbound(ctx: Context, options: InboundOptions): Promise<MailInbound> {
  const name = hostnameOf(ctx.config.publicUrl);
  const tls = options.tls === undefined ? await mailTls(ctx.config, name) : (options.tls ?? undefined);
  const server = new SMTPServer({
    name,
    banner: 'Parley',
    size: MAX_MAIL_BYTES,
    authOptional: true,
    // STARTTLS with a certificate of the service's (never smtp-server's built-in one, whose key is public).
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    logger: false,
    // Bounds on what strangers can hold: connections at once, and an idle connection's life.
    maxClients: MAX_CLIENTS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    onRcptTo(address, _session, callback) {
      takesAddress(ctx, address.address)
        .then((taken) => (taken || forwarded(ctx, address.address) ? callback() : callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`))))
        .catch((error) => {
          console.error('[email] recipient check failed', error);
          callback(smtpError(451, '4.3.0 Try again later'));
        });
    },
    onData(stream, session, callback) {
      const collected = new MailCollector(MAX_MAIL_BYTES);
      stream.on('data', (chunk: Buffer) => collected.push(chunk));
      stream.on('end', () => {
        if (collected.tooBig || (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(smtpError(552, `5.3.4 Message too big: at most ${MAX_MAIL_BYTES} bytes`));
          return;
        }
        handle(ctx, collected.bytes(), session, options.resolver).then(
          () => callback(),
          (error: Error & { responseCode?: number }) => callback(error),
        );
      });
    },
  });
  server.on('error', (error) => console.error('[email] SMTP server', error));
  server.listen(options.port, options.host);
  await once(server.server, 'listening');
  return {
    port: (server.server.address() as AddressInfo).port,
    tls: tls?.source,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function handle(ctx: Context, raw: Buffer, session: SMTPServerSession, resolver: Resolver | undefined): Promise<void> {
  try {
    const handled = await receiveMail(
      ctx,
      {
        raw,
        envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        recipients: session.envelope.rcptTo.map((r) => r.address),
        ip: session.remoteAddress.replace(/^::ffff:/, ''),
        helo: session.hostNameAppearsAs ?? '',
      },
      resolver,
    );
    if (handled.agentId === null) throw smtpError(550, '5.1.1 The mail names no agent of this service');
  } catch (error) {
    if ((error as { responseCode?: number }).responseCode) throw error;
    if (error instanceof TryLater) throw smtpError(451, `4.7.1 ${error.message}`);
    console.error('[email] a received mail could not be handled', error);
    throw smtpError(451, '4.3.0 Try again later');
  }
}

/**
 * An address on the service's own host name takes mail forwarded from the owner's
 * mailbox: the agent is then found by its address in To or Cc (docs/email.md).
 */
function forwarded(ctx: Context, address: string): boolean {
  const domain = address.split('@')[1]?.toLowerCase();
  const own = hostnameOf(ctx.config.publicUrl);
  return domain !== undefined && own.includes('.') && domain === own;
}

function hostnameOf(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname.toLowerCase();
  } catch {
    return 'localhost';
  }
}
