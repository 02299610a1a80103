/**
 * /app signed out: a sign-in link by mail (the first way, names fixed by the operator
 * contract: "E-mail", "Send sign-in link"), a password, or a passkey (shown where the
 * browser reads and writes WebAuthn's JSON forms; docs/people.md, "Passkeys").
 */
import { useState } from 'preact/hooks';
import { ApiError, send } from '../../api.ts';
import { asApiError } from '../../data.ts';
import { t } from '../../i18n/index.ts';
import type { Me } from '../../types.ts';
import { Button, ErrorNotice, Notice, TextField } from '../../components/index.ts';

export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => Promise<void> }) {
  const [way, setWay] = useState<'link' | 'password'>('link');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const [error, setError] = useState<ApiError>();
  // A sign-in link's form that failed (used, expired or unknown) comes back here with ?signIn=failed.
  const [linkFailed] = useState(() => new URLSearchParams(location.search).get('signIn') === 'failed');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (way === 'link') {
        await send('POST', '/sign-in/links', { email });
        setSentTo(email);
      } else {
        await onSignedIn(await send<Me>('POST', '/sign-in/password', { email, password }));
      }
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const fieldErrors = error?.details.length ? error : undefined;

  const withPasskey = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const options = await send<unknown>('POST', '/sign-in/passkey/options');
      const credential = (await navigator.credentials.get({ publicKey: (PublicKeyCredential as any).parseRequestOptionsFromJSON(options) })) as PublicKeyCredential | null;
      if (!credential) return;
      await onSignedIn(await send<Me>('POST', '/sign-in/passkey', { response: credential.toJSON() }));
    } catch (caught) {
      // The person closed the browser's passkey prompt: nothing to say.
      if (!(caught instanceof DOMException && caught.name === 'NotAllowedError')) setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signed-out">
      <div class="card sign-in">
        <h1>{t('signIn.title')}</h1>
        {sentTo ? (
          <>
            <Notice kind="success">{t('signIn.sent', { email: sentTo })}</Notice>
            <Button kind="quiet" onClick={() => setSentTo(undefined)}>
              {t('signIn.again')}
            </Button>
          </>
        ) : (
          <form onSubmit={submit} noValidate>
            {error && !fieldErrors ? <ErrorNotice error={error} /> : <Notice kind="error">{linkFailed && !sentTo ? t('signIn.linkFailed') : undefined}</Notice>}
            <TextField label={t('signIn.email')} type="email" autoComplete="email" value={email} onInput={setEmail} error={fieldErrors?.field('email')} />
            {way === 'password' && (
              <TextField label={t('signIn.password')} type="password" autoComplete="current-password" value={password} onInput={setPassword} error={fieldErrors?.field('password')} />
            )}
            <div class="form-actions">
              <Button kind="primary" type="submit" busy={busy}>
                {way === 'link' ? t('signIn.send') : t('signIn.withPassword')}
              </Button>
            </div>
          </form>
        )}
        {!sentTo && PASSKEYS && (
          <Button kind="secondary" busy={busy} onClick={() => void withPasskey()}>
            {t('signIn.passkey')}
          </Button>
        )}
        {!sentTo && (
          <Button
            kind="quiet"
            onClick={() => {
              setWay(way === 'link' ? 'password' : 'link');
              setError(undefined);
            }}
          >
            {way === 'link' ? t('signIn.passwordWay') : t('signIn.linkWay')}
          </Button>
        )}
      </div>
    </main>
  );
}

/** Whether the browser can hand WebAuthn's options and answers over as JSON (Chrome 129+, Firefox 119+, Safari 18.4+). */
const PASSKEYS = typeof PublicKeyCredential !== 'undefined' && 'parseRequestOptionsFromJSON' in PublicKeyCredential;
