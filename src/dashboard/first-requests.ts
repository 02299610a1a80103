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
