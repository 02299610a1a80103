/**
 * The third way mail reaches an agent (docs/email.md, "IMAP"): the worker looks into
 * the agent's own mailbox every PARLEY_MAIL_IMAP_POLL_SECONDS (imapflow), takes the
 * unread mails that arrived since its last look, hands each to the same receiveMail
 * as the SMTP server, then marks it read (and moves it, when moveTo is set).
 *
 * Each mail is taken once, whatever the number of workers and restarts, by three
 * records in the database: a lease on the mailbox (one worker looks at a time,
 * renewed after each mail; a look that lost it stops), the highest UID handled
 * (written after each mail), and the received mail's claim by its
 * Message-ID (a mail handled but not yet recorded as such is not answered twice).
 */
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { sql } from 'kysely';
import { ImapFlow } from 'imapflow';
import type { Context } from '../../context.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { guardedAddresses } from '../../platform/safe-address.ts';
import { MAX_MAIL_BYTES } from './inbound.ts';
import { leaseMailbox, mailboxAgents, mailboxPassword, recordProgress, releaseMailbox, type MailboxRow, type MailboxSettings } from './mailbox.ts';
import { receiveMail, TryLater, type Resolver } from './service.ts';

/** A look holds its mailbox this long at most; a worker that dies holding it leaves it to the next after this. */
export const LEASE_SECONDS = 5 * 60;
/** Mails handled in one look; the rest wait for the next. */
export const MAILS_PER_LOOK = 50;

export interface LookResult {
  /** Mails handed to the channel (answered, held, or recorded as not to be answered). */
  taken: number;
  /** Why the look stopped short (cannot connect, wrong password, limits), as kept in email_mailboxes.last_error. */
  error: string | null;
}

/**
 * One look into one agent's mailbox; undefined when another worker is looking.
 * Failures are kept on the mailbox's row (and logged), not thrown: the next look tries again.
 */
export async function lookIntoMailbox(ctx: Context, agentId: string, options: { resolver?: Resolver } = {}): Promise<LookResult | undefined> {
  const worker = `${hostname()}:${process.pid}:${randomBase62(8)}`;
  const now = ctx.clock.now();
  const row = await leaseMailbox(ctx.db, agentId, worker, now, new Date(now.getTime() + LEASE_SECONDS * 1000));
  if (!row) return undefined;
  const result: LookResult = { taken: 0, error: null };
  try {
    const settings = await settingsOf(ctx, agentId);
    if (settings) await readMailbox(ctx, row, settings, worker, result, options.resolver);
  } catch (error) {
    result.error = describe(error);
    console.warn(`[email] the mailbox of agent ${agentId}: ${result.error}`);
  } finally {
    await releaseMailbox(ctx.db, agentId, worker, { at: ctx.clock.now(), error: result.error });
  }
  return result;
}

/** Every mailbox of the service looked into once, one after another. */
export async function lookIntoMailboxes(ctx: Context, options: { resolver?: Resolver } = {}): Promise<void> {
  for (const agentId of await mailboxAgents(ctx.db)) await lookIntoMailbox(ctx, agentId, options);
}

async function settingsOf(ctx: Context, agentId: string): Promise<(MailboxSettings & { address: string }) | undefined> {
  const rows = await sql<{ imap: MailboxSettings | null; address: string | null }>`select settings->'emailChannel'->'imap' as imap, settings->'emailChannel'->>'address' as address
    from agents where id = ${agentId} and (settings->'emailChannel'->>'enabled') = 'true'`.execute(ctx.db);
  const found = rows.rows[0];
  return found?.imap && found.address ? { ...found.imap, address: found.address } : undefined;
}

