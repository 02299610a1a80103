/**
 * Tickets (spec 2.11, 3.3, 4.11): opened by a visitor through the visitor API,
 * read, moved between statuses and annotated by the team through the keyed API.
 * docs/visitors.md ("Tickets") tells the rules and the retention.
 */
import type { z } from 'zod';
import type { Context } from '../../context.ts';
import type { Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { withoutBidiControls } from '../../domain/text.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf } from '../../domain/paging.ts';
import { newId } from '../../platform/ids.ts';
import { admitMailTo } from '../../platform/mail.ts';
import { recordDomainEvent } from '../../platform/domain-events.ts';
import type { Db } from '../../platform/db.ts';
import { requireAgent } from '../agents/access.ts';
import type { Language } from '../agents/schemas.ts';
import { pageAddress } from '../chat/retrieval.ts';
import { requireVisitorConversation, verifyIdentity, type Visitor } from '../visitors/access.ts';
import { confirmationMail, ownerNoticeMail, visitorReplyNoticeMail } from './mails.ts';
import { dashboardPages, noticeRecipients, recordNotices, type Recipients } from '../people/notifications.ts';
import type { entrySchema, openTicketBody, ticketSchema, ticketWithEntriesSchema } from './schemas.ts';
import * as store from './store.ts';
import { ticketMessageId } from './threading.ts';

/** How long a solved ticket is kept before it is deleted (its expiresAt). */
export const SOLVED_RETENTION_DAYS = 90;

export type OpenTicketInput = z.infer<typeof openTicketBody>;
export type TicketView = z.infer<typeof ticketSchema>;
export type TicketWithEntries = z.infer<typeof ticketWithEntriesSchema>;
export type EntryView = z.infer<typeof entrySchema>;

/**
 * A ticket opened by a visitor (POST /visitor/v1/agents/{agentId}/tickets). The
 * ticket, its ticket.created event (for webhooks) and its two mails (the visitor's confirmation, the owner's notice) are
 * recorded in one transaction and the mails are sent after it, by a job: a mail
 * server never holds up the visitor.
 */
export async function openTicket(ctx: Context, visitor: Visitor, input: OpenTicketInput, visitorToken: string | undefined): Promise<{ id: string; number: number }> {
  const settings = visitor.settings.tickets;
  if (!settings.enabled) throw errors.invalidField('tickets.enabled', 'This agent does not take tickets.');
  const conversation = input.conversationId === undefined ? null : await requireVisitorConversation(ctx, visitor, input.conversationId, visitorToken);
  const language = input.language ?? visitor.settings.language;
  const email = input.email.trim();
  const name = withoutBidiControls(input.name ?? '').trim() || null;
  const signedIn = input.identity !== undefined && sameAddress(input.identity.email, email) && (await verifyIdentity(ctx, visitor, input.identity));
  const now = ctx.clock.now();
  const ticket: Omit<store.TicketRow, 'helpdesk'> = {
    id: newId('tkt'),
    workspace_id: visitor.workspaceId,
    agent_id: visitor.agent.id,
    conversation_id: conversation?.id ?? null,
    number: 0,
    status: 'open',
    email,
    name,
    question: input.question.trim(),
    language,
    signed_in: signedIn,
    page_url: pageAddress(input.page?.url),
    created_at: now,
    last_activity_at: now,
    solved_at: null,
    expires_at: null,
  };
  const recipients = await noticeRecipients(ctx.db, visitor.workspaceId, [visitor.agent.id], ['tickets']);
  // Over the address's hourly allowance the ticket is still opened, only not confirmed: refusing it would let
  // anyone who floods an address stop its owner from opening tickets.
  const confirm = await admitMailTo(ctx.db, email, now);
  const mailIds = await ctx.db.transaction().execute(async (trx) => {
    ticket.number = await store.takeTicketNumber(trx, visitor.agent.id);
    await store.insertTicket(trx, ticket);
    await recordTicketCreated(trx, ticket.id, visitor.agent.id, now);
    return recordTicketMails(ctx, trx, visitor, ticket, recipients, confirm);
  });
  await ctx.mailer.dispatch(mailIds);
  return { id: ticket.id, number: ticket.number };
}

/** The ticket.created event (for webhooks), carrying the ticket exactly as GET returns it. */
async function recordTicketCreated(db: Db, ticketId: string, agentId: string, now: Date): Promise<void> {
  const ticket = (await store.findTicket(db, agentId, ticketId, now))!;
  const entries = await store.entriesOf(db, ticketId);
  const data: TicketWithEntries = { ...ticketView(ticket), entries: entries.map(entryView) };
  await recordDomainEvent(db, { workspaceId: ticket.workspace_id, agentId, type: 'ticket.created', data, at: now });
}

/** A signed-in visitor's ticket is one mailed to the very address the site vouched for. */
function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

async function recordTicketMails(
  ctx: Context,
  db: Db,
  visitor: Visitor,
  ticket: Omit<store.TicketRow, 'helpdesk'>,
  recipients: Recipients,
  confirm: boolean,
): Promise<Array<string | null>> {
  const agentName = visitor.settings.name;
  const ids: Array<string | null> = [];
  if (confirm) {
    const confirmation = confirmationMail(ticket.language as Language, {
      agentName,
      number: ticket.number,
      visitor: ticket.signed_in ? { name: ticket.name, question: ticket.question } : null,
      answerTime: visitor.settings.tickets.answerTime,
      privacyUrl: visitor.settings.tickets.privacyUrl,
    });
    // The root of the ticket's mail thread: the team's replies answer it (./threading.ts).
    const messageId = ticketMessageId(ctx.config.publicUrl, ticket.id);
    ids.push(await ctx.mailer.record(db, { to: ticket.email, fromName: agentName, messageId, ...confirmation }));
  }
  if (recipients.emails.length > 0) {
    const notice = ownerNoticeMail(recipients.language, {
      agentName,
      number: ticket.number,
      email: ticket.email,
      name: ticket.name,
      question: ticket.question,
      language: ticket.language,
      signedIn: ticket.signed_in,
      pageUrl: ticket.page_url,
      conversationId: ticket.conversation_id,
      ticketUrl: dashboardPages.ticket(ctx, ticket.agent_id, ticket.id),
    });
    ids.push(...(await recordNotices(ctx, db, recipients, notice)));
  }
  return ids;
}

export interface HeldDraft {
  workspaceId: string;
  agentId: string;
  conversationId: string;
  /** The visitor's address and question, for a ticket this draft opens. */
  email: string;
  question: string;
  language: Language;
  /** The answer held back for a person (spec 2.11, entry kind held). */
  draft: string;
}

/**
 * An answer held for a person (the e-mail channel's review, or a weak answer):
 * a `held` entry on the conversation's ticket, opened (with its ticket.created
 * event) when the conversation has none yet. Nothing is mailed to the visitor.
 */
export async function addHeldDraft(ctx: Context, held: HeldDraft): Promise<{ ticketId: string; entryId: string }> {
  const now = ctx.clock.now();
  const entry = { id: newId('ent'), kind: 'held' as const, body: held.draft, from_address: null, mail_error: null, created_at: now };
  const existing = await ctx.db
    .selectFrom('tickets')
    .select('id')
    .where('agent_id', '=', held.agentId)
    .where('conversation_id', '=', held.conversationId)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  if (existing) {
    const added = await store.addEntry(ctx.db, held.agentId, { ...entry, ticket_id: existing.id }, now);
    if (added) return { ticketId: existing.id, entryId: entry.id };
  }
  const ticket: Omit<store.TicketRow, 'helpdesk'> = {
    id: newId('tkt'),
    workspace_id: held.workspaceId,
    agent_id: held.agentId,
    conversation_id: held.conversationId,
    number: 0,
    status: 'open',
    email: held.email,
    name: null,
    question: held.question,
    language: held.language,
    signed_in: false,
    page_url: null,
    created_at: now,
    last_activity_at: now,
    solved_at: null,
    expires_at: null,
  };
  const recipients = await noticeRecipients(ctx.db, held.workspaceId, [held.agentId], ['tickets']);
  const agent = await ctx.db.selectFrom('agents').select('name').where('id', '=', held.agentId).executeTakeFirst();
  const mailIds = await ctx.db.transaction().execute(async (trx) => {
    ticket.number = await store.takeTicketNumber(trx, held.agentId);
    await store.insertTicket(trx, ticket);
    await trx.insertInto('ticket_entries').values({ ...entry, ticket_id: ticket.id }).execute();
    await recordTicketCreated(trx, ticket.id, held.agentId, now);
    // A new ticket like any other: the people chosen for the agent's tickets are told (a draft waits for them).
    const notice = ownerNoticeMail(recipients.language, {
      agentName: agent?.name ?? 'Parley',
      number: ticket.number,
      email: ticket.email,
      name: null,
      question: ticket.question,
      language: ticket.language,
      signedIn: false,
      pageUrl: null,
      conversationId: ticket.conversation_id,
      ticketUrl: dashboardPages.ticket(ctx, held.agentId, ticket.id),
    });
    return recordNotices(ctx, trx, recipients, notice);
  });
  await ctx.mailer.dispatch(mailIds);
  return { ticketId: ticket.id, entryId: entry.id };
}

/**
 * An entry on the newest ticket of a conversation (a held draft sent: `team`; the
 * visitor's reply by mail: `visitor`, which opens the ticket again); undefined when it has none.
 */
export async function addConversationEntry(
  ctx: Context,
  agentId: string,
  conversationId: string,
  entry: { kind: store.EntryKind; body: string; fromAddress: string | null },
): Promise<EntryView | undefined> {
  const ticket = await ctx.db.selectFrom('tickets').select('id').where('agent_id', '=', agentId).where('conversation_id', '=', conversationId).orderBy('created_at', 'desc').executeTakeFirst();
  if (!ticket) return undefined;
  const now = ctx.clock.now();
  const added = await store.addEntry(ctx.db, agentId, { id: newId('ent'), ticket_id: ticket.id, kind: entry.kind, body: entry.body, from_address: entry.fromAddress, mail_error: null, created_at: now }, now);
  if (added && entry.kind === 'visitor') await store.setStatus(ctx.db, agentId, ticket.id, 'open', now, now);
  return added && entryView(added);
}

/**
 * Tells the people chosen for the agent's tickets that a visitor replied by mail
 * to a ticket (the e-mail channel calls it after adding the `visitor` entry),
 * with the reply quoted and a link to the ticket's page in the dashboard.
 */
export async function notifyVisitorReply(ctx: Context, agentId: string, conversationId: string, reply: { from: string; body: string }): Promise<void> {
  // The conversation's newest ticket: the one addConversationEntry put the reply on.
  const ticket = await ctx.db
    .selectFrom('tickets as t')
    .innerJoin('agents as a', 'a.id', 't.agent_id')
    .select(['t.id', 't.workspace_id', 't.number', 'a.name'])
    .where('t.agent_id', '=', agentId)
    .where('t.conversation_id', '=', conversationId)
    .orderBy('t.created_at', 'desc')
    .executeTakeFirst();
  if (!ticket) return;
  const recipients = await noticeRecipients(ctx.db, ticket.workspace_id, [agentId], ['tickets']);
  const mail = visitorReplyNoticeMail(recipients.language, { agentName: ticket.name ?? 'Parley', number: ticket.number, from: reply.from, body: reply.body, ticketUrl: dashboardPages.ticket(ctx, agentId, ticket.id) });
  await ctx.mailer.dispatch(await recordNotices(ctx, ctx.db, recipients, mail));
}

/** Takes a conversation's `held` entries off its tickets (a held draft discarded); how many. */
/** The `held` entry of one draft (its text) leaves the conversation's ticket; other drafts' entries stay. */
export async function removeHeldEntry(ctx: Context, agentId: string, conversationId: string, draft: string): Promise<number> {
  const entry = await ctx.db
    .selectFrom('ticket_entries')
    .select('id')
    .where('kind', '=', 'held')
    .where('body', '=', draft)
    .where('ticket_id', 'in', (eb) => eb.selectFrom('tickets').select('id').where('agent_id', '=', agentId).where('conversation_id', '=', conversationId))
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  if (!entry) return 0;
  const result = await ctx.db.deleteFrom('ticket_entries').where('id', '=', entry.id).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---------------------------------------------------------------- the team's API

export async function listTickets(ctx: Context, auth: Principal, agentId: string, input: { status?: store.TicketStatus; limit?: number; cursor?: string }) {
  const agent = await requireAgent(ctx, auth, agentId);
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const now = ctx.clock.now();
  const after = decodeCursor(input.cursor);
  const [rows, counts] = await Promise.all([store.listTickets(ctx.db, agent.id, now, { status: input.status }, limit, after), store.countByStatus(ctx.db, agent.id, now)]);
  const { items, nextCursor } = pageOf(rows, limit, (row) => ({ at: row.last_activity_at.toISOString(), id: row.id }));
  return { items: items.map(ticketView), nextCursor, counts };
}

export async function getTicket(ctx: Context, auth: Principal, agentId: string, ticketId: string): Promise<TicketWithEntries> {
  const agent = await requireAgent(ctx, auth, agentId);
  const ticket = await store.findTicket(ctx.db, agent.id, ticketId, ctx.clock.now());
  if (!ticket) throw errors.notFound('ticket');
  const entries = await store.entriesOf(ctx.db, ticket.id);
  return { ...ticketView(ticket), entries: entries.map(entryView) };
}

/** PATCH { status } (spec 3.3): nothing is mailed to the visitor. */
export async function changeStatus(ctx: Context, auth: Principal, agentId: string, ticketId: string, status: store.TicketStatus): Promise<TicketView> {
  const agent = await requireAgent(ctx, auth, agentId);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + SOLVED_RETENTION_DAYS * 86_400_000);
  const ticket = await store.setStatus(ctx.db, agent.id, ticketId, status, now, expiresAt);
  if (!ticket) throw errors.notFound('ticket');
  return ticketView(ticket);
}

/** A note only the team sees; like every entry it moves the ticket's lastActivityAt. */
export async function addNote(ctx: Context, auth: Principal, agentId: string, ticketId: string, body: string): Promise<EntryView> {
  const agent = await requireAgent(ctx, auth, agentId);
  const now = ctx.clock.now();
  const entry = await store.addEntry(ctx.db, agent.id, { id: newId('ent'), ticket_id: ticketId, kind: 'note', body, from_address: null, mail_error: null, created_at: now }, now);
  if (!entry) throw errors.notFound('ticket');
  return entryView(entry);
}

export function ticketView(row: store.Ticket): TicketView {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    email: row.email,
    name: row.name,
    question: row.question,
    language: row.language,
    signedIn: row.signed_in,
    page: row.page_url ? { url: row.page_url } : null,
    conversationId: row.conversation_id,
    createdAt: row.created_at.toISOString(),
    lastActivityAt: row.last_activity_at.toISOString(),
    solvedAt: row.solved_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    helpdesk: row.helpdesk,
  };
}

function entryView(row: store.TicketEntry): EntryView {
  return { id: row.id, kind: row.kind, body: row.body, from: row.from_address, mailError: row.mail_error, createdAt: row.created_at.toISOString() };
}
