import type { Context } from '../../context.ts';
import type { Auth } from '../../http/auth.ts';
import { errors } from '../../http/errors.ts';
import { workspaceWithUsage } from './store.ts';
import { planOf } from './plans.ts';

export function keyOf(auth: Auth) {
  return { id: auth.keyId, name: auth.keyName, prefix: auth.keyPrefix, scope: auth.scope, agentId: auth.agentId };
}

/** GET /workspace: a key tied to one agent is told nothing about the workspace (spec 5, tied-key rule 2). */
export async function describeWorkspace(ctx: Context, auth: Auth) {
  const key = keyOf(auth);
  if (auth.agentId) return { key };
  const workspace = await workspaceWithUsage(ctx.db, auth.workspaceId, ctx.clock.now());
  if (!workspace) throw errors.unauthorized();
  const plan = planOf(workspace.plan);
  return {
    key,
    workspace: {
      name: workspace.name,
      plan: plan.id,
      language: workspace.language,
      agents: { count: workspace.agentCount, limit: plan.agents },
      credits: { usedThisMonth: workspace.creditsUsed, included: plan.creditsPerMonth, purchased: workspace.purchased_credits, overage: false as const },
      storagePerAgentBytes: plan.storagePerAgentBytes,
    },
  };
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
