/** Reading the daily figures the triggers of migrations/015_analytics.sql keep (in slots since 050), and the answers behind weakest. */
import { sql } from 'kysely';
import type { Db } from '../../platform/db.ts';
import { TEST_CHANNEL } from '../chat/store.ts';

export interface DayRow {
  date: string;
  conversations: number;
  test_conversations: number;
  widget_conversations: number;
  widget_conversations_launcher: number;
  widget_conversations_greeting: number;
  widget_conversations_nudge: number;
  questions: number;
  answers: number;
  helpful: number;
  not_helpful: number;
  confidence_sum: number;
  confidence_count: number;
  weak: number;
  band_high: number;
  band_medium: number;
  band_low: number;
  opened: number;
  opened_launcher: number;
  opened_greeting: number;
  opened_nudge: number;
  lead_forms_declined: number;
}

/** The figures of a day, summed over its slots. */
const DAY_FIGURES = [
  'conversations', 'test_conversations', 'widget_conversations', 'widget_conversations_launcher', 'widget_conversations_greeting',
  'widget_conversations_nudge', 'questions', 'answers', 'helpful', 'not_helpful', 'confidence_sum', 'confidence_count', 'weak',
  'band_high', 'band_medium', 'band_low', 'opened', 'opened_launcher', 'opened_greeting', 'opened_nudge', 'lead_forms_declined',
] as const satisfies ReadonlyArray<Exclude<keyof DayRow, 'date'>>;

export interface Period {
  /** Inclusive UTC days, YYYY-MM-DD. */
  from: string;
  to: string;
}

/** Midnight UTC opening `day`, and the one after `to`, computed by the database (see chat/store.ts startOfUtcDay). */
const startOf = (day: string) => sql<Date>`(cast(${day} as date))::timestamp at time zone 'UTC'`;
const endOf = (day: string) => sql<Date>`(cast(${day} as date) + 1)::timestamp at time zone 'UTC'`;

export async function agentInWorkspace(db: Db, workspaceId: string, agentId: string): Promise<boolean> {
  const row = await db.selectFrom('agents').select('id').where('id', '=', agentId).where('workspace_id', '=', workspaceId).executeTakeFirst();
  return row !== undefined;
}

/**
 * The days of the period that had anything (bigint sums come back as numbers). A day is kept in up to sixteen rows
 * (slots, migrations/050: concurrent answers add to different rows), summed here.
 */
export async function dayRows(db: Db, agentId: string, period: Period): Promise<DayRow[]> {
  const { rows } = await sql<DayRow>`
    select to_char(day, 'YYYY-MM-DD') as date, ${sql.join(DAY_FIGURES.map((figure) => sql`sum(${sql.ref(figure)})::${sql.raw(figure === 'confidence_sum' ? 'float8' : 'int')} as ${sql.ref(figure)}`))}
    from analytics_days
    where agent_id = ${agentId} and day between cast(${period.from} as date) and cast(${period.to} as date)
    group by day
    order by day`.execute(db);
  return rows;
}

/**
 * Folds the slots of the days before `today` (YYYY-MM-DD, UTC) into slot 0, one statement: a past day is read as one
 * row again (a year of an agent 366 rows, not up to 16 times that). The slots are deleted and their sums added in the
 * same statement; a transaction adding to a past day meanwhile (a rating, an erasure's take-backs) either committed
 * before the delete took its row, which then holds its figures, or adds a new row after it: the day's sums stay
 * the same. Returns the rows folded.
 */
export async function compactPastDays(db: Db, today: string): Promise<number> {
  const figures = DAY_FIGURES.map((figure) => sql.ref(figure));
  const { rows } = await sql<{ folded: number }>`
    with gone as (
      delete from analytics_days where day < cast(${today} as date) and slot <> 0 returning *
    ),
    folded as (
      insert into analytics_days as a (agent_id, day, slot, ${sql.join(figures)})
      select agent_id, day, 0, ${sql.join(figures.map((figure) => sql`sum(${figure})`))}
      from gone group by agent_id, day
      on conflict (agent_id, day, slot) do update set ${sql.join(DAY_FIGURES.map((figure) => sql`${sql.ref(figure)} = a.${sql.ref(figure)} + excluded.${sql.ref(figure)}`))}
    )
    select count(*)::integer as folded from gone`.execute(db);
  return rows[0]?.folded ?? 0;
}

