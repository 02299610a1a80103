/** The dashboard-only ticket verbs (spec 1.5), for signed-in people (docs/people.md). */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { audit } from '../people/service.ts';
import { requireAgentReach, type PersonCaller } from '../../domain/principal.ts';
import { sql } from 'kysely';
import { newId } from '../../platform/ids.ts';
import { languageOrEnglish, type Language } from '../agents/schemas.ts';
import { compose } from '../mail/compose.ts';
import * as store from './store.ts';
import { replyThreading } from './threading.ts';

/**
 * Deletes a ticket and its entries, leaving its conversation (and everything
 * else) as it is. Any role may (the inbox is every person's); a member limited
 * to some agents reaches only theirs.
 */
export async function deleteTicketAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, requestId: string) {
  requireAgentReach(caller, agentId);
  const deleted = await ctx.db
    .deleteFrom('tickets')
    .where('id', '=', ticketId)
    .where('agent_id', '=', agentId)
    .where('workspace_id', '=', caller.workspaceId)
    .returning('id')
    .executeTakeFirst();
  if (!deleted) throw errors.notFound('ticket');
  await audit(ctx, caller, 'ticket.delete', ticketId, requestId);
  return { id: ticketId, deleted: true as const };
}

const REPLY_SUBJECT: Record<Language, (agent: string, number: number) => string> = {
  en: (agent, number) => `Re: your question to ${agent} (ticket #${number})`,
  nl: (agent, number) => `Re: je vraag aan ${agent} (ticket #${number})`,
  fr: (agent, number) => `Re: votre question à ${agent} (ticket n° ${number})`,
  de: (agent, number) => `Re: Ihre Frage an ${agent} (Ticket Nr. ${number})`,
  es: (agent, number) => `Re: tu pregunta a ${agent} (ticket n.º ${number})`,
};

/**
 * The team's reply to a visitor (spec 1.5): a `team` entry, mailed to the
 * visitor from the agent, in the ticket's language, threaded with the ticket's
 * earlier mails (./threading.ts). The mail is recorded with the entry and sent
 * by the mail job; when it is finally given up, the entry's mailError says why
 * (a trigger of migration 024).
 */
export async function replyToTicketAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, body: string, requestId: string) {
  requireAgentReach(caller, agentId);
  const now = ctx.clock.now();
  const ticket = await store.findTicket(ctx.db, agentId, ticketId, now);
  if (!ticket || ticket.workspace_id !== caller.workspaceId) throw errors.notFound('ticket');
  const agent = await ctx.db.selectFrom('agents').select('name').where('id', '=', agentId).executeTakeFirstOrThrow();
  const earlierReplies = (await store.entriesOf(ctx.db, ticket.id)).filter((entry) => entry.kind === 'team').map((entry) => entry.id);
  const entryId = newId('ent');
  const language = languageOrEnglish(ticket.language);
  const mail = compose(language, { subject: REPLY_SUBJECT[language](agent.name ?? 'Parley', ticket.number), blocks: [{ text: body }] });
  const { entry, mailId } = await ctx.db.transaction().execute(async (trx) => {
    // The entry and its mail exist together or not at all.
    const entry = await store.insertEntry(trx, agentId, { id: entryId, ticket_id: ticket.id, kind: 'team', body, from_address: caller.email, mail_error: null, created_at: now }, now);
    if (!entry) throw errors.notFound('ticket');
    const threading = replyThreading(ctx.config.publicUrl, ticket.id, earlierReplies, entryId);
    const mailId = await ctx.mailer.record(trx, { to: ticket.email, fromName: agent.name ?? undefined, ...threading, ...mail });
    if (mailId) await sql`update ticket_entries set mail_id = ${mailId} where id = ${entryId}`.execute(trx);
    return { entry, mailId };
  });
  await ctx.mailer.dispatch([mailId]);
  await audit(ctx, caller, 'ticket.reply', ticket.id, requestId);
  return { id: entry.id, kind: entry.kind, body: entry.body, from: entry.from_address, mailError: entry.mail_error, createdAt: entry.created_at.toISOString() };
}
