/**
 * The application: who is signed in (GET /app/api/me), the sign-in page when no one is,
 * else the signed-in layout around the page the address names (routes.ts).
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { ApiError, get, send, startSession } from './api.ts';
import { changeLanguage, currentLanguage, languageFor, LANGUAGES, t } from './i18n/index.ts';
import { navigate, useLocation } from './router.ts';
import { matchRoute, type PageProps, type Route } from './routes.ts';
import { SessionContext, type Session } from './session.ts';
import { asApiError } from './data.ts';
import type { Language, Me } from './types.ts';
import { Button, EmptyState, ErrorNotice, Nav, PageHeader, Select } from './components/index.ts';
import { SignInPage } from './pages/sign-in/page.tsx';

type State = { kind: 'loading' } | { kind: 'signedOut' } | { kind: 'signedIn'; me: Me } | { kind: 'failed'; error: ApiError };

/** inlinedMe: GET /app/api/me's data when the page brought it (signed in), so the app starts without asking. */
export function App({ inlinedMe }: { inlinedMe?: Me }) {
  // With inlinedMe, main.tsx has loaded the person's language before the first render; the session starts in the effect below.
  const [state, setState] = useState<State>(() => (inlinedMe ? { kind: 'signedIn', me: inlinedMe } : { kind: 'loading' }));
  const startSessionOf = useCallback((me: Me) => startSession(me.csrfToken, () => setState({ kind: 'signedOut' })), []);
  /** Shown once the person's language's texts are in (a switch of language waits for them; a failure to load them is the caller's). */
  const signedIn = useCallback(async (me: Me) => {
    startSessionOf(me);
    await changeLanguage(languageFor(me.person.language));
    setState({ kind: 'signedIn', me });
  }, []);
  const load = useCallback(async () => {
    try {
      await signedIn(await get<Me>('/me'));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) setState({ kind: 'signedOut' });
      else setState({ kind: 'failed', error: error as ApiError });
    }
  }, [signedIn]);
  useEffect(() => {
    if (inlinedMe) startSessionOf(inlinedMe);
    else void load();
  }, []);

  if (state.kind === 'loading') return <p class="app-loading">{t('app.loading')}</p>;
  if (state.kind === 'failed') {
    return (
      <main id="main" class="signed-out">
        <ErrorNotice error={state.error} />
        <Button onClick={() => void load()}>{t('app.retry')}</Button>
      </main>
    );
  }
  if (state.kind === 'signedOut') return <SignInPage onSignedIn={signedIn} />;
  const session: Session = {
    me: state.me,
    refresh: signedIn,
    signOut: async () => {
      await send('POST', '/sign-out');
      setState({ kind: 'signedOut' });
      navigate('/app', { replace: true });
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <Layout session={session} />
    </SessionContext.Provider>
  );
}

function Layout({ session }: { session: Session }) {
  const location = useLocation();
  const [pathname, search] = location.split('?');
  const match = matchRoute(pathname!);
  const { me } = session;
  // A failed switch says why, and the choice shows the workspace or language still in use again
  // (the re-render sets the select back to its value).
  const [switchError, setSwitchError] = useState<ApiError>();
  const pagePath = pathname!;
  useEffect(() => setSwitchError(undefined), [pagePath]);
  const trySwitch = async (change: () => Promise<void>) => {
    try {
      await change();
      setSwitchError(undefined);
    } catch (error) {
      setSwitchError(asApiError(error));
    }
  };
  const switchWorkspace = (workspaceId: string) =>
    trySwitch(async () => {
      await session.refresh(await send<Me>('PUT', '/me/workspace', { workspaceId }));
      navigate('/app/agents');
    });
  const switchLanguage = (language: string) => trySwitch(async () => session.refresh(await send<Me>('PATCH', '/me', { language })));
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <header class="topbar">
        <a class="brand" href="/app/agents">
          {t('app.name')}
        </a>
        <Nav role={me.role} current={match?.route.section} />
        <div class="account">
          {me.workspaces.length > 1 ? (
            <Select compact label={t('nav.workspace')} value={me.workspace.id} options={me.workspaces.map((w) => ({ value: w.id, label: w.name }))} onChange={(id) => void switchWorkspace(id)} />
          ) : (
            <span class="workspace-name">{me.workspace.name}</span>
          )}
          <Select
            compact
            label={t('nav.language')}
            value={currentLanguage()}
            options={LANGUAGES.map((language: Language) => ({ value: language, label: language === 'en' ? 'English' : 'Nederlands' }))}
            onChange={(language) => void switchLanguage(language)}
          />
          <Button kind="quiet" onClick={() => void session.signOut()}>
            {t('nav.signOut')}
          </Button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorNotice error={switchError} />
        <PageHost key={me.workspace.id} location={location} route={match?.route} params={match?.params ?? {}} query={new URLSearchParams(search ?? '')} me={me} />
      </main>
    </div>
  );
}

const loaded = new Map<Route, ComponentType<PageProps>>();

/** A page's module loaded before the app rendered (main.tsx), so PageHost renders it at once. */
export function pageLoaded(route: Route, page: ComponentType<PageProps>): void {
  loaded.set(route, page);
}

/** Loads the page's module the first time it is opened, renders it, sets the title and moves focus to its heading after a navigation. */
function PageHost({ location, route, params, query, me }: { location: string; route: Route | undefined; params: Record<string, string>; query: URLSearchParams; me: Me }) {
  const [, setVersion] = useState(0);
  const [failed, setFailed] = useState(false);
  const first = useRef(true);
  const allowed = route && (!route.roles || route.roles.includes(me.role));
  const Page = route ? loaded.get(route) : undefined;

  useEffect(() => {
    if (route?.redirect) return navigate(route.redirect(params), { replace: true });
    if (!route?.load || loaded.has(route) || !allowed) return;
    setFailed(false);
    route.load().then(
      (module) => {
        loaded.set(route, module.default);
        setVersion((v) => v + 1);
      },
      () => setFailed(true),
    );
  }, [route]);

  useEffect(() => {
    document.title = `${route ? t(route.title) : t('app.notFound')} · ${t('app.name')}`;
  }, [route, me.person.language]);

  useLayoutEffect(() => {
    if (!Page && route && allowed) return;
    if (first.current) {
      first.current = false;
      return;
    }
    // After a navigation, focus moves to the new page's heading (or its main region); a change of the
    // query alone (a filter, the agent chosen on Analytics) stays on the same page and leaves focus where it is.
    const target = document.querySelector<HTMLElement>('main h1') ?? document.getElementById('main');
    target?.focus();
  }, [location.split('?')[0], Page]);

  if (!route || !allowed) {
    return (
      <>
        <PageHeader title={t('app.notFound')} />
        <EmptyState title={t('app.notFound')} action={<a href="/app/agents">{t('app.backToAgents')}</a>} />
      </>
    );
  }
  if (failed) return <ErrorNotice error={new ApiError(0, 'network', '')} />;
  if (!Page) return <p role="status">{t('app.loading')}</p>;
  return <Page params={params} query={query} me={me} />;
}
