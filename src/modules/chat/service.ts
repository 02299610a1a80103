/**
 * Answering (spec 4.7): one transport-free verb used by the REST route and, later, the
 * widget, the iframe page, e-mail and MCP. docs/chat.md tells the whole path.
 */
import type { UIMessageStreamWriter } from 'ai';
import { aiSdk } from './ai-sdk.ts';
import type { z } from 'zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { equalInConstantTime, fingerprint } from '../../platform/crypto.ts';
import { newId } from '../../platform/ids.ts';
import type { Agent } from '../agents/schemas.ts';
import type { Plan } from '../../domain/plans.ts';
import { chargeCredits, refundCredits, type Charge, type ChargedAgent } from './credits.ts';
import { cappedConfidence, lexicalGrounding, modelGrounding, retrievalConfidence, isOwnLine, SENTENCE_SUPPORT, type Grounding, type UsedPassage } from './grounding.ts';
import { answerLanguage, detectLanguage } from './language.ts';
import { answeringModel, offlineModel, type AnsweringModel } from './models.ts';
import { composeOfflineAnswer, declined, isOfflineDecline, OFFLINE_PROVIDER, offlineDeltas, withLanguageLine, type OfflineContext } from './offline-model.ts';
import { conversationMessages, systemPrompt } from './prompt.ts';
import { pageAddress, retrieve, siteFactPassages } from './retrieval.ts';
import { contactLine } from '../knowledge/crawl/contact-details.ts';
import type { attachmentSchema } from './schemas.ts';
import { contentTerms, coverage, sentences } from './text.ts';
import type { PassageHit } from '../knowledge/search.ts';
import { findConversationWithRecent, recordMessages, updateMessageCheck, type Channel, type Conversation, type MessageSource, type NewMessage } from './store.ts';

/** Enough of a quoted passage to tell its language. */
const LANGUAGE_SAMPLE_CHARS = 400;

/** Spec 8: the agent remembers the last 10 messages of a conversation. */
export const MEMORY = 10;
const GENERATION_TIMEOUT_MS = 60_000;
/** One retry of a failed provider call (after about 2 s), then the offline model answers. */
const PROVIDER_RETRIES = 1;

/** Who asks, as answering needs it: resolved by the surface (an API key today; a visitor or a person later). */
export interface Asker {
  workspaceId: string;
  plan: Plan;
  /** false for a key tied to one agent: test conversations do not exist for it (spec 4.8). */
  seesTests: boolean;
  /**
   * A visitor (the visitor API): the token their conversation carries. A new
   * conversation is given it; another conversation, or one without a token, is
   * 404 to them.
   */
  visitorToken?: string;
}

export interface Question {
  message: string;
  conversationId?: string;
  userId?: string;
  /** Any text; only en, nl, fr, de and es choose the answer's language. */
  language?: string;
  page?: { url: string };
  channel: Channel;
  openedBy?: 'launcher' | 'greeting' | 'nudge';
  /** The sender's address, for a conversation started by e-mail. */
  from?: string;
  /** Files sent with the question, already checked by the surface (visitor files). */
  attachments?: QuestionFile[];
}

/** A file sent with a question: what the question message shows, and the text the agent reads (null for a picture). */
export interface QuestionFile {
  attachment: z.infer<typeof attachmentSchema>;
  text: string | null;
}

export interface AnswerReply {
  conversationId: string;
  messageId: string;
  answer: string;
  confidence: number;
  grounding: Grounding | null;
  sources: MessageSource[];
  model: string;
  credits: number;
}

/** Everything known before the model writes. */
interface Prepared {
  agent: Agent;
  conversationId: string;
  /** Set for a conversation this question starts. */
  newConversation?: Parameters<typeof recordMessages>[1]['create'];
  question: NewMessage;
  answerId: string;
  /** The system prompt with the passages, made when a model call needs it (the offline model's answer given as one reply makes none). */
  system: () => string;
  messages: ReturnType<typeof conversationMessages>;
  offline: OfflineContext;
  passages: UsedPassage[];
  /** The passages found, whose sources an answer lists when it uses them (usedSources). */
  found: PassageHit[];
  /** What the start of a stream lists: the offline model's own (known before it writes), else every passage's. */
  sources: MessageSource[];
  confidence: number;
  model: AnsweringModel;
  charge: Charge;
}

