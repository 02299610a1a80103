/**
 * The API addresses (under /app/api) some pages ask for as they open, built from the page's address
 * alone: written once here, so the HTML for a signed-in person can preload them
 * (src/modules/dashboard/routes.ts) and the page then asks for the very same ones, served from that
 * preload instead of a request started only once the application runs.
 */
import { TICKET_STATUSES, type TicketStatus } from './pages/inbox/types.ts';

/** The agents, first page (the inbox's frame and Analytics: api.ts list() asks this first). */
export const AGENTS_LIST = '/v1/agents';

export const agentApi = (agentId: string, rest: string) => `/v1/agents/${encodeURIComponent(agentId)}/${rest}`;

export const CONVERSATION_FILTERS = ['channel', 'from', 'to', 'confidence', 'feedback', 'q'] as const;

/** The conversations page's filters, from its address. */
export function conversationFilters(query: URLSearchParams): URLSearchParams {
  const filters = new URLSearchParams();
  for (const name of CONVERSATION_FILTERS) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }
  return filters;
}

export function conversationsList(agentId: string, filters: URLSearchParams): string {
  const filterString = filters.toString();
  return agentApi(agentId, `conversations?limit=50${filterString ? `&${filterString}` : ''}`);
}

/** The tickets page's status, from its address: open unless another (or all) is asked for. */
export function ticketStatusOf(query: URLSearchParams): TicketStatus | 'all' {
  const asked = query.get('status');
  return asked === 'all' || TICKET_STATUSES.includes(asked as TicketStatus) ? (asked as TicketStatus | 'all') : 'open';
}

export function ticketsList(agentId: string, status: TicketStatus | 'all'): string {
  return agentApi(agentId, `tickets?limit=50${status === 'all' ? '' : `&status=${status}`}`);
}

/** What the server knows when it serves a page: today's UTC day and, once the session is read, the first agent the person reaches. */
export interface PageFacts {
  today: string;
  firstAgentId?: string;
}

export interface Period {
  /** Inclusive UTC days, YYYY-MM-DD. */
  from: string;
  to: string;
}

/** The Analytics page's period until another is chosen: the last 30 days, today included. */
export const DEFAULT_ANALYTICS_DAYS = 30;

const DAY_MS = 86_400_000;

/** The last `days` UTC days up to `today` (YYYY-MM-DD), today included. */
export function lastDays(today: string, days: number): Period {
  return { from: new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10), to: today };
}

/** The agent the Analytics page shows: the one in its address, else the first of the agents list (the person's first agent). */
export function analyticsAgentOf(query: URLSearchParams, firstAgentId: string | undefined): string {
  return query.get('agent') || firstAgentId || '';
}

export function analyticsFigures(agentId: string, period: Period): string {
  return agentApi(agentId, `analytics?from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`);
}

/** The Analytics page as it opens: the agents list and, once its agent is known, that agent's figures for the default period. */
export function analyticsRequests(query: URLSearchParams, facts: PageFacts): string[] {
  const agentId = analyticsAgentOf(query, facts.firstAgentId);
  return agentId ? [AGENTS_LIST, analyticsFigures(agentId, lastDays(facts.today, DEFAULT_ANALYTICS_DAYS))] : [AGENTS_LIST];
}
