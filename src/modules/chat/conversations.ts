/**
 * Reading and erasing conversations (spec 2.8, 4.8). A key tied to one agent does not
 * see test conversations: for it they do not exist (404 by id, absent from lists).
 */
import type { z } from 'zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf } from '../../domain/paging.ts';
import type { AgentRef } from '../agents/access.ts';
import { BANDS } from '../analytics/rules.ts';
import type { conversationSchema, messageSchema } from './schemas.ts';
import * as store from './store.ts';

export interface Reader {
  /** false for a key tied to one agent. */
  seesTests: boolean;
}

/** The list's filters, shared with the export (docs/chat.md, "Filters and search"). */
export interface ConversationFilters {
  channel?: store.Channel;
  from?: string;
  to?: string;
  confidence?: store.Band;
  feedback?: store.FeedbackFilter;
  q?: string;
}

export interface ListInput extends ConversationFilters {
  limit?: number;
  cursor?: string;
}

/** The store's filter for what a reader asked: a band becomes its bounds. */
export function storeFilter(agentId: string, includeTests: boolean, input: ConversationFilters): store.ConversationFilter {
  return {
    agentId,
    includeTests,
    channel: input.channel,
    from: input.from,
    to: input.to,
    confidence: input.confidence ? BANDS[input.confidence] : undefined,
    feedback: input.feedback,
    q: input.q,
  };
}

export function checkPeriod(from: string | undefined, to: string | undefined): void {
  if (from && to && from > to) throw errors.invalidField('from', 'from must not be after to.');
}

export async function listConversations(ctx: Context, reader: Reader, agent: AgentRef, input: ListInput) {
  checkPeriod(input.from, input.to);
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const filter = storeFilter(agent.id, reader.seesTests, input);
  const rows = await store.listConversations(ctx.db, filter, limit, decodeCursor(input.cursor));
  const { items, nextCursor } = pageOf(rows, limit, (row) => ({ at: row.started_at.toISOString(), id: row.id }));
  return { items: items.map(conversationView), nextCursor };
}

export async function getConversation(ctx: Context, reader: Reader, agent: AgentRef, conversationId: string) {
  const conversation = await store.findConversation(ctx.db, agent.id, conversationId, reader.seesTests);
  if (!conversation) throw errors.notFound('conversation');
  const [withMessages] = await withMessagesOf(ctx, agent.id, [conversation]);
  return withMessages;
}

/** Conversations with their messages, the pages' titles looked up once for all. */
export async function withMessagesOf(ctx: Context, agentId: string, conversations: store.Conversation[]) {
  const messages = await store.messagesOf(ctx.db, conversations.map((c) => c.id));
  const titles = await store.pageTitles(ctx.db, agentId, messages.flatMap((m) => (m.page_url ? [m.page_url] : [])));
  const byConversation = Map.groupBy(messages, (m) => m.conversation_id);
  return conversations.map((c) => ({ ...conversationView(c), messages: (byConversation.get(c.id) ?? []).map((m) => messageView(m, titles)) }));
}

export async function deleteConversation(ctx: Context, reader: Reader, agent: AgentRef, conversationId: string): Promise<{ id: string; deleted: true }> {
  const conversation = await store.findConversation(ctx.db, agent.id, conversationId, reader.seesTests);
  if (!conversation || !(await store.deleteConversation(ctx.db, agent.id, conversationId))) throw errors.notFound('conversation');
  return { id: conversationId, deleted: true };
}

export function conversationView(row: store.Conversation): z.infer<typeof conversationSchema> {
  return {
    id: row.id,
    channel: row.channel,
    userId: row.user_id,
    startedAt: row.started_at.toISOString(),
    lastMessageAt: row.last_message_at.toISOString(),
    messageCount: row.message_count,
    firstMessage: row.first_message,
    lastConfidence: row.last_confidence,
    openedBy: row.opened_by,
    from: row.from_address,
  };
}

function messageView(row: store.Message, titles: Map<string, string>): z.infer<typeof messageSchema> {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    createdAt: row.created_at.toISOString(),
    attachments: row.attachments as z.infer<typeof messageSchema>['attachments'],
    page: row.page_url ? { url: row.page_url, title: titles.get(row.page_url) ?? null } : null,
    confidence: row.confidence,
    grounding: row.grounding,
    // Answers stored before sources kept their address read as null.
    sources: row.sources.map((source) => ({ ...source, url: source.url ?? null })),
    feedback: row.feedback === 1 || row.feedback === -1 ? row.feedback : null,
    model: row.model,
    held: row.held,
  };
}
