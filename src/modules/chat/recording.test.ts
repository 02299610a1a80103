import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { storeUnderTest } from '../../../test/support/stores.ts';
import { newId } from '../../platform/ids.ts';
import { appendMessages, findConversationWithRecent, recordMessages, type NewMessage } from './store.ts';

/**
 * Migrations 038 and 045: the analytics and search-text triggers of messages run once per
 * statement. A statement that records messages of several conversations, channels and days must
 * leave the figures that the messages themselves give (as the row triggers left them), and each
 * conversation's search document the words of its messages. Migration 050: an agent's day is kept
 * in up to sixteen rows (slots), one a transaction, summed when read; 051: a charge's lock on the workspace leaves
 * the rows that refer to it free to be inserted.
 */
let service: Service;
let ws: SeededWorkspace;

before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ plan: 'enterprise' });
});
after(async () => service?.close());

const PAGE = 'https://shop.example.com/hours';

async function conversationRow(agentId: string, id: string, channel: string, startedAt: string): Promise<void> {
  await sql`insert into conversations (id, workspace_id, agent_id, channel, started_at, last_message_at, message_count, first_message)
    values (${id}, ${ws.id}, ${agentId}, ${channel}, ${startedAt}::timestamptz, ${startedAt}::timestamptz, 0, 'x')`.execute(service.ctx.db);
}

test('messages of several conversations, channels and days recorded in one statement count in the analytics and the search as each message would', async () => {
  const agentId = await seedAgent(service, ws);
  await conversationRow(agentId, 'conv_widget', 'widget', '2026-03-09T23:59:00Z');
  await conversationRow(agentId, 'conv_api', 'api', '2026-03-09T10:00:00Z');
  await conversationRow(agentId, 'conv_test', 'playground', '2026-03-09T10:00:00Z');
  const before = await analyticsTables(agentId);
  // One group of questions ("is on open saturday shop the when") twice on one day and once in a test conversation (not
  // counted); a question after midnight in a conversation started the day before; weak, banded and unrated answers.
  await sql`
    insert into messages (id, conversation_id, agent_id, position, role, content, created_at, page_url, confidence, sources, feedback)
    values
      ('m1', 'conv_widget', ${agentId}, 0, 'user', 'When is the shop open on Saturday?', '2026-03-09T23:59:00Z', ${PAGE}, null, '[]', null),
      ('m2', 'conv_widget', ${agentId}, 1, 'assistant', 'From ten to four, Zürich-time.', '2026-03-09T23:59:30Z', null, 85, '[{"id":"src_1"}]', 1),
      ('m3', 'conv_widget', ${agentId}, 2, 'user', 'SATURDAY: shop open when?', '2026-03-10T00:00:10Z', ${PAGE}, null, '[]', null),
      ('m4', 'conv_widget', ${agentId}, 3, 'assistant', 'Ten to four.', '2026-03-10T00:00:20Z', null, 40, '[{"id":"src_1"}]', -1),
      ('m5', 'conv_api', ${agentId}, 0, 'user', 'Open on Saturday, the shop when is?', '2026-03-09T10:00:00Z', null, null, '[]', null),
      ('m6', 'conv_api', ${agentId}, 1, 'assistant', 'We do not know.', '2026-03-09T10:00:01Z', null, 60, '[]', null),
      ('m7', 'conv_api', ${agentId}, 2, 'user', 'And bicycles?', '2026-03-09T10:00:02Z', null, null, '[]', null),
      ('m8', 'conv_api', ${agentId}, 3, 'assistant', 'No rating.', '2026-03-09T10:00:03Z', null, null, '[{"id":"src_2"}]', null),
      ('m9', 'conv_test', ${agentId}, 0, 'user', 'When is the shop open on Saturday?', '2026-03-09T10:00:00Z', null, null, '[]', null),
      ('m10', 'conv_test', ${agentId}, 1, 'assistant', 'Ten to four.', '2026-03-09T10:00:01Z', null, 90, '[]', null)`.execute(service.ctx.db);
  const added = subtract(await analyticsTables(agentId), before);
  assert.deepEqual(added, await expectedFromMessages(agentId));
  assert.deepEqual(added.questions.find((q) => q.day === '2026-03-09' && q.count === 2)?.text, 'Open on Saturday, the shop when is?', 'a group keeps its first question');

  assert.deepEqual(await searchWords(agentId), await wordsOfMessages(agentId));

  // A later statement adds to the same rows.
  await sql`insert into messages (id, conversation_id, agent_id, position, role, content, created_at, confidence, sources)
    values ('m11', 'conv_api', ${agentId}, 4, 'user', 'Repairs?', '2026-03-09T11:00:00Z', null, '[]'),
      ('m12', 'conv_api', ${agentId}, 5, 'assistant', 'Two days.', '2026-03-09T11:00:01Z', 95, '[{"id":"src_3"}]')`.execute(service.ctx.db);
  assert.deepEqual(subtract(await analyticsTables(agentId), before), await expectedFromMessages(agentId));
  assert.deepEqual(await searchWords(agentId), await wordsOfMessages(agentId), 'a later statement adds its words to the conversation\'s document');
});

