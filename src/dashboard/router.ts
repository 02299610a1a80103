/**
 * The dashboard's router: paths under /app with the history API. Links are plain
 * <a href="/app/…">: a click on one (without a modifier key) is taken over here, so the
 * page changes without a reload; back and forward work; every address can be opened directly.
 */
import { useEffect, useState } from 'preact/hooks';

type Listener = () => void;
const listeners = new Set<Listener>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentPath()) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export function currentPath(): string {
  return location.pathname + location.search;
}

/** The current address (path and query); the component re-renders when it changes. */
export function useLocation(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    addEventListener('popstate', update);
    // A child's effect may have navigated before this one subscribed (a redirect on the first render).
    update();
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** Takes over clicks on links to the dashboard's own pages. */
export function installLinkHandling(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element).closest?.('a');
    if (!link || link.target || link.hasAttribute('download') || link.origin !== location.origin || !link.pathname.startsWith('/app')) return;
    if (link.pathname.startsWith('/app/api') || link.pathname.startsWith('/app/assets') || link.pathname.startsWith('/app/sign-in')) return;
    event.preventDefault();
    navigate(link.pathname + link.search);
  });
}

/** Builds a path from a route's pattern: path('/app/agents/:agentId/sources', { agentId }). */
export function path(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(params[name] ?? ''));
}
