import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import type { Auth } from '../../http/auth.ts';
import { errors } from '../../http/errors.ts';

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
export async function requireAgent(ctx: Context, auth: Auth, agentId: string, options: { active?: boolean } = {}): Promise<AgentRef> {
  if (auth.agentId !== null && auth.agentId !== agentId) throw errors.notFound('agent');
  const result = await sql<{ id: string; workspace_id: string; status: 'active' | 'paused' }>`
    select id, workspace_id, status from agents where id = ${agentId} and workspace_id = ${auth.workspaceId}`.execute(ctx.db);
  const row = result.rows[0];
  if (!row) throw errors.notFound('agent');
  if (options.active && row.status === 'paused') throw errors.agentPaused();
  return { id: row.id, workspaceId: row.workspace_id, status: row.status };
}