/** The answer as one reply. */
export async function answer(ctx: Context, asker: Asker, agent: Agent, input: Question): Promise<AnswerReply> {
  const prepared = await prepare(ctx, asker, agent, input);
  // The question is recorded while a provider model writes (as a stream's is before its first byte), the answer once
  // checked. The offline model's answer is known already: both are recorded together, in one statement.
  const recordingQuestion = prepared.model.offline ? undefined : recordMessages(ctx.db, { id: prepared.conversationId, create: prepared.newConversation }, [prepared.question]);
  recordingQuestion?.catch(() => {}); // awaited below; a failed answer must not leave it unhandled meanwhile
  const { text, model, charge } = await generateWithFallback(ctx, asker, prepared);
  const grounding = await checkGrounding(model, text, prepared.passages);
  const confidence = cappedConfidence(prepared.confidence, grounding);
  const sources = sourcesOfAnswer(prepared, text);
  const made = { text, model, credits: charge.credits, grounding, confidence, sources };
  if (recordingQuestion) {
    await recordingQuestion;
    await recordAnswer(ctx, prepared, made);
  } else {
    const reply = answerMessage(ctx, prepared, made);
    const create = prepared.newConversation && { ...prepared.newConversation, last_message_at: reply.created_at };
    await recordMessages(ctx.db, { id: prepared.conversationId, create }, [prepared.question, reply]);
  }
  return {
    conversationId: prepared.conversationId,
    messageId: prepared.answerId,
    answer: text,
    confidence,
    grounding,
    sources,
    model: model.entry.id,
    credits: charge.credits,
  };
}

/** What arrives at the start of a stream, before the first text (the message's metadata). */
export interface StreamStart {
  conversationId: string;
  messageId: string;
  confidence: number;
  sources: MessageSource[];
  model: string;
  credits: number;
}

/**
 * The answer as a UI message stream (the AI SDK's protocol). The question is recorded
 * before the first byte; the answer is recorded when the model has finished, whether or
 * not the client is still reading. Grounding is checked after the text: lexically before
 * the stream's finish, or by a second model call after it.
 */
export async function answerStream(ctx: Context, asker: Asker, agent: Agent, input: Question) {
  const prepared = await prepare(ctx, asker, agent, input);
  await recordMessages(ctx.db, { id: prepared.conversationId, create: prepared.newConversation }, [prepared.question]);
  const start: StreamStart = {
    conversationId: prepared.conversationId,
    messageId: prepared.answerId,
    confidence: prepared.confidence,
    sources: prepared.sources,
    model: prepared.model.entry.id,
    credits: prepared.charge.credits,
  };
  const { createUIMessageStream } = await aiSdk();
  const stream = createUIMessageStream({
    execute: async ({ writer }) => {
      const send = tolerantWriter(writer);
      send({ type: 'start', messageId: prepared.answerId, messageMetadata: start });
      const { text, model, charge } = await streamWithFallback(ctx, asker, prepared, send);
      // The model and credits again at the finish: they change when the offline model stood in.
      const finish = { type: 'finish', messageMetadata: { model: model.entry.id, credits: charge.credits } } as const;
      const sources = sourcesOfAnswer(prepared, text);
      if (model.offline || !text) {
        const grounding = text ? lexicalGrounding(text, prepared.passages) : null;
        await recordAnswer(ctx, prepared, { text, model, credits: charge.credits, grounding, confidence: cappedConfidence(prepared.confidence, grounding), sources });
        send(finish);
        return;
      }
      await recordAnswer(ctx, prepared, { text, model, credits: charge.credits, grounding: null, confidence: prepared.confidence, sources });
      send(finish);
      void checkLater(ctx, prepared, text);
    },
    onError: () => 'The answer could not be completed.',
  });
  return { start, stream };
}

type Send = (part: Parameters<UIMessageStreamWriter['write']>[0]) => void;

/**
 * Streams the answer's text. A provider model that gives no text (down, timed out,
 * refused) leaves the answer to the offline model, as in the JSON path; an answer
 * that could not be made at all gives its credits back.
 */
async function streamWithFallback(ctx: Context, asker: Asker, prepared: Prepared, send: Send): Promise<Made> {
  const id = `${prepared.answerId}-text`;
  send({ type: 'text-start', id });
  let made: Made = { model: prepared.model, charge: prepared.charge, text: await streamAnswerText(prepared, prepared.model, id, send) };
  if (!made.text.trim() && !made.model.offline) {
    const instead = await offlineInstead(ctx, asker, prepared);
    made = { ...instead, text: await streamAnswerText(prepared, instead.model, id, send) };
  }
  send({ type: 'text-end', id });
  if (!made.text) {
    await refundCredits(ctx, made.charge);
    made = { ...made, charge: { ...made.charge, credits: 0, fromPacks: 0 } };
  }
  return made;
}

