import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { API_KEY_PATTERN, equalInConstantTime, fingerprint } from '../platform/crypto.ts';
import type { LimitResult } from '../platform/limiter.ts';
import { errors } from '../domain/errors.ts';
import { requireAllowed, type Principal, type Scope } from '../domain/principal.ts';
import { admitKey, cachedKeyLookup, type FoundKey, type PresentedKey } from '../modules/workspace/keys.ts';
import { noteKeyUse } from '../modules/workspace/key-use.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller of a route with a scope: a key under /api/v1, a signed-in person under /app/api/v1. */
    auth: Principal;
  }
  interface FastifyContextConfig {
    /** The scope a route needs (spec 4.2); routes without one are public. */
    scope?: Scope;
    /** For a person, the role the route needs besides (domain/principal.ts): webhooks are for owners and admins. */
    role?: 'admin' | 'owner';
    /** Recorded in the audit log when the request succeeds. */
    audit?: string;
    /** false for public routes every visitor of a customer's site loads (widget images): they are not counted. */
    rateLimited?: boolean;
  }
}

/**
 * Authentication, the rate limit and the scope check, in the order the spec
 * implies: a bad key is 401, then the window is counted, then the workspace's
 * state and plan, then the scope.
 */
export function authenticate(ctx: Context) {
  const { countRequest, admit } = keyCheck(ctx);
  return async function authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { scope: routeScope, rateLimited } = request.routeOptions.config;
    if (!routeScope && rateLimited === false) return;
    const found = await countRequest(request, reply);
    if (!routeScope) {
      // Which routes exist is a check of the path: without a usable key it comes after the 401.
      if (!found && request.is404) throw errors.unauthorized();
      return;
    }
    // A key's own rule comes first (spec 5.5): below Studio every keyed route is api_not_in_plan;
    // integrations_not_in_plan is the routes' own word for what a plan with the API lacks.
    const auth = admit(found);
    requireAllowed(auth, { scope: routeScope, role: request.routeOptions.config.role });
    request.auth = auth;
  };
}

/**
 * The key check every keyed surface shares (the REST API and the MCP server):
 * a request is counted against its key (or, without a usable one, its
 * address) with the limit headers set, then a missing, malformed or revoked
 * key is 401, a stopped workspace 403 and a plan without the API 402
 * (modules/workspace/keys.ts). The scope is the caller's to check against what is asked.
 */
export function keyCheck(ctx: Context) {
  const lookUpKey = cachedKeyLookup(ctx);
  /** Counts the request and sets the limit headers (throws rate_limited over the limit); the key when it is usable. */
  async function countRequest(request: FastifyRequest, reply: FastifyReply): Promise<FoundKey | undefined> {
    const presented = presentedKey(request);
    const found = presented ? await lookUpKey(presented) : undefined;
    // Every response carries the limit headers: public and unknown routes count against the key when one
    // is given, else against the caller's address.
    setLimitHeaders(reply, found ? found.limit : await ctx.limiter.hit(`ip:${request.ip}`));
    return found;
  }
  /** The key's principal (or its refusal); its use is noted for lastUsedAt, off the request's path (modules/workspace/key-use.ts). */
  function admit(found: FoundKey | undefined) {
    const caller = admitKey(found);
    noteKeyUse(ctx, caller.keyId);
    return caller;
  }
  return { countRequest, admit };
}

/**
 * For a request the router refused before any hook ran (a malformed %-escape,
 * an over-long path parameter): counted and its key checked as for an unknown
 * route, so it carries the limit headers and, without a usable key, is 401
 * before the path is judged.
 */
export function authenticateUnrouted(ctx: Context) {
  const { countRequest } = keyCheck(ctx);
  return async function authenticateUnroutedRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!(await countRequest(request, reply))) throw errors.unauthorized();
  };
}

/** What the last request on each open connection presented, and what it came to. */
const lastOnConnection = new WeakMap<object, { authorization: string; host: string | undefined; presented: PresentedKey | undefined }>();

/**
 * A client on a kept-alive connection sends the same Authorization and Host
 * headers with every request: they are parsed and the key hashed once per
 * connection. Hashing alone measured as the largest cost of a cached read
 * (about 4 µs of CPU in the running service). The last key a connection
 * carried is held while the connection stays open (behind a proxy that reuses
 * connections, that may be another client's key), so the header is compared
 * with it in constant time.
 */
function presentedKey(request: FastifyRequest): PresentedKey | undefined {
  const { authorization, host } = request.headers;
  if (authorization === undefined) return undefined;
  const connection = request.raw.socket;
  const last = lastOnConnection.get(connection);
  if (last && last.host === host && equalInConstantTime(last.authorization, authorization)) return last.presented;
  const token = bearerOf(authorization);
  const hostname = hostOf(host);
  const keyFingerprint = token && fingerprint(token);
  const presented = keyFingerprint ? { fingerprint: keyFingerprint, host: hostname, cacheKey: `${keyFingerprint} ${hostname}` } : undefined;
  lastOnConnection.set(connection, { authorization, host, presented });
  return presented;
}

/** Sets the spec's limit headers; over the limit, throws rate_limited (429 with Retry-After). */
export function setLimitHeaders(reply: FastifyReply, result: LimitResult): void {
  reply.header('x-ratelimit-limit', String(result.limit));
  reply.header('x-ratelimit-remaining', String(result.remaining));
  reply.header('x-ratelimit-reset', String(result.resetSeconds));
  if (!result.allowed) throw errors.rateLimited(result.resetSeconds);
}

/** The token of an `Authorization: Bearer …` header, as sent. */
export function bearerToken(header: string | undefined): string | undefined {
  return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

function bearerOf(header: string | undefined): string | undefined {
  const token = bearerToken(header);
  return token && API_KEY_PATTERN.test(token) ? token : undefined;
}

function hostOf(header: string | undefined): string {
  return (header ?? '').replace(/:\d+$/, '').toLowerCase();
}
