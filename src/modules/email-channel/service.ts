/**
 * The e-mail channel (docs/email.md): a mail received for an agent is checked
 * (never answered: auto-replies, bulk, bounces, the agent's own mail, a DMARC
 * failure under a reject or quarantine policy), then answered by the same verb as
 * every other surface, and the answer mailed back threaded from the agent's
 * address, or held for a person (review on, or a weak answer).
 */
import type { Email } from 'postal-mime';
import type { Context } from '../../context.ts';
import { ApiError } from '../../domain/errors.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import { admitMailTo } from '../../platform/mail.ts';
import { memoryLimiter, redisLimiter, type RateLimiter } from '../../platform/limiter.ts';
import { isWeakAnswer } from '../../widget/shared.ts';
import type { Language } from '../agents/schemas.ts';
import { answerLanguage, PHRASES } from '../chat/language.ts';
import { answer, type AnswerReply, type QuestionFile } from '../chat/service.ts';
import { compose, type Block } from '../mail/compose.ts';
import { addConversationEntry, addHeldDraft, notifyVisitorReply, removeHeldEntry } from '../tickets/service.ts';
import { errors } from '../../domain/errors.ts';
import { workspaceOwner } from '../tickets/store.ts';
import { findVisitorTarget, type Visitor } from '../visitors/access.ts';
import { MAX_ATTACHMENTS, MAX_FILE_BYTES } from '../visitor-files/read.ts';
import { filesForQuestion, sendFile, tieFilesToConversation } from '../visitor-files/service.ts';
import { automaticKind, bouncedMessageIds, messageIds, replySubject, textOfHtml, visitorText } from './reading.ts';
import * as store from './store.ts';

/** A DNS lookup as mailauth calls it (dns.promises.resolve's shape); tests hand in their own records. */
export type Resolver = (name: string, rrtype: string) => Promise<unknown>;

export interface ReceivedMail {
  raw: Buffer;
  /** MAIL FROM: empty for a bounce. */
  envelopeFrom: string;
  /** RCPT TO, as accepted. */
  recipients: string[];
  ip: string;
  helo: string;
  /**
   * Fetched from the agent's IMAP mailbox (docs/email.md, "IMAP"): the mail is this
   * agent's whatever its recipients, and the envelope, client address and HELO are
   * read from the headers the receiving server wrote (Return-Path, Received).
   */
  mailbox?: { agentId: string };
}

/** Received mails a minute: per sender (a loop with a robot that ignores every header stops here) and per agent. */
export const PER_SENDER_PER_MINUTE = 5;
export const PER_AGENT_PER_MINUTE = 600;

/** The mail waits: the sending server tries again later (SMTP 451). */
export class TryLater extends Error {}

export type Handled = { agentId: string; outcome: store.Outcome | string; conversationId: string | null } | { agentId: null; outcome: 'no_agent' };

/** Whether mail to this address is taken: an enabled agent's address. */
export async function takesAddress(ctx: Context, address: string): Promise<boolean> {
  return (await store.agentsByAddress(ctx.db, [address])).length > 0;
}

