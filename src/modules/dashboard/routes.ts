/**
 * Serves the owners' dashboard (docs/dashboard.md): /app and every client path under it get
 * the application's page (never cached, a strict Content-Security-Policy, not framable); its
 * files under /app/assets/ have content-hashed names and are cached for a year. For a signed-in
 * person the page also preloads the opened page's chunks and carries GET /app/api/me's data, so
 * the application starts without waiting for either. Its files go gzipped to a browser that takes it. /app/api/…
 * and /app/sign-in belong to the people module (./people/routes.ts) and are left to it: an
 * unknown path there is the API's 404, not the page.
 */
import { Readable } from 'node:stream';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { buildDashboard, gzippedAsset, pageChunksFor, type DashboardBuild } from '../../dashboard/build.ts';
import { pageNeedsFirstAgent, pageRequestsOf } from '../../dashboard/routes.ts';
import { LANGUAGES, ME_ELEMENT_ID, type Language, type Me } from '../../dashboard/types.ts';
import { sendBuiltAsset } from '../../http/built-assets.ts';
import { notFound } from '../../http/error-handler.ts';
import { utcDay } from '../../platform/clock.ts';
import { listAgents } from '../agents/service.ts';
import * as people from '../people/service.ts';
import { sessionCookieName } from '../people/routes.ts';

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

export async function dashboardRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };
  await app.register(cookie);

  app.get('/assets/:file', { schema: { ...hidden, params: z.strictObject({ file: z.string().max(100) }) } }, async (request, reply) => {
    const asset = (await buildDashboard()).assets.get(`/app/assets/${request.params.file}`);
    if (!asset) return notFound(request, reply);
    const cacheControl = `public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable`;
    const gzipped = acceptsGzip(request.headers['accept-encoding']) ? await gzippedAsset(asset) : undefined;
    if (gzipped) return sendBuiltAsset(request, reply, gzipped, cacheControl, { 'content-encoding': 'gzip', vary: 'accept-encoding' });
    return sendBuiltAsset(request, reply, asset, cacheControl, { vary: 'accept-encoding' });
  });

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const [pathname, search = ''] = request.url.split('?') as [string, string?];
    if (!PAGE_METHODS.has(request.method) || NOT_PAGES.test(pathname)) return notFound(request, reply);
    const build = await buildDashboard();
    const token = request.cookies[sessionCookieName(ctx)];
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', DASHBOARD_POLICY)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin');
    const browserLanguage = acceptedLanguage(request.headers['accept-language']);
    if (!token) return reply.send(signedOutPage(build, browserLanguage));
    // The head, with the opened page's chunks to preload, goes out at once: the browser fetches
    // them while the session is read; the person's data follows in the body.
    const session = sessionOf(ctx, request, token, pageNeedsFirstAgent(pathname));
    return reply.send(Readable.from(signedInPage(build, { pathname, search, today: utcDay(ctx.clock.now()) }, session, browserLanguage)));
  };
  app.get('/', { schema: hidden }, page);
  // Every other path under /app is the page too, as this prefix's not-found handler rather than
  // a /app/* route: a route would also win over the not-found handlers of the scopes under
  // /app/api/v1, whose hooks must answer their unknown paths (401 without a session).
  app.setNotFoundHandler(page);
}

/** Whether Accept-Encoding takes gzip (listed, not with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    return (coding === 'gzip' || coding === 'x-gzip') && !parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter));
  });
}

interface SignedInSession {
  /** GET /app/api/me's data. */
  me?: Me;
  /** The first agent of the person's agents list (GET /app/api/v1/agents: the workspace's, under their agent limits). */
  firstAgentId?: string;
}

/**
 * What the page carries for the session (the same verbs as the API), or nothing: an ended session, or a
 * failure (a stopped workspace), which the application's own GET /app/api/me then reports as the API does.
 */
async function sessionOf(ctx: Context, request: FastifyRequest, token: string, needsFirstAgent: boolean): Promise<SignedInSession> {
  try {
    const person = await people.personOfSession(ctx, token);
    if (!person) return {};
    const [me, agents] = await Promise.all([people.describeMe(ctx, person, token), needsFirstAgent ? listAgents(ctx, person) : undefined]);
    return { me, firstAgentId: agents?.[0]?.id };
  } catch (error) {
    request.log.debug({ err: error }, 'the page is served without the signed-in person');
    return {};
  }
}

