import { sql } from 'kysely';
import type { Db } from '../../platform/db.ts';

export type Direction = 'in' | 'out';
/** A received mail: answered, held, to_ticket (a reply to a person's mail) or why it was not answered; a sent one: sent (the agent's answer) or team (a person's). */
export type Outcome = 'answered' | 'held' | 'discarded' | 'to_ticket' | 'auto_reply' | 'bounce' | 'own_address' | 'dmarc' | 'limited' | 'empty' | 'paused' | 'sent' | 'team';

/** What SPF, DKIM and DMARC said of a received mail. */
export interface MailAuth {
  spf: string;
  dkim: string;
  dmarc: string;
  /** The sender domain's DMARC policy (none, quarantine, reject), when it has one. */
  policy: string | null;
}

export interface EmailMessageRow {
  id: string;
  agent_id: string;
  message_id: string;
  direction: Direction;
  conversation_id: string | null;
  chat_message_id: string | null;
  sender: string;
  subject: string;
  outcome: Outcome;
  auth: MailAuth | null;
  mail_error: string | null;
  created_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    email_messages: EmailMessageRow;
  }
}

export async function insertEmailMessage(db: Db, row: EmailMessageRow): Promise<void> {
  await sql`insert into email_messages (id, agent_id, message_id, direction, conversation_id, chat_message_id, sender, subject, outcome, auth, mail_error, created_at)
    values (${row.id}, ${row.agent_id}, ${row.message_id}, ${row.direction}, ${row.conversation_id}, ${row.chat_message_id}, ${row.sender}, ${row.subject},
      ${row.outcome}, cast(${row.auth === null ? null : JSON.stringify(row.auth)} as jsonb), ${row.mail_error}, ${row.created_at})`.execute(db);
}

/**
 * A received mail claimed by its Message-ID before anything is done with it; false
 * when the agent already has it (a redelivery, or the same mail arriving twice at once).
 */
export async function claimReceived(db: Db, row: EmailMessageRow): Promise<boolean> {
  const result = await sql<{ id: string }>`insert into email_messages (id, agent_id, message_id, direction, conversation_id, chat_message_id, sender, subject, outcome, auth, mail_error, created_at)
    values (${row.id}, ${row.agent_id}, ${row.message_id}, 'in', null, null, ${row.sender}, ${row.subject}, ${row.outcome}, null, null, ${row.created_at})
    on conflict (agent_id, message_id) where direction = 'in' do nothing returning id`.execute(db);
  return result.rows.length === 1;
}

/** What became of a claimed mail. */
export async function settleReceived(db: Db, row: EmailMessageRow): Promise<void> {
  await sql`update email_messages set outcome = ${row.outcome}, conversation_id = ${row.conversation_id},
    auth = cast(${row.auth === null ? null : JSON.stringify(row.auth)} as jsonb) where id = ${row.id}`.execute(db);
}

/** A claim given up: the mail could not be handled now, and the sending server will send it again. */
export async function releaseClaim(db: Db, id: string): Promise<void> {
  await db.deleteFrom('email_messages').where('id', '=', id).execute();
}

/**
 * The conversation of the newest mail of the agent among these Message-IDs (a reply's In-Reply-To and
 * References); with `byPerson`, only among mails a person sent (a held draft released): the visitor answers a person.
 */
export async function conversationOfThread(db: Db, agentId: string, ids: string[], options: { byPerson?: boolean } = {}): Promise<string | undefined> {
  if (ids.length === 0) return undefined;
  let query = db
    .selectFrom('email_messages')
    .select('conversation_id')
    .where('agent_id', '=', agentId)
    .where('message_id', 'in', ids)
    .where('conversation_id', 'is not', null);
  if (options.byPerson) query = query.where('direction', '=', 'out').where('outcome', '=', 'team');
  const row = await query.orderBy('created_at', 'desc').executeTakeFirst();
  return row?.conversation_id ?? undefined;
}

/** The Message-IDs of a conversation's mails, oldest first: the References of the next reply. */
export async function threadIds(db: Db, conversationId: string): Promise<string[]> {
  const rows = await db.selectFrom('email_messages').select('message_id').where('conversation_id', '=', conversationId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.message_id);
}