export async function receiveMail(ctx: Context, received: ReceivedMail, resolver?: Resolver): Promise<Handled> {
  // Loaded with the first mail: mailauth brings nodemailer, which an idle process must not hold (test/lean-start.test.ts).
  const { default: PostalMime } = await import('postal-mime');
  const mail = await PostalMime.parse(received.raw);
  if (received.mailbox) received = { ...received, envelopeFrom: returnPathOf(mail) ?? mail.from?.address ?? '' };
  const agentId = received.mailbox ? received.mailbox.agentId : await agentOf(ctx, received, mail);
  if (!agentId) return { agentId: null, outcome: 'no_agent' };
  const sender = (mail.from?.address ?? received.envelopeFrom).trim().toLowerCase();
  const messageId = messageIds(mail.messageId)[0] ?? `${newId('mail')}@parley.invalid`;
  const now = ctx.clock.now();
  const incoming: store.EmailMessageRow = {
    id: newId('mail'),
    agent_id: agentId,
    message_id: messageId,
    direction: 'in',
    conversation_id: null,
    chat_message_id: null,
    sender,
    subject: mail.subject ?? '',
    outcome: 'answered',
    auth: null,
    mail_error: null,
    created_at: now,
  };
  const done = async (outcome: store.Outcome | string, conversationId: string | null = null): Promise<Handled> => {
    await store.settleReceived(ctx.db, { ...incoming, outcome: outcome as store.Outcome, conversation_id: conversationId });
    return { agentId, outcome, conversationId };
  };
  // Claimed first, by Message-ID: a mail sent again (the sender's server never saw our 250) is taken, not answered twice.
  if (!(await store.claimReceived(ctx.db, incoming))) return { agentId, outcome: 'duplicate', conversationId: null };
  try {
    return await handleClaimed(ctx, received, mail, incoming, done, resolver);
  } catch (error) {
    await store.releaseClaim(ctx.db, incoming.id);
    throw error;
  }
}

type Done = (outcome: store.Outcome | string, conversationId?: string | null) => Promise<Handled>;

async function handleClaimed(ctx: Context, received: ReceivedMail, mail: Email, incoming: store.EmailMessageRow, done: Done, resolver: Resolver | undefined): Promise<Handled> {
  const { agent_id: agentId, sender, message_id: messageId } = incoming;
  const target = await findVisitorTarget(ctx, agentId, undefined, received.ip);
  const visitor = target.visitor;
  // Any agent's address, of any workspace: two agents answering each other would loop.
  if (await store.isAgentAddress(ctx.db, sender)) return done('own_address');
  const automatic = automaticKind(mail, received.envelopeFrom === '' ? '' : sender);
  if (automatic === 'bounce') return done(await bounce(ctx, agentId, received.raw));
  if (automatic) return done(automatic);

  incoming.auth = await checkSender(ctx, received, resolver);
  if (incoming.auth.dmarc === 'fail' && (incoming.auth.policy === 'reject' || incoming.auth.policy === 'quarantine')) return done('dmarc');
  if (target.workspaceStopped || visitor.agent.status === 'paused') return done('paused');
  await checkLimits(ctx, agentId, sender);

  const text = visitorText(mail.text ?? textOfHtml(mail.html ?? ''));
  if (!text) return done('empty');
  const thread = [...messageIds(mail.inReplyTo), ...messageIds(mail.references)];
  const withPerson = await store.conversationOfThread(ctx.db, agentId, thread, { byPerson: true });
  if (withPerson) {
    // A person answered in this thread: the visitor's reply is theirs, on the ticket, not the agent's to answer.
    if (await addConversationEntry(ctx, agentId, withPerson, { kind: 'visitor', body: text, fromAddress: sender })) {
      await notifyVisitorReply(ctx, agentId, withPerson, { from: sender, body: text });
    }
    return done('to_ticket', withPerson);
  }
  const conversationId = await store.conversationOfThread(ctx.db, agentId, thread);
  let reply: AnswerReply;
  try {
    const attachments = await filesOf(ctx, visitor, mail);
    reply = await answer(ctx, { workspaceId: visitor.workspaceId, plan: visitor.plan, seesTests: false }, visitor.settings, { message: text, conversationId, channel: 'email', from: sender, attachments });
    await tieFilesToConversation(ctx, attachments, reply.conversationId);
  } catch (error) {
    // A refusal the API would give (no credits left, model not allowed): the mail is not answered, and says why.
    if (error instanceof ApiError) return done(error.code, conversationId ?? null);
    throw error;
  }
  const language = await answerLanguage(undefined, text, visitor.settings.language);
  // Held, not sent: review on, a weak answer, a From whose domain's DMARC check failed (whatever its policy:
  // the address may not be the sender's, and the answer would go to a stranger), or an address mailed
  // its fill this hour (the per-recipient cap every form shares; counted only for a mail about to go).
  const held =
    visitor.settings.emailChannel.review || isWeak(reply, language) || incoming.auth.dmarc === 'fail' || !(await admitMailTo(ctx.db, sender, ctx.clock.now()));
  if (held) {
    await store.holdAnswer(ctx.db, reply.conversationId, reply.messageId, incoming.id);
    await addHeldDraft(ctx, { workspaceId: visitor.workspaceId, agentId, conversationId: reply.conversationId, email: sender, question: text, language, draft: reply.answer });
    return done('held', reply.conversationId);
  }
  const result = await done('answered', reply.conversationId);
  await sendAnswer(ctx, visitor, { to: sender, subject: mail.subject ?? '', inReplyTo: messageId, references: uniq([...messageIds(mail.references), messageId]), conversationId: reply.conversationId, language, reply });
  return result;
}

