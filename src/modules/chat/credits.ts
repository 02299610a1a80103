/**
 * Credits (docs/chat.md): each answer costs its model's creditsPerAnswer. A month's
 * included credits are spent first, then purchased packs, which carry over. The cost
 * is taken before the model is asked, under a lock on the workspace row, so API
 * processes sharing one PostgreSQL never let a workspace spend what it does not have;
 * an answer that could not be made gives its credits back.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { ApiError, errors } from '../../domain/errors.ts';
import { utcMonth } from '../../platform/clock.ts';
import { prepared } from '../../platform/db.ts';
import { versionNames } from '../../platform/versions.ts';
import type { Plan } from '../../domain/plans.ts';
import '../workspace/store.ts'; // declares credit_usage and workspaces

export interface Charge {
  workspaceId: string;
  month: string;
  credits: number;
  fromPacks: number;
  /** The agent's day the credits were counted in, when its owner caps its daily credits. */
  agentDay?: { agentId: string; day: string };
}

/** The answering agent and the cap its owner set on its credits a UTC day (limits.dailyCredits; null: none). */
export interface ChargedAgent {
  id: string;
  dailyCredits: number | null;
}

/**
 * Takes `credits` from the workspace, or throws 402 credits_exhausted: one call of
 * charge_credits (migrations/019). An agent with a daily cap first counts them in
 * its day (migrations/021), and is refused with the same code beyond the cap.
 */
export async function chargeCredits(ctx: Context, workspaceId: string, plan: Plan, credits: number, agent?: ChargedAgent): Promise<Charge> {
  const now = ctx.clock.now();
  const month = utcMonth(now);
  const agentDay = agent && agent.dailyCredits !== null && credits > 0 ? await countInAgentDay(ctx, agent.id, agent.dailyCredits, credits, now) : undefined;
  const result = await prepared(
    ctx.db,
    sql<{ from_packs: number | null }>`
    select charge_credits(${workspaceId}, ${month}, ${credits}::integer, ${plan.creditsPerMonth}::integer) as from_packs`,
  );
  const fromPacks = result.rows[0]?.from_packs;
  if (fromPacks === null || fromPacks === undefined) {
    if (agentDay) await uncountInAgentDay(ctx, agentDay, credits);
    throw errors.creditsExhausted();
  }
  await ctx.versions.bump(versionNames.workspace(workspaceId));
  return { workspaceId, month, credits, fromPacks: Number(fromPacks), ...(agentDay && { agentDay }) };
}

/** Adds the credits to the agent's day while the sum stays within the cap: one statement, safe between processes. */
async function countInAgentDay(ctx: Context, agentId: string, cap: number, credits: number, now: Date): Promise<{ agentId: string; day: string }> {
  const day = now.toISOString().slice(0, 10);
  const counted =
    credits <= cap &&
    (await sql<{ used: number }>`
      insert into agent_credit_days (agent_id, day, used) values (${agentId}, ${day}::date, ${credits}::integer)
      on conflict (agent_id, day) do update set used = agent_credit_days.used + excluded.used
      where agent_credit_days.used + excluded.used <= ${cap}::integer
      returning used`.execute(ctx.db)).rows.length > 0;
  if (!counted) {
    throw new ApiError('credits_exhausted', 'The agent has spent the credits its owner allows it in a day (limits.dailyCredits); it answers again the next UTC day.');
  }
  return { agentId, day };
}

async function uncountInAgentDay(ctx: Context, agentDay: { agentId: string; day: string }, credits: number): Promise<void> {
  await sql`update agent_credit_days set used = greatest(0, used - ${credits}::integer)
    where agent_id = ${agentDay.agentId} and day = ${agentDay.day}::date`.execute(ctx.db);
}

/** Gives back a charge whose answer could not be made. */
export async function refundCredits(ctx: Context, charge: Charge): Promise<void> {
  if (charge.credits === 0) return;
  if (charge.agentDay) await uncountInAgentDay(ctx, charge.agentDay, charge.credits);
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
