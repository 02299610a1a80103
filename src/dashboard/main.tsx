/** The dashboard's entry (docs/dashboard.md): its styles, the link handling, and the app rendered into #app. */
import { render } from 'preact';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import { App } from './app.tsx';
import { installLinkHandling, matchRoute } from './router.ts';

installLinkHandling();
preloadPage(location.pathname);

render(<App />, document.getElementById('app')!);

/** Starts loading the opened page's chunk beside GET /app/api/me, instead of after it. */
function preloadPage(pathname: string): void {
  const match = matchRoute(pathname);
  if (match?.route.redirect) return preloadPage(match.route.redirect(match.params));
  match?.route.load?.().catch(() => {});
}
