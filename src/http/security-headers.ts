/**
 * The headers every reply carries for the browser's sake, set in one place
 * (docs/security.md, "Mail and other abuse"):
 * - X-Content-Type-Options: nosniff on every reply, so a JSON body or an
 *   uploaded text is never run as a script or a page;
 * - Cache-Control: no-store on every reply to a request with an Authorization
 *   header (the keyed API, the operator API, MCP): what a key reads is not kept
 *   by a browser or a shared proxy; the same for the operator API, also without
 *   a token, and the dashboard's JSON routes under /app/api/ (they carry the
 *   session's CSRF token and keys shown once). A route may still name its own caching;
 * - on the service's own pages, the front page and the API reference at /docs,
 *   a Content-Security-Policy and frame protection (frame-ancestors 'none' and
 *   X-Frame-Options: DENY). The widget's iframe page (modules/widget) is left
 *   alone: admitted sites must be able to frame it, and it sends its own policy.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, RouteOptions, onSendHookHandler } from 'fastify';
import { DOCS_PATH } from './home.ts';

/** Never cached, with or without an Authorization header: the operator API and the dashboard's JSON routes. */
const NO_STORE_PREFIXES = ['/admin/', '/app/api/'];
const FRONT_PAGE_POLICY = ["default-src 'none'", "style-src 'unsafe-inline'", "img-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');

/**
 * Scalar's reference: its script from this service, plus the page's one inline
 * call that starts it (allowed by its hash, so no other inline script runs); it
 * styles itself at run time, so inline styles are allowed; it reads the
 * OpenAPI document from this service.
 */
function docsPolicy(inlineScriptHashes: string[]): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes.map((hash) => `'${hash}'`).join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function installSecurityHeaders(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (request.headers.authorization !== undefined || NO_STORE_PREFIXES.some((prefix) => request.url.startsWith(prefix))) reply.header('cache-control', 'no-store');
    done();
  });
  app.addHook('onRoute', (route) => {
    if (route.url === '/') addOnSend(route, (_request, reply, payload, done) => done(null, framed(reply, FRONT_PAGE_POLICY) && payload));
    else if (route.url === DOCS_PATH || route.url.startsWith(`${DOCS_PATH}/`)) addOnSend(route, docsHeaders());
  });
}

/** The page may not be framed by anyone; returns true to chain. */
function framed(reply: { header(name: string, value: string): unknown }, policy: string): true {
  reply.header('content-security-policy', policy);
  reply.header('x-frame-options', 'DENY');
  return true;
}

/** The docs page's policy names the hashes of its inline scripts, computed once per page text. */
function docsHeaders(): onSendHookHandler {
  const policies = new Map<string, string>();
  return (_request, reply, payload, done) => {
    const html = typeof payload === 'string' && /^text\/html/.test(String(reply.getHeader('content-type') ?? ''));
    let policy = html ? policies.get(payload) : docsPolicy([]);
    if (policy === undefined) {
      policy = docsPolicy(inlineScripts(payload as string).map((script) => `sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}`));
      policies.set(payload as string, policy);
    }
    framed(reply, policy);
    done(null, payload);
  };
}

function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((match) => match[1]!);
}

function addOnSend(route: RouteOptions, hook: onSendHookHandler): void {
  const existing = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
  route.onSend = [...existing, hook];
}