/** The Return-Path the delivering server wrote (the envelope sender; empty for a bounce), when there is one. */
function returnPathOf(mail: Email): string | undefined {
  const value = mail.headers.find((h) => h.key === 'return-path')?.value;
  if (value === undefined) return undefined;
  return (/<([^<>]*)>/.exec(value)?.[1] ?? value).trim();
}

/** The agent the mail is for: an envelope recipient first, else an address in To or Cc (mail forwarded to the service). */
async function agentOf(ctx: Context, received: ReceivedMail, mail: Email): Promise<string | undefined> {
  const headerAddresses = [...(mail.to ?? []), ...(mail.cc ?? [])].flatMap((a) => ('group' in a && a.group ? a.group.map((g) => g.address) : [a.address ?? '']));
  const candidates = [...received.recipients, ...headerAddresses].map((a) => a.toLowerCase()).filter(Boolean);
  const agents = await store.agentsByAddress(ctx.db, candidates);
  for (const address of candidates) {
    const found = agents.find((a) => a.address === address);
    if (found) return found.id;
  }
  return undefined;
}

/**
 * The mail's attachments as visitor files (when the agent takes files and the plan
 * has them), read by the visitor files' own verb with its limits: a file it refuses
 * (its type, its size, unreadable) is left out and the rest of the mail answered.
 * The files are bound to a token of this mail alone, which only the question below uses.
 */
