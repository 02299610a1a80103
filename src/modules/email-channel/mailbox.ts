/**
 * The agent's IMAP mailbox (docs/email.md, "IMAP"): its settings (emailChannel.imap,
 * which the API returns, with passwordSet in place of the password) and its row in
 * email_mailboxes (the password sealed with the service's secret key, and how far the
 * mailbox has been read).
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { openSecret, sealSecret, secretKeyOf } from '../../platform/crypto.ts';
import type { Db } from '../../platform/db.ts';
import type { MailboxSettings } from '../agents/mailbox-settings.ts';

export type { MailboxSettings };

export interface MailboxRow {
  agent_id: string;
  password_sealed: string;
  uid_validity: string | number | null;
  last_uid: string | number;
  leased_until: Date | null;
  leased_by: string | null;
  last_checked_at: Date | null;
  last_error: string | null;
  updated_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    email_mailboxes: MailboxRow;
  }
}

/**
 * The mailbox row after a PATCH: a new password sealed; a mailbox removed, deleted;
 * another server, user or folder read from its start again (what is in it now, unread).
 */
export async function saveMailbox(ctx: Context, agentId: string, before: MailboxSettings | undefined, after: MailboxSettings | undefined, password: string | undefined): Promise<void> {
  if (!after) {
    await ctx.db.deleteFrom('email_mailboxes').where('agent_id', '=', agentId).execute();
    return;
  }
  const now = ctx.clock.now();
  const moved = !before || before.host !== after.host || before.user !== after.user || before.folder !== after.folder;
  if (password !== undefined) {
    const sealed = sealSecret(await secretKeyOf(ctx.config), password);
    await sql`insert into email_mailboxes (agent_id, password_sealed, updated_at) values (${agentId}, ${sealed}, ${now})
      on conflict (agent_id) do update set password_sealed = excluded.password_sealed, last_error = null, updated_at = excluded.updated_at`.execute(ctx.db);
  }
  if (moved) {
    await ctx.db.updateTable('email_mailboxes').set({ uid_validity: null, last_uid: 0, last_error: null, updated_at: now }).where('agent_id', '=', agentId).execute();
  }
}

/** The mailbox's password, opened; throws when the secret key is not the one that sealed it. */
export async function mailboxPassword(ctx: Context, row: MailboxRow): Promise<string> {
  return openSecret(await secretKeyOf(ctx.config), row.password_sealed);
}

/** The agents whose channel is on and reads a mailbox. */
export async function mailboxAgents(db: Db): Promise<string[]> {
  const rows = await sql<{ id: string }>`select a.id from agents a join email_mailboxes m on m.agent_id = a.id
    where (a.settings->'emailChannel'->>'enabled') = 'true' and a.settings->'emailChannel'->'imap' is not null and a.status = 'active'
    order by m.last_checked_at nulls first`.execute(db);
  return rows.rows.map((r) => r.id);
}

/**
 * The mailbox taken for a look by this worker until `until`; undefined while another
 * holds it. The database decides, so of several workers (and processes) one looks at a time.
 */
export async function leaseMailbox(db: Db, agentId: string, worker: string, now: Date, until: Date): Promise<MailboxRow | undefined> {
  return db
    .updateTable('email_mailboxes')
    .set({ leased_until: until, leased_by: worker })
    .where('agent_id', '=', agentId)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * How far the mailbox has been handled, written after each mail by the worker that
 * holds it, whose lease it renews until `until`. False when the worker no longer
 * holds the mailbox (its lease ran out and another took it): the look must stop.
 */
export async function recordProgress(db: Db, agentId: string, worker: string, progress: { uidValidity: string; lastUid: number }, until: Date): Promise<boolean> {
  const result = await db
    .updateTable('email_mailboxes')
    .set({ uid_validity: progress.uidValidity, last_uid: progress.lastUid, leased_until: until })
    .where('agent_id', '=', agentId)
    .where('leased_by', '=', worker)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseMailbox(db: Db, agentId: string, worker: string, outcome: { at: Date; error: string | null }): Promise<void> {
  await db
    .updateTable('email_mailboxes')
    .set({ leased_until: null, leased_by: null, last_checked_at: outcome.at, last_error: outcome.error })
    .where('agent_id', '=', agentId)
    .where('leased_by', '=', worker)
    .execute();
}
