/**
 * Settings, the workspace: its name, plan, default language and usage as GET /workspace
 * tells them (read-only: the workspace's own settings route is not in the service yet).
 * A member limited to some agents is told nothing about the workspace (spec 5).
 */
import { get } from '../../api.ts';
import { useData } from '../../data.ts';
import { formatBytes, formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { EmptyState, ErrorNotice } from '../../components/index.ts';
import { SettingsFrame } from './frame.tsx';

interface WorkspaceSummary {
  id: string;
  name: string;
  plan: string;
  language: string;
  agents: { count: number; limit: number | null };
  credits: { usedThisMonth: number; included: number; purchased: number };
  storagePerAgentBytes: number;
}

export default function WorkspaceSettingsPage({ me }: PageProps) {
  const workspace = useData(() => get<{ workspace?: WorkspaceSummary }>('/v1/workspace'), []);
  const summary = workspace.data?.workspace;
  return (
    <SettingsFrame tab="workspace">
      <h2>{t('settings.workspace')}</h2>
      {workspace.error && <ErrorNotice error={workspace.error} />}
      {workspace.data && !summary && <p>{t('settings.limitedMember', { name: me.workspace.name })}</p>}
      {summary && (
        <dl class="settings-facts">
          <dt>{t('settings.name')}</dt>
          <dd>{summary.name}</dd>
          <dt>{t('settings.plan')}</dt>
          <dd>{summary.plan}</dd>
          <dt>{t('settings.defaultLanguage')}</dt>
          <dd>{summary.language === 'nl' ? 'Nederlands' : summary.language === 'en' ? 'English' : summary.language}</dd>
          <dt>{t('settings.agents')}</dt>
          <dd>{summary.agents.limit === null ? formatNumber(summary.agents.count) : t('settings.ofLimit', { count: formatNumber(summary.agents.count), limit: formatNumber(summary.agents.limit) })}</dd>
          <dt>{t('settings.credits')}</dt>
          <dd>{t('settings.creditsUsed', { used: formatNumber(summary.credits.usedThisMonth), included: formatNumber(summary.credits.included), purchased: formatNumber(summary.credits.purchased) })}</dd>
          <dt>{t('settings.storage')}</dt>
          <dd>{formatBytes(summary.storagePerAgentBytes)}</dd>
        </dl>
      )}
      {workspace.data === undefined && !workspace.error && <EmptyState title={t('app.loading')} />}
    </SettingsFrame>
  );
}
