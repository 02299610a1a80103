/**
 * Correcting an answer (spec 3.6, 4.8): what the answer should have said becomes a Q&A
 * source of the agent, so the next question finds it. The conversation itself is not
 * changed; the answer only remembers the source its correction made, and is corrected once.
 */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import type { AgentRef } from '../agents/access.ts';
import { deleteSourceAndPassages } from '../knowledge/indexing.ts';
import { addSource } from '../knowledge/service.ts';
import type { SourceRow } from '../knowledge/store.ts';
import type { Plan } from '../../domain/plans.ts';
import { TEST_CHANNEL } from './store.ts';

export interface Corrector {
  plan: Plan;
  /** false for a key tied to one agent: test conversations do not exist for it. */
  seesTests: boolean;
}

export interface Correction {
  question: string;
  answer: string;
}

export async function correctAnswer(ctx: Context, corrector: Corrector, agent: AgentRef, messageId: string, correction: Correction): Promise<SourceRow> {
  const answer = await findAnswer(ctx, corrector, agent, messageId);
  if (!answer) throw errors.notFound('answer');
  if (answer.correction_source_id !== null) throw errors.alreadyCorrected();
  if (await askedWithFile(ctx, answer)) throw errors.askedWithFile();

  const added = await addSource(ctx, agent, corrector.plan, { type: 'qa', question: correction.question, answer: correction.answer });
  if (added.kind !== 'source') throw new Error('a Q&A source is never a crawl');
  // The answer is claimed only after the source exists: a correction that fails (storage)
  // leaves the answer open, and a crash in between leaves a harmless extra source.
  if (!(await claimAnswer(ctx, messageId, added.source.id))) {
    // Another correction of the same answer claimed it first (or the conversation was erased).
    await deleteSourceAndPassages(ctx, agent.id, added.source.id);
    throw (await findAnswer(ctx, corrector, agent, messageId)) ? errors.alreadyCorrected() : errors.notFound('answer');
  }
  return added.source;
}

/** An answer (never a question) of one of this agent's conversations that the corrector may see. */
async function findAnswer(ctx: Context, corrector: Corrector, agent: AgentRef, messageId: string) {
  let query = ctx.db
    .selectFrom('messages as m')
    .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
    .select(['m.id', 'm.conversation_id', 'm.position', 'm.correction_source_id'])
    .where('m.id', '=', messageId)
    .where('m.role', '=', 'assistant')
    .where('c.agent_id', '=', agent.id)
    .where('c.workspace_id', '=', agent.workspaceId);
  if (!corrector.seesTests) query = query.where('c.channel', '!=', TEST_CHANNEL);
  return query.executeTakeFirst();
}

/** Whether the question this answer answered came with files: a Q&A pair cannot carry them. */
async function askedWithFile(ctx: Context, answer: { conversation_id: string; position: number }): Promise<boolean> {
  const question = await ctx.db
    .selectFrom('messages')
    .select('attachments')
    .where('conversation_id', '=', answer.conversation_id)
    .where('role', '=', 'user')
    .where('position', '<', answer.position)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return Array.isArray(question?.attachments) && question.attachments.length > 0;
}

/** Sets the answer's correction if it has none yet: one statement, so of two corrections at once only one can win. */
async function claimAnswer(ctx: Context, messageId: string, sourceId: string): Promise<boolean> {
  const claimed = await ctx.db
    .updateTable('messages')
    .set({ correction_source_id: sourceId })
    .where('id', '=', messageId)
    .where('correction_source_id', 'is', null)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
