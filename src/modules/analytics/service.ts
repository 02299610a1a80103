/**
 * Analytics of one agent over a period of UTC days (spec 2.14, 4.13; docs/analytics.md).
 * periodFigures is key-free, for the monthly reports; agentAnalytics is the route's verb.
 */
import type { Context } from '../../context.ts';
import { seesTestConversations, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { utcDay } from '../../platform/clock.ts';
import { requireAgent } from '../agents/access.ts';
import { BANDS, DEFAULT_PERIOD_DAYS, EXCERPT_LENGTH, MAX_PERIOD_DAYS, START_PAGES, TOP_QUESTIONS, WEAKEST_ANSWERS } from './rules.ts';
import type { AgentFigures, Analytics } from './schemas.ts';
import * as store from './store.ts';

export type { AgentFigures } from './schemas.ts';
export type Period = store.Period;

const DAY_MS = 86_400_000;

/** The route's verb: the caller must reach the agent; one that sees test conversations is also told those left out. */
export async function agentAnalytics(ctx: Context, auth: Principal, agentId: string, query: { from?: string; to?: string }): Promise<Analytics> {
  const agent = await requireAgent(ctx, auth, agentId);
  const period = analyticsPeriod(utcDay(ctx.clock.now()), query);
  const { figures, testConversations } = await compute(ctx, auth.workspaceId, agent.id, period);
  return seesTestConversations(auth) ? { ...figures, testConversations } : figures;
}

/** The figures of one agent of the workspace for a period (inclusive UTC days); 404 for an agent not in it. */
export async function periodFigures(ctx: Context, workspaceId: string, agentId: string, period: { from: string; to: string }): Promise<AgentFigures> {
  if (!(await store.agentInWorkspace(ctx.db, workspaceId, agentId))) throw errors.notFound('agent');
  checkPeriod(period);
  return (await compute(ctx, workspaceId, agentId, period)).figures;
}

/**
 * The period asked for: the last 30 days (today included) without from and to, the 30 days
 * ending on `to` with only to, from up to today with only from; at most 366 days.
 */
export function analyticsPeriod(today: string, query: { from?: string; to?: string }): Period {
  const to = query.to ?? today;
  const from = query.from ?? shiftDay(to, -(DEFAULT_PERIOD_DAYS - 1));
  checkPeriod({ from, to }, query.to === undefined ? 'from' : 'to');
  return { from, to };
}

function checkPeriod(period: Period, blamed: 'from' | 'to' = 'to'): void {
  for (const field of ['from', 'to'] as const) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(period[field]) || Number.isNaN(dayMs(period[field]))) throw errors.invalidField(field, 'A day is written YYYY-MM-DD.');
  }
  if (period.to < period.from) throw errors.invalidField(blamed, blamed === 'to' ? 'to must not be before from.' : 'from must not be after today (to, by default).');
  if (daysIn(period) > MAX_PERIOD_DAYS) throw errors.invalidField(blamed, `A period spans at most ${MAX_PERIOD_DAYS} days.`);
}

async function compute(ctx: Context, workspaceId: string, agentId: string, period: Period): Promise<{ figures: AgentFigures; testConversations: number }> {
  const [days, leads, topQuestions, pages, weakest] = await Promise.all([
    store.dayRows(ctx.db, agentId, period),
    store.leadsPerDay(ctx.db, workspaceId, agentId, period),
    store.topQuestions(ctx.db, agentId, period, TOP_QUESTIONS),
    store.startPages(ctx.db, agentId, period, START_PAGES),
    store.weakestAnswers(ctx.db, workspaceId, agentId, period, WEAKEST_ANSWERS, EXCERPT_LENGTH),
  ]);
  const total = sum(days);
  const figures: AgentFigures = {
    from: period.from,
    to: period.to,
    conversations: total.conversations,
    questions: total.questions,
    answers: total.answers,
    helpful: total.helpful,
    notHelpful: total.not_helpful,
    averageConfidence: average(total),
    weakShare: total.answers === 0 ? null : round(total.weak / total.answers, 4),
    series: seriesOf(period, days, leads),
    bands: {
      high: { ...BANDS.high, answers: total.band_high },
      medium: { ...BANDS.medium, answers: total.band_medium },
      low: { ...BANDS.low, answers: total.band_low },
    },
    topQuestions,
    weakest: weakest.map((row) => ({
      messageId: row.id,
      conversationId: row.conversation_id,
      question: row.question,
      answer: row.content,
      confidence: row.confidence,
      createdAt: new Date(row.created_at).toISOString(),
    })),
    widget: {
      opened: total.opened,
      conversations: total.widget_conversations,
      openedBy: { launcher: total.opened_launcher, greeting: total.opened_greeting, nudge: total.opened_nudge },
      conversationsBy: {
        launcher: total.widget_conversations_launcher,
        greeting: total.widget_conversations_greeting,
        nudge: total.widget_conversations_nudge,
      },
      leads: [...leads.values()].reduce((a, b) => a + b, 0),
      leadFormsDeclined: total.lead_forms_declined,
      startPages: pages,
    },
  };
  return { figures, testConversations: total.test_conversations };
}

type Counts = Omit<store.DayRow, 'date'>;

function sum(days: store.DayRow[]): Counts {
  const total = Object.fromEntries(COUNT_FIELDS.map((field) => [field, 0])) as unknown as Counts;
  for (const day of days) for (const field of COUNT_FIELDS) total[field] += Number(day[field]);
  return total;
}

const COUNT_FIELDS = [
  'conversations', 'test_conversations', 'widget_conversations', 'widget_conversations_launcher', 'widget_conversations_greeting',
  'widget_conversations_nudge', 'questions', 'answers', 'helpful', 'not_helpful', 'confidence_sum', 'confidence_count', 'weak',
  'band_high', 'band_medium', 'band_low', 'opened', 'opened_launcher', 'opened_greeting', 'opened_nudge', 'lead_forms_declined',
] as const satisfies ReadonlyArray<keyof Counts>;

function seriesOf(period: Period, days: store.DayRow[], leads: Map<string, number>): AgentFigures['series'] {
  const byDate = new Map(days.map((day) => [day.date, day]));
  const series: AgentFigures['series'] = [];
  for (let at = dayMs(period.from); at <= dayMs(period.to); at += DAY_MS) {
    const date = utcDay(new Date(at));
    const day = sum(byDate.has(date) ? [byDate.get(date)!] : []);
    series.push({
      date,
      conversations: day.conversations,
      questions: day.questions,
      answers: day.answers,
      helpful: day.helpful,
      notHelpful: day.not_helpful,
      averageConfidence: average(day),
      weakAnswers: day.weak,
      opened: day.opened,
      leads: leads.get(date) ?? 0,
    });
  }
  return series;
}

function average(counts: Pick<Counts, 'confidence_sum' | 'confidence_count'>): number | null {
  return counts.confidence_count === 0 ? null : round(counts.confidence_sum / counts.confidence_count, 1);
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

function dayMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

function daysIn(period: Period): number {
  return Math.round((dayMs(period.to) - dayMs(period.from)) / DAY_MS) + 1;
}

function shiftDay(day: string, days: number): string {
  return utcDay(new Date(dayMs(day) + days * DAY_MS));
}
