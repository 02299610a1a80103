import { sql, type Generated, type RawBuilder, type Selectable } from 'kysely';
import { prepared, type Db } from '../../platform/db.ts';
import { StatementGroups, statementGroupsOf } from '../../platform/grouped-statements.ts';
import type { Position } from '../../domain/paging.ts';

export type Channel = 'widget' | 'iframe' | 'api' | 'playground' | 'email';
export const CHANNELS = ['widget', 'iframe', 'api', 'playground', 'email'] as const;
/** Test conversations: left out of analytics and client reports, hidden from keys tied to one agent. */
export const TEST_CHANNEL: Channel = 'playground';

export interface ConversationRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  channel: Channel;
  user_id: string | null;
  opened_by: 'launcher' | 'greeting' | 'nudge' | null;
  from_address: string | null;
  started_at: Date;
  last_message_at: Date;
  message_count: number;
  first_message: string;
  last_confidence: number | null;
  /** SHA-256 of the visitor token of a conversation started through the visitor API; null otherwise. */
  visitor_token_fingerprint: string | null;
}

export interface MessageSource {
  id: string;
  name: string;
  similarity: number;
  /** The address of a website or file source; null for text and Q&A. Answers stored before it was kept lack it. */
  url: string | null;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  agent_id: string;
  position: number;
  role: 'user' | 'assistant';
  content: string;
  created_at: Date;
  attachments: unknown[];
  page_url: string | null;
  confidence: number | null;
  grounding: 'supported' | 'partial' | 'unsupported' | null;
  sources: MessageSource[];
  feedback: number | null;
  model: string | null;
  credits: number;
  held: boolean;
  correction_source_id: string | null;
}

declare module '../../platform/db.ts' {
  interface Tables {
    conversations: ConversationRow;
    messages: MessageRow;
    conversation_exports: {
      id: string;
      fingerprint: string;
      workspace_id: string;
      agent_id: string;
      /** The key that asked for the link, or (migration 035) the person: exactly one is set. */
      key_id: string | null;
      person_id: Generated<string | null>;
      channel: string | null;
      from_day: string;
      to_day: string;
      include_tests: boolean;
      confidence: string | null;
      feedback: string | null;
      q: string | null;
      expires_at: Date;
      created_at: Date;
    };
  }
}

export type Conversation = Selectable<ConversationRow>;
export type Message = Selectable<MessageRow>;

export async function findConversation(db: Db, agentId: string, conversationId: string, includeTests: boolean): Promise<Conversation | undefined> {
  let query = db.selectFrom('conversations').selectAll().where('id', '=', conversationId).where('agent_id', '=', agentId);
  if (!includeTests) query = query.where('channel', '!=', TEST_CHANNEL);
  return query.executeTakeFirst();
}

/**
 * The conversation with its last `limit` messages (oldest first), in one statement: what a
 * follow-up question reads before it is answered.
 */
export async function findConversationWithRecent(
  db: Db,
  agentId: string,
  conversationId: string,
  includeTests: boolean,
  limit: number,
): Promise<{ conversation: Conversation; recent: Array<Pick<Message, 'role' | 'content'>> } | undefined> {
  const asked = { agentId, conversationId, includeTests, limit };
  return statementGroupsOf(conversationReaders, db, (group: ConversationAsked[]) => readConversations(db, group)).submit(asked);
}

interface ConversationAsked {
  agentId: string;
  conversationId: string;
  includeTests: boolean;
  limit: number;
}

type FoundConversation = Awaited<ReturnType<typeof findConversationWithRecent>>;

/**
 * The conversation reads in groups, one statement a group (platform/grouped-statements.ts): on PostgreSQL the reads that
 * arrive while a group is in flight, on the embedded store each event-loop turn's (gatherTurn).
 */
const conversationReaders = new WeakMap<Db, StatementGroups<ConversationAsked, FoundConversation>>();

/**
 * The conversations asked for, read by id in one statement with the most recent messages the largest limit
 * asked keeps; each answer then applies its own conditions (its agent, test conversations seen or not) and its
 * own limit (the last `limit` of the messages in order). A group's (conversationReaders).
 */
