/**
 * Held e-mail drafts handled from their ticket in the dashboard (docs/people.md,
 * "Held e-mail drafts"): listed, sent as they are, edited and sent, or
 * discarded, through the e-mail channel's own verbs. Every role may (the inbox
 * is every person's); a member limited to some agents reaches only theirs.
 */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { audit } from '../people/service.ts';
import { requireAgentReach, type PersonCaller } from '../../domain/principal.ts';
import * as tickets from '../tickets/store.ts';
import '../chat/store.ts'; // declares the messages table read below
import { discardHeldDraft, sendHeldDraft } from './service.ts';

async function ticketOf(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string) {
  requireAgentReach(caller, agentId);
  const ticket = await tickets.findTicket(ctx.db, agentId, ticketId, ctx.clock.now());
  if (!ticket || ticket.workspace_id !== caller.workspaceId) throw errors.notFound('ticket');
  return ticket;
}

/**
 * The drafts still held on a ticket: the held answers of its conversation while
 * the ticket shows a `held` entry (a discarded draft stays stored as held, but
 * leaves the ticket), oldest first.
 */
export async function heldDraftsAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string) {
  const ticket = await ticketOf(ctx, caller, agentId, ticketId);
  if (!ticket.conversation_id) return [];
  const shown = await ctx.db.selectFrom('ticket_entries').select('id').where('ticket_id', '=', ticket.id).where('kind', '=', 'held').executeTakeFirst();
  if (!shown) return [];
  const rows = await ctx.db
    .selectFrom('messages')
    .select(['id', 'content', 'created_at'])
    .where('conversation_id', '=', ticket.conversation_id)
    .where('agent_id', '=', agentId)
    .where('role', '=', 'assistant')
    .where('held', '=', true)
    .orderBy('position')
    .execute();
  return rows.map((row) => ({ id: row.id, draft: row.content, createdAt: row.created_at.toISOString() }));
}

async function heldDraftOf(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, messageId: string) {
  const drafts = await heldDraftsAsPerson(ctx, caller, agentId, ticketId);
  if (!drafts.some((draft) => draft.id === messageId)) throw errors.notFound('message');
}

/** Sends a held draft, as it is or with the person's text; the ticket gets a `team` entry and the visitor the mail. */
export async function sendHeldDraftAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, messageId: string, text: string | undefined, requestId: string) {
  await heldDraftOf(ctx, caller, agentId, ticketId, messageId);
  await sendHeldDraft(ctx, agentId, messageId, text === undefined ? undefined : { text });
  await audit(ctx, caller, text === undefined ? 'ticket.draft.send' : 'ticket.draft.edit', messageId, requestId);
  return { id: messageId, sent: true as const, edited: text !== undefined };
}

/** Discards a held draft: never sent, and its `held` entries leave the ticket. */
export async function discardHeldDraftAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, messageId: string, requestId: string) {
  await heldDraftOf(ctx, caller, agentId, ticketId, messageId);
  await discardHeldDraft(ctx, agentId, messageId);
  await audit(ctx, caller, 'ticket.draft.discard', messageId, requestId);
  return { id: messageId, discarded: true as const };
}
