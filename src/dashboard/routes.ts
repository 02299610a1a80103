/**
 * Every page of the dashboard, in one table (docs/dashboard.md, "Adding a page"). A page is a
 * folder under pages/ whose page.tsx default-exports its component; it is loaded the first time
 * it is opened (its own chunk), so the first load stays small.
 */
import type { ComponentType } from 'preact';
import { AGENTS_LIST, analyticsRequests, conversationFilters, conversationsList, ticketsList, ticketStatusOf, type PageFacts } from './first-requests.ts';
import type { MessageKey } from './i18n/index.ts';
import type { Me, Role } from './types.ts';

export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
  me: Me;
}

export interface Route {
  /** /app/… with :name parts. */
  path: string;
  /** The page's title (document title); pages show their own heading. */
  title: MessageKey;
  load?: () => Promise<{ default: ComponentType<PageProps> }>;
  /** Instead of a page: where this path leads. */
  redirect?: (params: Record<string, string>) => string;
  /** Who may open it (everyone signed in when absent). */
  roles?: Role[];
  /** The main navigation's entry this page belongs to. */
  section?: Section;
  /** The API addresses the page asks for as it opens (first-requests.ts): the HTML preloads them. */
  requests?: (params: Record<string, string>, query: URLSearchParams, facts: PageFacts) => string[];
  /** Whether those addresses may depend on the person's first agent (PageFacts.firstAgentId), read with the session. */
  needsFirstAgent?: boolean;
}

export type Section = 'agents' | 'inbox' | 'analytics' | 'webhooks' | 'keys' | 'settings';

const ADMINS: Role[] = ['owner', 'admin'];

export const routes: Route[] = [
  { path: '/app', title: 'agents.title', redirect: () => '/app/agents' },
  { path: '/app/agents', title: 'agents.title', section: 'agents', load: () => import('./pages/agents/page.tsx') },
  { path: '/app/agents/:agentId', title: 'agent.sources', redirect: (p) => `/app/agents/${encodeURIComponent(p.agentId!)}/sources` },
  { path: '/app/agents/:agentId/sources', title: 'agent.sources', section: 'agents', load: () => import('./pages/agent-sources/page.tsx') },
  { path: '/app/agents/:agentId/playground', title: 'agent.playground', section: 'agents', load: () => import('./pages/agent-playground/page.tsx') },
  { path: '/app/agents/:agentId/settings', title: 'agent.settings', section: 'agents', load: () => import('./pages/agent-settings/page.tsx') },
  { path: '/app/agents/:agentId/install', title: 'agent.install', section: 'agents', load: () => import('./pages/agent-install/page.tsx') },
  { path: '/app/inbox', title: 'nav.inbox', section: 'inbox', load: () => import('./pages/inbox/page.tsx') },
  { path: '/app/agents/:agentId/inbox', title: 'nav.inbox', redirect: (p) => `/app/agents/${encodeURIComponent(p.agentId!)}/inbox/conversations` },
  { path: '/app/agents/:agentId/inbox/conversations', title: 'inbox.conversations', section: 'inbox', load: () => import('./pages/inbox/conversations.tsx'), requests: (p, q) => [AGENTS_LIST, conversationsList(p.agentId!, conversationFilters(q))] },
  { path: '/app/agents/:agentId/inbox/conversations/:conversationId', title: 'inbox.conversation', section: 'inbox', load: () => import('./pages/inbox/conversation.tsx') },
  { path: '/app/agents/:agentId/inbox/leads', title: 'inbox.leads', section: 'inbox', load: () => import('./pages/inbox/leads.tsx') },
  { path: '/app/agents/:agentId/inbox/leads/:leadId', title: 'inbox.leads', section: 'inbox', load: () => import('./pages/inbox/lead.tsx') },
  { path: '/app/agents/:agentId/inbox/tickets', title: 'inbox.tickets', section: 'inbox', load: () => import('./pages/inbox/tickets.tsx'), requests: (p, q) => [AGENTS_LIST, ticketsList(p.agentId!, ticketStatusOf(q))] },
  { path: '/app/agents/:agentId/inbox/tickets/:ticketId', title: 'inbox.ticket', section: 'inbox', load: () => import('./pages/inbox/ticket.tsx') },
  { path: '/app/analytics', title: 'nav.analytics', section: 'analytics', load: () => import('./pages/analytics/page.tsx'), requests: (_, q, facts) => analyticsRequests(q, facts), needsFirstAgent: true },
  { path: '/app/agents/:agentId/client', title: 'agent.client', section: 'agents', load: () => import('./pages/agent-client/page.tsx') },
  { path: '/app/webhooks', title: 'nav.webhooks', section: 'webhooks', roles: ADMINS, load: () => import('./pages/webhooks/page.tsx') },
  { path: '/app/webhooks/:webhookId', title: 'nav.webhooks', section: 'webhooks', roles: ADMINS, load: () => import('./pages/webhooks/page.tsx') },
  { path: '/app/keys', title: 'nav.keys', section: 'keys', roles: ADMINS, load: () => import('./pages/keys/page.tsx') },
  { path: '/app/settings', title: 'nav.settings', section: 'settings', load: () => import('./pages/settings/page.tsx') },
  { path: '/app/settings/people', title: 'settings.people', section: 'settings', roles: ADMINS, load: () => import('./pages/settings-people/page.tsx') },
  { path: '/app/settings/account', title: 'settings.account', section: 'settings', load: () => import('./pages/settings-account/page.tsx') },
  { path: '/app/settings/audit', title: 'settings.audit', section: 'settings', roles: ADMINS, load: () => import('./pages/settings-audit/page.tsx') },
];

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/** The route for a path, with the values of its :params. */
export function matchRoute(pathname: string): Match | undefined {
  const parts = pathname.replace(/\/+$/, '').split('/');
  // A malformed escape (a cut-off or hand-typed address) is "not found", not a blank page.
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return undefined;
    }
  };
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      if (segment.startsWith(':')) {
        const value = decode(parts[i]!);
        if (value === undefined) return false;
        params[segment.slice(1)] = value;
        return parts[i] !== '';
      }
      return segment === parts[i];
    });
    if (matches) return { route, params };
  }
  return undefined;
}

