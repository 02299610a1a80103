import type { Context } from '../../context.ts';
import type { Plan } from '../workspace/plans.ts';

/**
 * Runs after the operator moves a workspace to another plan. Areas whose state
 * follows the plan (agents beyond the plan are paused) add their step here.
 */
export async function afterPlanChange(_ctx: Context, _workspaceId: string, _plan: Plan): Promise<void> {}