test('the search folding of migrations 045 and 054 gives what migration 036\'s gave, for every character of the basic multilingual plane and for texts all in ASCII', async () => {
  // Migration 036's conversation_search_fold, as it was; 045 translates only a text that holds a character it maps
  // (each block of 256 characters alone, and with some of those characters); 054 gives an ASCII text's lower case
  // (the first 128 characters alone, each block of 32 of them, and ASCII words).
  const { rows } = await sql<{ block: number }>`
    select block from (
      select c / 256 as block, string_agg(chr(c), '' order by c) || tail as text
      from generate_series(1, 65535) c, (values (''), (' Ø x ΣΟΦΊΑ')) as extra(tail)
      where c not between 55296 and 57343 group by c / 256, tail
      union all
      select -1 - c / 32, string_agg(chr(c), '' order by c) from generate_series(1, 127) c group by c / 32
      union all
      select -10, string_agg(chr(c), '' order by c) from generate_series(1, 127) c
      union all
      select -11, text from (values ('Open on SATURDAY, the Shop? 9-17 h.'), (''), ('It''s  "QUOTED" \\ back_slash@example.COM')) as words(text)) b
    where conversation_search_fold(text) is distinct from translate(
      replace(replace(replace(replace(replace(replace(
        regexp_replace(normalize(lower(text), NFD), '[\u0300-\u036f]', '', 'g'),
        'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'Æ', 'ae'), 'Œ', 'oe'), 'ẞ', 'ss'),
      'øØłŁđĐħĦıАБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩς',
      'oollddhhiабвгдежзиклмнопрстуфхцчшщъыьэюяαβγδεζηθικλμνξοπρστυφχψωσ')`.execute(service.ctx.db);
  assert.deepEqual(rows, []);
  const [plain] = (await sql<{ folded: string }>`select conversation_search_fold(${'Größere NOËL Łódź ΣΟΦΊΑ Москва ǿ Æther'}) as folded`.execute(service.ctx.db)).rows;
  assert.equal(plain?.folded, 'grossere noel lodz σοφια москва o aether');
});

/** A question and its answer, as an answer of the offline model records them (one statement, the conversation made with the first). */
function turn(agentId: string, question: string, at: Date, confidence: number): NewMessage[] {
  const message = (role: 'user' | 'assistant', content: string, offset: number): NewMessage => ({
    id: newId('msg'), agent_id: agentId, role, content, created_at: new Date(at.getTime() + offset), attachments: [], page_url: null,
    confidence: role === 'assistant' ? confidence : null, grounding: null, sources: role === 'assistant' ? [{ id: 'src_1' }] as never : [], model: null, credits: 1,
  });
  return [message('user', question, 0), message('assistant', `Answer to ${question}`, 1)];
}

function newConversation(agentId: string, at: Date) {
  return {
    id: newId('conv'), workspace_id: ws.id, agent_id: agentId, channel: 'api' as const, user_id: null, opened_by: null, from_address: null,
    started_at: at, last_message_at: at, first_message: 'x',
  };
}

