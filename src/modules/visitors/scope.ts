/**
 * The /visitor/v1 scope (docs/visitors.md): no key. Every route under
 * /agents/:agentId gets request.visitor from one hook, which counts the request
 * per address, finds the agent, admits the Origin (and then answers CORS for
 * it), refuses a stopped workspace and a paused agent, and counts the request
 * against the agent and its network (limits.ts). A request refused before it
 * did any work gives its counts back before its reply is sent (another hook).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { notFound } from '../../http/error-handler.ts';
import { errors } from '../../domain/errors.ts';
import type { LimitResult } from '../../platform/limiter.ts';
import { findVisitorTarget, requireAnswering, type VisitorTarget } from './access.ts';
import { visitorModules } from './index.ts';
import { visitorLimiters, type Count, type VisitorLimiters, type VisitorLimitKind } from './limits.ts';
import { PROOF_HEADER } from './proof-of-work.ts';
import { VISITOR_TOKEN_HEADER } from './token.ts';

export const VISITOR_PREFIX = '/visitor/v1';
const AGENT_ROUTE = `${VISITOR_PREFIX}/agents/:agentId`;

const ALLOWED_METHODS = 'GET, POST, DELETE';
const ALLOWED_HEADERS = `content-type, ${VISITOR_TOKEN_HEADER}, ${PROOF_HEADER}`;
const EXPOSED_HEADERS = [VISITOR_TOKEN_HEADER, 'x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].join(', ');
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Registered by app.ts with the prefix /visitor/v1. */
export async function visitorScope(parent: FastifyInstance, ctx: Context): Promise<void> {
  const scope = parent.withTypeProvider<ZodTypeProvider>();
  // The OpenAPI document describes the keyed API at /api/v1; docs/visitors.md describes this one.
  scope.addHook('onRoute', (route) => void (route.schema = { ...route.schema, hide: true }));
  const limiters = visitorLimiters(ctx, ctx.config.visitorLimitFactor);
  scope.addHook('onRequest', admitVisitor(ctx, limiters));
  scope.addHook('onSend', releaseNoise(limiters));
  scope.setNotFoundHandler(notFound);

  const preflight = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .send();
  scope.options('/agents/:agentId', { schema: { params: z.strictObject({ agentId: z.string().max(100) }) } }, preflight);
  scope.options('/agents/:agentId/*', { schema: { params: z.strictObject({ agentId: z.string().max(100), '*': z.string() }) } }, preflight);

  for (const register of visitorModules) await register(scope, ctx);
}

function admitVisitor(ctx: Context, limiters: VisitorLimiters) {
  return async function admitVisitorRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const kind = limitKindOf(request);
    if (request.routeOptions.url?.startsWith(AGENT_ROUTE) !== true) {
      // An unknown path is counted against the address like any other request.
      refuseBeyond(reply, kept(request, [admittedCount(ctx, await limiters.address(kind, request.ip))])[0]!);
      return;
    }
    const { agentId } = request.params as { agentId: string };
    // The service's own pages (the iframe page, docs/widget.md) call it from its own origin: admitted whatever the list says.
    const own = fromOwnOrigin(ctx, request);
    const origin = own ? undefined : request.headers.origin;
    // The count (with the address's noise check) and the agent's lookup go out together; a refused
    // count still looks up the agent, so that the 429 carries the CORS headers a page needs to read it.
    const [counted, found] = await Promise.all([
      limiters.address(kind, request.ip),
      findVisitorTarget(ctx, agentId, origin, request.ip).then(
        (target): { target: VisitorTarget } => ({ target }),
        (error: unknown) => ({ error }),
      ),
    ]);
    // Too much noise is refused before anything else, with no CORS header, as if the agent were unknown.
    const byAddress = kept(request, [admittedCount(ctx, counted)])[0]!;
    reply.header('vary', 'Origin');
    if ('error' in found) {
      refuseBeyond(reply, byAddress);
      throw found.error;
    }
    if (origin !== undefined) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    }
    refuseBeyond(reply, byAddress);
    // A preflight is answered for any agent that exists: the request it precedes gets the refusal in a form the page can read.
    const visitor = request.method === 'OPTIONS' ? found.target.visitor : requireAnswering(found.target);
    const withOrigin = own || origin !== undefined;
    for (const byAgent of kept(request, await limiters.agent(kind, visitor.agent.id, request.ip, withOrigin))) {
      if (!byAgent.allowed) throw errors.rateLimited(byAgent.resetSeconds);
    }
    request.visitor = visitor;
  };
}

/** The address's count; an address that sent too much noise this minute is refused (429) with nothing counted. */
function admittedCount(ctx: Context, count: Count | undefined): Count {
  if (!count) throw errors.rateLimited(secondsToNextMinute(ctx));
  return count;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What the visitor scope counted for this request, given back when the request is refused before any work. */
    visitorCounts?: Count[];
  }
}

/** Keeps the request's counts, to be given back if it turns out to be noise. */
function kept(request: FastifyRequest, counts: Count[]): LimitResult[] {
  (request.visitorCounts ??= []).push(...counts);
  return counts.map((c) => c.result);
}

/**
 * A request refused before it did any work, as its error says (an invalid
 * request: an empty message, a bad lead; a conversation the visitor does not
 * hold): its counts are given back before the reply leaves, so a flood of them
 * from many addresses never holds up real visitors; it counts as the address's
 * noise. A refusal after work (a damaged file, read by a reader) keeps them.
 */
function releaseNoise(limiters: VisitorLimiters) {
  return async function releaseNoiseCounts(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const counts = request.visitorCounts;
    if (request.refusal?.refusedBeforeWork !== true || !counts) return;
    request.visitorCounts = undefined;
    await Promise.all([...counts.map((c) => c.release()), limiters.noise(request.ip)]);
  };
}

function secondsToNextMinute(ctx: Context): number {
  return Math.max(1, Math.ceil((60_000 - (ctx.clock.now().getTime() % 60_000)) / 1000));
}

/**
 * The service's own origin is the one of PARLEY_PUBLIC_URL, never the request's
 * Host header: a page on another name that points at the service (DNS
 * rebinding) sends an Origin equal to its Host, and is a site like any other.
 */
function fromOwnOrigin(ctx: Context, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).origin === new URL(ctx.config.publicUrl).origin;
  } catch {
    return false;
  }
}

/** By the route's config; otherwise reads (and preflights) are light and every other method sends something. */
function limitKindOf(request: FastifyRequest): VisitorLimitKind {
  const configured = request.routeOptions.config?.visitorLimit;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' ? 'light' : 'send';
}

/** The address's limit in the reply headers, as on the API; 429 rate_limited with Retry-After beyond it. */
function refuseBeyond(reply: FastifyReply, result: LimitResult): void {
  reply.header('x-ratelimit-limit', String(result.limit));
  reply.header('x-ratelimit-remaining', String(result.remaining));
  reply.header('x-ratelimit-reset', String(result.resetSeconds));
  if (!result.allowed) throw errors.rateLimited(result.resetSeconds);
}