async function streamAnswerText(prepared: Prepared, model: AnsweringModel, id: string, send: Send): Promise<string> {
  if (model.offline) {
    const text = offlineText(prepared);
    for (const delta of offlineDeltas(text)) if (delta) send({ type: 'text-delta', id, delta });
    return text;
  }
  const { streamText } = await aiSdk();
  const result = streamText({ ...callOf(prepared, model), maxRetries: PROVIDER_RETRIES, abortSignal: AbortSignal.timeout(GENERATION_TIMEOUT_MS), onError: () => {} });
  let text = '';
  // Read to the end even when nobody listens any more, so the answer is recorded whole.
  for await (const delta of result.textStream) {
    text += delta;
    send({ type: 'text-delta', id, delta });
  }
  return text;
}

/** Writes that fail because the client went away are dropped: the answer is still made and recorded. */
function tolerantWriter(writer: UIMessageStreamWriter): Send {
  return (part) => {
    try {
      writer.write(part);
    } catch {
      // the reader is gone
    }
  };
}

async function checkLater(ctx: Context, prepared: Prepared, text: string): Promise<void> {
  const grounding = await checkGrounding(prepared.model, text, prepared.passages);
  const check = { messageId: prepared.answerId, conversationId: prepared.conversationId, grounding, confidence: cappedConfidence(prepared.confidence, grounding) };
  // Erased meanwhile, or the database gone at shutdown: the answer stays recorded without its check.
  await updateMessageCheck(ctx.db, check).catch(() => {});
}

interface MadeAnswer {
  text: string;
  model: AnsweringModel;
  credits: number;
  grounding: Grounding | null;
  confidence: number;
  sources: MessageSource[];
}

async function recordAnswer(ctx: Context, prepared: Prepared, made: MadeAnswer) {
  await recordMessages(ctx.db, { id: prepared.conversationId }, [answerMessage(ctx, prepared, made)]);
}

function answerMessage(ctx: Context, prepared: Prepared, made: MadeAnswer): NewMessage {
  return {
    id: prepared.answerId,
    agent_id: prepared.agent.id,
    role: 'assistant',
    content: made.text,
    created_at: ctx.clock.now(),
    attachments: [],
    page_url: null,
    confidence: made.confidence,
    grounding: made.grounding,
    sources: made.sources,
    model: made.model.entry.id,
    credits: made.credits,
  };
}

// ---------------------------------------------------------------- before the model

