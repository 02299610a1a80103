/**
 * The visitor API's rate limits (docs/visitors.md, "Limits"): nobody holds a key,
 * so requests are counted per visitor address and per agent, in fixed one-minute
 * windows, with the same limiter as the API (in Redis when REDIS_URL is set, so
 * every API process shares the counts). A script that drains a workspace's
 * credits has to get past both: one address gets 30 answers a minute, and all
 * visitors of one agent together 600.
 */
import type { Context } from '../../context.ts';
import { memoryLimiter, redisLimiter, type LimitResult, type RateLimiter } from '../../platform/limiter.ts';

/** chat: questions (they cost credits); send: what mails someone or reads a file (leads, tickets, files); light: the rest. */
export type VisitorLimitKind = 'chat' | 'send' | 'light';

export interface VisitorLimit {
  perAddress: number;
  perAgent: number;
}

export const VISITOR_LIMITS: Record<VisitorLimitKind, VisitorLimit> = {
  chat: { perAddress: 30, perAgent: 600 },
  send: { perAddress: 10, perAgent: 300 },
  light: { perAddress: 120, perAgent: 6_000 },
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which visitor limit a /visitor/v1 route counts against; by default light for GET, send for other methods. */
    visitorLimit?: VisitorLimitKind;
  }
}

export interface VisitorLimiters {
  /** Counts a request of an address before the agent is known; the result is judged by the caller. */
  address(kind: VisitorLimitKind, address: string): Promise<LimitResult>;
  agent(kind: VisitorLimitKind, agentId: string): Promise<LimitResult>;
}

/** One limiter per limit figure; `factor` multiplies every figure (load tests). */
export function visitorLimiters(ctx: Context, factor = 1): VisitorLimiters {
  const make = (limit: number): RateLimiter => (ctx.redis ? redisLimiter(limit * factor, ctx.clock, ctx.redis) : memoryLimiter(limit * factor, ctx.clock));
  const byKind = Object.fromEntries(
    Object.entries(VISITOR_LIMITS).map(([kind, limit]) => [kind, { address: make(limit.perAddress), agent: make(limit.perAgent) }]),
  ) as Record<VisitorLimitKind, { address: RateLimiter; agent: RateLimiter }>;
  return {
    address: (kind, address) => byKind[kind].address.hit(`visitor:${kind}:ip:${address}`),
    agent: (kind, agentId) => byKind[kind].agent.hit(`visitor:${kind}:agent:${agentId}`),
  };
}