test('answers recorded in many transactions at once spread over the slots of the agent\'s day on PostgreSQL (one row on the embedded store), and the summed figures are those of their messages', async () => {
  const agentId = await seedAgent(service, ws);
  const before = await analyticsTables(agentId);
  const at = new Date('2026-04-02T12:00:00Z');
  // 12 new conversations and 2 follow-ups each, the recordings of all of them sent together (each its own transaction).
  const conversations = Array.from({ length: 12 }, () => newConversation(agentId, at));
  await Promise.all(conversations.map((c, i) => appendMessages(service.ctx.db, { id: c.id, create: c }, turn(agentId, `Question ${i} about bicycles?`, at, 40 + i * 5))));
  await Promise.all(conversations.flatMap((c, i) => [1, 2].map((n) =>
    appendMessages(service.ctx.db, { id: c.id }, turn(agentId, `Follow-up ${n} of c${i}?`, new Date(at.getTime() + n * 60_000), 90)))));
  // The follow-ups of one conversation were sent together: their positions came from its counter under its row lock.

  const { rows: slots } = await sql<{ slot: number }>`
    select slot from analytics_days where agent_id = ${agentId} and day = '2026-04-02'`.execute(service.ctx.db);
  if (storeUnderTest() === 'postgres') {
    assert.ok(slots.length > 1 && slots.length <= 16, `the day is in ${slots.length} rows`);
    assert.ok(slots.every((row) => row.slot >= 0 && row.slot < 16));
  } else {
    assert.deepEqual(slots, [{ slot: 0 }], 'the embedded store runs one transaction at a time: one row a day');
  }

  const added = subtract(await analyticsTables(agentId), before);
  assert.deepEqual(added, await expectedFromMessages(agentId));
  assert.equal(added.days[0]?.answers, 36);
  const { rows: [counts] } = await sql<{ conversations: number }>`
    select sum(conversations)::integer as conversations from analytics_days where agent_id = ${agentId} and day = '2026-04-02'`.execute(service.ctx.db);
  assert.equal(counts?.conversations, 12, 'each new conversation counted once');
});

test('answers recorded at once through the process\'s group writer are written in fewer transactions, each conversation with its messages in the order sent', async () => {
  const agentId = await seedAgent(service, ws);
  const before = await analyticsTables(agentId);
  const at = new Date('2026-04-05T12:00:00Z');
  const conversations = Array.from({ length: 12 }, () => newConversation(agentId, at));
  await Promise.all(conversations.map((c, i) => recordMessages(service.ctx.db, { id: c.id, create: c }, turn(agentId, `Question ${i} about bicycles?`, at, 40 + i))));
  // Two follow-ups of each conversation sent together: most of them go in one group, one conversation twice in it.
  await Promise.all(conversations.flatMap((c, i) => [1, 2].map((n) =>
    recordMessages(service.ctx.db, { id: c.id }, turn(agentId, `Follow-up ${n} of c${i}?`, new Date(at.getTime() + n * 60_000), 50 + n)))));

  const { rows: [written] } = await sql<{ transactions: number }>`
    select count(distinct xmin::text)::integer as transactions from messages where agent_id = ${agentId}`.execute(service.ctx.db);
  assert.ok(written!.transactions < 36 / 2, `36 recordings in ${written!.transactions} transactions`);
  for (const [i, c] of conversations.entries()) {
    const { rows } = await sql<{ position: number; content: string }>`
      select position, content from messages where conversation_id = ${c.id} order by position`.execute(service.ctx.db);
    const q = (text: string) => [text, `Answer to ${text}`];
    assert.deepEqual(rows, [...q(`Question ${i} about bicycles?`), ...q(`Follow-up 1 of c${i}?`), ...q(`Follow-up 2 of c${i}?`)].map((content, position) => ({ position, content })));
    const { rows: [row] } = await sql<{ message_count: number; last_confidence: number; last_message_at: Date }>`
      select message_count, last_confidence, last_message_at from conversations where id = ${c.id}`.execute(service.ctx.db);
    assert.deepEqual(row, { message_count: 6, last_confidence: 52, last_message_at: new Date(at.getTime() + 120_001) });
  }
  assert.deepEqual(subtract(await analyticsTables(agentId), before), await expectedFromMessages(agentId));
  assert.deepEqual(await searchWords(agentId), await wordsOfMessages(agentId));
});

test('answers whose requests one event-loop turn reads are recorded together, though each runs to its recording before the next is read (the embedded store\'s synchronous statements)', async () => {
  const agentId = await seedAgent(service, ws);
  const before = await analyticsTables(agentId);
  const at = new Date('2026-04-07T12:00:00Z');
  const conversations = Array.from({ length: 12 }, () => newConversation(agentId, at));
  // Each "request" its own callback of one turn, as each socket's data is: a read, then its recording.
  await Promise.all(conversations.map((c, i) => new Promise<void>((resolve, reject) => setImmediate(() => {
    (async () => {
      await sql`select 1`.execute(service.ctx.db);
      await recordMessages(service.ctx.db, { id: c.id, create: c }, turn(agentId, `Question ${i} about trains?`, at, 60 + i));
    })().then(resolve, reject);
  }))));
  const { rows: [written] } = await sql<{ transactions: number }>`
    select count(distinct xmin::text)::integer as transactions from messages where agent_id = ${agentId}`.execute(service.ctx.db);
  // On PostgreSQL a group is what arrives while the previous one is in flight, which the machine's load decides: there
  // the count is no rule, only that every recording is there (below).
  if (storeUnderTest() === 'embedded') assert.ok(written!.transactions <= 3, `12 recordings in ${written!.transactions} transactions`);
  assert.deepEqual(subtract(await analyticsTables(agentId), before), await expectedFromMessages(agentId));
  assert.deepEqual(await searchWords(agentId), await wordsOfMessages(agentId));
});