async function prepare(ctx: Context, asker: Asker, agent: Agent, input: Question): Promise<Prepared> {
  if (agent.status === 'paused') throw errors.agentPaused();
  // The plan is checked against the agent's own model, also when the offline model stands in for it.
  const chosen = ctx.models.find(agent.model);
  if (chosen && !ctx.models.allowed(chosen, asker.plan)) throw errors.modelNotAllowed(chosen.id);
  const model = await answeringModel(ctx, agent.model);
  const now = ctx.clock.now();
  let conversation: Conversation | undefined;
  let recent: Awaited<ReturnType<typeof findConversationWithRecent>>;
  if (input.conversationId !== undefined) {
    recent = await findConversationWithRecent(ctx.db, agent.id, input.conversationId, asker.seesTests, MEMORY);
    conversation = recent?.conversation;
    if (!conversation || !heldBy(conversation, asker)) throw errors.notFound('conversation').beforeWork();
  }
  const conversationId = conversation?.id ?? newId('conv');
  // The credits are taken while the passages are found: both need only the agent.
  const charging = chargeCredits(ctx, asker.workspaceId, asker.plan, model.entry.creditsPerAnswer, chargedAgent(agent));
  const found = await whileCharging(ctx, charging, async () => {
    const history = recent?.recent ?? [];
    const language = await answerLanguage(input.language, input.message, agent.language);
    const page = pageAddress(input.page?.url);
    return { history, language, page, ...(await retrieve(ctx, agent, input.message, history, page)) };
  });
  const { history, language, page, followsUp } = found;
  const charge = await charging;
  // The files' text comes before the passages found: the question is about them.
  const passages = [...filePassages(input.attachments ?? [], input.message), ...found.passages];
  const used = passages.map((p) => ({ id: idOf(p), title: p.title, text: p.text, score: p.score }));
  // The widget offers the forms and the booking link itself: its "Leave your details", "Talk to a person" and "Book a
  // meeting" buttons, and a form below every weak answer when the ticket form is on or the lead form comes after weak
  // answers (docs/widget.md). There a decline names only the site's contact details, so it does not repeat what the
  // widget shows and stays short enough to be read together with the form below it.
  const inWidget = input.channel === 'widget' || input.channel === 'iframe';
  const offline: OfflineContext = {
    question: input.message,
    followsUp,
    language,
    passages: passages.map((p) => ({ id: idOf(p), sourceName: p.sourceName, title: p.title, text: p.text, score: p.score })),
    nextSteps: { contact: null, ticket: agent.tickets.enabled && !inWidget, lead: agent.leadCapture.enabled && !inWidget, booking: inWidget ? null : agent.calendlyUrl },
  };
  // The offline model's answer is made here, once: its sources are known before it writes (a stream lists them first).
  let offlineAnswer = model.offline ? composeOfflineAnswer(offline) : null;
  if (offlineAnswer?.declined) {
    // A decline offers the site's contact details: read only then, from the facts the crawl kept.
    const facts = await siteFactPassages(ctx, agent.id);
    offline.nextSteps!.contact = contactLine(facts.map((p) => p.text).join('\n'));
    offlineAnswer = declined(language, offline.nextSteps, offlineAnswer.coverage);
  } else if (offlineAnswer) {
    // The quoted passages' language (the first's, when they agree), for the line on material in another language.
    const languages = await Promise.all(offlineAnswer.used.map((i) => detectLanguage(passages[i].text.slice(0, LANGUAGE_SAMPLE_CHARS))));
    offlineAnswer = withLanguageLine(offlineAnswer, language, languages.every((l) => l === languages[0]) ? languages[0] : undefined);
  }
  const fileCount = passages.length - found.passages.length;
  const quoted = offlineAnswer?.used.filter((i) => i >= fileCount).map((i) => found.passages[i - fileCount]);
  return {
    agent,
    conversationId,
    newConversation: conversation
      ? undefined
      : {
          id: conversationId,
          workspace_id: asker.workspaceId,
          agent_id: agent.id,
          channel: input.channel,
          user_id: input.userId ?? null,
          opened_by: input.openedBy ?? null,
          from_address: input.from ?? null,
          started_at: now,
          last_message_at: now,
          first_message: input.message,
          visitor_token_fingerprint: asker.visitorToken === undefined ? null : fingerprint(asker.visitorToken),
        },
    question: {
      id: newId('msg'),
      agent_id: agent.id,
      role: 'user',
      content: input.message,
      created_at: now,
      attachments: (input.attachments ?? []).map((file) => file.attachment),
      page_url: page,
      confidence: null,
      grounding: null,
      sources: [],
      model: null,
      credits: 0,
    },
    answerId: newId('msg'),
    system: () => systemPrompt(agent, language, passages),
    messages: conversationMessages(agent, history, input.message),
    offline: offlineAnswer ? { ...offline, composed: offlineAnswer.text } : offline,
    passages: used,
    found: found.passages,
    sources: quoted ? sourcesOf(quoted) : sourcesOf(found.passages),
    confidence: retrievalConfidence(followsUp ? `${followsUp} ${input.message}` : input.message, used, language),
    model,
    charge,
  };
}

/** Runs `work` while the charge is being taken; when the work fails, the charge (if it was taken) is given back. */
async function whileCharging<T>(ctx: Context, charging: Promise<Charge>, work: () => Promise<T>): Promise<T> {
  // A refused charge (credits_exhausted) is thrown where the caller awaits it, not reported as unhandled meanwhile.
  charging.catch(() => {});
  try {
    return await work();
  } catch (error) {
    await charging.then((charge) => refundCredits(ctx, charge)).catch(() => {});
    throw error;
  }
}

/** A found passage's id (what the offline model and the grounding checks keep its reading by); a file read for the question has none. */
function idOf(passage: PassageHit | ReturnType<typeof filePassages>[number]): string | undefined {
  return 'passageId' in passage ? passage.passageId : undefined;
}

/** Whether the asker may continue the conversation: anyone with a key may; a visitor only with its token. */
function heldBy(conversation: Conversation, asker: Asker): boolean {
  if (asker.visitorToken === undefined) return true;
  return conversation.visitor_token_fingerprint !== null && equalInConstantTime(conversation.visitor_token_fingerprint, fingerprint(asker.visitorToken));
}

/** A file's text read as a passage, scored by the share of the question's terms it holds. */
function filePassages(files: QuestionFile[], question: string): Array<{ sourceName: string; title: string; url: null; text: string; score: number }> {
  const terms = new Map(contentTerms(question).map((term) => [term, 1]));
  return files
    .filter((file): file is QuestionFile & { text: string } => Boolean(file.text?.trim()))
    .map((file) => ({
      sourceName: file.attachment.fileName,
      title: file.attachment.fileName,
      url: null,
      text: file.text,
      score: coverage(terms, new Set(contentTerms(file.text))),
    }));
}

