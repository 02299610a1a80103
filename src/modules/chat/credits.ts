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

/** Takes `credits` from the workspace, or throws 402 credits_exhausted. */
export async function chargeCredits(ctx: Context, workspaceId: string, plan: Plan, credits: number): Promise<Charge> {
  const month = utcMonth(ctx.clock.now());
  const charge = await ctx.db.transaction().execute(async (trx) => {
    const workspace = await trx.selectFrom('workspaces').select('purchased_credits').where('id', '=', workspaceId).forUpdate().executeTakeFirstOrThrow();
    const usage = await trx.selectFrom('credit_usage').select(['used', 'from_packs']).where('workspace_id', '=', workspaceId).where('month', '=', month).executeTakeFirst();
    const usedOfIncluded = (usage?.used ?? 0) - (usage?.from_packs ?? 0);
    const fromIncluded = Math.min(credits, Math.max(0, plan.creditsPerMonth - usedOfIncluded));
    const fromPacks = credits - fromIncluded;
    if (fromPacks > workspace.purchased_credits) throw errors.creditsExhausted();
    await trx
      .insertInto('credit_usage')
      .values({ workspace_id: workspaceId, month, used: credits, from_packs: fromPacks })
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'month']).doUpdateSet({ used: sql`credit_usage.used + ${credits}`, from_packs: sql`credit_usage.from_packs + ${fromPacks}` }),
      )
      .execute();
    if (fromPacks > 0) {
      await trx.updateTable('workspaces').set({ purchased_credits: sql`purchased_credits - ${fromPacks}` }).where('id', '=', workspaceId).execute();
    }
    return { workspaceId, month, credits, fromPacks };
  });
  await ctx.versions.bump(versionNames.workspace(workspaceId));
  return charge;
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
