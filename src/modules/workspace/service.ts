import type { Context } from '../../context.ts';
import { isLimitedToAgents, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { workspaceWithUsage } from './store.ts';
import { planOf } from '../../domain/plans.ts';
import { utcMonth } from '../../platform/clock.ts';
import { VersionedCache } from '../../platform/versions.ts';

/** The calling key as GET /workspace shows it; a person has none. */
export function keyOf(auth: Principal) {
  if (auth.kind !== 'key') return undefined;
  return { id: auth.keyId, name: auth.keyName, prefix: auth.keyPrefix, scope: auth.scope, agentId: auth.agentId };
}

/**
 * GET /workspace: a key tied to one agent (and a member limited to some agents)
 * is told nothing about the workspace (spec 5, tied-key rule 2); a person's
 * reply has no key.
 */
export async function describeWorkspace(ctx: Context, auth: Principal) {
  const key = keyOf(auth);
  if (isLimitedToAgents(auth)) return { key };
  return { key, workspace: await readSummary(ctx, auth) };
}

type WorkspaceSummary = Awaited<ReturnType<typeof summariseWorkspace>>;

async function summariseWorkspace(ctx: Context, workspaceId: string, now: Date) {
  const workspace = await workspaceWithUsage(ctx.db, workspaceId, now);
  if (!workspace) throw errors.unauthorized();
  const plan = planOf(workspace.plan);
  return {
    id: workspace.id,
    name: workspace.name,
    plan: plan.id,
    language: workspace.language,
    agents: { count: workspace.agentCount, limit: plan.agents },
    credits: { usedThisMonth: workspace.creditsUsed, included: plan.creditsPerMonth, purchased: workspace.purchased_credits, overage: false as const },
    storagePerAgentBytes: plan.storagePerAgentBytes,
  };
}

const summaryCaches = new WeakMap<Context, VersionedCache<WorkspaceSummary>>();

/**
 * The workspace part of GET /workspace, kept per process while the workspace's
 * version (read during authentication, before this query) is unchanged and
 * within the same UTC month (see VersionedCache for the rest).
 */
async function readSummary(ctx: Context, auth: Principal): Promise<WorkspaceSummary> {
  let cache = summaryCaches.get(ctx);
  if (!cache) summaryCaches.set(ctx, (cache = new VersionedCache()));
  const now = ctx.clock.now();
  const stamp = `${auth.workspaceVersion} ${utcMonth(now)}`;
  const cached = cache.current(auth.workspaceId, stamp);
  if (cached) return cached;
  const summary = await summariseWorkspace(ctx, auth.workspaceId, now);
  cache.set(auth.workspaceId, stamp, summary);
  return summary;
}

export function listModels(ctx: Context, auth: Principal) {
  const showAvailability = !isLimitedToAgents(auth) || auth.kind === 'person' || auth.scope === 'manage';
  return ctx.models.all().map((model) => ({
    id: model.id,
    provider: model.provider,
    creditsPerAnswer: model.creditsPerAnswer,
    contextSize: model.contextSize,
    ...(showAvailability ? { available: ctx.models.allowed(model, auth.plan) } : {}),
  }));
}
