/** Agents: the list with status and last training, "New agent", delete; the first run when there is none yet. */
import { useState } from 'preact/hooks';
import { get, list } from '../../api.ts';
import { takeFlash, useData, type Flash } from '../../data.ts';
import { formatDate, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, SetupGuide, UseCase } from '../../types.ts';
import { Badge, Button, EmptyState, ErrorNotice, Notice, PageHeader, Table } from '../../components/index.ts';
import { NewAgentDialog } from './new-agent.tsx';
import { DeleteAgentDialog } from './delete-agent.tsx';
import { FirstRun } from './first-run.tsx';

export default function AgentsPage(_props: PageProps) {
  const agents = useData(() => list<Agent>('/v1/agents'), []);
  // Asked beside the list (one round trip, not two in a row): the first run needs it when the list is empty.
  const guide = useData(() => get<SetupGuide>('/v1/setup-guide'), []);
  const [creating, setCreating] = useState<UseCase>();
  const [deleting, setDeleting] = useState<Agent>();
  const [message, setMessage] = useState<Flash | undefined>(takeFlash);

  return (
    <>
      <PageHeader
        title={t('agents.title')}
        actions={
          <Button kind="primary" onClick={() => setCreating('general')}>
            {t('agents.new')}
          </Button>
        }
      />
      <Notice kind={message?.kind ?? 'success'}>{message?.text}</Notice>
      {agents.error && <ErrorNotice error={agents.error} />}
      {agents.data && agents.data.length === 0 && <FirstRun guide={guide} onStart={setCreating} />}
      {agents.data && agents.data.length > 0 && (
        <Table
          caption={t('agents.title')}
          rows={agents.data}
          rowKey={(agent) => agent.id}
          columns={[
            { label: t('agents.name'), cell: (agent) => <a href={`/app/agents/${encodeURIComponent(agent.id)}/sources`}>{agent.name}</a> },
            { label: t('agents.useCase'), cell: (agent) => t(agent.useCase && ['general', 'support', 'sales', 'docs'].includes(agent.useCase) ? (`useCase.${agent.useCase}` as 'useCase.general') : 'useCase.none') },
            { label: t('agents.status'), cell: (agent) => <Badge tone={agent.status === 'active' ? 'good' : 'busy'}>{t(`status.${agent.status}`)}</Badge> },
            { label: t('agents.lastTrained'), cell: (agent) => (agent.lastTrainedAt ? formatDate(agent.lastTrainedAt) : t('agents.never')) },
            {
              label: t('agents.actions'),
              cell: (agent) => (
                <Button kind="quiet" aria-label={t('agents.deleteNamed', { name: agent.name })} onClick={() => setDeleting(agent)}>
                  {t('agents.delete')}
                </Button>
              ),
            },
          ]}
        />
      )}
      {agents.data === undefined && !agents.error && <EmptyState title={t('app.loading')} />}
      <NewAgentDialog open={creating !== undefined} useCase={creating} onClose={() => setCreating(undefined)} />
      <DeleteAgentDialog
        agent={deleting}
        onClose={() => setDeleting(undefined)}
        onDeleted={(agent) => {
          setMessage({ kind: 'success', text: t('agents.deleted', { name: agent.name }) });
          void agents.reload();
        }}
      />
    </>
  );
}
