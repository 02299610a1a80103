/**
 * The PDF export of conversations (spec 4.8, 8). Asking for it gives a link, not the
 * file: the link is a credential of its own (like a key, only its fingerprint is kept)
 * that serves the PDF without a key for 15 minutes, and only while the key that asked
 * for it is live. The PDF is made when the link is opened, from the conversations of
 * that moment.
 */
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { utcDay } from '../../platform/clock.ts';
import { fingerprint } from '../../platform/crypto.ts';
import { randomBase62 } from '../../platform/ids.ts';
import type { AgentRef } from '../agents/access.ts';
import { recordAudit } from '../audit/store.ts';
import { planOf } from '../../domain/plans.ts';
import { storeFilter, withMessagesOf, type ConversationFilters } from './conversations.ts';
import type { ExportCover, ExportedConversation } from './export-pdf.ts';
import type { FromRenderer, ToRenderer } from './export-pdf.worker.ts';
import { countConversations, latestConversations, type Band, type Channel, type Conversation, type FeedbackFilter } from './store.ts';
import '../agents/store.ts'; // declares the agents table joined below

export const EXPORT_LINK_SECONDS = 15 * 60;
export const EXPORT_MAX_CONVERSATIONS = 500;
export const DEFAULT_PERIOD_DAYS = 30;
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;
const SECRET_LENGTH = 48;
const SECRET_PATTERN = /^[0-9A-Za-z]{48}$/;
/** Conversations whose messages are read and drawn at a time, so the PDF streams while it is made. */
const BATCH = 25;
const RENDERER_URL = new URL('./export-pdf.worker.ts', import.meta.url);
/** Far above what 500 long conversations take; a renderer past it is stopped and the download cut. */
const RENDER_TIMEOUT_MS = 120_000;
const RENDER_MEMORY_MB = 256;

/** Who asks for an export: the key or the person (exactly one), resolved by the surface. */
export interface Exporter {
  workspaceId: string;
  keyId: string | null;
  personId: string | null;
  /** false for a key tied to one agent: test conversations never go into its export. */
  seesTests: boolean;
}

/** The list's filters (GET .../conversations): the export is of the filtered set. */
export type ExportQuery = ConversationFilters;

export interface Period {
  from: string;
  to: string;
}

export async function createExport(ctx: Context, exporter: Exporter, agent: AgentRef, query: ExportQuery): Promise<{ url: string; expiresAt: string }> {
  const now = ctx.clock.now();
  const period = exportPeriod(utcDay(now), query);
  const secret = randomBase62(SECRET_LENGTH);
  const expiresAt = new Date(now.getTime() + EXPORT_LINK_SECONDS * 1000);
  // Links are short-lived: this agent's expired ones are tidied away as new ones are made.
  await ctx.db.deleteFrom('conversation_exports').where('agent_id', '=', agent.id).where('expires_at', '<=', now).execute();
  await ctx.db
    .insertInto('conversation_exports')
    .values({
      id: `exp_${randomBase62(20)}`,
      fingerprint: fingerprint(secret),
      workspace_id: agent.workspaceId,
      agent_id: agent.id,
      key_id: exporter.keyId,
      ...(exporter.personId ? { person_id: exporter.personId } : {}),
      channel: query.channel ?? null,
      from_day: period.from,
      to_day: period.to,
      include_tests: exporter.seesTests,
      confidence: query.confidence ?? null,
      feedback: query.feedback ?? null,
      q: query.q ?? null,
      expires_at: expiresAt,
      created_at: now,
    })
    .execute();
  return { url: `${ctx.config.publicUrl}/api/v1/conversation-exports/${secret}`, expiresAt: expiresAt.toISOString() };
}

/**
 * The period of an export, in inclusive UTC days: the last 30 days (today included)
 * without from and to, up to today with only from, the 30 days ending on `to` with only to.
 */
export function exportPeriod(today: string, query: { from?: string; to?: string }): Period {
  const to = query.to ?? today;
  const from = query.from ?? latest(FIRST_DAY, shiftDay(to, -(DEFAULT_PERIOD_DAYS - 1)));
  if (from > to) throw errors.invalidField('from', query.to ? 'from must not be after to.' : 'from must not be after today (to, by default).');
  if (daysBetween(from, to) + 1 > MAX_PERIOD_DAYS) throw errors.invalidField('from', `A period spans at most ${MAX_PERIOD_DAYS} days.`);
  return { from, to };
}

/** The first day the databases store: 30 days before an early `to` would be year 0 or before. */
const FIRST_DAY = '0001-01-01';

function latest(a: string, b: string): string {
  return a > b ? a : b;
}

function shiftDay(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS));
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / DAY_MS);
}

export interface OpenedExport {
  fileName: string;
  pdf: Readable;
}

/**
 * Opens a link: unknown, expired, or made by a key that is revoked (or whose workspace
 * is stopped or below the API's plan), or by a person no longer in the workspace (or
 * whose workspace is stopped), is the same 404. Each opening is audited with the key or
 * the person that asked for the link.
 */
