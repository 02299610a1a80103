/** The plan catalogue: the one place plan allowances live. Documented in docs/plans.md. */
export const PLAN_IDS = ['free', 'starter', 'studio', 'agency', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  /** null: no limit. */
  agents: number | null;
  creditsPerMonth: number;
  storagePerAgentBytes: number;
  /** Pages one crawl may read. */
  crawlPageLimit: number;
  /** Models of this rank or lower are allowed (see models catalogue minPlan). */
  rank: number;
  visitorFiles: boolean;
  brandingRemoval: boolean;
  api: boolean;
  integrations: boolean;
  clients: boolean;
  highRiskUseCases: boolean;
}

const MB = 1024 * 1024;

export const PLANS: Record<PlanId, Plan> = {
  free: { id: 'free', agents: 1, creditsPerMonth: 100, storagePerAgentBytes: 1 * MB, crawlPageLimit: 50, rank: 0, visitorFiles: false, brandingRemoval: false, api: false, integrations: false, clients: false, highRiskUseCases: false },
  starter: { id: 'starter', agents: 2, creditsPerMonth: 2_000, storagePerAgentBytes: 10 * MB, crawlPageLimit: 500, rank: 1, visitorFiles: false, brandingRemoval: false, api: false, integrations: false, clients: false, highRiskUseCases: false },
  studio: { id: 'studio', agents: 5, creditsPerMonth: 10_000, storagePerAgentBytes: 40 * MB, crawlPageLimit: 2_000, rank: 2, visitorFiles: true, brandingRemoval: false, api: true, integrations: true, clients: false, highRiskUseCases: false },
  agency: { id: 'agency', agents: 25, creditsPerMonth: 40_000, storagePerAgentBytes: 100 * MB, crawlPageLimit: 5_000, rank: 3, visitorFiles: true, brandingRemoval: true, api: true, integrations: true, clients: true, highRiskUseCases: false },
  enterprise: { id: 'enterprise', agents: null, creditsPerMonth: 200_000, storagePerAgentBytes: 500 * MB, crawlPageLimit: 20_000, rank: 4, visitorFiles: true, brandingRemoval: true, api: true, integrations: true, clients: true, highRiskUseCases: true },
};

export const TOP_PLAN: PlanId = 'enterprise';

export function planOf(id: string): Plan {
  return PLANS[id as PlanId] ?? PLANS.free;
}