async function filesOf(ctx: Context, visitor: Visitor, mail: Email): Promise<QuestionFile[]> {
  if (!visitor.settings.attachmentsEnabled || !visitor.plan.visitorFiles) return [];
  const token = `vt_${randomBase62(43)}`;
  const ids: string[] = [];
  for (const file of mail.attachments.filter((a) => a.disposition !== 'inline' || !a.contentId)) {
    if (ids.length === MAX_ATTACHMENTS) break;
    const bytes = Buffer.from(file.content as ArrayBuffer);
    if (bytes.length > MAX_FILE_BYTES) continue;
    try {
      ids.push((await sendFile(ctx, visitor, { fileName: file.filename ?? 'attachment', bytes }, token)).id);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  return filesForQuestion(ctx, visitor, ids, { token });
}

/** Declined, unsupported by the passages, or weak by the widget's rule (docs/widget.md, "Weak answers"). */
function isWeak(reply: AnswerReply, language: Language): boolean {
  if (!reply.answer.trim() || reply.grounding === 'unsupported') return true;
  if (reply.answer.includes(PHRASES[language].decline)) return true;
  return isWeakAnswer(reply.confidence, reply.sources.length);
}

async function bounce(ctx: Context, agentId: string, raw: Buffer): Promise<'bounce'> {
  const text = raw.toString('utf8');
  const status = /^Diagnostic-Code:\s*(.+)$/im.exec(text)?.[1] ?? /^Status:\s*(.+)$/im.exec(text)?.[1] ?? 'The mail could not be delivered.';
  const found = await store.recordBounce(ctx.db, agentId, bouncedMessageIds(text), status.trim().slice(0, 500));
  if (found === 0) console.warn(`[email] a bounce for agent ${agentId} names no mail the service sent; dropped`);
  return 'bounce';
}

async function checkSender(ctx: Context, received: ReceivedMail, resolver: Resolver | undefined): Promise<store.MailAuth> {
  try {
    const { authenticate } = await import('mailauth');
    const result = await authenticate(received.raw, {
      // A mail from a mailbox: the client and HELO of the newest Received header (the mailbox's own server wrote it).
      ...(received.mailbox ? { trustReceived: true } : { ip: received.ip, helo: received.helo }),
      sender: received.envelopeFrom,
      mta: mtaName(ctx),
      ...(resolver ? { resolver } : {}),
      disableArc: true,
      disableBimi: true,
    } as never);
    const dmarc = result.dmarc || undefined;
    return {
      spf: (result.spf || undefined)?.status?.result ?? 'none',
      dkim: result.dkim?.results?.[0]?.status?.result ?? 'none',
      dmarc: dmarc?.status?.result ?? 'none',
      policy: (dmarc as { policy?: string } | undefined)?.policy ?? null,
    };
  } catch (error) {
    console.warn('[email] sender check failed', error);
    return { spf: 'temperror', dkim: 'temperror', dmarc: 'temperror', policy: null };
  }
}

function mtaName(ctx: Context): string {
  try {
    return new URL(ctx.config.publicUrl).hostname;
  } catch {
    return 'parley.local';
  }
}

const limiters = new WeakMap<Context, { sender: RateLimiter; agent: RateLimiter }>();

async function checkLimits(ctx: Context, agentId: string, sender: string): Promise<void> {
  let pair = limiters.get(ctx);
  if (!pair) {
    const make = (limit: number) => (ctx.redis ? redisLimiter(limit, ctx.clock, ctx.redis) : memoryLimiter(limit, ctx.clock));
    pair = { sender: make(PER_SENDER_PER_MINUTE), agent: make(PER_AGENT_PER_MINUTE) };
    limiters.set(ctx, pair);
  }
  const [bySender, byAgent] = [await pair.sender.hit(`mail-from:${agentId}:${sender}`), await pair.agent.hit(`mail-to:${agentId}`)];
  if (!bySender.allowed || !byAgent.allowed) throw new TryLater(`too many mails; try again in ${Math.max(bySender.resetSeconds, byAgent.resetSeconds)} s`);
}

// ---------------------------------------------------------------- held drafts

/**
 * A held answer sent by a person (the dashboard calls this after its own checks of
 * who may): as it was, or with their edited text. The answer stops being held, the
 * ticket gets a `team` entry, and the mail goes out threaded like any answer.
 */
export async function sendHeldDraft(ctx: Context, agentId: string, messageId: string, edited?: { text: string }): Promise<void> {
  const held = await store.findHeldAnswer(ctx.db, agentId, messageId);
  if (!held) throw errors.notFound('message');
  const received = await store.lastReceived(ctx.db, held.conversation_id);
  if (!received) throw errors.notFound('message');
  const { visitor } = await findVisitorTarget(ctx, agentId, undefined, '');
  const text = edited?.text.trim() || held.content;
  if (!(await store.settleDraft(ctx.db, agentId, messageId, 'answered'))) throw errors.notFound('message');
  if (!(await store.releaseAnswer(ctx.db, messageId, text))) throw errors.notFound('message');
  await addConversationEntry(ctx, agentId, held.conversation_id, { kind: 'team', body: text, fromAddress: visitor.settings.emailChannel.address });
  await sendAnswer(ctx, visitor, {
    to: received.sender,
    subject: received.subject,
    inReplyTo: received.message_id,
    references: await store.threadIds(ctx.db, held.conversation_id),
    conversationId: held.conversation_id,
    language: await answerLanguage(undefined, held.question, visitor.settings.language),
    reply: { answer: text, messageId, sources: edited ? [] : held.sources },
    by: 'team',
    byPerson: edited !== undefined,
  });
}

/**
 * A held answer discarded: it stays stored as held, its received mail becomes
 * `discarded` so it is never listed nor sent again, and its own `held` entry leaves
 * the ticket (another draft waiting in the conversation keeps its own).
 */
export async function discardHeldDraft(ctx: Context, agentId: string, messageId: string): Promise<void> {
  const held = await store.findHeldAnswer(ctx.db, agentId, messageId);
  if (!held) throw errors.notFound('message');
  if (!(await store.settleDraft(ctx.db, agentId, messageId, 'discarded'))) throw errors.notFound('message');
  await removeHeldEntry(ctx, agentId, held.conversation_id, held.content);
}

// ---------------------------------------------------------------- the reply

const SIGNATURE: Record<Language, { assistant: (agent: string) => string; person: (address: string) => string; sources: string }> = {
  en: { assistant: (a) => `This answer was written by ${a}'s assistant.`, person: (x) => `To reach a person, write to ${x}.`, sources: 'Sources:' },
  nl: { assistant: (a) => `Dit antwoord is geschreven door de assistent van ${a}.`, person: (x) => `Wilt u een mens spreken? Schrijf naar ${x}.`, sources: 'Bronnen:' },
  fr: { assistant: (a) => `Cette réponse a été écrite par l’assistant de ${a}.`, person: (x) => `Pour joindre une personne, écrivez à ${x}.`, sources: 'Sources\u00a0:' },
  de: { assistant: (a) => `Diese Antwort hat der Assistent von ${a} geschrieben.`, person: (x) => `Einen Menschen erreichen Sie unter ${x}.`, sources: 'Quellen:' },
  es: { assistant: (a) => `Esta respuesta la ha escrito el asistente de ${a}.`, person: (x) => `Para hablar con una persona, escriba a ${x}.`, sources: 'Fuentes:' },
};

interface Outgoing {
  to: string;
  subject: string;
  inReplyTo: string;
  references: string[];
  conversationId: string;
  language: Language;
  reply: { answer: string; messageId: string; sources: AnswerReply['sources'] };
  /** Who wrote it: the agent (sent) or a person releasing a held draft (team). */
  by?: 'sent' | 'team';
  /** A person's own text carries no line saying an assistant wrote it. */
  byPerson?: boolean;
}

/** The answer mailed from the agent's address, threaded to the visitor's mail, with its sources as links and who wrote it. */
export async function sendAnswer(ctx: Context, visitor: Visitor, out: Outgoing): Promise<void> {
  const address = visitor.settings.emailChannel.address!;
  const words = SIGNATURE[out.language];
  const linked = out.reply.sources.filter((s) => s.url);
  const owner = await workspaceOwner(ctx.db, visitor.workspaceId);
  const blocks: Block[] = [{ text: out.reply.answer }];
  if (linked.length > 0) blocks.push({ text: words.sources }, ...linked.map((s) => ({ text: `${s.name}:`, link: s.url! })));
  if (!out.byPerson) blocks.push({ text: `${words.assistant(visitor.settings.name)} ${words.person(owner?.email ?? address)}` });
  const composed = compose(out.language, { subject: replySubject(out.subject), blocks });
  const messageId = `${newId('mail')}@${address.split('@')[1] ?? 'parley.local'}`;
  await store.insertEmailMessage(ctx.db, {
    id: newId('mail'),
    agent_id: visitor.agent.id,
    message_id: messageId,
    direction: 'out',
    conversation_id: out.conversationId,
    chat_message_id: out.reply.messageId,
    sender: address.toLowerCase(),
    subject: composed.subject,
    outcome: out.by ?? 'sent',
    auth: null,
    mail_error: null,
    created_at: ctx.clock.now(),
  });
  await ctx.mailer.send({
    to: out.to,
    fromName: visitor.settings.name,
    ...composed,
    fromAddress: address,
    messageId: bracketed(messageId),
    inReplyTo: bracketed(out.inReplyTo),
    references: out.references.map(bracketed),
    autoReply: !out.byPerson,
  });
}

/** The channel keeps Message-IDs bare; mail headers carry them in angle brackets. */
function bracketed(id: string): string {
  return `<${id}>`;
}

function uniq(ids: string[]): string[] {
  return [...new Set(ids)];
}
