/**
 * Who a visitor is (the keyless visitor API, docs/visitors.md): resolved once per
 * request by the /visitor/v1 scope for every route under /agents/:agentId, from
 * the agent named in the path, the Origin header and the caller's address.
 */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { unstorableTextReason } from '../../domain/text.ts';
import { equalInConstantTime, fingerprint } from '../../platform/crypto.ts';
import { VersionedCache, versionNames } from '../../platform/versions.ts';
import type { AgentRef } from '../agents/access.ts';
import type { AgentRecord } from '../agents/store.ts';
import type { Agent } from '../agents/schemas.ts';
import { presentKeptAgent } from '../agents/service.ts';
import type { Conversation } from '../chat/store.ts';
import { planOf, type Plan } from '../../domain/plans.ts';
import { findAgentById, findVisitorConversation, findWorkspaceState, type WorkspaceState } from './store.ts';

export { verifyIdentity } from './identity.ts';

export interface Visitor {
  workspaceId: string;
  /** The workspace's plan. */
  plan: Plan;
  /** The agent named in the path, active. */
  agent: AgentRef;
  /** The agent's settings with defaults (as loadAgent gives them). */
  settings: Agent;
  /** The Origin header when it was admitted; null for a request without one (server to server). */
  origin: string | null;
  /** The visitor's IP address (request.ip). */
  address: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    visitor: Visitor;
  }
}

const MAX_AGENT_ID_LENGTH = 100;

/** An agent as a visitor reaches it, before the checks of its state. */
export interface VisitorTarget {
  visitor: Visitor;
  workspaceStopped: boolean;
}

/**
 * The agent named in the path with its workspace, and whether the Origin is
 * admitted: 404 not_found for an agent that does not exist, 403 forbidden for an
 * origin outside its allowedOrigins. Its state (paused, stopped) is judged apart,
 * so that a refusal of it can still carry the CORS headers a browser needs to read it.
 */
export async function findVisitorTarget(ctx: Context, agentId: string, origin: string | undefined, address: string): Promise<VisitorTarget> {
  // The path is read here before its schema is checked: an id no agent can have is not looked up.
  if (agentId.length > MAX_AGENT_ID_LENGTH || unstorableTextReason(agentId) !== undefined) throw errors.notFound('agent');
  const { row, workspace } = await agentAndWorkspaceOf(ctx, agentId);
  if (!row || !workspace) throw errors.notFound('agent');
  const settings = presentKeptAgent(ctx, row);
  if (origin !== undefined && !originAdmitted(settings.allowedOrigins, origin)) {
    throw errors.forbidden('This site may not use the agent: its address is not among the agent’s allowedOrigins.');
  }
  return {
    visitor: {
      workspaceId: row.workspace_id,
      plan: planOf(workspace.plan),
      agent: { id: row.id, workspaceId: row.workspace_id, status: row.status },
      settings,
      origin: origin ?? null,
      address,
    },
    workspaceStopped: workspace.status === 'stopped',
  };
}

const agentCaches = new WeakMap<Context, VersionedCache<AgentRecord>>();
const workspaceCaches = new WeakMap<Context, VersionedCache<WorkspaceState>>();
/** The stamp of a row kept only for the workspace it names: no version has it, so it is never current. */
const WORKSPACE_HINT_ONLY = '';

function cacheOf<T>(caches: WeakMap<Context, VersionedCache<T>>, ctx: Context): VersionedCache<T> {
  return caches.get(ctx) ?? caches.set(ctx, new VersionedCache<T>()).get(ctx)!;
}

/**
 * The agent's row and its workspace's plan and state, kept per process while the
 * workspace's agents version (bumped by every write to an agents row) and the auth
 * version (bumped when a workspace changes plan or stops) are unchanged: both are read
 * in one call before the rows, so a write between the two reads makes the next request
 * read again. The first request for an agent learns its workspace from the row, which
 * is kept as a hint only (an agent never changes workspace).
 */
