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
import { discardHeldDraft, sendHeldDraft } from './service.ts';
import { pendingDrafts } from './store.ts';

async function ticketOf(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string) {
  requireAgentReach(caller, agentId);
  const ticket = await tickets.findTicket(ctx.db, agentId, ticketId, ctx.clock.now());
  if (!ticket || ticket.workspace_id !== caller.workspaceId) throw errors.notFound('ticket');
  return ticket;
}

/**
 * The drafts still pending on a ticket: the held answers of its conversation that
 * were neither sent nor discarded (a discarded draft stays stored as held, but is
 * never listed nor sent again), oldest first.
 */
export async function heldDraftsAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string) {
  const ticket = await ticketOf(ctx, caller, agentId, ticketId);
  if (!ticket.conversation_id) return [];
  const rows = await pendingDrafts(ctx.db, agentId, ticket.conversation_id);
  return rows.map((row) => ({ id: row.id, draft: row.content, createdAt: new Date(row.created_at).toISOString() }));
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

/** Discards a held draft: never listed nor sent again, and its `held` entry leaves the ticket. */
export async function discardHeldDraftAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, messageId: string, requestId: string) {
  await heldDraftOf(ctx, caller, agentId, ticketId, messageId);
  await discardHeldDraft(ctx, agentId, messageId);
  await audit(ctx, caller, 'ticket.draft.discard', messageId, requestId);
  return { id: messageId, discarded: true as const };
}
