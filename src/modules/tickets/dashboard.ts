/** The dashboard-only ticket verbs (spec 1.5), for signed-in people (docs/people.md). */
import type { Context } from '../../context.ts';
import { errors } from '../../http/errors.ts';
import { audit } from '../people/service.ts';
import { requireAgent, type PersonCaller } from '../people/principal.ts';

/**
 * Deletes a ticket and its entries, leaving its conversation (and everything
 * else) as it is. Any role may (the inbox is every person's); a member limited
 * to some agents reaches only theirs.
 */
export async function deleteTicketAsPerson(ctx: Context, caller: PersonCaller, agentId: string, ticketId: string, requestId: string) {
  requireAgent(caller, agentId);
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
