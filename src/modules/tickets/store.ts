import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Db, Tables } from '../../platform/db.ts';
import type { Position } from '../../domain/paging.ts';

export const TICKET_STATUSES = ['open', 'waiting', 'solved'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const ENTRY_KINDS = ['visitor', 'team', 'note', 'held'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface Helpdesk {
  provider: string;
  number: string;
  url: string;
}

export interface TicketRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  conversation_id: string | null;
  number: number;
  status: TicketStatus;
  email: string;
  name: string | null;
  question: string;
  language: string;
  signed_in: boolean;
  page_url: string | null;
  helpdesk: Helpdesk | null;
  created_at: Date;
  last_activity_at: Date;
  solved_at: Date | null;
  expires_at: Date | null;
}

export interface TicketEntryRow {
  id: string;
  ticket_id: string;
  kind: EntryKind;
  body: string;
  from_address: string | null;
  mail_error: string | null;
  created_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    tickets: TicketRow;
    ticket_entries: TicketEntryRow;
    ticket_numbers: { agent_id: string; last_number: number };
  }
}

export type Ticket = Selectable<TicketRow>;
export type TicketEntry = Selectable<TicketEntryRow>;

/**
 * The agent's next ticket number, taken in the caller's transaction: the counter's row
 * stays locked until it commits, so tickets opened together queue for their numbers,
 * and a ticket that is not committed gives its number back.
 */
export async function takeTicketNumber(db: Db, agentId: string): Promise<number> {
  const row = await db
    .insertInto('ticket_numbers')
    .values({ agent_id: agentId, last_number: 1 })
    .onConflict((oc) => oc.column('agent_id').doUpdateSet({ last_number: sql`ticket_numbers.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return row.last_number;
}

export async function insertTicket(db: Db, ticket: Omit<TicketRow, 'helpdesk'>): Promise<void> {
  await db.insertInto('tickets').values({ ...ticket, helpdesk: null }).execute();
}

/**
 * Tickets still there for the team: a solved ticket past its expiresAt is gone for
 * reads at once, whether or not the expiry sweep has deleted it yet.
 */
function visible(db: Db, agentId: string, now: Date) {
  return db.selectFrom('tickets').where('agent_id', '=', agentId).where(notExpired(now));
}

function notExpired(now: Date) {
  return (eb: ExpressionBuilder<Tables, 'tickets'>) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
}

export async function findTicket(db: Db, agentId: string, ticketId: string, now: Date): Promise<Ticket | undefined> {
  return visible(db, agentId, now).selectAll().where('id', '=', ticketId).executeTakeFirst();
}

/** Most recent activity first, limit + 1 rows for paging. */
export async function listTickets(db: Db, agentId: string, now: Date, filter: { status?: TicketStatus }, limit: number, after?: Position): Promise<Ticket[]> {
  let query = visible(db, agentId, now).selectAll();
  if (filter.status) query = query.where('status', '=', filter.status);
  if (after) {
    const at = new Date(after.at);
    query = query.where((eb) => eb.or([eb('last_activity_at', '<', at), eb.and([eb('last_activity_at', '=', at), eb('id', '<', after.id)])]));
  }
  return query.orderBy('last_activity_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

/** The agent's tickets per status, as the list sees them (expired ones left out). */
export async function countByStatus(db: Db, agentId: string, now: Date): Promise<Record<TicketStatus, number>> {
  const rows = await visible(db, agentId, now)
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const counts: Record<TicketStatus, number> = { open: 0, waiting: 0, solved: 0 };
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

export async function entriesOf(db: Db, ticketId: string): Promise<TicketEntry[]> {
  return db.selectFrom('ticket_entries').selectAll().where('ticket_id', '=', ticketId).orderBy('created_at').orderBy('id').execute();
}

/**
 * Sets the status. Solving stamps solvedAt and expiresAt (a ticket solved again keeps
 * its first stamps); any other status clears them.
 */
export async function setStatus(db: Db, agentId: string, ticketId: string, status: TicketStatus, now: Date, expiresAt: Date): Promise<Ticket | undefined> {
  const solving = status === 'solved';
  return db
    .updateTable('tickets')
    .set({
      status,
      solved_at: solving ? sql<Date>`coalesce(solved_at, ${now})` : null,
      expires_at: solving ? sql<Date>`coalesce(expires_at, ${expiresAt})` : null,
    })
    .where('id', '=', ticketId)
    .where('agent_id', '=', agentId)
    .where(notExpired(now))
    .returningAll()
    .executeTakeFirst();
}

/** Adds an entry and moves the ticket's lastActivityAt to it, together; undefined when the ticket is gone. */
export async function addEntry(db: Db, agentId: string, entry: TicketEntryRow, now: Date): Promise<TicketEntry | undefined> {
  return db.transaction().execute((trx) => insertEntry(trx, agentId, entry, now));
}

/** An entry and the ticket's last activity, within the caller's transaction; undefined when the ticket is gone or expired. */
export async function insertEntry(trx: Db, agentId: string, entry: TicketEntryRow, now: Date): Promise<TicketEntry | undefined> {
  const touched = await trx
    .updateTable('tickets')
    .set({ last_activity_at: entry.created_at })
    .where('id', '=', entry.ticket_id)
    .where('agent_id', '=', agentId)
    .where(notExpired(now))
    .returning('id')
    .executeTakeFirst();
  if (!touched) return undefined;
  return trx.insertInto('ticket_entries').values(entry).returningAll().executeTakeFirstOrThrow();
}

export async function deleteExpiredTickets(db: Db, now: Date): Promise<number> {
  const deleted = await db.deleteFrom('tickets').where('expires_at', '<=', now).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** Where the owner's notice goes and in which language it is written. */
export async function workspaceOwner(db: Db, workspaceId: string): Promise<{ email: string | null; language: string } | undefined> {
  const row = await db.selectFrom('workspaces').select(['owner_email', 'language']).where('id', '=', workspaceId).executeTakeFirst();
  return row && { email: row.owner_email, language: row.language };
}
