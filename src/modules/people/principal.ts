import { errors } from '../../domain/errors.ts';
import type { Plan } from '../../domain/plans.ts';
import type { Role } from './store.ts';

/**
 * A signed-in person working in one workspace: the dashboard's caller, as a key
 * is the API's. Resolved once per request from the session cookie
 * (./session.ts) and handed to the verbs, which check the role themselves.
 */
export interface PersonCaller {
  kind: 'person';
  personId: string;
  email: string;
  name: string;
  language: 'en' | 'nl';
  workspaceId: string;
  role: Role;
  /** For a member limited to some agents: those; null is every agent. */
  agentIds: string[] | null;
  plan: Plan;
  sessionId: string;
}

const MAY_MANAGE_KEYS_AND_PEOPLE: readonly Role[] = ['owner', 'admin'];

/** Keys, people and webhooks are for owners and admins (docs/people.md, "Roles"). */
export function requireAdmin(caller: PersonCaller): void {
  if (!MAY_MANAGE_KEYS_AND_PEOPLE.includes(caller.role)) throw errors.forbidden(`A ${caller.role} may not do this; it needs an owner or admin.`);
}

export function requireOwner(caller: PersonCaller): void {
  if (caller.role !== 'owner') throw errors.forbidden('Only the owner of the workspace may do this.');
}

/** A member limited to some agents sees the others as missing, as a tied key does (404, not 403). */
export function requireAgent(caller: PersonCaller, agentId: string): void {
  if (caller.agentIds !== null && !caller.agentIds.includes(agentId)) throw errors.notFound('agent');
}
