/** /app/inbox: leads to the first agent's conversations (a member limited to some agents: the first of theirs). */
import { useEffect } from 'preact/hooks';
import { list } from '../../api.ts';
import { useData } from '../../data.ts';
import { t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent } from '../../types.ts';
import { EmptyState, ErrorNotice, PageHeader } from '../../components/index.ts';
import { inboxPath } from './frame.tsx';

export default function InboxPage(_props: PageProps) {
  const agents = useData(() => list<Agent>('/v1/agents'), []);
  const first = agents.data?.[0];
  useEffect(() => {
    if (first) navigate(inboxPath(first.id, 'conversations'), { replace: true });
  }, [first?.id]);
  return (
    <>
      <PageHeader title={t('inbox.title')} />
      {agents.error && <ErrorNotice error={agents.error} />}
      {agents.data && agents.data.length === 0 && <EmptyState title={t('inbox.noAgents')} action={<a href="/app/agents">{t('app.backToAgents')}</a>} />}
      {!agents.data && !agents.error && <p role="status">{t('app.loading')}</p>}
    </>
  );
}