async function readConversations(db: Db, asked: ConversationAsked[]): Promise<FoundConversation[]> {
  const limit = Math.max(...asked.map((a) => a.limit));
  const { rows } = await prepared(
    db,
    db
      .selectFrom('conversations as c')
      .selectAll('c')
      .select(
        sql<Array<Pick<Message, 'role' | 'content'>> | null>`(select json_agg(json_build_object('role', m.role, 'content', m.content) order by m.position)
        from (select role, content, position from messages where conversation_id = c.id order by position desc limit ${limit}::integer) m)`.as('recent'),
      )
      .where('c.id', '=', sql<string>`any(cast((select ${[...new Set(asked.map((a) => a.conversationId))]}::text[]) as text[]))`),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return asked.map((a) => {
    const row = byId.get(a.conversationId);
    if (!row || row.agent_id !== a.agentId || (!a.includeTests && row.channel === TEST_CHANNEL)) return undefined;
    const { recent, ...conversation } = row;
    const messages: Array<Pick<Message, 'role' | 'content'>> = typeof recent === 'string' ? JSON.parse(recent) : (recent ?? []);
    return { conversation, recent: messages.slice(Math.max(0, messages.length - a.limit)) };
  });
}

export type NewMessage = Omit<MessageRow, 'conversation_id' | 'position' | 'feedback' | 'held' | 'correction_source_id'> & { held?: boolean };

export type NewConversation = Omit<ConversationRow, 'message_count' | 'last_confidence' | 'visitor_token_fingerprint'> & { visitor_token_fingerprint?: string | null };

/** Messages to append to one conversation, which `create` makes first when given. */
export interface Append {
  conversation: { id: string; create?: NewConversation };
  messages: NewMessage[];
}

/**
 * Appends messages to a conversation (making it first when `create` is given), in one
 * statement (writeAppends). Runs on any handle, a transaction's too.
 */
export async function appendMessages(db: Db, conversation: Append['conversation'], messages: NewMessage[]): Promise<void> {
  await writeAppends(db, [{ conversation, messages }]);
}

const recorders = new WeakMap<Db, StatementGroups<Append, void>>();

/**
 * appendMessages for the answering path: the appends of the process's answers that arrive while
 * another group is being written go together in the next group, one statement and one commit
 * (platform/grouped-statements.ts); each returns once its group has committed. Not for a transaction's
 * handle: the group is written on a connection of its own.
 */
export async function recordMessages(db: Db, conversation: Append['conversation'], messages: NewMessage[]): Promise<void> {
  await statementGroupsOf(recorders, db, async (appends: Append[]) => {
    await writeAppends(db, appends);
    return appends.map(() => undefined);
  }).submit({ conversation, messages });
}

/**
 * Appends the messages of several conversations in one statement. Positions come from each
 * conversation's own counter, taken under its row lock, so two questions sent at once to one
 * conversation cannot collide. A conversation erased meanwhile gets nothing appended. The rows
 * go in as jsonb parameters, sent as text: the two drivers encode an inferred jsonb parameter
 * differently.
 */
export async function writeAppends(db: Db, appends: Append[]): Promise<void> {
  const { conversations, messages } = appendRows(appends);
  await prepared(
    db,
    sql`
    with batch as (
      select * from jsonb_to_recordset(cast(${JSON.stringify(conversations)}::text as jsonb)) as b(id text, created boolean, count integer,
        last_message_at timestamptz, last_confidence integer, workspace_id text, agent_id text, channel text, user_id text, opened_by text,
        from_address text, started_at timestamptz, first_message text, visitor_token_fingerprint text)
    ),
    created as (
      insert into conversations (id, workspace_id, agent_id, channel, user_id, opened_by, from_address, started_at, last_message_at, first_message,
        visitor_token_fingerprint, message_count, last_confidence)
      select id, workspace_id, agent_id, channel, user_id, opened_by, from_address, started_at, last_message_at, first_message,
        visitor_token_fingerprint, count, last_confidence
      from batch where created
      returning id, message_count
    ),
    bumped as (
      update conversations c set message_count = c.message_count + b.count, last_message_at = b.last_message_at,
        last_confidence = coalesce(b.last_confidence, c.last_confidence)
      from batch b where not b.created and c.id = b.id
      returning c.id, c.message_count
    ),
    counter as (select id, message_count from created union all select id, message_count from bumped)
    insert into messages (id, conversation_id, agent_id, position, role, content, created_at, attachments, page_url, confidence, grounding, sources, model, credits, held)
    select m.id, m.conversation_id, m.agent_id, counter.message_count - b.count + m.ord, m.role, m.content, m.created_at, m.attachments,
      m.page_url, m.confidence, m.grounding, m.sources, m.model, m.credits, m.held
    from jsonb_to_recordset(cast(${JSON.stringify(messages)}::text as jsonb)) as m(id text, conversation_id text, agent_id text, ord integer, role text,
      content text, created_at timestamptz, attachments jsonb, page_url text, confidence integer, grounding text, sources jsonb, model text,
      credits integer, held boolean)
    join counter on counter.id = m.conversation_id
    join batch b on b.id = m.conversation_id`,
  );
}

/**
 * The appends as one row a conversation (its messages' count, last time and last answer's
 * confidence; its new row when one of them makes it) and one a message, numbered in its
 * conversation in the order given.
 */
function appendRows(appends: Append[]) {
  const conversations = new Map<string, { id: string; created: boolean; count: number; last_message_at: Date; last_confidence: number | null } & Partial<NewConversation>>();
  const messages: Array<NewMessage & { conversation_id: string; ord: number; held: boolean }> = [];
  for (const { conversation, messages: appended } of appends) {
    const row = conversations.get(conversation.id) ?? { id: conversation.id, created: false, count: 0, last_message_at: new Date(0), last_confidence: null };
    if (conversation.create) Object.assign(row, conversation.create, { created: true });
    for (const message of appended) {
      messages.push({ ...message, conversation_id: conversation.id, ord: row.count, held: message.held ?? false });
      row.count += 1;
      if (message.role === 'assistant') row.last_confidence = message.confidence;
    }
    if (!conversation.create && appended.length > 0) row.last_message_at = appended[appended.length - 1].created_at;
    conversations.set(conversation.id, row);
  }
  return { conversations: [...conversations.values()], messages };
}

/** A check made after the answer was recorded; the conversation's lastConfidence follows when it is still the last answer. */
export async function updateMessageCheck(db: Db, check: { messageId: string; conversationId: string; grounding: MessageRow['grounding']; confidence: number }): Promise<void> {
  // One statement, one commit: the conversation's last confidence follows when this is its latest answer.
  await sql`
    with checked as (
      update messages set grounding = ${check.grounding}, confidence = ${check.confidence}::integer where id = ${check.messageId} returning id
    )
    update conversations set last_confidence = ${check.confidence}::integer
    where id = ${check.conversationId}
      and (select id from checked) = (select id from messages where conversation_id = ${check.conversationId} and role = 'assistant' order by position desc limit 1)`.execute(db);
}

/** The three confidence bands of the analytics (spec 2.14, src/modules/analytics/rules.ts). */
export type Band = 'high' | 'medium' | 'low';
/** up: an answer rated 1; down: an answer rated -1; none: no answer rated. */
export type FeedbackFilter = 'up' | 'down' | 'none';

export interface ConversationFilter {
  agentId: string;
  includeTests: boolean;
  channel?: Channel;
  /** Inclusive UTC days on the last message, YYYY-MM-DD. */
  from?: string;
  to?: string;
  /** Conversations with at least one answer whose confidence is within these bounds (inclusive). */
  confidence?: { min: number; max: number };
  feedback?: FeedbackFilter;
  /** Words that must all be in the conversation's messages (docs/chat.md, "Search"). */
  q?: string;
}

function filtered(db: Db, filter: ConversationFilter) {
  let query = db.selectFrom('conversations').where('agent_id', '=', filter.agentId);
  if (!filter.includeTests) query = query.where('channel', '!=', TEST_CHANNEL);
  if (filter.channel) query = query.where('channel', '=', filter.channel);
  if (filter.from) query = query.where('last_message_at', '>=', startOfUtcDay(sql`cast(${filter.from} as date)`));
  if (filter.to) query = query.where('last_message_at', '<', startOfUtcDay(sql`cast(${filter.to} as date) + 1`));
  if (filter.confidence) {
    const { min, max } = filter.confidence;
    query = query.where(answerWhere(sql`m.confidence between ${min}::integer and ${max}::integer`));
  }
  if (filter.feedback === 'up') query = query.where(answerWhere(sql`m.feedback = 1`));
  else if (filter.feedback === 'down') query = query.where(answerWhere(sql`m.feedback = -1`));
  else if (filter.feedback === 'none') query = query.where(sql<boolean>`not ${answerWhere(sql`m.feedback is not null`)}`);
  if (filter.q !== undefined) {
    query = query.where(sql<boolean>`conversations.id in (select s.conversation_id from conversation_search s where s.document @@ ${searchQuery(filter.q)})`);
  }
  return query;
}

/** The conversation has an answer that meets the condition (on messages as m). */
function answerWhere(condition: RawBuilder<unknown>) {
  return sql<boolean>`exists (select 1 from messages m where m.conversation_id = conversations.id and m.role = 'assistant' and ${condition})`;
}

/**
 * The search's tsquery: the words of `q` cut and folded as the documents were made
 * (migration 036), each a prefix, all of them required. The lexemes are quoted into the
 * tsquery's text form without being parsed again (to_tsquery would turn "e-mail" into a
 * phrase, which a document without positions cannot match).
 */
function searchQuery(q: string) {
  return sql`(select cast(string_agg('''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || ''':*', ' & ') as tsquery)
    from unnest(tsvector_to_array(conversation_search_vector(${q}))) l)`;
}

/**
 * Midnight UTC of a date, computed by the database: the day after 9999-12-31 is
 * beyond what the drivers can send as a JavaScript date, and a bare date would be
 * read in the session's time zone.
 */
function startOfUtcDay(date: RawBuilder<unknown>) {
  return sql<Date>`(${date})::timestamp at time zone 'UTC'`;
}

/** Newest first by start (stable while conversations go on), limit + 1 rows for paging. */
export async function listConversations(db: Db, filter: ConversationFilter, limit: number, after?: Position): Promise<Conversation[]> {
  let query = filtered(db, filter).selectAll();
  if (after) {
    const at = new Date(after.at);
    query = query.where((eb) => eb.or([eb('started_at', '<', at), eb.and([eb('started_at', '=', at), eb('id', '<', after.id)])]));
  }
  return query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

/** The most recent `limit` conversations of the filter (by last message), for the export. */
export async function latestConversations(db: Db, filter: ConversationFilter, limit: number): Promise<Conversation[]> {
  return filtered(db, filter).selectAll().orderBy('last_message_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function countConversations(db: Db, filter: ConversationFilter): Promise<number> {
  const row = await filtered(db, filter).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function messagesOf(db: Db, conversationIds: string[]): Promise<Message[]> {
  if (conversationIds.length === 0) return [];
  return db.selectFrom('messages').selectAll().where('conversation_id', 'in', conversationIds).orderBy('conversation_id').orderBy('position').execute();
}

/** Titles of the pages the agent knows as sources, by address. */
export async function pageTitles(db: Db, agentId: string, urls: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(urls)];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('sources')
    .select(['url', 'name', 'title'])
    .where('agent_id', '=', agentId)
    .where('type', '=', 'website')
    .where('url', 'in', wanted)
    .execute();
  return new Map(rows.map((row) => [row.url!, row.title || row.name]));
}

/** An answer's feedback (1, -1 or null to clear it); false when the agent has no such answer. */
export async function setAnswerFeedback(db: Db, agentId: string, messageId: string, feedback: 1 | -1 | null): Promise<boolean> {
  const updated = await db
    .updateTable('messages')
    .set({ feedback })
    .where('id', '=', messageId)
    .where('agent_id', '=', agentId)
    .where('role', '=', 'assistant')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

export async function findMessage(db: Db, agentId: string, messageId: string): Promise<Pick<Message, 'id' | 'conversation_id' | 'role'> | undefined> {
  return db.selectFrom('messages').select(['id', 'conversation_id', 'role']).where('id', '=', messageId).where('agent_id', '=', agentId).executeTakeFirst();
}

/**
 * The conversation's row is locked before anything is deleted: the analytics triggers
 * take its figures out before the row goes, and a message being added at that moment
 * must not hold the day's figures while it waits for the conversation (a deadlock).
 */
export async function deleteConversation(db: Db, agentId: string, conversationId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const found = await trx.selectFrom('conversations').select('id').where('id', '=', conversationId).where('agent_id', '=', agentId).forUpdate().executeTakeFirst();
    if (!found) return false;
    const deleted = await trx.deleteFrom('conversations').where('id', '=', conversationId).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  });
}