/** Marks the mails the service sent under these Message-IDs as bounced; how many it found. */
export async function recordBounce(db: Db, agentId: string, ids: string[], error: string): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('email_messages')
    .set({ mail_error: error })
    .where('agent_id', '=', agentId)
    .where('direction', '=', 'out')
    .where('message_id', 'in', ids)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** An answer kept back for a person (spec 2.8 `held`). */
export async function holdAnswer(db: Db, conversationId: string, messageId: string, receivedId: string): Promise<void> {
  await db.updateTable('messages').set({ held: true }).where('conversation_id', '=', conversationId).where('id', '=', messageId).execute();
  // The received mail names the draft it waits on: its outcome stays `held` while the draft is pending.
  await db.updateTable('email_messages').set({ chat_message_id: messageId }).where('id', '=', receivedId).execute();
}

/**
 * A draft still pending: a held answer whose received mail is still `held`
 * (not `answered` by a person's send, not `discarded`).
 */
const PENDING = sql`exists (select 1 from email_messages e where e.agent_id = a.agent_id and e.direction = 'in' and e.chat_message_id = a.id and e.outcome = 'held')`;

/** The pending drafts of a conversation, oldest first. */
export async function pendingDrafts(db: Db, agentId: string, conversationId: string): Promise<Array<{ id: string; content: string; created_at: Date }>> {
  const rows = await sql<{ id: string; content: string; created_at: Date }>`select a.id, a.content, a.created_at from messages a
    where a.conversation_id = ${conversationId} and a.agent_id = ${agentId} and a.role = 'assistant' and a.held and ${PENDING}
    order by a.position`.execute(db);
  return rows.rows;
}

/**
 * The pending draft settled (`answered` when a person sends it, `discarded`), once:
 * false when it was settled already (so of a send and a discard at once one wins).
 */
export async function settleDraft(db: Db, agentId: string, messageId: string, outcome: 'answered' | 'discarded'): Promise<boolean> {
  const result = await db
    .updateTable('email_messages')
    .set({ outcome })
    .where('agent_id', '=', agentId)
    .where('direction', '=', 'in')
    .where('chat_message_id', '=', messageId)
    .where('outcome', '=', 'held')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The enabled agents whose e-mail address is one of these, lower-cased. */
export async function agentsByAddress(db: Db, addresses: string[]): Promise<Array<{ id: string; address: string }>> {
  if (addresses.length === 0) return [];
  const lowered = addresses.map((a) => a.toLowerCase());
  const rows = await sql<{ id: string; address: string }>`select id, lower(settings->'emailChannel'->>'address') as address from agents
    where (settings->'emailChannel'->>'enabled') = 'true'
      and lower(settings->'emailChannel'->>'address') in (${sql.join(lowered)})`.execute(db);
  return rows.rows;
}

/** Whether this is the e-mail channel's address of any agent of the service (enabled or not). */
export async function isAgentAddress(db: Db, address: string): Promise<boolean> {
  const rows = await sql`select 1 from agents where lower(settings->'emailChannel'->>'address') = ${address.toLowerCase()} limit 1`.execute(db);
  return rows.rows.length > 0;
}

export interface HeldAnswer {
  id: string;
  conversation_id: string;
  content: string;
  sources: import('../chat/store.ts').MessageSource[];
  /** The question it answers. */
  question: string;
}

/** A pending held answer of the agent, with the question before it; undefined when there is none (sent, discarded, or no such answer). */
export async function findHeldAnswer(db: Db, agentId: string, messageId: string): Promise<HeldAnswer | undefined> {
  const row = await sql<HeldAnswer>`select a.id, a.conversation_id, a.content, a.sources, coalesce(q.content, '') as question
    from messages a left join messages q on q.conversation_id = a.conversation_id and q.position = a.position - 1
    where a.id = ${messageId} and a.agent_id = ${agentId} and a.role = 'assistant' and a.held and ${PENDING}`.execute(db);
  return row.rows[0];
}

/** A held answer released, as it was or as a person edited it. */
export async function releaseAnswer(db: Db, messageId: string, content: string): Promise<boolean> {
  const result = await db.updateTable('messages').set({ held: false, content }).where('id', '=', messageId).where('held', '=', true).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The newest mail received in a conversation: the one an answer replies to. */
export async function lastReceived(db: Db, conversationId: string): Promise<EmailMessageRow | undefined> {
  return db.selectFrom('email_messages').selectAll().where('conversation_id', '=', conversationId).where('direction', '=', 'in').orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
}
