import type { Context } from '../../context.ts';
import { requireAgentReach, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { VersionedCache, versionNames } from '../../platform/versions.ts';
import type { Agent } from './schemas.ts';
import { presentKeptAgent } from './service.ts';
import { getAgentRow, type AgentRecord } from './store.ts';

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
export async function requireAgentSettings(ctx: Context, auth: Principal, agentId: string, options: { active?: boolean } = {}): Promise<Agent> {
  requireAgentReach(auth, agentId);
  const row = await agentRowOf(ctx, auth, agentId);
  if (!row) throw errors.notFound('agent');
  if (options.active && row.status === 'paused') throw errors.agentPaused();
  return presentKeptAgent(ctx, row);
}

const agentRows = new WeakMap<Context, VersionedCache<AgentRecord>>();

/**
 * The agent's row, kept per process while the workspace's agents version read with the
 * key is unchanged: every write to an agents row bumps it (agentsChanged), so an answer
 * after a change reads the row again.
 */
async function agentRowOf(ctx: Context, auth: Principal, agentId: string): Promise<AgentRecord | undefined> {
  const cache = agentRows.get(ctx) ?? agentRows.set(ctx, new VersionedCache()).get(ctx)!;
  const key = `${auth.workspaceId} ${agentId}`;
  const known = cache.current(key, auth.agentsVersion);
  if (known) return known;
  const row = await getAgentRow(ctx.db, auth.workspaceId, agentId);
  if (row) cache.set(key, auth.agentsVersion, row);
  return row;
}

/** Whoever writes a row of the agents table calls this after the write, for the workspace it belongs to. */
export async function agentsChanged(ctx: Context, workspaceId: string): Promise<void> {
  await ctx.versions.bump(versionNames.agents(workspaceId));
}

export async function requireAgent(ctx: Context, auth: Principal, agentId: string, options: { active?: boolean } = {}): Promise<AgentRef> {
  requireAgentReach(auth, agentId);
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