async function agentAndWorkspaceOf(ctx: Context, agentId: string): Promise<{ row?: AgentRecord; workspace?: WorkspaceState }> {
  const agents = cacheOf(agentCaches, ctx);
  const hint = agents.peek(agentId);
  if (!hint) {
    const row = await findAgentById(ctx.db, agentId);
    if (!row) return {};
    agents.set(agentId, WORKSPACE_HINT_ONLY, row);
    const [authStamp] = await ctx.versions.read([versionNames.auth]);
    return { row, workspace: await workspaceStateOf(ctx, row.workspace_id, authStamp!) };
  }
  const [authStamp, agentsStamp] = await ctx.versions.read([versionNames.auth, versionNames.agents(hint.workspace_id)]);
  let row = agents.current(agentId, agentsStamp!);
  if (!row) {
    row = await findAgentById(ctx.db, agentId);
    if (!row) {
      agents.delete(agentId);
      return {};
    }
    agents.set(agentId, agentsStamp!, row);
  }
  return { row, workspace: await workspaceStateOf(ctx, row.workspace_id, authStamp!) };
}

/** The workspace's plan and state, kept per process while the auth version is unchanged. */
async function workspaceStateOf(ctx: Context, workspaceId: string, authStamp: string): Promise<WorkspaceState | undefined> {
  const cache = cacheOf(workspaceCaches, ctx);
  const known = cache.current(workspaceId, authStamp);
  if (known) return known;
  const state = await findWorkspaceState(ctx.db, workspaceId);
  if (state) cache.set(workspaceId, authStamp, state);
  return state;
}

/** A stopped workspace answers 403 workspace_stopped and a paused agent 402 agent_paused, as the API does. */
export function requireAnswering(target: VisitorTarget): Visitor {
  if (target.workspaceStopped) throw errors.workspaceStopped();
  if (target.visitor.agent.status === 'paused') throw errors.agentPaused();
  return target.visitor;
}

/**
 * Whether a site may call the agent (spec 4.5 rule 4): an empty list admits
 * every site; an entry is one origin, or `scheme://*.domain` for the subdomains
 * of domain (not domain itself). Default ports are the same as none.
 */
export function originAdmitted(allowedOrigins: readonly string[], origin: string): boolean {
  if (allowedOrigins.length === 0) return true;
  const site = parseOrigin(origin);
  if (!site) return false;
  return allowedOrigins.some((entry) => {
    const allowed = parseOrigin(entry.replace('://*.', '://'));
    if (!allowed || allowed.scheme !== site.scheme || allowed.port !== site.port) return false;
    return entry.includes('://*.') ? site.host.endsWith(`.${allowed.host}`) : site.host === allowed.host;
  });
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

function parseOrigin(text: string): { scheme: string; host: string; port: string } | undefined {
  const match = /^(https?):\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?\/?$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const [, scheme, host, port] = match;
  // Every label of a name is there: ".example.com" and "shop..example.com" are no host of a subdomain.
  if (!host!.startsWith('[') && host!.split('.').some((label) => label === '')) return undefined;
  return { scheme: scheme!, host: host!, port: port ?? DEFAULT_PORTS[scheme!]! };
}

/**
 * The conversation a visitor names, when the x-visitor-token header is its
 * token; anything else 404 not_found, refused before any work (it uses no budget).
 */
export async function requireVisitorConversation(ctx: Context, visitor: Visitor, conversationId: string, token: string | undefined): Promise<Conversation> {
  if (!token) throw errors.notFound('conversation').beforeWork();
  const conversation = await findVisitorConversation(ctx.db, visitor.agent.id, conversationId);
  if (!conversation?.visitor_token_fingerprint || !equalInConstantTime(conversation.visitor_token_fingerprint, fingerprint(token))) {
    throw errors.notFound('conversation').beforeWork();
  }
  return conversation;
}