/** The route whose page an address opens: its own, or the one its redirect leads to. */
export function pageRouteOf(pathname: string): Route | undefined {
  const match = matchRoute(pathname);
  if (match?.route.redirect) return matchRoute(match.route.redirect(match.params))?.route;
  return match?.route;
}

/** The API addresses (under /app/api) the page an address opens asks for as it opens, with what the server knows. */
export function pageRequestsOf(pathname: string, search: string, facts: PageFacts): string[] {
  const match = matchRoute(pathname);
  // A redirect leads to its page without the query.
  const page = match?.route.redirect ? matchRoute(match.route.redirect(match.params)) : match;
  return page?.route.requests?.(page.params, new URLSearchParams(page === match ? search : ''), facts) ?? [];
}

/** Whether the first requests of the page an address opens depend on the person's first agent (read with the session). */
export function pageNeedsFirstAgent(pathname: string): boolean {
  return pageRouteOf(pathname)?.needsFirstAgent === true;
}

/** The main navigation, in order: its links' names are fixed by the operator contract. */
export const NAVIGATION: { section: Section; path: string; label: MessageKey; roles?: Role[] }[] = [
  { section: 'agents', path: '/app/agents', label: 'nav.agents' },
  { section: 'inbox', path: '/app/inbox', label: 'nav.inbox' },
  { section: 'analytics', path: '/app/analytics', label: 'nav.analytics' },
  { section: 'webhooks', path: '/app/webhooks', label: 'nav.webhooks', roles: ADMINS },
  { section: 'keys', path: '/app/keys', label: 'nav.keys', roles: ADMINS },
  { section: 'settings', path: '/app/settings', label: 'nav.settings' },
];
