import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { API_KEY_PATTERN, equalInConstantTime, fingerprint } from '../platform/crypto.ts';
import { findKeyByFingerprint, type KeyWithWorkspace } from '../modules/workspace/store.ts';
import { noteKeyUse } from '../modules/workspace/key-use.ts';
import type { LimitResult } from '../platform/limiter.ts';
import { planOf, type Plan } from '../modules/workspace/plans.ts';
import { errors } from './errors.ts';
import { VersionedCache, versionNames } from '../platform/versions.ts';

export type Scope = 'read' | 'chat' | 'manage';

/** Who is calling, resolved once per request. Every query filters by workspaceId. */
export interface Auth {
  keyId: string;
  keyName: string;
  keyPrefix: string;
  workspaceId: string;
  scope: Scope;
  /** Set for a key tied to one agent. */
  agentId: string | null;
  plan: Plan;
  /** The workspace's version when the request began (platform/versions.ts), for reads cached per workspace. */
  workspaceVersion: string;
  /** The version of the workspace's agents' rows when the request began, for the agent read cached per process. */
  agentsVersion: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth;
  }
  interface FastifyContextConfig {
    /** The scope a route needs (spec 4.2); routes without one are public. */
    scope?: Scope;
    /** Recorded in the audit log when the request succeeds. */
    audit?: string;
    /** false for public routes every visitor of a customer's site loads (widget images): they are not counted. */
    rateLimited?: boolean;
  }
}

/** Scopes are not a ladder: manage may do everything, read and chat only their own routes. */
export function scopeAllows(keyScope: Scope, routeScope: Scope): boolean {
  return keyScope === 'manage' || keyScope === routeScope;
}

/** 403 forbidden when the key's scope does not cover what is asked (spec 5). */
export function requireScope(auth: Auth, needed: Scope): void {
  if (!scopeAllows(auth.scope, needed)) throw errors.forbidden(`A key with ${auth.scope} scope may not do this; it needs ${needed}.`);
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
    requireScope(auth, routeScope);
    request.auth = auth;
  };
}

/**
 * The key check every keyed surface shares (the REST API and the MCP server):
 * a request is counted against its key (or, without a usable one, its
 * address) with the limit headers set, then a missing, malformed or revoked
 * key is 401, a stopped workspace 403 and a plan without the API 402. The
 * scope is the caller's to check against what is asked.
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
  /** The principal of a counted request, or the refusal of its key, workspace or plan. */
  function admit(found: FoundKey | undefined): Auth {
    if (!found) throw errors.unauthorized();
    const { row, workspaceVersion, agentsVersion } = found;
    if (row.status === 'stopped') throw errors.workspaceStopped();
    const plan = planOf(row.plan);
    if (!plan.api) throw errors.apiNotInPlan();
    noteKeyUse(ctx, row.key_id);
    return {
      keyId: row.key_id,
      keyName: row.name,
      keyPrefix: row.prefix,
      workspaceId: row.workspace_id,
      scope: row.scope as Scope,
      agentId: row.agent_id,
      plan,
      workspaceVersion,
      agentsVersion,
    };
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

interface FoundKey {
  row: KeyWithWorkspace;
  limit: LimitResult;
  workspaceVersion: string;
  agentsVersion: string;
}

/**
 * Finds a usable key and counts the request against it. A key found before is
 * reused while the auth version is unchanged (see platform/versions.ts); the
 * version reads and the count go out together. Unknown keys are never cached,
 * so a new key works at once.
 */
function cachedKeyLookup(ctx: Context) {
  const cache = new VersionedCache<KeyWithWorkspace>();
  return async ({ fingerprint: keyFingerprint, host, cacheKey }: PresentedKey): Promise<FoundKey | undefined> => {
    const seen = cache.peek(cacheKey);
    let counted: LimitResult | undefined;
    if (seen) {
      const [[authVersion, workspaceVersion, agentsVersion], limit] = await Promise.all([
        ctx.versions.read([versionNames.auth, ...workspaceVersionNames(seen.workspace_id)]),
        ctx.limiter.hit(seen.key_id),
      ]);
      if (cache.current(cacheKey, authVersion!)) return { row: seen, limit, workspaceVersion: workspaceVersion!, agentsVersion: agentsVersion! };
      counted = limit;
    }
    const [authVersion] = await ctx.versions.read([versionNames.auth]);
    const row = await findKeyByFingerprint(ctx.db, keyFingerprint, host);
    const usable =
      row !== undefined &&
      equalInConstantTime(row.fingerprint, keyFingerprint) &&
      row.revoked_at === null &&
      (row.host_workspace_id === null || row.host_workspace_id === row.workspace_id);
    if (!usable) {
      cache.delete(cacheKey);
      return undefined;
    }
    cache.set(cacheKey, authVersion!, row);
    const [[workspaceVersion, agentsVersion], limit] = await Promise.all([
      ctx.versions.read(workspaceVersionNames(row.workspace_id)),
      counted && seen?.key_id === row.key_id ? counted : ctx.limiter.hit(row.key_id),
    ]);
    return { row, limit, workspaceVersion: workspaceVersion!, agentsVersion: agentsVersion! };
  };
}

/** The versions a request of the workspace may cache behind, read with authentication's own. */
function workspaceVersionNames(workspaceId: string): string[] {
  return [versionNames.workspace(workspaceId), versionNames.agents(workspaceId)];
}

/** A well-formed key as presented: its fingerprint and the hostname it was sent to. */
interface PresentedKey {
  fingerprint: string;
  host: string;
  /** Names the pair in the key cache. */
  cacheKey: string;
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
