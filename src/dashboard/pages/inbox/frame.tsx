/**
 * The inbox's frame (docs/dashboard.md, "Inbox"): the heading, the choice of agent (a member
 * limited to some agents is given only theirs by GET /agents), the links "Conversations",
 * "Leads", "Tickets"; and what its pages share: a list read page by page, a list of fields.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, list, type ApiError, type ListReply } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { AGENTS_LIST } from '../../first-requests.ts';
import { t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { Agent } from '../../types.ts';
import { Button, ErrorNotice, PageHeader, Select, TabLinks } from '../../components/index.ts';

export type InboxTab = 'conversations' | 'leads' | 'tickets';
const TABS: InboxTab[] = ['conversations', 'leads', 'tickets'];

export const inboxPath = (agentId: string, tab: InboxTab, id?: string) => `/app/agents/${encodeURIComponent(agentId)}/inbox/${tab}${id ? `/${encodeURIComponent(id)}` : ''}`;
export { agentApi } from '../../first-requests.ts';

export function InboxFrame({ agentId, tab, children }: { agentId: string; tab: InboxTab; children: ComponentChildren }) {
  const agents = useData(() => list<Agent>(AGENTS_LIST), []);
  const known = agents.data?.some((agent) => agent.id === agentId);
  return (
    <>
      <PageHeader
        title={t('inbox.title')}
        actions={
          agents.data && agents.data.length > 0 ? (
            <Select
              label={t('inbox.agent')}
              value={agentId}
              options={[...(known ? [] : [{ value: agentId, label: t('inbox.unknownAgent') }]), ...agents.data.map((agent) => ({ value: agent.id, label: agent.name }))]}
              onChange={(id) => navigate(inboxPath(id, tab))}
            />
          ) : undefined
        }
      />
      {agents.error && <ErrorNotice error={agents.error} />}
      <TabLinks label={t('inbox.sections')} links={TABS.map((name) => ({ href: inboxPath(agentId, name), label: t(`inbox.${name}`), current: name === tab }))} />
      {children}
    </>
  );
}

export interface Paged<T, R extends ListReply<T> = ListReply<T>> {
  items: T[] | undefined;
  /** The first page's whole reply (for what a list gives beside its items, such as the tickets' counts). */
  first: R | undefined;
  error: ApiError | undefined;
  loading: boolean;
  hasMore: boolean;
  more: () => Promise<void>;
  reload: () => Promise<void>;
}

/** A list read a page at a time (the API's cursor): the first page at once, the next with "Show more". */
export function usePaged<T, R extends ListReply<T> = ListReply<T>>(path: string): Paged<T, R> {
  const [state, setState] = useState<{ items?: T[]; first?: R; cursor: string | null; error?: ApiError; loading: boolean }>({ cursor: null, loading: true });
  const generation = useRef(0);
  const fetchPage = async (cursor: string | null) => {
    const mine = ++generation.current;
    setState((before) => ({ ...before, loading: true }));
    try {
      const separator = path.includes('?') ? '&' : '?';
      const page = await call<R>('GET', cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path);
      if (mine !== generation.current) return;
      setState((before) => ({ items: cursor ? [...(before.items ?? []), ...page.data] : page.data, first: cursor ? before.first : page, cursor: page.pagination?.nextCursor ?? null, loading: false }));
    } catch (caught) {
      if (mine === generation.current) setState((before) => ({ ...before, error: asApiError(caught), loading: false }));
    }
  };
  // A layout effect: the first page is asked for as soon as the page is rendered, not after the next frame.
  useLayoutEffect(() => {
    setState({ cursor: null, loading: true });
    void fetchPage(null);
    return () => {
      generation.current++;
    };
  }, [path]);
  return { items: state.items, first: state.first, error: state.error, loading: state.loading, hasMore: state.cursor !== null, more: () => fetchPage(state.cursor), reload: () => fetchPage(null) };
}

export function ShowMore({ paged }: { paged: Pick<Paged<unknown>, 'hasMore' | 'loading' | 'more'> }) {
  if (!paged.hasMore) return null;
  return (
    <div class="form-actions">
      <Button busy={paged.loading} onClick={() => void paged.more()}>
        {t('inbox.showMore')}
      </Button>
    </div>
  );
}

/** Fields of one thing as a description list; empty values say so. */
export function Fields({ rows }: { rows: [label: string, value: ComponentChildren][] }) {
  return (
    <dl class="inbox-fields">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value === null || value === undefined || value === '' ? <span class="cell-note">{t('inbox.none')}</span> : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A link to a visitor's page, shown by its title when the agent knows it. */
export function PageLink({ page }: { page: { url: string; title?: string | null } | null }) {
  if (!page) return null;
  return <OutsideLink url={page.url}>{page.title || page.url}</OutsideLink>;
}

/** A visitor's or a source's address: a link (in a new tab) only when it is http(s), else its text (no javascript: from a visitor). */
export function OutsideLink({ url, children }: { url: string; children?: ComponentChildren }) {
  if (!/^https?:\/\//i.test(url)) return <span>{children ?? url}</span>;
  return (
    <a href={url} rel="noopener noreferrer" target="_blank">
      {children ?? url}
    </a>
  );
}
