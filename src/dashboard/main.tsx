/** The dashboard's entry (docs/dashboard.md): its styles, the link handling, and the app rendered into #app. */
import { render } from 'preact';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import { App, pageLoaded } from './app.tsx';
import { browserLanguage, changeLanguage, languageFor } from './i18n/index.ts';
import { installLinkHandling } from './router.ts';
import { pageRouteOf } from './routes.ts';
import { ME_ELEMENT_ID, type Me } from './types.ts';

installLinkHandling();
const me = inlinedMe();
const opened = loadPage(location.pathname);
// The texts of the person's language (the browser's when signed out), preloaded by the HTML: the
// first render needs them. If they cannot be loaded the app starts anyway and shows the keys.
const texts = changeLanguage(me ? languageFor(me.person.language) : browserLanguage()).catch(() => {});
// Signed in, the HTML preloaded the opened page's chunks: waiting for its module (a moment) lets the
// first render be the page itself, its requests starting at once. Signed out, the sign-in page is here.
void Promise.all([texts, me ? opened : undefined]).then(start);

function start(): void {
  render(<App inlinedMe={me} />, document.getElementById('app')!);
}

/** Starts loading the opened page's module at once, not once the app has rendered; settles when it is in (or failed: PageHost tries again). */
async function loadPage(pathname: string): Promise<void> {
  const route = pageRouteOf(pathname);
  if (!route?.load) return;
  try {
    pageLoaded(route, (await route.load()).default);
  } catch {
    // PageHost loads it again and says so if it fails.
  }
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
