/**
 * Settings, My account: the person's name and interface language (PATCH /me), a password
 * set or changed (PUT /me/password), passkeys (added with the browser's WebAuthn from the
 * options route, listed, renamed, removed) and sessions (listed, one ended, every other one
 * ended). docs/people.md, "Signing in" and "Sessions".
 */
import { useState } from 'preact/hooks';
import { list, send } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatDate, LANGUAGES, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { useSession } from '../../session.ts';
import type { Me, Passkey, SessionView } from '../../types.ts';
import { Badge, Button, Dialog, ErrorNotice, Notice, Select, Table, TextField } from '../../components/index.ts';
import { SettingsFrame } from '../settings/frame.tsx';
import { createPasskey, webAuthnSupported } from '../sign-in/webauthn.ts';

type SessionRow = SessionView;

export default function AccountPage({ me }: PageProps) {
  return (
    <SettingsFrame tab="account">
      <h2>{t('settings.account')}</h2>
      <Profile me={me} />
      <Password hasPassword={me.person.hasPassword} />
      <Passkeys />
      <Sessions />
    </SettingsFrame>
  );
}

function Profile({ me }: { me: Me }) {
  const session = useSession();
  const [name, setName] = useState(me.person.name);
  const [language, setLanguage] = useState(me.person.language === 'nl' ? 'nl' : 'en');
  const [saved, setSaved] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(undefined);
    await session.refresh(await send<Me>('PATCH', '/me', { name, language }));
    setSaved(t('account.saved'));
  });
  return (
    <section class="card" aria-labelledby="account-profile">
      <h3 id="account-profile">{t('account.profile')}</h3>
      <form onSubmit={submit} noValidate>
        <Notice kind="success">{saved}</Notice>
        <ErrorNotice error={error && error.details.length === 0 ? error : undefined} />
        <p>{t('account.email', { email: me.person.email })}</p>
        <TextField label={t('account.name')} autoComplete="name" value={name} onInput={setName} error={error?.field('name')} />
        <Select label={t('account.language')} value={language} options={LANGUAGES.map((l) => ({ value: l, label: l === 'en' ? 'English' : 'Nederlands' }))} onChange={(value) => setLanguage(value as 'en' | 'nl')} error={error?.field('language')} />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('settings.save')}
          </Button>
        </div>
      </form>
    </section>
  );
}

function Password({ hasPassword }: { hasPassword: boolean }) {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [saved, setSaved] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(undefined);
    await send('PUT', '/me/password', { password: next, ...(hasPassword ? { currentPassword: current } : {}) });
    setCurrent('');
    setNext('');
    setSaved(t('account.passwordSaved'));
    await session.refresh({ ...session.me, person: { ...session.me.person, hasPassword: true } });
  });
  return (
    <section class="card" aria-labelledby="account-password">
      <h3 id="account-password">{t('account.password')}</h3>
      <form onSubmit={submit} noValidate>
        <Notice kind="success">{saved}</Notice>
        <ErrorNotice error={error && error.details.length === 0 ? error : undefined} />
        {hasPassword && <TextField label={t('account.currentPassword')} type="password" autoComplete="current-password" value={current} onInput={setCurrent} error={error?.field('currentPassword')} />}
        <TextField label={t('account.newPassword')} type="password" autoComplete="new-password" hint={t('account.passwordHint')} value={next} onInput={setNext} error={error?.field('password')} />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {hasPassword ? t('account.changePassword') : t('account.setPassword')}
          </Button>
        </div>
      </form>
    </section>
  );
}

