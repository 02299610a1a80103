/**
 * Analytics: the time of periodFigures (what GET /agents/{id}/analytics computes) for a
 * 366-day period, p50 and p95 over repeated calls, at 100,000 messages on the embedded
 * store and at 100,000 and 1,000,000 messages on PostgreSQL (a scratch database).
 * The data is made with generate_series SQL, not through the API: conversations of four
 * messages (two questions, two answers) spread over the year, a third of them from the
 * widget, one in fifty a test conversation, widget events and leads beside them. The
 * triggers of migration 015 keep the daily figures as the rows go in; the fill rate is
 * printed too (it is the triggers' cost on writes).
 * Baseline, in the same run: the plainest figures (questions, answers, mean confidence)
 * counted straight from the messages of the period, as a query without daily figures would.
 */
import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context } from '../src/context.ts';
import { openEmbedded, openPostgres, type Database } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { periodFigures } from '../src/modules/analytics/service.ts';
import { printTable, ratio, scratchDatabase } from './support.ts';

const RUNS = Number(process.env.BENCH_ANALYTICS_RUNS ?? 40);
const WORKSPACE = 'ws_bench';
const AGENT = 'ag_bench';
const PERIOD = { from: '2025-01-01', to: '2026-01-01' };
const MESSAGES_PER_CONVERSATION = 4;
const FILL_BATCH = 5_000;

export async function run(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-analytics-'));
  const embedded = await openEmbedded(dataDir);
  try {
    rows.push(...(await measureStore('embedded (PGlite)', embedded, [100_000])));
  } finally {
    await embedded.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!databaseUrl) {
    console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL (or BENCH_DATABASE_URL).');
  } else {
    const scratch = await scratchDatabase(databaseUrl);
    const postgres = await openPostgres(scratch.url, 5);
    try {
      rows.push(...(await measureStore('PostgreSQL', postgres, [100_000, 1_000_000])));
    } finally {
      await postgres.close();
      await scratch.drop();
    }
  }
  printTable(`analytics: periodFigures over ${PERIOD.from}..${PERIOD.to} (366 days), ${RUNS} calls each`, rows);
}

/** Fills up to each size in turn and measures there. */
async function measureStore(store: string, database: Database, sizes: number[]): Promise<Array<Record<string, string | number>>> {
  await migrate(database);
  await seedOwners(database);
  const ctx = { db: database.db } as Context;
  const rows: Array<Record<string, string | number>> = [];
  let conversations = 0;
  for (const size of sizes) {
    const target = size / MESSAGES_PER_CONVERSATION;
    const started = performance.now();
    // Many short transactions, as traffic commits them (one long one would keep every dead version of the day rows).
    for (let start = conversations; start < target; start += FILL_BATCH) await fill(database, start, Math.min(target, start + FILL_BATCH), target);
    const fillSeconds = (performance.now() - started) / 1000;
    const filled = target - conversations;
    conversations = target;
    // Straight after the fill every day row carries the dead versions of its updates (one per message,
    // all in one transaction, so none could be pruned); then what autovacuum (PostgreSQL) or the
    // embedded store's own pass (every 15 minutes) does.
    await database.exec('analyze');
    const unvacuumed = await timings(() => periodFigures(ctx, WORKSPACE, AGENT, PERIOD), 10);
    await database.exec('vacuum analyze');
    const figures = await periodFigures(ctx, WORKSPACE, AGENT, PERIOD);
    if (figures.questions + figures.answers === 0) throw new Error('the fill made no figures');
    const analytics = await timings(() => periodFigures(ctx, WORKSPACE, AGENT, PERIOD));
    const plain = await timings(() => plainFigures(database));
    rows.push({
      store,
      messages: size,
      'fill (messages/s)': Math.round((filled * MESSAGES_PER_CONVERSATION) / fillSeconds),
      'analytics p50 ms': analytics.p50,
      'analytics p95 ms': analytics.p95,
      'before vacuum p95 ms': unvacuumed.p95,
      'plain count p50 ms': plain.p50,
      'plain count p95 ms': plain.p95,
      'analytics / plain (p50)': ratio(analytics.p50, plain.p50),
    });
    console.log(`${store} at ${size} messages: analytics p50 ${analytics.p50} ms, p95 ${analytics.p95} ms (filled in ${fillSeconds.toFixed(1)} s)`);
  }
  return rows;
}

async function timings(work: () => Promise<unknown>, runs = RUNS): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (share: number) => Math.round(times[Math.min(times.length - 1, Math.ceil(share * times.length) - 1)] * 10) / 10;
  return { p50: at(0.5), p95: at(0.95) };
}

/** The baseline: the first three figures straight from the messages, without daily figures. */
async function plainFigures(database: Database): Promise<unknown> {
  const { rows } = await sql`
    select count(*) filter (where m.role = 'user') as questions, count(*) filter (where m.role = 'assistant') as answers, avg(m.confidence) as confidence
    from messages m join conversations c on c.id = m.conversation_id
    where m.agent_id = ${AGENT} and c.channel <> 'playground'
      and m.created_at >= ${PERIOD.from}::timestamptz and m.created_at < (${PERIOD.to}::date + 1)::timestamp at time zone 'UTC'`.execute(database.db);
  return rows;
}

