/**
 * Credits (docs/chat.md): each answer costs its model's creditsPerAnswer. A month's
 * included credits are spent first, then purchased packs, which carry over. The cost
 * is taken before the model is asked, under a lock on the workspace row, so API
 * processes sharing one PostgreSQL never let a workspace spend what it does not have;
 * an answer that could not be made gives its credits back.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { errors } from '../../http/errors.ts';
import { utcMonth } from '../../platform/clock.ts';
import { versionNames } from '../../platform/versions.ts';
import type { Plan } from '../workspace/plans.ts';
import '../workspace/store.ts'; // declares credit_usage and workspaces

export interface Charge {
  workspaceId: string;
  month: string;
  credits: number;
  fromPacks: number;
}

/** Takes `credits` from the workspace, or throws 402 credits_exhausted: one call of charge_credits (migrations/019). */
export async function chargeCredits(ctx: Context, workspaceId: string, plan: Plan, credits: number): Promise<Charge> {
  const month = utcMonth(ctx.clock.now());
  const result = await sql<{ from_packs: number | null }>`
    select charge_credits(${workspaceId}, ${month}, ${credits}::integer, ${plan.creditsPerMonth}::integer) as from_packs`.execute(ctx.db);
  const fromPacks = result.rows[0]?.from_packs;
  if (fromPacks === null || fromPacks === undefined) throw errors.creditsExhausted();
  await ctx.versions.bump(versionNames.workspace(workspaceId));
  return { workspaceId, month, credits, fromPacks: Number(fromPacks) };
}

/** Gives back a charge whose answer could not be made. */
export async function refundCredits(ctx: Context, charge: Charge): Promise<void> {
  if (charge.credits === 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('credit_usage')
      .set({ used: sql`greatest(0, used - ${charge.credits})`, from_packs: sql`greatest(0, from_packs - ${charge.fromPacks})` })
      .where('workspace_id', '=', charge.workspaceId)
      .where('month', '=', charge.month)
      .execute();
    if (charge.fromPacks > 0) {
      await trx.updateTable('workspaces').set({ purchased_credits: sql`purchased_credits + ${charge.fromPacks}` }).where('id', '=', charge.workspaceId).execute();
    }
  });
  await ctx.versions.bump(versionNames.workspace(charge.workspaceId));
}