test('conversations read together (on PostgreSQL those asked while a read is in flight in one statement, on the embedded store one turn\'s) give each reader its own: its agent\'s conversation only, test conversations only when seen, its own number of recent messages', async () => {
  const agentId = await seedAgent(service, ws);
  const otherAgent = await seedAgent(service, ws, 'Other');
  const at = new Date('2026-04-08T12:00:00Z');
  const asked = newConversation(agentId, at);
  await recordMessages(service.ctx.db, { id: asked.id, create: asked }, turn(agentId, 'First?', at, 70));
  for (const n of [1, 2]) await recordMessages(service.ctx.db, { id: asked.id }, turn(agentId, `Next ${n}?`, new Date(at.getTime() + n * 1000), 70));
  const playground = { ...newConversation(agentId, at), channel: 'playground' as const };
  await recordMessages(service.ctx.db, { id: playground.id, create: playground }, turn(agentId, 'Testing?', at, 70));
  const asks: Array<[string, string, boolean, number]> = [
    [agentId, asked.id, false, 2], [agentId, asked.id, false, 5], [agentId, asked.id, true, 0], [otherAgent, asked.id, true, 5],
    [agentId, playground.id, false, 5], [agentId, playground.id, true, 5], [agentId, 'conv_missing', true, 5],
  ];
  const db = service.ctx.db;
  let statements = 0;
  const executeQuery = db.executeQuery;
  db.executeQuery = ((...args: unknown[]) => (statements++, (executeQuery as (...a: unknown[]) => unknown).apply(db, args))) as typeof db.executeQuery;
  let read;
  try {
    read = await Promise.all(asks.map(([agent, id, tests, limit]) => new Promise<Awaited<ReturnType<typeof findConversationWithRecent>>>((resolve, reject) =>
      setImmediate(() => findConversationWithRecent(db, agent, id, tests, limit).then(resolve, reject)))));
  } finally {
    delete (db as { executeQuery?: unknown }).executeQuery;
  }
  // PostgreSQL: the first read goes at once, the six asked while it is in flight as one statement (7 on the base).
  assert.ok(statements <= 2, `${asks.length} reads in ${statements} statements`);
  const contents = (found: (typeof read)[number]) => found && { id: found.conversation.id, count: found.conversation.message_count, recent: found.recent.map((m) => `${m.role}: ${m.content}`) };
  assert.deepEqual(read.map(contents), [
    { id: asked.id, count: 6, recent: ['user: Next 2?', 'assistant: Answer to Next 2?'] },
    { id: asked.id, count: 6, recent: ['assistant: Answer to First?', 'user: Next 1?', 'assistant: Answer to Next 1?', 'user: Next 2?', 'assistant: Answer to Next 2?'] },
    { id: asked.id, count: 6, recent: [] },
    undefined,
    undefined,
    { id: playground.id, count: 2, recent: ['user: Testing?', 'assistant: Answer to Testing?'] },
    undefined,
  ]);
});

test('a group of recordings the database refuses is written again one by one: only the recording at fault fails', async () => {
  const agentId = await seedAgent(service, ws);
  const at = new Date('2026-04-06T12:00:00Z');
  const conversations = Array.from({ length: 6 }, () => newConversation(agentId, at));
  const faulty = { ...newConversation(agentId, at), agent_id: 'agt_missing' };
  const recordings = [...conversations.slice(0, 3), faulty, ...conversations.slice(3)].map((c, i) =>
    recordMessages(service.ctx.db, { id: c.id, create: c }, turn(agentId, `Question ${i}?`, at, 70)));
  const settled = await Promise.allSettled(recordings);
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  const { rows: [row] } = await sql<{ n: number }>`
    select count(*)::integer as n from messages where agent_id = ${agentId}`.execute(service.ctx.db);
  assert.equal(row?.n, 12);
});