/** Leads left in the period, per UTC day (leads have no daily figures: they are few and indexed by agent and time). */
export async function leadsPerDay(db: Db, workspaceId: string, agentId: string, period: Period): Promise<Map<string, number>> {
  const { rows } = await sql<{ date: string; leads: number }>`
    select to_char(analytics_utc_day(created_at), 'YYYY-MM-DD') as date, count(*)::int as leads
    from leads
    where workspace_id = ${workspaceId} and agent_id = ${agentId} and created_at >= ${startOf(period.from)} and created_at < ${endOf(period.to)}
    group by 1`.execute(db);
  return new Map(rows.map((row) => [row.date, Number(row.leads)]));
}

/**
 * The most asked groups of similar questions; the text is the one the group's busiest day kept (the
 * latest such day). The counts are summed per key first and the text read for the kept keys only
 * (migrations/041: an ordered aggregate over every key of a year was most of the figures' time).
 */
export async function topQuestions(db: Db, agentId: string, period: Period, limit: number): Promise<Array<{ text: string; count: number }>> {
  const from = sql`cast(${period.from} as date)`;
  const to = sql`cast(${period.to} as date)`;
  const { rows } = await sql<{ text: string; count: number }>`
    with top as (
      select key, sum(count)::int as count
      from analytics_questions
      where agent_id = ${agentId} and day between ${from} and ${to}
      group by key
      order by sum(count) desc, key
      limit ${limit}
    )
    select busiest.text, top.count
    from top cross join lateral (
      select q.text from analytics_questions q
      where q.agent_id = ${agentId} and q.key = top.key and q.day between ${from} and ${to}
      order by q.count desc, q.day desc
      limit 1
    ) busiest
    order by top.count desc, top.key`.execute(db);
  return rows.map((row) => ({ text: row.text, count: Number(row.count) }));
}

/** The pages widget conversations started on most, with the title of the agent's website source of that address when it has one. */
export async function startPages(db: Db, agentId: string, period: Period, limit: number): Promise<Array<{ url: string; title: string | null; conversations: number }>> {
  const { rows } = await sql<{ url: string; title: string | null; conversations: number }>`
    with top as (
      select url, sum(count)::int as conversations
      from analytics_start_pages
      where agent_id = ${agentId} and day between cast(${period.from} as date) and cast(${period.to} as date)
      group by url
      order by sum(count) desc, url
      limit ${limit}
    )
    select top.url, coalesce(nullif(s.title, ''), s.name) as title, top.conversations
    from top left join sources s on s.agent_id = ${agentId} and s.type = 'website' and s.url = top.url
    order by top.conversations desc, top.url`.execute(db);
  return rows.map((row) => ({ url: row.url, title: row.title, conversations: Number(row.conversations) }));
}

export interface WeakAnswerRow {
  id: string;
  conversation_id: string;
  confidence: number;
  content: string;
  question: string | null;
  created_at: Date;
}

/** Answers not yet corrected, lowest confidence first (newest first among equals), test conversations left out. */
export async function weakestAnswers(db: Db, workspaceId: string, agentId: string, period: Period, limit: number, excerpt: number): Promise<WeakAnswerRow[]> {
  const { rows } = await sql<WeakAnswerRow>`
    select a.id, a.conversation_id, a.confidence, left(a.content, ${excerpt}) as content, left(q.content, 4000) as question, a.created_at
    from messages a
    join conversations c on c.id = a.conversation_id
    left join messages q on q.conversation_id = a.conversation_id and q.position = a.position - 1 and q.role = 'user'
    where a.agent_id = ${agentId} and a.role = 'assistant' and a.confidence is not null and a.correction_source_id is null
      and a.created_at >= ${startOf(period.from)} and a.created_at < ${endOf(period.to)}
      and c.workspace_id = ${workspaceId} and c.channel <> ${TEST_CHANNEL}
    order by a.confidence, a.created_at desc, a.id
    limit ${limit}`.execute(db);
  return rows;
}
