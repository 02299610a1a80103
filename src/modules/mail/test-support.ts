/**
 * A real SMTP server for tests (smtp-server), with a small reader of the MIME
 * messages nodemailer writes: headers (RFC 2047 words decoded), and the text and
 * HTML parts (quoted-printable or base64, UTF-8). It can refuse the next messages
 * with a given reply code, to test retries.
 */
import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  headers: Map<string, string>;
  from: string;
  subject: string;
  text: string;
  html: string | undefined;
  raw: string;
}

export interface SmtpCapture {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Messages refused so far. */
  refused: number;
  /** Refuses the next `count` messages with this reply code (451: try later; 550: never). */
  refuseNext(count: number, code: number): void;
  /** Resolves with the first received mail (already received or still to come) that matches. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Resolves once `count` messages in all have been refused. */
  waitForRefusals(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const events = new EventEmitter();
  const received: ReceivedMail[] = [];
  let refusing = { count: 0, code: 451 };
  const capture: SmtpCapture = {
    url: '',
    received,
    refused: 0,
    refuseNext: (count, code) => void (refusing = { count, code }),
    waitFor: async (match, timeoutMs = 60_000) => {
      const signal = AbortSignal.timeout(timeoutMs);
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        await once(events, 'change', { signal }).catch(() => {
          throw new Error(`no matching mail within ${timeoutMs} ms; received: ${JSON.stringify(received.map((m) => [m.to, m.subject]))}`);
        });
      }
    },
    waitForRefusals: async (count, timeoutMs = 60_000) => {
      const signal = AbortSignal.timeout(timeoutMs);
      while (capture.refused < count) {
        await once(events, 'change', { signal }).catch(() => {
          throw new Error(`only ${capture.refused} of ${count} refusals within ${timeoutMs} ms`);
        });
      }
    },
    close: async () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refusing.count > 0) {
          refusing.count--;
          capture.refused++;
          events.emit('change');
          return callback(Object.assign(new Error(refusing.code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: refusing.code }));
        }
        const raw = Buffer.concat(chunks).toString('latin1');
        received.push({ ...readMessage(raw), to: session.envelope.rcptTo.map((r) => r.address), raw });
        events.emit('change');
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  capture.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return capture;
}

/** An address that refuses connections: for a mail server that is down. */
export function unreachableSmtpUrl(): string {
  return 'smtp://127.0.0.1:1';
}

// ---------------------------------------------------------------- reading MIME

function readMessage(raw: string): Omit<ReceivedMail, 'to' | 'raw'> {
  const { headers, body } = splitPart(raw);
  const parts = { text: '', html: undefined as string | undefined };
  readBody(headers, body, parts);
  return { headers, from: decodeWords(headers.get('from') ?? ''), subject: decodeWords(headers.get('subject') ?? ''), ...parts };
}

function splitPart(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  // Folded header lines go on with whitespace.
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function readBody(headers: Map<string, string>, body: string, into: { text: string; html: string | undefined }): void {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const sections = body.split(new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*(?:\\r?\\n|$)`));
    // The first section is the preamble, the last the epilogue.
    for (const section of sections.slice(1, -1)) {
      const part = splitPart(section);
      readBody(part.headers, part.body, into);
    }
    return;
  }
  const content = decodeTransfer(headers.get('content-transfer-encoding') ?? '7bit', body).toString('utf8').replace(/\r\n/g, '\n');
  if (/^text\/html/i.test(type)) into.html = content;
  else if (/^text\/plain/i.test(type)) into.text = content;
}

function decodeTransfer(encoding: string, body: string): Buffer {
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (/quoted-printable/i.test(encoding)) return decodeQuotedPrintable(body);
  return Buffer.from(body, 'latin1');
}

function decodeQuotedPrintable(text: string): Buffer {
  const unfolded = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < unfolded.length; i++) {
    const hex = unfolded.slice(i + 1, i + 3);
    if (unfolded[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(unfolded.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=); whitespace between two of them is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')).toString('utf8'),
    );
}
