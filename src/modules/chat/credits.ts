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
import { prepared, type Db } from '../../platform/db.ts';
import { StatementGroups, statementGroupsOf } from '../../platform/grouped-statements.ts';
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
 * charge_credits (migrations/019), taken with the process's other charges asked meanwhile (takeCharges). An agent with a daily cap first counts them in
 * its day (migrations/021), and is refused with the same code beyond the cap.
 */
export async function chargeCredits(ctx: Context, workspaceId: string, plan: Plan, credits: number, agent?: ChargedAgent): Promise<Charge> {
  const now = ctx.clock.now();
  const month = utcMonth(now);
  const agentDay = agent && agent.dailyCredits !== null && credits > 0 ? await countInAgentDay(ctx, agent.id, agent.dailyCredits, credits, now) : undefined;
  const fromPacks = await statementGroupsOf(charges, ctx.db, (batch: ChargeAsked[]) => takeCharges(ctx, batch)).submit({ workspaceId, month, credits, included: plan.creditsPerMonth });
  if (fromPacks === null) {
    if (agentDay) await uncountInAgentDay(ctx, agentDay, credits);
    throw errors.creditsExhausted();
  }
  return { workspaceId, month, credits, fromPacks, ...(agentDay && { agentDay }) };
}

interface ChargeAsked {
  workspaceId: string;
  month: string;
  credits: number;
  included: number;
}

/** The charges of the process's answers that overlap, taken together (platform/grouped-statements.ts). */
const charges = new WeakMap<Db, StatementGroups<ChargeAsked, number | null>>();

/**
 * Takes the charges in one statement (charge_credits_each, migration 053), in the order asked
 * within each workspace, so exactly the charge that would cross a workspace's limit is refused
 * (null: nothing taken). Workspaces are locked in the order of their ids, so two processes' groups
 * cannot wait on each other's. Each workspace charged is bumped once.
 */
async function takeCharges(ctx: Context, asked: ChargeAsked[]): Promise<Array<number | null>> {
  const order = asked.map((_, i) => i).sort((a, b) => (asked[a].workspaceId < asked[b].workspaceId ? -1 : asked[a].workspaceId > asked[b].workspaceId ? 1 : a - b));
  const inOrder = order.map((i) => asked[i]);
  const result = await prepared(
    ctx.db,
    sql<{ from_packs: Array<number | null> }>`
    select charge_credits_each(${inOrder.map((c) => c.workspaceId)}::text[], ${inOrder.map((c) => c.month)}::text[],
      ${inOrder.map((c) => c.credits)}::integer[], ${inOrder.map((c) => c.included)}::integer[]) as from_packs`,
  );
  const taken = result.rows[0].from_packs;
  const fromPacks: Array<number | null> = [];
  order.forEach((i, at) => (fromPacks[i] = taken[at] === null ? null : Number(taken[at])));
  const charged = new Set(inOrder.filter((_, at) => taken[at] !== null).map((c) => c.workspaceId));
  await Promise.all([...charged].map((workspaceId) => ctx.versions.bump(versionNames.workspace(workspaceId))));
  return fromPacks;
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
