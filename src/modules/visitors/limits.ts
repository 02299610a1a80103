/**
 * The visitor API's rate limits (docs/visitors.md, "Limits"): nobody holds a key,
 * so requests are counted per visitor address, per agent and per network within
 * an agent, in fixed one-minute windows, with the same limiter as the API (in
 * Redis when REDIS_URL is set, so every API process shares the counts).
 *
 * - One address gets 30 answers a minute; all visitors of one agent together 600.
 * - One network (a /24 of IPv4, a /64 of IPv6) gets a fifth of the agent's
 *   figure, so the addresses of one network cannot take the agent's whole budget.
 * - Requests without an Origin (servers, scripts) have a bucket of their own per
 *   agent, lower than the browsers' one, so they never take what visitors need.
 * - A request refused before it did any work (invalid, or naming a conversation
 *   it does not hold) gives its counts back: noise does not use anyone's
 *   budget. Noise has its own bound per address instead.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Context } from '../../context.ts';
import { memoryLimiter, redisLimiter, type LimitResult, type RateLimiter } from '../../platform/limiter.ts';

/** chat: questions (they cost credits); send: what mails someone or reads a file (leads, tickets, files); light: the rest. */
export type VisitorLimitKind = 'chat' | 'send' | 'light';

export interface VisitorLimit {
  perAddress: number;
  /** All requests of the agent's visitors that carry an admitted Origin (browsers). */
  perAgent: number;
  /** The share of one network (/24, /64) of the agent's requests. */
  perNetwork: number;
  /** All requests of the agent without an Origin (servers and scripts). */
  withoutOrigin: number;
}

export const VISITOR_LIMITS: Record<VisitorLimitKind, VisitorLimit> = {
  chat: { perAddress: 30, perAgent: 600, perNetwork: 120, withoutOrigin: 60 },
  send: { perAddress: 10, perAgent: 300, perNetwork: 60, withoutOrigin: 30 },
  light: { perAddress: 120, perAgent: 6_000, perNetwork: 1_200, withoutOrigin: 600 },
};

/** Requests one address may have refused as invalid in a minute before it is refused altogether. */
export const NOISE_PER_ADDRESS = 60;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which visitor limit a /visitor/v1 route counts against; by default light for GET, send for other methods. */
    visitorLimit?: VisitorLimitKind;
  }
}

/** A request counted in one window, which can be given back while that window lasts. */
export interface Count {
  result: LimitResult;
  release(): Promise<void>;
}

export interface VisitorLimiters {
  /**
   * Counts a request of an address before the agent is known; the result is judged by the caller.
   * Undefined, with nothing counted, when the address sent too much noise in this window (by the shared count).
   */
  address(kind: VisitorLimitKind, address: string): Promise<Count | undefined>;
  /**
   * Counts a request against the agent: its network's share and the agent's
   * bucket (the browsers' one, or the one without Origin). The refusing count
   * when either is beyond its figure; a request its network's share refuses is
   * not counted against the agent.
   */
  agent(kind: VisitorLimitKind, agentId: string, address: string, withOrigin: boolean): Promise<Count[]>;
  /** Records a request refused as invalid; false once the address sends more noise than NOISE_PER_ADDRESS. */
  noise(address: string): Promise<boolean>;
}

/** One limiter per limit figure; `factor` multiplies every figure (load tests). */
export function visitorLimiters(ctx: Context, factor = 1): VisitorLimiters {
  const make = (limit: number): RateLimiter => (ctx.redis ? redisLimiter(limit * factor, ctx.clock, ctx.redis) : memoryLimiter(limit * factor, ctx.clock));
  const byKind = Object.fromEntries(
    Object.entries(VISITOR_LIMITS).map(([kind, limit]) => [
      kind,
      { address: make(limit.perAddress), agent: make(limit.perAgent), network: make(limit.perNetwork), withoutOrigin: make(limit.withoutOrigin) },
    ]),
  ) as Record<VisitorLimitKind, Record<'address' | 'agent' | 'network' | 'withoutOrigin', RateLimiter>>;
  const noiseLimiter = make(NOISE_PER_ADDRESS);
  const noiseOf = (address: string) => `visitor:noise:ip:${address}`;

  const count = async (limiter: RateLimiter, identity: string): Promise<Count> => {
    const countedAt = ctx.clock.now();
    const result = await limiter.hit(identity);
    return { result, release: () => limiter.release(identity, countedAt) };
  };

  const countUnlessNoisy = async (kind: VisitorLimitKind, address: string): Promise<Count | undefined> => {
    const limiter = byKind[kind].address;
    const identity = `visitor:${kind}:ip:${address}`;
    const countedAt = ctx.clock.now();
    const result = await limiter.hitUnless(identity, { limiter: noiseLimiter, identity: noiseOf(address), bound: NOISE_PER_ADDRESS * factor });
    return result && { result, release: () => limiter.release(identity, countedAt) };
  };

  return {
    address: countUnlessNoisy,
    agent: async (kind, agentId, address, withOrigin) => {
      const limiters = byKind[kind];
      const [network, agent] = await Promise.all([
        count(limiters.network, `visitor:${kind}:agent:${agentId}:net:${networkOf(address)}`),
        withOrigin ? count(limiters.agent, `visitor:${kind}:agent:${agentId}`) : count(limiters.withoutOrigin, `visitor:${kind}:agent:${agentId}:no-origin`),
      ]);
      if (!network.result.allowed) await agent.release();
      return [network, agent];
    },
    noise: async (address) => (await noiseLimiter.hit(noiseOf(address))).allowed,
  };
}

/**
 * The network an address belongs to: its /24 for IPv4 (an IPv4 address mapped
 * into IPv6 counts as IPv4), its /64 for IPv6, which is what one customer of a
 * provider is given.
 */
export function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const v4 = mapped ?? address;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros ("::" filled in, a zone dropped). */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const parts = (text: string) => (text === '' ? [] : text.split(':'));
  const left = parts(head);
  const right = tail === undefined ? [] : parts(tail);
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return groups.map((group) => (group.includes('.') ? group : (Number.parseInt(group, 16) || 0).toString(16)));
}
