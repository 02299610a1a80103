/** The Settings section's frame: its heading and the links between its parts (workspace, people, my account). */
import type { ComponentChildren } from 'preact';
import { t } from '../../i18n/index.ts';
import { useSession } from '../../session.ts';
import { PageHeader, TabLinks } from '../../components/index.ts';

export type SettingsTab = 'workspace' | 'people' | 'account' | 'audit';

export function SettingsFrame({ tab, children }: { tab: SettingsTab; children: ComponentChildren }) {
  const { me } = useSession();
  const admin = me.role === 'owner' || me.role === 'admin';
  const links = [
    { href: '/app/settings', label: t('settings.workspace'), current: tab === 'workspace' },
    ...(admin ? [{ href: '/app/settings/people', label: t('settings.people'), current: tab === 'people' }] : []),
    { href: '/app/settings/account', label: t('settings.account'), current: tab === 'account' },
    ...(admin ? [{ href: '/app/settings/audit', label: t('settings.audit'), current: tab === 'audit' }] : []),
  ];
  return (
    <>
      <PageHeader title={t('nav.settings')} />
      <TabLinks label={t('settings.sections')} links={links} />
      <div class="settings-body">{children}</div>
    </>
  );
}
