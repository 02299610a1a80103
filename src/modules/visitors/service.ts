/**
 * The visitor API's own verbs (docs/visitors.md): the agent's public settings,
 * answering through the same verb as POST /chat, feedback on an answer and the
 * widget's events. A visitor names a conversation only with its token.
 */
import type { z } from 'zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import { pageAddress } from '../chat/retrieval.ts';
import { answer, answerStream, type Asker, type Question, type QuestionFile } from '../chat/service.ts';
import { findMessage, setAnswerFeedback } from '../chat/store.ts';
import { filesForQuestion, tieFilesToConversation } from '../visitor-files/service.ts';
import { requireVisitorConversation, type Visitor } from './access.ts';
import type { eventBody, feedbackBody, feedbackReply, publicAgentSchema, visitorChatBody } from './schemas.ts';
import { insertVisitorEvent } from './store.ts';

/** What the widget shows (never instructions, sources or keys); features the plan leaves out are off. */
export function publicAgent(visitor: Visitor): z.infer<typeof publicAgentSchema> {
  const { settings, plan } = visitor;
  return {
    id: settings.id,
    name: settings.name,
    language: settings.language,
    languages: settings.languages,
    welcomeMessage: settings.welcomeMessage,
    branding: { ...settings.branding, removeBranding: settings.branding.removeBranding && plan.brandingRemoval },
    proactive: settings.proactive,
    leadCapture: settings.leadCapture,
    tickets: settings.tickets,
    attachmentsEnabled: settings.attachmentsEnabled && plan.visitorFiles,
    actions: settings.actions.filter((action) => action.enabled),
    calendlyUrl: settings.calendlyUrl,
    proofOfWork: settings.proofOfWork,
  };
}

type VisitorChatInput = Omit<z.infer<typeof visitorChatBody>, 'stream'>;

/** An answer as POST /chat gives it, with the new conversation's token. */
export async function visitorAnswer(ctx: Context, visitor: Visitor, input: VisitorChatInput, token: string | undefined) {
  const { asker, newToken } = askerOf(visitor, input, token);
  const files = await filesOf(ctx, visitor, input, token);
  const reply = await answer(ctx, asker, visitor.settings, questionOf(input, files));
  await tieFilesToConversation(ctx, files, reply.conversationId);
  return newToken === undefined ? reply : { ...reply, visitorToken: newToken };
}

/** The same as a stream; the new conversation's token travels in a response header. */
export async function visitorAnswerStream(ctx: Context, visitor: Visitor, input: VisitorChatInput, token: string | undefined) {
  const { asker, newToken } = askerOf(visitor, input, token);
  const files = await filesOf(ctx, visitor, input, token);
  const answering = await answerStream(ctx, asker, visitor.settings, questionOf(input, files));
  await tieFilesToConversation(ctx, files, answering.start.conversationId);
  return { ...answering, visitorToken: newToken };
}

/**
 * A visitor continues only the conversation their token was given with; a new
 * conversation gets a new token (256 random bits, stored as its SHA-256).
 */
function askerOf(visitor: Visitor, input: VisitorChatInput, token: string | undefined): { asker: Asker; newToken?: string } {
  const asker = { workspaceId: visitor.workspaceId, plan: visitor.plan, seesTests: false };
  if (input.conversationId !== undefined) {
    if (!token) throw errors.notFound('conversation').beforeWork();
    return { asker: { ...asker, visitorToken: token } };
  }
  const newToken = `vt_${randomBase62(43)}`;
  return { asker: { ...asker, visitorToken: newToken }, newToken };
}

/** The files the question carries (visitor-files/service.ts checks whose they are). */
function filesOf(ctx: Context, visitor: Visitor, input: VisitorChatInput, token: string | undefined): Promise<QuestionFile[]> {
  return filesForQuestion(ctx, visitor, input.attachments ?? [], { conversationId: input.conversationId, token });
}

function questionOf(input: VisitorChatInput, attachments: QuestionFile[]): Question {
  return {
    message: input.message,
    conversationId: input.conversationId,
    language: input.language,
    page: input.page,
    channel: input.channel ?? 'widget',
    openedBy: input.openedBy,
    attachments,
  };
}

/** Feedback on an answer of the visitor's own conversation: 1, -1, or null to clear it. */
export async function giveFeedback(
  ctx: Context,
  visitor: Visitor,
  input: z.infer<typeof feedbackBody>,
  token: string | undefined,
): Promise<z.infer<typeof feedbackReply>> {
  const message = await findMessage(ctx.db, visitor.agent.id, input.messageId);
  if (!message) throw errors.notFound('message');
  await requireVisitorConversation(ctx, visitor, message.conversation_id, token).catch(() => {
    throw errors.notFound('message');
  });
  if (message.role !== 'assistant') throw errors.invalidField('messageId', 'Feedback is given on an answer; this message is a question.');
  // Erased meanwhile: the answer is gone.
  if (!(await setAnswerFeedback(ctx.db, visitor.agent.id, message.id, input.value))) throw errors.notFound('message');
  return { messageId: message.id, feedback: input.value };
}

/** A widget event kept for the analytics: opened (with what opened it) or the lead form declined. */
export async function recordEvent(ctx: Context, visitor: Visitor, input: z.infer<typeof eventBody>): Promise<{ accepted: true }> {
  if (input.openedBy !== undefined && input.type !== 'opened') throw errors.invalidField('openedBy', 'openedBy goes with the type opened only.');
  await insertVisitorEvent(ctx.db, {
    id: newId('vev'),
    workspace_id: visitor.workspaceId,
    agent_id: visitor.agent.id,
    type: input.type,
    opened_by: input.openedBy ?? null,
    page_url: pageAddress(input.page?.url),
    created_at: ctx.clock.now(),
  });
  return { accepted: true };
}
