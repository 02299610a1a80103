import type { Context } from '../../context.ts';
import type { Plan } from '../../domain/plans.ts';
import { applyPlanToAgents } from '../agents/service.ts';

/**
 * Runs after the operator moves a workspace to another plan. Areas whose state
 * follows the plan (agents beyond the plan are paused) add their step here.
 */
export async function afterPlanChange(ctx: Context, workspaceId: string, plan: Plan): Promise<void> {
  await applyPlanToAgents(ctx, workspaceId, plan);
}
