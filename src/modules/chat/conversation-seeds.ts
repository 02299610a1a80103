/** Conversations written straight into the store, for the correction and export tests (not loaded by the service). */
import { sql } from 'kysely';
import type { Service } from '../../../test/support/harness.ts';
import { newId } from '../../platform/ids.ts';
import { appendMessages, type Channel, type NewMessage } from './store.ts';

export interface SeedMessage {
  role: 'user' | 'assistant';
  content: string;
  attachments?: unknown[];
  /** An answer's confidence (default 77); null for none. */
  confidence?: number | null;
}

/** One conversation whose messages were all written at `at`; its id and its messages' ids. */
export async function insertConversation(
  service: Service,
  where: { workspaceId: string; agentId: string },
  conversation: { at: Date; channel?: Channel; userId?: string; messages: SeedMessage[] },
): Promise<{ id: string; messageIds: string[] }> {
  const id = newId('conv');
  const messages: NewMessage[] = conversation.messages.map((message) => ({
    id: newId('msg'),
    agent_id: where.agentId,
    role: message.role,
    content: message.content,
    created_at: conversation.at,
    attachments: message.attachments ?? [],
    page_url: null,
    confidence: message.role === 'assistant' ? (message.confidence === undefined ? 77 : message.confidence) : null,
    grounding: message.role === 'assistant' ? 'supported' : null,
    sources: [],
    model: message.role === 'assistant' ? 'parley-offline' : null,
    credits: message.role === 'assistant' ? 1 : 0,
  }));
  await appendMessages(service.ctx.db, {
    id,
    create: {
      id,
      workspace_id: where.workspaceId,
      agent_id: where.agentId,
      channel: conversation.channel ?? 'api',
      user_id: conversation.userId ?? null,
      opened_by: null,
      from_address: null,
      started_at: conversation.at,
      last_message_at: conversation.at,
      first_message: conversation.messages[0]?.content.slice(0, 200) ?? '',
    },
  }, messages);
  return { id, messageIds: messages.map((m) => m.id) };
}

/**
 * `count` conversations of one question and one answer in two statements: number i
 * ("Question number i") was last written i minutes before `end`.
 */
export async function insertManyConversations(service: Service, where: { workspaceId: string; agentId: string }, count: number, end: Date): Promise<void> {
  const db = service.ctx.db;
  await sql`
    insert into conversations (id, workspace_id, agent_id, channel, started_at, last_message_at, message_count, first_message, last_confidence)
    select 'conv_bulk' || lpad(i::text, 6, '0'), ${where.workspaceId}, ${where.agentId}, 'api',
      ${end.toISOString()}::timestamptz - i * interval '1 minute', ${end.toISOString()}::timestamptz - i * interval '1 minute',
      2, 'Question number ' || i || '?', 80
    from generate_series(1, ${count}::int) i`.execute(db);
  await sql`
    insert into messages (id, conversation_id, agent_id, position, role, content, created_at, confidence, grounding, model, credits)
    select 'msg_bulk' || lpad(i::text, 6, '0') || r.role, 'conv_bulk' || lpad(i::text, 6, '0'), ${where.agentId}, r.position, r.role,
      case when r.role = 'user' then 'Question number ' || i || '?'
           else 'Answer number ' || i || '. ' || repeat('Our opening hours are Monday to Friday from nine to six, and on Saturday from ten to four. ', 3) end,
      ${end.toISOString()}::timestamptz - i * interval '1 minute',
      case when r.role = 'assistant' then 80 end, case when r.role = 'assistant' then 'supported' end,
      case when r.role = 'assistant' then 'parley-offline' end, case when r.role = 'assistant' then 1 else 0 end
    from generate_series(1, ${count}::int) i
    cross join (values (0, 'user'), (1, 'assistant')) as r (position, role)`.execute(db);
}
