import type { Context } from '../../context.ts';
import type { Auth } from '../../http/auth.ts';
import { errors } from '../../http/errors.ts';
import type { Agent } from './schemas.ts';
import { presentAgent } from './service.ts';
import { getAgentRow } from './store.ts';

export interface AgentRef {
  id: string;
  workspaceId: string;
  status: 'active' | 'paused';
}

/**
 * The one way a request reaches an agent: it must be in the caller's workspace
 * and, for a key tied to one agent, be that agent; anything else is the same
 * 404 (tied-key rule 1). `active: true` refuses a paused agent with 402 agent_paused.
 */
/**
 * requireAgent's checks and the agent's settings in one read, for verbs that need the
 * whole agent (answering): the same 404 and 402 as requireAgent.
 */
export async function requireAgentSettings(ctx: Context, auth: Auth, agentId: string, options: { active?: boolean } = {}): Promise<Agent> {
  if (auth.agentId !== null && auth.agentId !== agentId) throw errors.notFound('agent');
  const row = await getAgentRow(ctx.db, auth.workspaceId, agentId);
  if (!row) throw errors.notFound('agent');
  if (options.active && row.status === 'paused') throw errors.agentPaused();
  return presentAgent(ctx, row);
}

export async function requireAgent(ctx: Context, auth: Auth, agentId: string, options: { active?: boolean } = {}): Promise<AgentRef> {
  if (auth.agentId !== null && auth.agentId !== agentId) throw errors.notFound('agent');
  const row = await ctx.db
    .selectFrom('agents')
    .select(['id', 'workspace_id', 'status'])
    .where('id', '=', agentId)
    .where('workspace_id', '=', auth.workspaceId)
    .executeTakeFirst();
  if (!row) throw errors.notFound('agent');
  if (options.active && row.status === 'paused') throw errors.agentPaused();
  return { id: row.id, workspaceId: row.workspace_id, status: row.status };
}
