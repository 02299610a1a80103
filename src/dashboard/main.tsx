/** The dashboard's entry (docs/dashboard.md): its styles, the link handling, and the app rendered into #app. */
import { render } from 'preact';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import { App } from './app.tsx';
import { installLinkHandling } from './router.ts';
import { pageRouteOf } from './routes.ts';
import { ME_ELEMENT_ID, type Me } from './types.ts';

installLinkHandling();
preloadPage(location.pathname);

render(<App inlinedMe={inlinedMe()} />, document.getElementById('app')!);

/** Starts loading the opened page's module at once, not once the app has rendered (the HTML preloads its chunks). */
function preloadPage(pathname: string): void {
  pageRouteOf(pathname)?.load?.().catch(() => {});
}

/**
 * GET /app/api/me's data as the page brought it for a signed-in person (a JSON element, see
 * src/modules/dashboard/routes.ts), taken out of the document; undefined without it, and the app asks.
 */
function inlinedMe(): Me | undefined {
  const element = document.getElementById(ME_ELEMENT_ID);
  if (!element) return undefined;
  element.remove();
  try {
    return JSON.parse(element.textContent ?? '') as Me;
  } catch {
    return undefined;
  }
}
