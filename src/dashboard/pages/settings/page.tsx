/**
 * Settings, the workspace (GET /app/api/workspace, docs/people.md "Workspace settings"): its
 * name and default language, changed by owners and admins (PATCH), and the plan's usage read
 * only: credits of the month with a chart per day, agents against the limit, storage per agent.
 */
import { useState } from 'preact/hooks';
import { get, send } from '../../api.ts';
import { useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatBytes, formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { useSession } from '../../session.ts';
import type { Me, WorkspaceSettings, WorkspaceSettingsReply } from '../../types.ts';
import { Button, EmptyState, ErrorNotice, Notice, Select, Table, TextField } from '../../components/index.ts';
import { SettingsFrame } from './frame.tsx';

/** A member limited to some agents is told only their agents' storage (docs/people.md). */
type WorkspaceReply = WorkspaceSettingsReply;
type Storage = WorkspaceSettings['storage'];
const isWhole = (reply: WorkspaceReply): reply is WorkspaceSettings => 'credits' in reply;

const WORKSPACE_LANGUAGES: Record<string, string> = { en: 'English', nl: 'Nederlands', fr: 'Français', de: 'Deutsch', es: 'Español' };

export default function WorkspaceSettingsPage({ me }: PageProps) {
  const workspace = useData(() => get<WorkspaceReply>('/workspace'), []);
  const data = workspace.data;
  const admin = me.role === 'owner' || me.role === 'admin';
  return (
    <SettingsFrame tab="workspace">
      <h2>{t('settings.workspace')}</h2>
      {workspace.error && <ErrorNotice error={workspace.error} />}
      {data && isWhole(data) && (admin ? <WorkspaceForm workspace={data} onSaved={workspace.reload} /> : (
        <dl class="settings-facts">
          <dt>{t('settings.name')}</dt>
          <dd>{data.name}</dd>
          <dt>{t('settings.defaultLanguage')}</dt>
          <dd>{WORKSPACE_LANGUAGES[data.language] ?? data.language}</dd>
        </dl>
      ))}
      {data && (isWhole(data) ? <Usage workspace={data} /> : <StorageTable storage={data.storage} />)}
      {data === undefined && !workspace.error && <EmptyState title={t('app.loading')} />}
    </SettingsFrame>
  );
}

function WorkspaceForm({ workspace, onSaved }: { workspace: WorkspaceSettings; onSaved: () => Promise<void> }) {
  const session = useSession();
  const [name, setName] = useState(workspace.name);
  const [language, setLanguage] = useState<string>(workspace.language);
  const [saved, setSaved] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(undefined);
    await send('PATCH', '/workspace', { name, language });
    setSaved(t('account.saved'));
    // The top bar shows the workspace's name: me again.
    await session.refresh(await get<Me>('/me'));
    await onSaved();
  });
  return (
    <form class="card" onSubmit={submit} noValidate>
      <Notice kind="success">{saved}</Notice>
      <ErrorNotice error={error && error.details.length === 0 ? error : undefined} />
      <TextField label={t('settings.workspaceName')} value={name} onInput={setName} error={error?.field('name')} autoComplete="organization" />
      <Select label={t('settings.defaultLanguage')} hint={t('settings.defaultLanguageHint')} value={language} options={Object.entries(WORKSPACE_LANGUAGES).map(([value, label]) => ({ value, label }))} onChange={setLanguage} error={error?.field('language')} />
      <div class="form-actions">
        <Button kind="primary" type="submit" busy={busy}>
          {t('settings.save')}
        </Button>
      </div>
    </form>
  );
}

function Usage({ workspace }: { workspace: WorkspaceSettings }) {
  const { credits, agents, storage } = workspace;
  const highest = Math.max(1, ...credits.series.map((day) => day.credits));
  return (
    <section class="card" aria-labelledby="settings-usage">
      <h3 id="settings-usage">{t('settings.usage')}</h3>
      <dl class="settings-facts">
        <dt>{t('settings.plan')}</dt>
        <dd>{workspace.plan}</dd>
        <dt>{t('settings.credits')}</dt>
        <dd>{t('settings.creditsUsed', { used: formatNumber(credits.usedThisMonth), included: formatNumber(credits.included), purchased: formatNumber(credits.purchased) })}</dd>
        <dt>{t('settings.agents')}</dt>
        <dd>{agents.limit === null ? formatNumber(agents.count) : t('settings.ofLimit', { count: formatNumber(agents.count), limit: formatNumber(agents.limit) })}</dd>
      </dl>
      {credits.series.length > 0 && (
        <figure class="usage-chart">
          <figcaption>{t('settings.creditsPerDay')}</figcaption>
          <ol class="usage-bars">
            {credits.series.map((day) => (
              <li key={day.date} title={`${day.date}: ${formatNumber(day.credits)}`}>
                <span class="usage-bar" style={{ height: `${Math.round((day.credits / highest) * 100)}%` }} />
                <span class="visually-hidden">{t('settings.creditsOn', { date: day.date, credits: formatNumber(day.credits) })}</span>
              </li>
            ))}
          </ol>
        </figure>
      )}
      <StorageTable storage={storage} />
    </section>
  );
}

function StorageTable({ storage }: { storage: Storage }) {
  return (
    <>
      {storage.agents.length > 0 && (
        <Table
          caption={t('settings.storage')}
          rows={storage.agents}
          rowKey={(row) => row.agentId}
          columns={[
            { label: t('settings.agent'), cell: (row) => row.name },
            { label: t('settings.storage'), numeric: true, cell: (row) => t('settings.ofLimit', { count: formatBytes(row.usedBytes), limit: formatBytes(storage.allowancePerAgentBytes) }) },
          ]}
        />
      )}
    </>
  );
}
