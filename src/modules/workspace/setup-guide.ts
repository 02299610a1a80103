import { z } from 'zod';
import type { Context } from '../../context.ts';
import { isLimitedToAgents, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { workspaceWithUsage } from './store.ts';
import { PRESETS } from './presets.ts';

export const STANDARD_USE_CASES = ['general', 'support', 'sales', 'docs'] as const;
export const HIGH_RISK_USE_CASES = ['hr_recruitment', 'credit_scoring', 'healthcare'] as const;
export const USE_CASES = [...STANDARD_USE_CASES, ...HIGH_RISK_USE_CASES] as const;
export type UseCase = (typeof USE_CASES)[number];

const advice = z.object({
  recommendation: z.enum(['recommended', 'optional', 'not_needed']),
  reason: z.string(),
});

export const presetSchema = z
  .object({
    useCase: z.enum(STANDARD_USE_CASES),
    purpose: z.string(),
    instructions: z.string(),
    welcomeMessage: z.string().describe('every [bracketed] part is left to be filled in'),
    temperature: z.number().min(0).max(1),
    retrieval: z.object({ topK: z.number().int().min(1).max(10), minSimilarity: z.number().min(0).max(1) }),
    features: z.object({ booking: advice, visitorFiles: advice }),
    sources: z.array(z.object({ type: z.enum(['website', 'file', 'text', 'qa']), what: z.string(), why: z.string() })),
    testQuestions: z.array(z.string()).length(10).describe('the agent should decline the last two'),
    checks: z.array(z.object({ check: z.string(), passWhen: z.string() })),
  })
  .meta({ id: 'Preset' });

export type Preset = z.infer<typeof presetSchema>;

export const setupPlanSchema = z.object({
  id: z.string(),
  agents: z.object({ count: z.number().int(), limit: z.number().int().nullable(), left: z.number().int().nullable() }),
  storagePerAgentBytes: z.number().int(),
  visitorFiles: z.boolean(),
  brandingRemoval: z.boolean(),
});

export const setupGuideQuery = z.strictObject({ useCase: z.string().optional() });

export const setupGuideReply = z.object({
  data: z.object({ presets: z.array(presetSchema), plan: setupPlanSchema.optional().describe('left out for a key tied to one agent') }),
});
export type SetupGuide = z.infer<typeof setupGuideReply>['data'];

/** GET /setup-guide (spec 4.4). */
export async function setupGuide(ctx: Context, auth: Principal, useCase: string | undefined) {
  const presets = useCase === undefined ? PRESETS : [presetFor(auth, useCase)];
  if (isLimitedToAgents(auth)) return { presets };
  const usage = await workspaceWithUsage(ctx.db, auth.workspaceId, ctx.clock.now());
  if (!usage) throw errors.unauthorized();
  const limit = auth.plan.agents;
  return {
    presets,
    plan: {
      id: auth.plan.id,
      agents: { count: usage.agentCount, limit, left: limit === null ? null : Math.max(0, limit - usage.agentCount) },
      storagePerAgentBytes: auth.plan.storagePerAgentBytes,
      visitorFiles: auth.plan.visitorFiles,
      brandingRemoval: auth.plan.brandingRemoval,
    },
  };
}

function presetFor(auth: Principal, useCase: string): Preset {
  const preset = PRESETS.find((p) => p.useCase === useCase);
  if (preset) return preset;
  if ((HIGH_RISK_USE_CASES as readonly string[]).includes(useCase)) {
    // The top plan may use these, but there is no preset for them.
    if (auth.plan.highRiskUseCases) throw errors.invalidField('useCase', `There is no preset for ${useCase}.`);
    throw errors.highRiskUseCase();
  }
  throw errors.invalidField('useCase', `useCase must be one of ${STANDARD_USE_CASES.join(', ')}.`);
}
