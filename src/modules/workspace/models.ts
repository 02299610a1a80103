import { z } from 'zod';
import { PLANS, type Plan, type PlanId, PLAN_IDS } from '../../domain/plans.ts';

export interface ModelEntry {
  id: string;
  provider: string;
  creditsPerAnswer: number;
  contextSize: number;
  /** The smallest plan that may use it. */
  minPlan: PlanId;
}

/** The built-in offline model answers from the best passages, with no account anywhere. */
export const OFFLINE_MODEL_ID = 'parley-offline';

const BUILT_IN: ModelEntry[] = [
  { id: OFFLINE_MODEL_ID, provider: 'parley', creditsPerAnswer: 1, contextSize: 8_000, minPlan: 'free' },
  { id: 'gpt-4o-mini', provider: 'openai', creditsPerAnswer: 1, contextSize: 128_000, minPlan: 'free' },
  { id: 'gpt-4.1-mini', provider: 'openai', creditsPerAnswer: 2, contextSize: 1_000_000, minPlan: 'starter' },
  { id: 'gpt-4o', provider: 'openai', creditsPerAnswer: 5, contextSize: 128_000, minPlan: 'studio' },
  { id: 'gpt-4.1', provider: 'openai', creditsPerAnswer: 10, contextSize: 1_000_000, minPlan: 'agency' },
];

const extraModelsSchema = z.array(
  z.strictObject({
    id: z.string().min(1).max(100),
    provider: z.string().min(1).max(50),
    creditsPerAnswer: z.number().int().min(0),
    contextSize: z.number().int().positive(),
    minPlan: z.enum(PLAN_IDS).default('free'),
  }),
);

export interface ModelCatalogue {
  all(): ModelEntry[];
  find(id: string): ModelEntry | undefined;
  allowed(model: ModelEntry, plan: Plan): boolean;
  defaultModel: string;
}

/** The built-in models plus the operator's own (PARLEY_MODELS, a JSON list); an operator entry with a built-in id replaces it. */
export function createModelCatalogue(extraModelsJson: string | undefined, hasProvider: boolean): ModelCatalogue {
  const byId = new Map(BUILT_IN.map((m) => [m.id, m]));
  if (extraModelsJson) {
    const parsed = extraModelsSchema.safeParse(JSON.parse(extraModelsJson));
    if (!parsed.success) throw new Error(`PARLEY_MODELS is not a valid model list: ${parsed.error.message}`);
    for (const model of parsed.data) byId.set(model.id, model);
  }
  const models = [...byId.values()];
  return {
    all: () => models,
    find: (id) => byId.get(id),
    allowed: (model, plan) => PLANS[model.minPlan].rank <= plan.rank,
    defaultModel: hasProvider ? 'gpt-4o-mini' : OFFLINE_MODEL_ID,
  };
}
