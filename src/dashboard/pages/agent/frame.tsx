/**
 * The frame of one agent's pages (Sources, Playground, Settings, Install): the agent's name as
 * the page's heading, its status, and the links between its pages. The page inside is rendered
 * at once with the agent's id, so its own request runs beside the agent's (two round trips at most).
 */
import type { ComponentChildren } from 'preact';
import { get } from '../../api.ts';
import { useData, type Loaded } from '../../data.ts';
import { t } from '../../i18n/index.ts';
import type { Agent } from '../../types.ts';
import { Badge, ErrorNotice, PageHeader, TabLinks } from '../../components/index.ts';

export type AgentTab = 'sources' | 'playground' | 'settings' | 'install' | 'client';
export const AGENT_TABS: AgentTab[] = ['sources', 'playground', 'settings', 'install', 'client'];

export function AgentFrame({ agentId, tab, children }: { agentId: string; tab: AgentTab; children: (agent: Loaded<Agent>) => ComponentChildren }) {
  const agent = useData(() => get<Agent>(`/v1/agents/${encodeURIComponent(agentId)}`), [agentId]);
  const base = `/app/agents/${encodeURIComponent(agentId)}`;
  return (
    <>
      <p class="cell-note">
        <a href="/app/agents">{t('app.backToAgents')}</a>
      </p>
      <PageHeader title={agent.data?.name ?? (agent.error ? t('app.notFound') : t('app.loading'))}>
        {agent.data && <Badge tone={agent.data.status === 'active' ? 'good' : 'busy'}>{t(`status.${agent.data.status}`)}</Badge>}
      </PageHeader>
      {agent.error ? (
        <ErrorNotice error={agent.error} />
      ) : (
        <>
          <TabLinks label={t('agent.tabs')} links={AGENT_TABS.map((name) => ({ href: `${base}/${name}`, label: t(`agent.${name}`), current: name === tab }))} />
          {children(agent)}
        </>
      )}
    </>
  );
}
