/** The one way a signed-in person reaches an agent (docs/people.md, "People and roles"). */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import type { AgentRef } from '../agents/access.ts';
import { requireAgentReach, type PersonCaller } from '../../domain/principal.ts';

/**
 * The agent, when it is in the person's workspace and, for a member limited to some
 * agents, among theirs: anything else is the same 404 (as a tied key's). `active: true`
 * refuses a paused agent with 402 agent_paused.
 */
export async function agentOfPerson(ctx: Context, caller: PersonCaller, agentId: string, options: { active?: boolean } = {}): Promise<AgentRef> {
  requireAgentReach(caller, agentId);
  const row = await ctx.db
    .selectFrom('agents')
    .select(['id', 'workspace_id', 'status'])
    .where('id', '=', agentId)
    .where('workspace_id', '=', caller.workspaceId)
    .executeTakeFirst();
  if (!row) throw errors.notFound('agent');
  if (options.active && row.status === 'paused') throw errors.agentPaused();
  return { id: row.id, workspaceId: row.workspace_id, status: row.status };
}
