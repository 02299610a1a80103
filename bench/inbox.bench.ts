/**
 * The inbox's API (issue 24; docs/performance.md, "Inbox"): Parley started as `npm start`
 * starts it on a scratch PostgreSQL database with Redis, one agent holding 10,000
 * conversations (40,000 messages in five languages) and 1,000 tickets, written with
 * generate_series SQL (the triggers of migrations 015 and 036 run as for any insert).
 * Then, one request at a time over HTTP with the manage key, p50 and p95 of:
 * the conversations list's first page without and with each filter, the search (q)
 * with several kinds of words, the tickets list with its counts, and one conversation
 * read. PostgreSQL only: the target (300 ms p95) is set there; the embedded store's
 * behaviour is proven by the tests, not timed here.
 */
import pg from 'pg';
import { manageApi, printTable, scratchDatabase, startParley, type RunningService } from './support.ts';

const RUNS = Number(process.env.BENCH_INBOX_RUNS ?? 60);
export const CONVERSATIONS = Number(process.env.BENCH_INBOX_CONVERSATIONS ?? 10_000);
export const TICKETS = 1_000;
const WARM_UP = 5;

export async function run(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
    return;
  }
  const database = await scratchDatabase(databaseUrl);
  try {
    await measureStore('PostgreSQL + Redis', { DATABASE_URL: database.url, REDIS_URL: redisUrl }, database.url);
  } finally {
    await database.drop();
  }
}

async function measureStore(store: string, env: Record<string, string>, databaseUrl: string): Promise<void> {
  const service = await startParley(env);
  try {
    const api = manageApi(service);
    const workspaceId = (await api('GET', '/workspace')).workspace.id as string;
    const agentId = (await api('POST', '/agents', { name: 'Inbox', useCase: 'general' })).id as string;
    const seconds = await seedInbox(databaseUrl, workspaceId, agentId);
    console.log(`${store}: ${CONVERSATIONS} conversations and ${TICKETS} tickets written in ${seconds.toFixed(1)} s`);

    const base = `/agents/${agentId}`;
    const reads = [...Array(20).keys()].map((i) => `${base}/conversations/conv_i${String(1 + ((i * 487) % CONVERSATIONS)).padStart(6, '0')}`);
    const cases: Array<[string, string[]]> = [
      ['conversations, first page', [`${base}/conversations`]],
      ['… channel=widget', [`${base}/conversations?channel=widget`]],
      ['… from/to (7 days)', [`${base}/conversations?from=2026-10-01&to=2026-10-07`]],
      ['… confidence=high', [`${base}/conversations?confidence=high`]],
      ['… confidence=medium', [`${base}/conversations?confidence=medium`]],
      ['… confidence=low', [`${base}/conversations?confidence=low`]],
      ['… feedback=up', [`${base}/conversations?feedback=up`]],
      ['… feedback=down', [`${base}/conversations?feedback=down`]],
      ['… feedback=none', [`${base}/conversations?feedback=none`]],
      ['… confidence=low&feedback=down&channel=widget', [`${base}/conversations?confidence=low&feedback=down&channel=widget`]],
      ['search: a common word (q=delivery)', [`${base}/conversations?q=delivery`]],
      ['search: two words, any order (q=saturday open)', [`${base}/conversations?q=saturday%20open`]],
      ['search: accents folded (q=noel livraison)', [`${base}/conversations?q=noel%20livraison`]],
      ['search: a prefix (q=rückg)', [`${base}/conversations?q=r%C3%BCckg`]],
      ['search: one conversation (q=order 10042 …)', [...Array(20).keys()].map((i) => `${base}/conversations?q=order%20${10_000 + 1 + i * 499}`)],
      ['search: no match (q=zeppelin)', [`${base}/conversations?q=zeppelin`]],
      ['search with filters (q=delivery&confidence=low)', [`${base}/conversations?q=delivery&confidence=low`]],
      ['tickets, first page with counts', [`${base}/tickets`]],
      ['tickets?status=open with counts', [`${base}/tickets?status=open`]],
      ['one conversation read', reads],
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, paths] of cases) {
      const figures = await timings(service, paths);
      rows.push({ request: name, items: figures.items, 'p50 ms': figures.p50, 'p95 ms': figures.p95 });
    }
    printTable(`inbox, ${store}: ${CONVERSATIONS} conversations, ${TICKETS} tickets; one request at a time, ${RUNS} each`, rows);
  } finally {
    await service.stop();
  }
}

/**
 * Writes the inbox's data set (seedSql below) for one agent straight into its PostgreSQL
 * database, then vacuums and analyzes; also used by the dashboard bench. Answers the seconds taken.
 */
export async function seedInbox(databaseUrl: string, workspaceId: string, agentId: string): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(seedSql(workspaceId, agentId));
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
  return (performance.now() - started) / 1000;
}

/** Sequential GETs over the paths in turn: p50 and p95 in ms, and the items of the first reply. */
async function timings(service: RunningService, paths: string[]): Promise<{ p50: number; p95: number; items: number }> {
  const get = async (path: string) => {
    const response = await fetch(`${service.url}/api/v1${path}`, { headers: { authorization: `Bearer ${service.manageKey}` } });
    const body = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const first = await get(paths[0]!);
  const items = Array.isArray(first.data) ? first.data.length : (first.data.messages?.length ?? 1);
  for (let i = 0; i < WARM_UP; i++) await get(paths[i % paths.length]!);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await get(paths[i % paths.length]!);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (share: number) => Math.round(times[Math.min(times.length - 1, Math.ceil(share * times.length) - 1)]! * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), items };
}

