/**
 * Serves the owners' dashboard (docs/dashboard.md): /app and every client path under it get
 * the application's page (never cached, a strict Content-Security-Policy, not framable); its
 * files under /app/assets/ have content-hashed names and are cached for a year. /app/api/…
 * and /app/sign-in belong to the people module (./people/routes.ts) and are left to it: an
 * unknown path there is the API's 404, not the page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { buildDashboard, type DashboardBuild } from '../../dashboard/build.ts';
import { sendBuiltAsset } from '../../http/built-assets.ts';
import { notFound } from '../../http/error-handler.ts';

const ASSET_MAX_AGE_SECONDS = 31_536_000;

/** The page's policy: its own scripts, styles and API only; no inline script or style element, no framing, no form posted elsewhere. */
export const DASHBOARD_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths under /app that are not the application's pages. */
const NOT_PAGES = /^\/app\/(api|assets|sign-in)(\/|$)/;
const PAGE_METHODS = new Set(['GET', 'HEAD']);

export async function dashboardRoutes(parent: FastifyInstance, _ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };

  app.get('/assets/:file', { schema: { ...hidden, params: z.strictObject({ file: z.string().max(100) }) } }, async (request, reply) => {
    const asset = (await buildDashboard()).assets.get(`/app/assets/${request.params.file}`);
    if (!asset) return notFound(request, reply);
    return sendBuiltAsset(request, reply, asset, `public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable`);
  });

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!PAGE_METHODS.has(request.method) || NOT_PAGES.test(request.url.split('?')[0]!)) return notFound(request, reply);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', DASHBOARD_POLICY)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .send(pageHtml(await buildDashboard()));
  };
  app.get('/', { schema: hidden }, page);
  // Every other path under /app is the page too, as this prefix's not-found handler rather than
  // a /app/* route: a route would also win over the not-found handlers of the scopes under
  // /app/api/v1, whose hooks must answer their unknown paths (401 without a session).
  app.setNotFoundHandler(page);
}

let html: { build: DashboardBuild; text: string } | undefined;

/** The application's one page: the style sheet, the entry module and the chunks it needs at once, preloaded. */
function pageHtml(build: DashboardBuild): string {
  if (html?.build === build) return html.text;
  const { script, style, preload } = build.entry;
  const text = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Parley</title>
${style ? `<link rel="stylesheet" href="${style}">\n` : ''}${preload.map((chunk) => `<link rel="modulepreload" href="${chunk}">\n`).join('')}<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p>The Parley dashboard needs JavaScript. Everything it does can also be done with the API: see <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>
`;
  html = { build, text };
  return text;
}