function Passkeys() {
  const passkeys = useData(() => list<Passkey>('/me/passkeys'), []);
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string>();
  const [renaming, setRenaming] = useState<Passkey>();
  const supported = webAuthnSupported();
  const { busy, error, setError, submit: add } = useSubmit(async () => {
    setMessage(undefined);
    const options = await send<unknown>('POST', '/me/passkeys/options');
    const response = await createPasskey(options);
    if (!response) return setMessage(t('account.passkeyCancelled'));
    const added = await send<Passkey>('POST', '/me/passkeys', { response, ...(name.trim() ? { name: name.trim() } : {}) });
    setName('');
    setMessage(t('account.passkeyAdded', { name: added.name }));
    void passkeys.reload();
  });
  const remove = async (passkey: Passkey) => {
    setError(undefined);
    try {
      await send('DELETE', `/me/passkeys/${encodeURIComponent(passkey.id)}`);
      setMessage(t('account.passkeyRemoved', { name: passkey.name }));
      void passkeys.reload();
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <section class="card" aria-labelledby="account-passkeys">
      <h3 id="account-passkeys">{t('account.passkeys')}</h3>
      <p>{t('account.passkeysIntro')}</p>
      <Notice kind="success">{message}</Notice>
      <ErrorNotice error={(error && error.details.length === 0 ? error : undefined) ?? passkeys.error} />
      {passkeys.data && passkeys.data.length > 0 && (
        <Table
          caption={t('account.passkeys')}
          rows={passkeys.data}
          rowKey={(p) => p.id}
          columns={[
            { label: t('account.passkeyName'), cell: (p) => p.name },
            { label: t('account.added'), cell: (p) => formatDate(p.createdAt) },
            { label: t('account.lastUsed'), cell: (p) => (p.lastUsedAt ? formatDate(p.lastUsedAt) : t('account.never')) },
            {
              label: t('people.actions'),
              cell: (p) => (
                <div class="row-actions">
                  <Button kind="quiet" aria-label={t('account.renameNamed', { name: p.name })} onClick={() => setRenaming(p)}>
                    {t('account.rename')}
                  </Button>
                  <Button kind="quiet" aria-label={t('account.removeNamed', { name: p.name })} onClick={() => void remove(p)}>
                    {t('people.remove')}
                  </Button>
                </div>
              ),
            },
          ]}
        />
      )}
      {supported ? (
        <form onSubmit={add} noValidate class="account-add-passkey">
          <TextField label={t('account.passkeyName')} optional value={name} onInput={setName} error={error?.field('name')} autoComplete="off" />
          <div class="form-actions">
            <Button kind="primary" type="submit" busy={busy}>
              {t('account.addPasskey')}
            </Button>
          </div>
        </form>
      ) : (
        <p>{t('account.noWebAuthn')}</p>
      )}
      <RenameDialog passkey={renaming} onClose={() => setRenaming(undefined)} onRenamed={() => void passkeys.reload()} />
    </section>
  );
}

function RenameDialog({ passkey, onClose, onRenamed }: { passkey: Passkey | undefined; onClose: () => void; onRenamed: () => void }) {
  const [name, setName] = useState('');
  const [opened, setOpened] = useState<Passkey>();
  const { busy, error, setError, submit } = useSubmit(async () => {
    await send('PATCH', `/me/passkeys/${encodeURIComponent(passkey!.id)}`, { name });
    onClose();
    onRenamed();
  });
  if (passkey !== opened) {
    setOpened(passkey);
    if (passkey) {
      setName(passkey.name);
      setError(undefined);
    }
  }
  return (
    <Dialog open={passkey !== undefined} title={passkey ? t('account.renameNamed', { name: passkey.name }) : ''} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error && error.details.length === 0 ? error : undefined} />
        <TextField label={t('account.passkeyName')} value={name} onInput={setName} error={error?.field('name')} autoComplete="off" />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('settings.save')}
          </Button>
          <Button onClick={onClose}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}

function Sessions() {
  const sessions = useData(() => list<SessionRow>('/sessions'), []);
  const [message, setMessage] = useState<string>();
  const { busy, error, run: end } = useSubmit(async (ids: string[]) => {
    for (const id of ids) await send('DELETE', `/sessions/${encodeURIComponent(id)}`);
    setMessage(t('account.sessionsEnded', { count: ids.length }));
    void sessions.reload();
  });
  const others = sessions.data?.filter((s) => !s.current) ?? [];
  return (
    <section class="card" aria-labelledby="account-sessions">
      <h3 id="account-sessions">{t('account.sessions')}</h3>
      <Notice kind="success">{message}</Notice>
      <ErrorNotice error={error ?? sessions.error} />
      {sessions.data && (
        <Table
          caption={t('account.sessions')}
          rows={sessions.data}
          rowKey={(s) => s.id}
          columns={[
            { label: t('account.browser'), cell: (s) => (<>{s.userAgent || t('account.unknownBrowser')}{s.current && <> <Badge tone="good">{t('account.thisSession')}</Badge></>}</>) },
            { label: t('account.signedIn'), cell: (s) => formatDate(s.createdAt) },
            { label: t('account.lastSeen'), cell: (s) => formatDate(s.lastSeenAt) },
            {
              label: t('people.actions'),
              cell: (s) =>
                s.current ? null : (
                  <Button kind="quiet" aria-label={t('account.endSessionNamed', { date: formatDate(s.createdAt) })} onClick={() => void end([s.id])}>
                    {t('account.endSession')}
                  </Button>
                ),
            },
          ]}
        />
      )}
      {others.length > 0 && (
        <div class="form-actions">
          <Button kind="danger" busy={busy} onClick={() => void end(others.map((s) => s.id))}>
            {t('account.signOutOthers')}
          </Button>
        </div>
      )}
    </section>
  );
}