/** The sources an answer lists: the offline model's own when it gave the answer composed beforehand, else usedSources. */
function sourcesOfAnswer(prepared: Prepared, text: string): MessageSource[] {
  return prepared.offline.composed !== undefined && text === prepared.offline.composed ? prepared.sources : usedSources(text, prepared.found);
}

/**
 * The sources of the passages an answer used: for each answer sentence (not its source
 * line), the passages that hold it word for word (the offline model quotes), else those
 * that hold SENTENCE_SUPPORT of its terms, as the lexical grounding check reads support.
 * A decline used none.
 */
export function usedSources(text: string, found: PassageHit[]): MessageSource[] {
  if (isOfflineDecline(text)) return [];
  const held = found.map((passage) => new Set(contentTerms(`${passage.title} ${passage.text}`)));
  const used = new Set<PassageHit>();
  for (const claim of sentences(text)) {
    const terms = contentTerms(claim);
    if (isOwnLine(claim) || terms.length === 0) continue;
    // A sentence quoted word for word comes from the passages that hold it, not from others that say the same.
    const quoting = found.filter((passage) => passage.text.includes(claim));
    const supporting = quoting.length > 0 ? quoting : found.filter((_, i) => terms.filter((term) => held[i].has(term)).length / terms.length >= SENTENCE_SUPPORT);
    for (const passage of supporting) used.add(passage);
  }
  return sourcesOf([...used]);
}

/** Each source once, with its best passage's similarity. */
function sourcesOf(passages: Array<{ sourceId: string; sourceName: string; url: string | null; score: number }>): MessageSource[] {
  const byId = new Map<string, MessageSource>();
  for (const p of passages) {
    const known = byId.get(p.sourceId);
    if (!known || known.similarity < p.score) byId.set(p.sourceId, { id: p.sourceId, name: p.sourceName, similarity: p.score, url: p.url });
  }
  return [...byId.values()];
}

// ---------------------------------------------------------------- the model

function callOf(prepared: Prepared, model: AnsweringModel) {
  return {
    model: model.model,
    system: prepared.system(),
    messages: prepared.messages,
    temperature: prepared.agent.temperature,
    providerOptions: { [OFFLINE_PROVIDER]: prepared.offline as unknown as Record<string, never> },
  };
}

/** An answer as made: its text, the model that wrote it and what it cost. */
interface Made {
  text: string;
  model: AnsweringModel;
  charge: Charge;
}

/**
 * A provider model that fails (down, timed out, refused) leaves the answer to the
 * offline model, so a visitor is never left without one; the credits are those of
 * the model that answered.
 */
async function generateWithFallback(ctx: Context, asker: Asker, prepared: Prepared): Promise<Made> {
  if (prepared.model.offline) return { text: offlineText(prepared), model: prepared.model, charge: prepared.charge };
  try {
    const { generateText } = await aiSdk();
    const { text } = await generateText({ ...callOf(prepared, prepared.model), maxRetries: PROVIDER_RETRIES, abortSignal: AbortSignal.timeout(GENERATION_TIMEOUT_MS) });
    if (text.trim()) return { text, model: prepared.model, charge: prepared.charge };
  } catch {
    // the offline model answers instead
  }
  const instead = await offlineInstead(ctx, asker, prepared);
  return { ...instead, text: offlineText(prepared) };
}

/**
 * The offline model's text, without the AI SDK's round (its model, offline-model.ts, gives the same): the answer
 * composed beforehand, or composed now when it stands in for a provider model.
 */
function offlineText(prepared: Prepared): string {
  return prepared.offline.composed ?? composeOfflineAnswer(prepared.offline).text;
}

/** Gives back the provider model's charge and takes the offline model's. */
async function offlineInstead(ctx: Context, asker: Asker, prepared: Prepared): Promise<Omit<Made, 'text'>> {
  await refundCredits(ctx, prepared.charge);
  const model = offlineModel(ctx);
  return { model, charge: await chargeCredits(ctx, asker.workspaceId, asker.plan, model.entry.creditsPerAnswer, chargedAgent(prepared.agent)) };
}

/** The agent's daily cap applies to every answer, whoever asks (docs/security.md, "Settings owners have"). */
function chargedAgent(agent: Agent): ChargedAgent {
  return { id: agent.id, dailyCredits: agent.limits.dailyCredits };
}

async function checkGrounding(model: AnsweringModel, text: string, passages: UsedPassage[]): Promise<Grounding> {
  return model.offline ? lexicalGrounding(text, passages) : modelGrounding(model.model, text, passages);
}
