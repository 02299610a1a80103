/**
 * What a page that is in the routes table but not built yet shows (docs/dashboard.md,
 * "Adding a page"): its heading and where its work can be done meanwhile. Replace the
 * page's page.tsx to build it.
 */
import { t, type MessageKey } from '../i18n/index.ts';
import { EmptyState, PageHeader } from '../components/index.ts';
import { AgentFrame, type AgentTab } from './agent/frame.tsx';

export function NotBuiltPage({ title }: { title: MessageKey }) {
  return (
    <>
      <PageHeader title={t(title)} />
      <NotBuilt />
    </>
  );
}

export function NotBuiltAgentPage({ agentId, tab }: { agentId: string; tab: AgentTab }) {
  return <AgentFrame agentId={agentId} tab={tab}>{() => <NotBuilt />}</AgentFrame>;
}

function NotBuilt() {
  return (
    <EmptyState title={t('placeholder.body')}>
      <p>
        <a href="/docs">/docs</a>
      </p>
    </EmptyState>
  );
}