export async function seedOwners(database: Database): Promise<void> {
  await database.exec(`
    insert into workspaces (id, name, plan, created_at, updated_at) values ('${WORKSPACE}', 'Bench', 'enterprise', now(), now());
    insert into agents (id, workspace_id, settings, created_at) values ('${AGENT}', '${WORKSPACE}', '{"name": "Bench agent"}', now());
    insert into sources (id, workspace_id, agent_id, type, name, url, title, status, created_at)
      select 'src_page' || p, '${WORKSPACE}', '${AGENT}', 'website', 'Page ' || p, 'https://shop.example.com/page-' || p, 'Page ' || p, 'ready', now()
      from generate_series(0, 49) p;`);
}

/**
 * Conversations [from, to) of `total` with their messages, widget events and leads, spread evenly over the
 * period (about 700 conversations a day at a million messages). Questions come from 300 phrasings
 * of 100 questions (case and word order vary), answers have confidences 0 to 100, one in seven
 * without sources; one in five answers has feedback.
 */
export async function fill(database: Database, from: number, to: number, total: number): Promise<void> {
  const spanSeconds = 366 * 86_400;
  await database.exec(`
    begin;
    insert into conversations (id, workspace_id, agent_id, channel, opened_by, started_at, last_message_at, message_count, first_message)
      select 'conv_b' || i, '${WORKSPACE}', '${AGENT}',
        case when i % 50 = 0 then 'playground' when i % 3 = 0 then 'widget' else 'api' end,
        case when i % 50 <> 0 and i % 3 = 0 then (array['launcher', 'greeting', 'nudge'])[1 + i % 7 % 3] end,
        '${PERIOD.from}'::timestamptz + make_interval(secs => (i::float8 * ${spanSeconds} / ${total}) :: float8),
        '${PERIOD.from}'::timestamptz + make_interval(secs => (i::float8 * ${spanSeconds} / ${total}) :: float8 + 60),
        ${MESSAGES_PER_CONVERSATION}, 'Question'
      from generate_series(${from}, ${to - 1}) i;
    insert into messages (id, conversation_id, agent_id, position, role, content, created_at, page_url, confidence, sources, feedback)
      select 'msg_b' || i || '_' || p, 'conv_b' || i, '${AGENT}', p,
        case when p % 2 = 0 then 'user' else 'assistant' end,
        case when p % 2 = 0 then (array['When is question ' || ((i + p) % 100) || ' open?', 'Question ' || ((i + p) % 100) || ', when is it open', 'OPEN: when is question ' || ((i + p) % 100)])[1 + (i + p) % 3]
             else 'An answer to question ' || ((i + p) % 100) || repeat(' with more words', 10) end,
        '${PERIOD.from}'::timestamptz + make_interval(secs => (i::float8 * ${spanSeconds} / ${total}) :: float8 + p * 10),
        case when p = 0 and i % 3 = 0 then 'https://shop.example.com/page-' || (i % 50) end,
        case when p % 2 = 1 then ((i * 37 + p) % 101) end,
        case when p % 2 = 1 and (i + p) % 7 <> 0 then '[{"id": "src_page1", "name": "Page 1", "similarity": 0.8}]'::jsonb else '[]'::jsonb end,
        case when p % 2 = 1 and i % 5 = 0 then (case when i % 2 = 0 then 1 else -1 end) end
      from generate_series(${from}, ${to - 1}) i, generate_series(0, ${MESSAGES_PER_CONVERSATION - 1}) p;
    insert into visitor_events (id, workspace_id, agent_id, type, opened_by, page_url, created_at)
      select 'vev_b' || i, '${WORKSPACE}', '${AGENT}', case when i % 10 = 0 then 'lead_form_declined' else 'opened' end,
        case when i % 10 <> 0 then (array['launcher', 'greeting', 'nudge'])[1 + i % 3] end, null,
        '${PERIOD.from}'::timestamptz + make_interval(secs => (i::float8 * ${spanSeconds} / ${total}) :: float8)
      from generate_series(${from}, ${to - 1}) i where i % 2 = 0;
    insert into leads (id, workspace_id, agent_id, conversation_id, email, marketing, moment, language, shown, created_at, expires_at)
      select 'lead_b' || i, '${WORKSPACE}', '${AGENT}', 'conv_b' || i, 'v' || i || '@example.org', false, 'button', 'en', '{}'::jsonb,
        '${PERIOD.from}'::timestamptz + make_interval(secs => (i::float8 * ${spanSeconds} / ${total}) :: float8 + 30), now() + interval '1 year'
      from generate_series(${from}, ${to - 1}) i where i % 30 = 3;
    commit;`);
}