export async function openExport(ctx: Context, secret: string, requestId: string | null): Promise<OpenedExport> {
  const now = ctx.clock.now();
  const link = SECRET_PATTERN.test(secret) ? await findLiveExport(ctx, fingerprint(secret), now) : undefined;
  if (!link) throw errors.notFound('export');
  await recordAudit(ctx.db, {
    workspaceId: link.workspace_id,
    keyId: link.key_id,
    personId: link.person_id,
    action: 'conversation.export.open',
    target: `${link.agent_id}/${link.id}`,
    requestId,
    at: now,
  });

  const filters: ConversationFilters = {
    channel: (link.channel ?? undefined) as Channel | undefined,
    from: link.from_day,
    to: link.to_day,
    confidence: (link.confidence ?? undefined) as Band | undefined,
    feedback: (link.feedback ?? undefined) as FeedbackFilter | undefined,
    q: link.q ?? undefined,
  };
  const filter = storeFilter(link.agent_id, link.include_tests, filters);
  const conversations = await latestConversations(ctx.db, filter, EXPORT_MAX_CONVERSATIONS);
  const inPeriod = conversations.length < EXPORT_MAX_CONVERSATIONS ? conversations.length : await countConversations(ctx.db, filter);
  const agentName = link.agent_name ?? 'Agent';
  const pdf = renderOffThread(
    {
      agentName,
      period: { from: link.from_day, to: link.to_day },
      channel: filter.channel ?? null,
      filters: filterNote(filters),
      testsIncluded: link.include_tests,
      conversations: conversations.length,
      inPeriod,
      questions: await countQuestions(ctx, conversations),
      madeAt: now,
    },
    inBatches(ctx, link.agent_id, conversations),
  );
  return { fileName: `conversations-${link.from_day}-${link.to_day}.pdf`, pdf };
}

async function findLiveExport(ctx: Context, linkFingerprint: string, now: Date) {
  const row = await ctx.db
    .selectFrom('conversation_exports as e')
    .leftJoin('api_keys as k', 'k.id', 'e.key_id')
    .leftJoin('memberships as m', (join) => join.onRef('m.person_id', '=', 'e.person_id').onRef('m.workspace_id', '=', 'e.workspace_id'))
    .innerJoin('workspaces as w', 'w.id', 'e.workspace_id')
    .innerJoin('agents as a', 'a.id', 'e.agent_id')
    .select(['e.id', 'e.workspace_id', 'e.agent_id', 'e.key_id', 'e.person_id', 'e.channel', 'e.from_day', 'e.to_day', 'e.include_tests', 'a.name as agent_name', 'w.plan', 'w.status'])
    .select(['e.confidence', 'e.feedback', 'e.q', 'k.revoked_at', 'm.person_id as member'])
    .where('e.fingerprint', '=', linkFingerprint)
    .where('e.expires_at', '>', now)
    .executeTakeFirst();
  // The link is worth what the key or the person that asked for it is worth now (the API's plan is a key's rule).
  if (!row || row.status === 'stopped') return undefined;
  if (row.key_id !== null ? row.revoked_at !== null || !planOf(row.plan).api : row.member === null) return undefined;
  return row;
}

/** The inbox's filters the export was asked with, as the cover shows them; null without any. */
function filterNote(filters: ConversationFilters): string | null {
  const parts = [
    filters.confidence && `an answer of ${filters.confidence} confidence`,
    filters.feedback === 'up' && 'an answer rated helpful',
    filters.feedback === 'down' && 'an answer rated not helpful',
    filters.feedback === 'none' && 'no answer rated',
    filters.q !== undefined && `the words "${filters.q}"`,
  ].filter((part): part is string => typeof part === 'string');
  return parts.length > 0 ? `only conversations with ${parts.join('; ')}` : null;
}

async function countQuestions(ctx: Context, conversations: Conversation[]): Promise<number> {
  if (conversations.length === 0) return 0;
  const row = await ctx.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('conversation_id', 'in', conversations.map((c) => c.id))
    .where('role', '=', 'user')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function* inBatches(ctx: Context, agentId: string, conversations: Conversation[]): AsyncGenerator<ExportedConversation[]> {
  for (let start = 0; start < conversations.length; start += BATCH) {
    yield withMessagesOf(ctx, agentId, conversations.slice(start, start + BATCH));
  }
}

/**
 * The PDF drawn in a worker thread: drawing 500 conversations takes seconds of CPU, which
 * the event loop answering other requests does not pay. The worker asks for each batch
 * of conversations as it needs it; the PDF streams back as it is drawn. A reader that
 * goes away stops the worker.
 */
export function renderOffThread(cover: ExportCover, batches: AsyncIterator<ExportedConversation[]>): Readable {
  const pdf = new Readable({ read() {} });
  const worker = new Worker(RENDERER_URL, { workerData: { cover }, resourceLimits: { maxOldGenerationSizeMb: RENDER_MEMORY_MB } });
  let finished = false;
  const finish = (error?: Error) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    void worker.terminate();
    if (pdf.destroyed) return;
    if (error) pdf.destroy(error);
    else pdf.push(null);
  };
  const timer = setTimeout(() => finish(new Error(`the PDF took longer than ${RENDER_TIMEOUT_MS} ms`)), RENDER_TIMEOUT_MS);
  const sendNextBatch = async () => {
    const next = await batches.next();
    if (!finished) worker.postMessage({ conversations: next.done ? null : next.value } satisfies ToRenderer);
  };
  worker.on('message', (message: FromRenderer) => {
    if (message.type === 'chunk') pdf.push(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
    else if (message.type === 'next') sendNextBatch().catch((error: Error) => finish(error));
    else if (message.type === 'end') finish();
    else finish(new Error(message.message));
  });
  worker.on('error', (error) => finish(error));
  worker.on('exit', (code) => finish(new Error(`the PDF renderer stopped (exit ${code})`)));
  pdf.on('close', () => finish());
  return pdf;
}
