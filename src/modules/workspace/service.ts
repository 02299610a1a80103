import type { Context } from '../../context.ts';
import type { Auth } from '../../http/auth.ts';
import { errors } from '../../http/errors.ts';
import { workspaceWithUsage } from './store.ts';
import { planOf } from './plans.ts';
import { utcMonth } from '../../platform/clock.ts';

export function keyOf(auth: Auth) {
  return { id: auth.keyId, name: auth.keyName, prefix: auth.keyPrefix, scope: auth.scope, agentId: auth.agentId };
}

/** GET /workspace: a key tied to one agent is told nothing about the workspace (spec 5, tied-key rule 2). */
export async function describeWorkspace(ctx: Context, auth: Auth) {
  const key = keyOf(auth);
  if (auth.agentId) return { key };
  return { key, workspace: await workspaceSummaries(ctx).read(auth) };
}

type WorkspaceSummary = Awaited<ReturnType<typeof summariseWorkspace>>;

async function summariseWorkspace(ctx: Context, workspaceId: string, now: Date) {
  const workspace = await workspaceWithUsage(ctx.db, workspaceId, now);
  if (!workspace) throw errors.unauthorized();
  const plan = planOf(workspace.plan);
  return {
    name: workspace.name,
    plan: plan.id,
    language: workspace.language,
    agents: { count: workspace.agentCount, limit: plan.agents },
    credits: { usedThisMonth: workspace.creditsUsed, included: plan.creditsPerMonth, purchased: workspace.purchased_credits, overage: false as const },
    storagePerAgentBytes: plan.storagePerAgentBytes,
  };
}

const SUMMARY_MAX_AGE_MS = 60_000;
const MAX_CACHED_SUMMARIES = 10_000;

/**
 * The workspace part of GET /workspace, kept per process while the workspace's
 * version (read during authentication, before this query) is unchanged, within
 * the same UTC month, and for at most a minute in case a change was committed
 * but its version bump was lost to a crash.
 */
class WorkspaceSummaryCache {
  private readonly entries = new Map<string, { version: string; month: string; readAt: number; summary: WorkspaceSummary }>();
  private readonly ctx: Context;

  constructor(ctx: Context) {
    this.ctx = ctx;
  }

  async read(auth: Auth): Promise<WorkspaceSummary> {
    const now = this.ctx.clock.now();
    const month = utcMonth(now);
    const cached = this.entries.get(auth.workspaceId);
    // The age is real time (like the key cache's): it bounds a lost bump, whatever the test clock says.
    if (cached && cached.version === auth.workspaceVersion && cached.month === month && Date.now() - cached.readAt < SUMMARY_MAX_AGE_MS) {
      return cached.summary;
    }
    const summary = await summariseWorkspace(this.ctx, auth.workspaceId, now);
    if (this.entries.size >= MAX_CACHED_SUMMARIES) this.entries.clear();
    this.entries.set(auth.workspaceId, { version: auth.workspaceVersion, month, readAt: Date.now(), summary });
    return summary;
  }
}

const summaryCaches = new WeakMap<Context, WorkspaceSummaryCache>();

function workspaceSummaries(ctx: Context): WorkspaceSummaryCache {
  let cache = summaryCaches.get(ctx);
  if (!cache) summaryCaches.set(ctx, (cache = new WorkspaceSummaryCache(ctx)));
  return cache;
}

export function listModels(ctx: Context, auth: Auth) {
  const showAvailability = auth.agentId === null || auth.scope === 'manage';
  return ctx.models.all().map((model) => ({
    id: model.id,
    provider: model.provider,
    creditsPerAnswer: model.creditsPerAnswer,
    contextSize: model.contextSize,
    ...(showAvailability ? { available: ctx.models.allowed(model, auth.plan) } : {}),
  }));
}
