/**
 * The workspace's settings, usage and plan in the dashboard (docs/people.md,
 * "Workspace settings"): every person reads them; owners and admins change the
 * name and the default language. Plan changes stay the operator's. It lives in the
 * people area with the other *AsPerson verbs: the workspace area, the lowest, imports
 * none of the areas read here (agents, chat, knowledge, people).
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { utcMonth } from '../../platform/clock.ts';
import { versionNames } from '../../platform/versions.ts';
import type { Language } from '../agents/schemas.ts';
import type { WorkspaceSettingsReply } from './schemas.ts';
import { audit } from './service.ts';
import { requireRole, type PersonCaller } from '../../domain/principal.ts';
import { planOf } from '../../domain/plans.ts';
import { workspaceWithUsage } from '../workspace/store.ts';
import '../agents/store.ts'; // declares the agents table read below
import '../chat/store.ts'; // declares the messages table read below
import '../knowledge/store.ts'; // declares the sources table read below

const DAY_MS = 86_400_000;

/**
 * Name, default language, plan and usage: credits used, included and
 * purchased this month with one entry per UTC day of the month so far (the
 * credits of the answers made that day), the agents against the plan's limit,
 * and the storage each agent uses against the plan's allowance per agent (a
 * member limited to some agents gets only their agents' storage).
 */
export async function describeWorkspaceAsPerson(ctx: Context, caller: PersonCaller): Promise<WorkspaceSettingsReply> {
  const now = ctx.clock.now();
  const workspace = await workspaceWithUsage(ctx.db, caller.workspaceId, now);
  if (!workspace) throw errors.notFound('workspace');
  const plan = planOf(workspace.plan);
  // A member limited to some agents is told nothing about the workspace, as a tied key
  // and as GET /app/api/v1/workspace tell them (spec 5, tied-key rule 2): their own
  // agents' storage only, no name, plan, credits nor agent count.
  if (caller.agentIds !== null) return { storage: await storageOf(ctx, caller, plan.storagePerAgentBytes) };
  const monthStart = new Date(`${utcMonth(now)}-01T00:00:00.000Z`);
  const perDay = await sql<{ day: string; credits: number }>`
    select to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, coalesce(sum(m.credits), 0)::int as credits
    from messages m join agents a on a.id = m.agent_id
    where a.workspace_id = ${caller.workspaceId} and m.created_at >= ${monthStart} and m.created_at < ${new Date(now.getTime() + DAY_MS)}
    group by 1`.execute(ctx.db);
  const byDay = new Map(perDay.rows.map((row) => [row.day, Number(row.credits)]));
  const series: Array<{ date: string; credits: number }> = [];
  for (let day = monthStart.getTime(); day <= now.getTime(); day += DAY_MS) {
    const date = new Date(day).toISOString().slice(0, 10);
    series.push({ date, credits: byDay.get(date) ?? 0 });
  }
  return {
    id: workspace.id,
    name: workspace.name,
    language: workspace.language as Language,
    plan: plan.id,
    credits: {
      usedThisMonth: workspace.creditsUsed,
      included: plan.creditsPerMonth,
      purchased: workspace.purchased_credits,
      series,
    },
    agents: { count: workspace.agentCount, limit: plan.agents },
    storage: await storageOf(ctx, caller, plan.storagePerAgentBytes),
  };
}

/** The storage each agent the person reaches uses (the running total of migration 037), against the plan's allowance per agent. */
async function storageOf(ctx: Context, caller: PersonCaller, allowancePerAgentBytes: number) {
  let agents = ctx.db
    .selectFrom('agents as a')
    .leftJoin('agent_storage as s', 's.agent_id', 'a.id')
    .select(['a.id', 'a.name', sql<number>`coalesce(s.used_bytes, 0)`.as('used')])
    .where('a.workspace_id', '=', caller.workspaceId)
    .orderBy('a.created_at')
    .orderBy('a.id');
  if (caller.agentIds !== null) agents = agents.where('a.id', 'in', caller.agentIds.length > 0 ? caller.agentIds : ['']);
  const storage = await agents.execute();
  return {
    allowancePerAgentBytes,
    agents: storage.map((row) => ({ agentId: row.id, name: row.name, usedBytes: Number(row.used) })),
  };
}

/** Owners and admins rename the workspace or change its default language. */
export async function updateWorkspaceAsPerson(ctx: Context, caller: PersonCaller, change: { name?: string; language?: Language }, requestId: string) {
  requireRole(caller, 'admin');
  if (change.name !== undefined || change.language !== undefined) {
    await ctx.db
      .updateTable('workspaces')
      .set({
        ...(change.name !== undefined && { name: change.name }),
        ...(change.language !== undefined && { language: change.language }),
        updated_at: ctx.clock.now(),
      })
      .where('id', '=', caller.workspaceId)
      .execute();
    // GET /workspace reports the name and language behind this version.
    await ctx.versions.bump(versionNames.workspace(caller.workspaceId));
    await audit(ctx, caller, 'workspace.settings', caller.workspaceId, requestId);
  }
  return describeWorkspaceAsPerson(ctx, caller);
}