/**
 * 10,000 conversations over the year to 2026-11-26, a third from the widget, four messages
 * each (two questions, two answers) drawn from phrasings in English, Dutch, French, German
 * and Spanish, each first question naming its own order number; answer confidences 0 to
 * 100; one answer in five rated (two up for one down). 1,000 tickets, a third each open,
 * waiting and solved (not expired), two entries each.
 */
function seedSql(workspaceId: string, agentId: string): string {
  const questions = [
    'When do you deliver on Saturday?', 'Is the shop open on Saturday morning?', 'How much does delivery to Belgium cost?',
    'Livrez-vous à Noël ? Combien coûte la livraison ?', 'Wat kost de bezorging naar Nederland?', 'Kann ich größere Geräte zur Rückgabe bringen?',
    '¿Cuánto cuesta el envío a España?', 'Do you repair electric bikes?', 'What is your return policy for opened boxes?', 'Where is my parcel?',
  ];
  const answers = [
    'We deliver on weekdays; on Saturday the shop is open from ten to four.', 'La livraison en France coûte six euros, et nous livrons aussi à Noël.',
    'Die Rückgabe ist innerhalb von 30 Tagen möglich; größere Geräte holen wir ab.', 'El envío a España cuesta cinco euros.',
    'Wij bezorgen in België en Nederland binnen één tot twee werkdagen.', 'Delivery to Belgium costs seven euros and takes two days.',
    'Yes, our workshop repairs electric bikes of every brand within a week.', 'Your parcel is on its way; the courier delivers before six.',
  ];
  const list = (texts: string[]) => `array[${texts.map((t) => `'${t.replaceAll("'", "''")}'`).join(', ')}]`;
  const at = `'2026-11-26'::timestamptz - make_interval(secs => (i::float8 * 365 * 86400 / ${CONVERSATIONS}))`;
  return `
    begin;
    insert into conversations (id, workspace_id, agent_id, channel, opened_by, started_at, last_message_at, message_count, first_message, last_confidence)
      select 'conv_i' || lpad(i::text, 6, '0'), '${workspaceId}', '${agentId}',
        case when i % 3 = 0 then 'widget' when i % 7 = 0 then 'email' else 'api' end,
        case when i % 3 = 0 then 'launcher' end, ${at}, ${at} + interval '2 minutes', 0, '', null
      from generate_series(1, ${CONVERSATIONS}) i;
    insert into messages (id, conversation_id, agent_id, position, role, content, created_at, confidence, grounding, sources, model, credits, feedback)
      select 'msg_i' || lpad(i::text, 6, '0') || '_' || p, 'conv_i' || lpad(i::text, 6, '0'), '${agentId}', p,
        case when p % 2 = 0 then 'user' else 'assistant' end,
        case when p = 0 then (${list(questions)})[1 + i % ${questions.length}] || ' Order ' || (10000 + i) || '.'
             when p % 2 = 0 then (${list(questions)})[1 + (i * 7 + p) % ${questions.length}]
             else (${list(answers)})[1 + (i * 3 + p) % ${answers.length}] end,
        ${at} + p * interval '30 seconds',
        case when p % 2 = 1 then (i * 37 + p * 11) % 101 end,
        case when p % 2 = 1 then 'supported' end,
        case when p % 2 = 1 then '[{"id": "src_x", "name": "FAQ", "similarity": 0.8, "url": null}]'::jsonb else '[]'::jsonb end,
        case when p % 2 = 1 then 'parley-offline' end, case when p % 2 = 1 then 1 else 0 end,
        case when p = 3 and i % 5 = 0 then (case when i % 15 = 0 then -1 else 1 end) end
      from generate_series(1, ${CONVERSATIONS}) i, generate_series(0, 3) p;
    update conversations c set message_count = 4, first_message = m.content, last_confidence = (select confidence from messages where conversation_id = c.id and position = 3)
      from messages m where m.conversation_id = c.id and m.position = 0;
    insert into tickets (id, workspace_id, agent_id, conversation_id, number, status, email, name, question, language, signed_in, page_url, created_at, last_activity_at, solved_at, expires_at)
      select 'tkt_i' || lpad(t::text, 6, '0'), '${workspaceId}', '${agentId}', 'conv_i' || lpad((t * 10)::text, 6, '0'), t,
        (array['open', 'waiting', 'solved'])[1 + t % 3], 'visitor' || t || '@example.org', 'Visitor ' || t, 'Where is my parcel? Order ' || (10000 + t * 10), 'en', false, null,
        '2026-11-26'::timestamptz - make_interval(secs => t * 3000), '2026-11-26'::timestamptz - make_interval(secs => t * 2900),
        case when t % 3 = 2 then '2026-11-26'::timestamptz end, case when t % 3 = 2 then '2030-01-01'::timestamptz end
      from generate_series(1, ${TICKETS}) t;
    insert into ticket_numbers (agent_id, last_number) values ('${agentId}', ${TICKETS});
    insert into ticket_entries (id, ticket_id, kind, body, from_address, mail_error, created_at)
      select 'ent_i' || t || '_' || k, 'tkt_i' || lpad(t::text, 6, '0'), case when k = 0 then 'note' else 'visitor' end, 'Entry ' || k, null, null,
        '2026-11-26'::timestamptz - make_interval(secs => t * 2900 + (1 - k) * 60)
      from generate_series(1, ${TICKETS}) t, generate_series(0, 1) k;
    commit;`;
}