async function readMailbox(ctx: Context, row: MailboxRow, settings: MailboxSettings, worker: string, result: LookResult, resolver: Resolver | undefined): Promise<void> {
  // The same rules as every outbound fetch: a public address, or a private one under PARLEY_ALLOW_PRIVATE_URLS;
  // the connection goes to the address checked, with the name kept for the certificate.
  const [address] = await guardedAddresses(settings.host, ctx.config.allowPrivateUrls);
  const client = new ImapFlow({
    host: address!,
    port: settings.port,
    secure: settings.secure,
    ...(isIP(settings.host.replace(/^\[(.*)\]$/, '$1')) ? {} : { servername: settings.host }),
    auth: { user: settings.user, pass: await mailboxPassword(ctx, row) },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: 30_000,
    greetingTimeout: 15_000,
    socketTimeout: 120_000,
  } as never);
  client.on('error', (error: Error) => console.warn(`[email] IMAP ${settings.host}: ${error.message}`));
  await client.connect();
  try {
    const lock = await client.getMailboxLock(settings.folder);
    try {
      const mailbox = client.mailbox as { uidValidity: bigint | number } | false;
      if (!mailbox) throw new Error(`the folder ${settings.folder} could not be opened`);
      const uidValidity = String(mailbox.uidValidity);
      // Another UIDVALIDITY: the server renumbered the folder, and the unread mails are read again (their claims hold).
      let lastUid = row.uid_validity !== null && String(row.uid_validity) === uidValidity ? Number(row.last_uid) : 0;
      const found = (await client.search({ seen: false, uid: `${lastUid + 1}:*` }, { uid: true })) || [];
      // "n:*" always names the newest mail, also one below n: only those above are new.
      const uids = found.filter((uid) => uid > lastUid).sort((a, b) => a - b).slice(0, MAILS_PER_LOOK);
      for (const uid of uids) {
        const range = String(uid);
        const size = (await client.fetchOne(range, { size: true }, { uid: true })) || undefined;
        if (size && (size.size ?? 0) > MAX_MAIL_BYTES) {
          // Passed over, left unread for the owner: the SMTP server refuses such a mail (552).
          console.warn(`[email] the mailbox of agent ${row.agent_id}: a mail of ${size.size} bytes is over the ${MAX_MAIL_BYTES} taken; passed over`);
        } else if (size) {
          const message = await client.fetchOne(range, { source: true }, { uid: true });
          if (message && message.source) await takeMail(ctx, row.agent_id, message.source, resolver);
          await client.messageFlagsAdd(range, ['\\Seen'], { uid: true });
          if (settings.moveTo) await client.messageMove(range, settings.moveTo, { uid: true });
          result.taken++;
        }
        lastUid = uid;
        await progress(ctx, row.agent_id, worker, { uidValidity, lastUid });
      }
      if (uids.length === 0) await progress(ctx, row.agent_id, worker, { uidValidity, lastUid });
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/**
 * How far the look got, written with the lease renewed for another LEASE_SECONDS; a
 * worker that lost its lease (it ran out, and another took the mailbox) stops here.
 */
async function progress(ctx: Context, agentId: string, worker: string, at: { uidValidity: string; lastUid: number }): Promise<void> {
  const until = new Date(ctx.clock.now().getTime() + LEASE_SECONDS * 1000);
  if (!(await recordProgress(ctx.db, agentId, worker, at, until))) throw new Error('the mailbox was taken by another worker (this look outlasted its lease); stopped');
}

/** One mail to the channel. A mail that must wait (the limits) stops the look; it is taken again at the next. */
async function takeMail(ctx: Context, agentId: string, raw: Buffer, resolver: Resolver | undefined): Promise<void> {
  try {
    await receiveMail(ctx, { raw, envelopeFrom: '', recipients: [], ip: '', helo: '', mailbox: { agentId } }, resolver);
  } catch (error) {
    if (error instanceof TryLater) throw new Error(`waiting: ${error.message}`);
    throw error;
  }
}

function describe(error: unknown): string {
  const e = error as { message?: string; responseText?: string; authenticationFailed?: boolean; code?: string };
  if (e?.authenticationFailed) return 'the IMAP server refused the user name or password';
  return (e?.responseText || e?.message || String(error)).slice(0, 500);
}