test('a transaction holding its slot of the agent\'s day does not hold back another transaction\'s answer of the same day', { skip: storeUnderTest() !== 'postgres' && 'two transactions at once need the PostgreSQL pass' }, async () => {
  const db = service.ctx.db;
  const agentId = await seedAgent(service, ws);
  const at = new Date('2026-04-03T08:00:00Z');
  const first = newConversation(agentId, at);
  const second = newConversation(agentId, at);
  await appendMessages(db, { id: first.id, create: first }, turn(agentId, 'Do you repair bicycles?', at, 80));
  await appendMessages(db, { id: second.id, create: second }, turn(agentId, 'Do you sell helmets?', at, 80));

  let held!: (slot: number) => void;
  const holding = new Promise<number>((resolve) => (held = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // The first transaction records an answer and stays open, holding its slot of the day.
  const open = db.transaction().execute(async (trx) => {
    await appendMessages(trx, { id: first.id }, turn(agentId, 'And tyres?', new Date(at.getTime() + 60_000), 70));
    held((await sql<{ slot: number }>`select analytics_slot() as slot`.execute(trx)).rows[0]!.slot);
    await released;
  });
  const heldSlot = await holding;
  try {
    // Another transaction of another slot (a transaction's slot comes from its id: a new one is tried until it differs)
    // records an answer of the same agent and day while the first is open; were it waiting for the first's row, the
    // lock timeout would end it with an error.
    let recorded = false;
    for (let attempt = 0; attempt < 64 && !recorded; attempt++) {
      recorded = await db.transaction().execute(async (trx) => {
        const { rows: [own] } = await sql<{ slot: number }>`select analytics_slot() as slot`.execute(trx);
        if (own!.slot === heldSlot) return false;
        await sql`set local lock_timeout = '20s'`.execute(trx);
        await appendMessages(trx, { id: second.id }, turn(agentId, 'And gloves?', new Date(at.getTime() + 60_000), 60));
        return true;
      });
    }
    assert.ok(recorded);
  } finally {
    release();
    await open;
  }
  const { rows: [day] } = await sql<{ answers: number; questions: number; conversations: number }>`
    select sum(answers)::integer as answers, sum(questions)::integer as questions, sum(conversations)::integer as conversations
    from analytics_days where agent_id = ${agentId} and day = '2026-04-03'`.execute(db);
  assert.deepEqual(day, { answers: 4, questions: 4, conversations: 2 });
});

test('a charge not yet committed does not hold back the recording of a new conversation in its workspace (migration 051)', { skip: storeUnderTest() !== 'postgres' && 'two transactions at once need the PostgreSQL pass' }, async () => {
  const db = service.ctx.db;
  const agentId = await seedAgent(service, ws);
  const at = new Date('2026-04-04T08:00:00Z');
  let charged!: () => void;
  const charging = new Promise<void>((resolve) => (charged = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // A charge of the workspace, its transaction left open: it holds the workspace's row until its commit.
  const open = db.transaction().execute(async (trx) => {
    await sql`select charge_credits(${ws.id}, '2026-04', 1, 1000000)`.execute(trx);
    charged();
    await released;
  });
  await charging;
  try {
    // The new conversation's reference to the workspace is checked without waiting for the charge (were it waiting,
    // the lock timeout would end it with an error).
    await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '20s'`.execute(trx);
      const conversation = newConversation(agentId, at);
      await appendMessages(trx, { id: conversation.id, create: conversation }, turn(agentId, 'Do you repair scooters?', at, 80));
    });
  } finally {
    release();
    await open;
  }
  const { rows: [day] } = await sql<{ conversations: number }>`
    select sum(conversations)::integer as conversations from analytics_days where agent_id = ${agentId} and day = '2026-04-04'`.execute(db);
  assert.equal(day?.conversations, 1);
});

/** Each conversation of the agent with the words of its search document, sorted. */
async function searchWords(agentId: string): Promise<Array<{ conversation_id: string; words: string[] }>> {
  const { rows } = await sql<{ conversation_id: string; words: string[] }>`
    select s.conversation_id, array_agg(distinct w.word) as words
    from conversation_search s join conversations c on c.id = s.conversation_id, unnest(tsvector_to_array(s.document)) as w(word)
    where c.agent_id = ${agentId} group by s.conversation_id order by 1`.execute(service.ctx.db);
  return rows.map((row) => ({ ...row, words: [...row.words].sort() }));
}

/** The words of each conversation's messages, as migration 036 made its one document. */
async function wordsOfMessages(agentId: string): Promise<Array<{ conversation_id: string; words: string[] }>> {
  const { rows } = await sql<{ conversation_id: string; words: string[] }>`
    select m.conversation_id, tsvector_to_array(conversation_search_vector(string_agg(m.content, ' ' order by m.position))) as words
    from messages m where m.agent_id = ${agentId} group by m.conversation_id order by 1`.execute(service.ctx.db);
  return rows.map((row) => ({ ...row, words: [...row.words].sort() }));
}

interface Tables {
  days: Array<Record<string, number | string>>;
  questions: Array<{ day: string; key: string; text: string; count: number }>;
  startPages: Array<{ day: string; url: string; count: number }>;
}

const DAY_FIGURES = ['questions', 'answers', 'helpful', 'not_helpful', 'weak', 'confidence_sum', 'confidence_count', 'band_high', 'band_medium', 'band_low'] as const;

async function analyticsTables(agentId: string): Promise<Tables> {
  const db = service.ctx.db;
  const days = await sql<Record<string, number | string>>`
    select to_char(day, 'YYYY-MM-DD') as day, ${sql.join(DAY_FIGURES.map((f) => sql`sum(${sql.ref(f)})::integer as ${sql.ref(f)}`))}
    from analytics_days where agent_id = ${agentId} group by day order by day`.execute(db);
  const questions = await sql<Tables['questions'][number]>`
    select to_char(day, 'YYYY-MM-DD') as day, key, text, count from analytics_questions where agent_id = ${agentId} order by day, key`.execute(db);
  const startPages = await sql<Tables['startPages'][number]>`
    select to_char(day, 'YYYY-MM-DD') as day, url, count from analytics_start_pages where agent_id = ${agentId} order by day, url`.execute(db);
  return { days: days.rows, questions: questions.rows, startPages: startPages.rows };
}

/** What the messages add, the seeded agent's rows before subtracted (it has none of its own conversations). */
function subtract(after: Tables, before: Tables): Tables {
  const days = after.days.map((row) => {
    const earlier = before.days.find((b) => b.day === row.day);
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'day' || !earlier ? v : Number(v) - Number(earlier[k])]));
  });
  return { ...after, days };
}

/** The figures worked out from the messages table itself, by the rules of migration 015. */
async function expectedFromMessages(agentId: string): Promise<Tables> {
  const db = service.ctx.db;
  const counted = sql`from messages m join conversations c on c.id = m.conversation_id where m.agent_id = ${agentId} and c.channel <> 'playground'`;
  const days = await sql<Record<string, number | string>>`
    select to_char((m.created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day,
      (count(*) filter (where m.role = 'user'))::integer as questions,
      (count(*) filter (where m.role = 'assistant'))::integer as answers,
      (count(*) filter (where m.role = 'assistant' and m.feedback = 1))::integer as helpful,
      (count(*) filter (where m.role = 'assistant' and m.feedback = -1))::integer as not_helpful,
      (count(*) filter (where m.role = 'assistant' and ((m.confidence is not null and m.confidence < 50) or coalesce(jsonb_array_length(m.sources), 0) = 0)))::integer as weak,
      coalesce(sum(m.confidence) filter (where m.role = 'assistant'), 0)::integer as confidence_sum,
      (count(m.confidence) filter (where m.role = 'assistant'))::integer as confidence_count,
      (count(*) filter (where m.role = 'assistant' and m.confidence >= 80))::integer as band_high,
      (count(*) filter (where m.role = 'assistant' and m.confidence >= 50 and m.confidence < 80))::integer as band_medium,
      (count(*) filter (where m.role = 'assistant' and m.confidence < 50))::integer as band_low
    ${counted} group by 1 order by 1`.execute(db);
  const questions = await sql<Tables['questions'][number]>`
    select to_char((m.created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, analytics_question_key(m.content) as key,
      (array_agg(m.content order by m.created_at))[1] as text, count(*)::integer as count
    ${counted} and m.role = 'user' group by 1, 2 order by 1, 2`.execute(db);
  const startPages = await sql<Tables['startPages'][number]>`
    select to_char((m.created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, m.page_url as url, count(*)::integer as count
    ${counted} and c.channel in ('widget', 'iframe') and m.role = 'user' and m.position = 0 and m.page_url is not null group by 1, 2 order by 1, 2`.execute(db);
  return { days: days.rows, questions: questions.rows, startPages: startPages.rows };
}
