/**
 * Monthly reports: the time of one whole report job (makeReport: figures of the month
 * and the month before, two charts rasterised, the report PDF, the transcripts PDF of the
 * month's conversations, the mail with its attachments recorded) for a client whose month
 * holds 500 conversations of four messages, on the embedded store, and the same with
 * transcripts off. The size of what the mail carries is printed beside.
 * Baseline, in the same run: the report job without transcripts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context } from '../src/context.ts';
import { SettableClock } from '../src/platform/clock.ts';
import { openEmbedded, type Database } from '../src/platform/db.ts';
import { createMailer } from '../src/platform/mail.ts';
import { migrate } from '../src/platform/migrate.ts';
import type { Queue } from '../src/platform/queue.ts';
import { makeReport } from '../src/modules/clients/jobs.ts';
import { printTable, ratio } from './support.ts';

const RUNS = Number(process.env.BENCH_REPORTS_RUNS ?? 5);
const CONVERSATIONS = 500;
const MONTH = '2026-05';
const WORKSPACE = 'ws_bench';
const AGENT = 'ag_bench';

export async function run(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-reports-'));
  const database = await openEmbedded(dataDir);
  try {
    await migrate(database);
    await seed(database);
    const ctx = benchContext(database);
    const withTranscripts = await timings(ctx, database, true);
    const without = await timings(ctx, database, false);
    const attachments = await database.db
      .selectFrom('mail_attachments')
      .select(['file_name', (eb) => eb.fn('length', ['content']).as('bytes')])
      .where('mail_id', '=', (await database.db.selectFrom('mails').select('id').orderBy('created_at', 'desc').limit(1).executeTakeFirstOrThrow()).id)
      .execute();
    printTable(`reports: one report job for a month of ${CONVERSATIONS} conversations (embedded store), ${RUNS} runs each`, [
      { case: 'with transcripts', p50_ms: withTranscripts.p50, max_ms: withTranscripts.max, 'vs no transcripts': ratio(withTranscripts.p50, without.p50) },
      { case: 'without transcripts (baseline)', p50_ms: without.p50, max_ms: without.max, 'vs no transcripts': '1.00' },
    ]);
    console.log(`last mail (no transcripts): ${attachments.map((a) => `${a.file_name} ${Math.round(Number(a.bytes) / 1024)} KB`).join(', ')}`);
    const transcripts = await database.db.selectFrom('mail_attachments').select((eb) => eb.fn.max(eb.fn('length', ['content'])).as('bytes')).where('file_name', 'like', 'conversations-%.pdf').executeTakeFirst();
    console.log(`transcripts PDF of ${CONVERSATIONS} conversations: ${Math.round(Number(transcripts?.bytes ?? 0) / 1024)} KB`);
  } finally {
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Only what the report job uses: the store, a clock on the report day, mail recorded (not sent), a queue that drops. */
function benchContext(database: Database): Context {
  const clock = new SettableClock();
  clock.set(new Date('2026-06-01T06:00:00.000Z'));
  const queue: Queue = { define: async () => {}, send: async () => null, sendMany: async () => [], work: async () => {}, workBatches: async () => {}, stop: async () => {} };
  return {
    db: database.db,
    database,
    clock,
    config: { publicUrl: 'https://parley.example' },
    queue,
    mailer: createMailer('smtp://127.0.0.1:1', database.db, clock, queue),
  } as unknown as Context;
}

async function timings(ctx: Context, database: Database, transcripts: boolean): Promise<{ p50: number; max: number }> {
  await database.db.updateTable('clients').set({ transcripts }).execute();
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const id = `rep_bench${transcripts ? 't' : 'n'}${String(i).padStart(12, '0')}`;
    await database.db.deleteFrom('client_reports').execute();
    await database.db
      .insertInto('client_reports')
      .values({ id, client_id: 'cli_bench', workspace_id: WORKSPACE, agent_id: AGENT, month: MONTH, status: 'pending', language: 'en', attempts: 0, lease_until: null, last_error: null, pdf: null, created_at: new Date(), finished_at: null })
      .execute();
    const started = performance.now();
    await makeReport(ctx, id);
    const elapsed = performance.now() - started;
    const made = await database.db.selectFrom('client_reports').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    if (made.status !== 'sent') throw new Error(`the report was not made: ${made.status}`);
    if (i > 0) times.push(elapsed); // the first run loads fonts and warms the code
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(times[Math.floor(times.length / 2)]!), max: Math.round(times.at(-1)!) };
}

async function seed(database: Database): Promise<void> {
  await database.exec(`
    begin;
    insert into workspaces (id, name, plan, owner_email, created_at, updated_at) values ('${WORKSPACE}', 'Bench', 'agency', 'owner@agency.example', now(), now());
    insert into agents (id, workspace_id, settings, created_at) values ('${AGENT}', '${WORKSPACE}', '{"name": "Bench agent"}', now());
    insert into clients (id, workspace_id, agent_id, name, email, language, intro, signature, report_day, transcripts, reports_enabled, reports_enabled_at, hold_for_review, reply_to, link_token, link_fingerprint, since, updated_at)
      values ('cli_bench', '${WORKSPACE}', '${AGENT}', 'Bench client', 'client@bench.example', 'en', 'Your month.', 'The agency', 1, true, true, '2026-01-01', false, 'owner@agency.example', 'token', 'fingerprint', '2026-01-01', '2026-01-01');
    insert into conversations (id, workspace_id, agent_id, channel, started_at, last_message_at, message_count, first_message)
      select 'conv_b' || i, '${WORKSPACE}', '${AGENT}', case when i % 3 = 0 then 'widget' else 'api' end,
        '${MONTH}-01'::timestamptz + make_interval(secs => i * 5000), '${MONTH}-01'::timestamptz + make_interval(secs => i * 5000 + 60), 4, 'Question'
      from generate_series(0, ${CONVERSATIONS - 1}) i;
    insert into messages (id, conversation_id, agent_id, position, role, content, created_at, confidence, sources)
      select 'msg_b' || i || '_' || p, 'conv_b' || i, '${AGENT}', p,
        case when p % 2 = 0 then 'user' else 'assistant' end,
        case when p % 2 = 0 then 'When is shop ' || ((i + p) % 40) || ' open on Sundays?'
             else 'Shop ' || ((i + p) % 40) || ' opens at ten on Sundays.' || repeat(' More words about opening hours and holidays.', 8) end,
        '${MONTH}-01'::timestamptz + make_interval(secs => i * 5000 + p * 10),
        case when p % 2 = 1 then (i * 37 + p) % 101 end,
        '[]'::jsonb
      from generate_series(0, ${CONVERSATIONS - 1}) i, generate_series(0, 3) p;
    commit;`);
}
