/**
 * Local websites for the crawler's tests and the crawl benchmark: node:http on
 * 127.0.0.1, so the service must run with PARLEY_ALLOW_PRIVATE_URLS=1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SiteResponse {
  status?: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** A path's answer; a function sees the site's own address (for absolute links). */
export type SiteRoute = SiteResponse | ((origin: string) => SiteResponse);

export interface TestSite {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Paths requested, in order (query included). */
  hits: string[];
  /** Every page answers this much later (to catch a crawl in the middle). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startSite(routes: Record<string, SiteRoute>, options: { delayMs?: number } = {}): Promise<TestSite> {
  const hits: string[] = [];
  const site: TestSite = { origin: '', hits, delayMs: options.delayMs ?? 0, close: async () => {} };
  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    hits.push(path);
    const route = routes[path] ?? routes[path.split('?')[0]];
    const answer = typeof route === 'function' ? route(site.origin) : route;
    const send = () => {
      if (response.destroyed) return;
      if (!answer) {
        response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
        return;
      }
      response.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/html; charset=utf-8', ...answer.headers });
      response.end(answer.body ?? '');
    };
    const isPage = !path.startsWith('/robots.txt') && !path.includes('sitemap');
    if (site.delayMs > 0 && isPage) setTimeout(send, site.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

/** An HTML page with a title, some paragraphs and links. */
export function page(title: string, paragraphs: string[], links: string[] = [], head = ''): SiteResponse {
  const nav = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return {
    body: `<!doctype html><html><head><title>${title}</title>${head}</head><body>
<nav><ul>${nav}</ul></nav>
<main><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></main>
<footer>Example site footer</footer></body></html>`,
  };
}

const WORDS = 'opening hours delivery returns warranty invoice account subscription support parcel refund payment shipping garden kitchen bicycle repair booking studio course lesson'.split(' ');

/** Distinct text of a few hundred characters for page n. */
export function paragraphsFor(n: number): string[] {
  const pick = (i: number) => WORDS[(n * 7 + i * 13) % WORDS.length];
  return [
    `Page ${n} explains ${pick(1)} and ${pick(2)} for customers of the example shop, with details that only apply to item number ${n}.`,
    `Customers often ask about ${pick(3)}, ${pick(4)} and ${pick(5)}. This page answers those questions for case ${n * 31} in plain words.`,
    `When something about ${pick(6)} is unclear, contact the team and mention reference ${n}-${n * 17} so we can help faster.`,
  ];
}

/**
 * A site of `pages` pages for the crawl benchmark and tests: / links to the first
 * pages, every page links to the next few, and /sitemap.xml lists them all.
 */
export async function startPagedSite(pages: number, options: { delayMs?: number } = {}): Promise<TestSite> {
  const routes: Record<string, SiteRoute> = {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/': page('Home', paragraphsFor(0), ['/p/1', '/p/2', '/p/3']),
    '/sitemap.xml': (origin) => ({
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/</loc></url>${Array.from(
        { length: pages - 1 },
        (_, i) => `<url><loc>${origin}/p/${i + 1}</loc></url>`,
      ).join('')}</urlset>`,
    }),
  };
  // Home is page 0; /p/1 .. /p/(pages-1) make `pages` pages in all.
  for (let n = 1; n < pages; n++) {
    const links = [1, 2, 3, 4].map((step) => n + step).filter((m) => m < pages).map((m) => `/p/${m}`);
    routes[`/p/${n}`] = page(`Page ${n}`, paragraphsFor(n), ['/', ...links]);
  }
  return startSite(routes, options);
}