/**
 * JSON for a non-executable script element: `<` (and `>`, `&`) escaped as \u003c…, so no value
 * (a name holding `</script>` or `<!--`) can end the element or change how it is parsed.
 */
export function jsonInScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const signedOut = new WeakMap<DashboardBuild, Map<Language, string>>();

/**
 * The application's one page as anyone gets it: the style sheet, the entry module and the chunks it
 * needs at once, preloaded, with the texts of the language the browser asks for first (Accept-Language,
 * read as the application reads navigator.languages): one page per language.
 */
function signedOutPage(build: DashboardBuild, language: Language): string {
  let pages = signedOut.get(build);
  if (!pages) signedOut.set(build, (pages = new Map()));
  let text = pages.get(language);
  if (!text) pages.set(language, (text = pageHead(build, [...build.languageChunks[language]]) + pageBody(undefined, [])));
  return text;
}

/**
 * With a session cookie: the head also preloads the opened page's own chunks beside the entry's,
 * the browser's language's texts, and the API replies the page asks for as it opens (the session's
 * cookie goes with them: a preload the page does not use is one request wasted). The body carries
 * the person's GET /app/api/me data in a JSON element (data, never run: the policy is unchanged),
 * preloads their language's texts when it is not the browser's and the replies that depend on their
 * first agent (Analytics' figures without `?agent=`), both known only with the session.
 */
async function* signedInPage(
  build: DashboardBuild,
  address: { pathname: string; search: string; today: string },
  session: Promise<SignedInSession>,
  browserLanguage: Language,
): AsyncGenerator<string> {
  const { pathname, search, today } = address;
  const atOnce = pageRequestsOf(pathname, search, { today });
  yield pageHead(build, [...pageChunksFor(build, pathname), ...build.languageChunks[browserLanguage]], atOnce);
  const { me, firstAgentId } = await session;
  const language = me ? languageOf(me.person.language, browserLanguage) : browserLanguage;
  const withAgent = firstAgentId ? pageRequestsOf(pathname, search, { today, firstAgentId }).filter((api) => !atOnce.includes(api)) : [];
  yield pageBody(me, language === browserLanguage ? [] : build.languageChunks[language], withAgent);
}

/** The person's language when the dashboard speaks it, else the browser's (src/dashboard/i18n's languageFor). */
function languageOf(personLanguage: string, browserLanguage: Language): Language {
  return LANGUAGES.includes(personLanguage as Language) ? (personLanguage as Language) : browserLanguage;
}

/** The first of the dashboard's languages in Accept-Language's order, else English (src/dashboard/i18n's browserLanguage). */
export function acceptedLanguage(header: string | undefined): Language {
  for (const part of (header ?? '').split(',')) {
    const [tag, ...parameters] = part.trim().toLowerCase().split(';');
    if (parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter))) continue;
    const base = tag!.split('-')[0] as Language;
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

const modulePreloads = (chunks: string[]) => chunks.map((chunk) => `<link rel="modulepreload" href="${chunk}">\n`).join('');

/** API replies to preload: `crossorigin` (anonymous) so the page's own fetch (mode cors, same-origin credentials) takes them. */
const fetchPreloads = (paths: string[]) => paths.map((api) => `<link rel="preload" as="fetch" crossorigin href="/app/api${escapeAttribute(api)}">\n`).join('');

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function pageHead(build: DashboardBuild, pageChunks: string[], requests: string[] = []): string {
  const { script, style, preload } = build.entry;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Parley</title>
${style ? `<link rel="stylesheet" href="${style}">\n` : ''}${modulePreloads([...preload, ...pageChunks])}${fetchPreloads(requests)}<script type="module" src="${script}"></script>
</head>
`;
}

function pageBody(me: unknown, languageChunks: string[], requests: string[] = []): string {
  return `<body>
<div id="app"></div>
${modulePreloads(languageChunks)}${fetchPreloads(requests)}${me ? `<script type="application/json" id="${ME_ELEMENT_ID}">${jsonInScript(me)}</script>\n` : ''}<noscript><p>The Parley dashboard needs JavaScript. Everything it does can also be done with the API: see <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>
`;
}
