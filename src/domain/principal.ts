import { errors } from './errors.ts';
import type { Plan } from './plans.ts';

/**
 * Who is calling: an API key or a signed-in person, resolved once per request
 * by the surface (src/http for keys, the people module for sessions) and handed
 * to the verbs, which check what they need with the functions below, the same
 * for both kinds (docs/architecture.md, "One principal"; docs/people.md, "Roles").
 */
export type Principal = KeyCaller | PersonCaller;

export type Scope = 'read' | 'chat' | 'manage';
export type Role = 'owner' | 'admin' | 'member';

interface CallerBase {
  /** Every query filters by it (tenancy). */
  workspaceId: string;
  plan: Plan;
  /**
   * The agents the caller is limited to: a tied key's one agent, a limited
   * member's list; null is every agent of the workspace. Another agent is
   * missing to the caller (404), not forbidden.
   */
  agentIds: string[] | null;
  /** The workspace's version when the request began (platform/versions.ts), for reads cached per workspace. */
  workspaceVersion: string;
  /** The version of the workspace's agents' rows when the request began, for the agent read cached per process. */
  agentsVersion: string;
}

/** An API key (spec 4.2). */
export interface KeyCaller extends CallerBase {
  kind: 'key';
  keyId: string;
  keyName: string;
  keyPrefix: string;
  scope: Scope;
  /** Set for a key tied to one agent (then agentIds is [agentId]). */
  agentId: string | null;
}

/** A person signed in to the dashboard, working in one workspace with a role. */
export interface PersonCaller extends CallerBase {
  kind: 'person';
  personId: string;
  email: string;
  name: string;
  language: 'en' | 'nl';
  role: Role;
  sessionId: string;
}

/** Scopes are not a ladder: manage may do everything, read and chat only their own routes. */
export function scopeAllows(keyScope: Scope, needed: Scope): boolean {
  return keyScope === 'manage' || keyScope === needed;
}

/**
 * What a route or verb needs: a scope (a key's right) and, for the areas a
 * member may not touch (keys, people, webhooks, changing a client's fees), the
 * admin role (a person's right). A key's right is its scope alone; a person's is
 * their role alone (every role covers read, chat and manage of the areas open to it).
 */
export interface Need {
  scope: Scope;
  role?: 'admin' | 'owner';
}

/** 403 forbidden unless the caller may do what is needed. */
export function requireAllowed(caller: Principal, need: Need): void {
  if (caller.kind === 'key') {
    if (!scopeAllows(caller.scope, need.scope)) throw errors.forbidden(`A key with ${caller.scope} scope may not do this; it needs ${need.scope}.`);
    return;
  }
  if (need.role) requireRole(caller, need.role);
}

/** A key's scope check (a person passes: their role is checked with requireRole). */
export function requireScope(caller: Principal, needed: Scope): void {
  requireAllowed(caller, { scope: needed });
}

/** A person's role check: owner and admin may do everything, a member not keys, people or webhooks. A key passes (its scope is its right). */
export function requireRole(caller: Principal, role: 'admin' | 'owner'): void {
  if (caller.kind !== 'person') return;
  if (role === 'owner' && caller.role !== 'owner') throw errors.forbidden('Only the owner of the workspace may do this.');
  if (role === 'admin' && caller.role === 'member') throw errors.forbidden('A member may not do this; it needs an owner or admin.');
}

/** The dashboard-only operations (spec 1.5): a key gets 403 forbidden. */
export function requirePerson(caller: Principal): asserts caller is PersonCaller {
  if (caller.kind !== 'person') throw errors.forbidden('API keys cannot do this: it is for people signed in to the dashboard.');
}

/** Whether the caller reaches the agent (its workspace is checked with the row). */
export function reachesAgent(caller: Principal, agentId: string): boolean {
  return caller.agentIds === null || caller.agentIds.includes(agentId);
}

/** A caller limited to some agents sees the others as missing (404 not_found, tied-key rule 1). */
export function requireAgentReach(caller: Principal, agentId: string): void {
  if (!reachesAgent(caller, agentId)) throw errors.notFound('agent');
}

/** Whether the caller is limited to some agents (a tied key, a limited member). */
export function isLimitedToAgents(caller: Principal): boolean {
  return caller.agentIds !== null;
}

/**
 * Test (playground) conversations are hidden from a key tied to one agent
 * (spec 5); every person sees them: the playground is the dashboard's, a
 * limited member's included.
 */
export function seesTestConversations(caller: Principal): boolean {
  return caller.kind === 'person' || caller.agentId === null;
}

/** Client fees (spec 2.12) are for a manage key, an owner and an admin. */
export function seesFees(caller: Principal): boolean {
  return caller.kind === 'key' ? caller.scope === 'manage' : caller.role !== 'member';
}

/** Who the audit log names (spec 1.3): the key or the person. */
export function actorOf(caller: Principal): { keyId: string | null; personId: string | null } {
  return caller.kind === 'key' ? { keyId: caller.keyId, personId: null } : { keyId: null, personId: caller.personId };
}
