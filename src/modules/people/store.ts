import { sql } from 'kysely';
import type { Db } from '../../platform/db.ts';
import { newId } from '../../platform/ids.ts';

import type { Role } from '../../domain/principal.ts';
export type { Role };
export type PersonLanguage = 'en' | 'nl';
export type LinkPurpose = 'sign_in' | 'invite';

export interface PersonRow {
  id: string;
  email: string;
  name: string;
  language: string;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MembershipRow {
  workspace_id: string;
  person_id: string;
  role: string;
  agent_ids: string[] | null;
  created_at: Date;
}

export interface SessionRow {
  id: string;
  fingerprint: string;
  person_id: string;
  workspace_id: string;
  created_at: Date;
  last_seen_at: Date;
  idle_expires_at: Date;
  expires_at: Date;
  user_agent: string;
}

export interface SignInLinkRow {
  id: string;
  fingerprint: string;
  email: string;
  person_id: string | null;
  workspace_id: string;
  purpose: string;
  role: string | null;
  agent_ids: string[] | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

declare module '../../platform/db.ts' {
  interface Tables {
    people: PersonRow;
    memberships: MembershipRow;
    sessions: SessionRow;
    sign_in_links: SignInLinkRow;
  }
}

const jsonb = (value: string[] | null) => (value === null ? null : sql<string[]>`cast(${JSON.stringify(value)}::text as jsonb)`);

export async function findPersonByEmail(db: Db, email: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where(sql<string>`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

export async function findPerson(db: Db, id: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The person with that address, made now when there is none (two callers racing meet the unique index and share the row). */
export async function personForEmail(db: Db, email: string, at: Date): Promise<PersonRow> {
  const found = await findPersonByEmail(db, email);
  if (found) return found;
  await db
    .insertInto('people')
    .values({ id: newId('psn'), email, name: '', language: 'en', password_hash: null, created_at: at, updated_at: at })
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .execute();
  return (await findPersonByEmail(db, email))!;
}

export async function findMembership(db: Db, workspaceId: string, personId: string): Promise<MembershipRow | undefined> {
  return db.selectFrom('memberships').selectAll().where('workspace_id', '=', workspaceId).where('person_id', '=', personId).executeTakeFirst();
}

export async function ownerOf(db: Db, workspaceId: string): Promise<MembershipRow | undefined> {
  return db.selectFrom('memberships').selectAll().where('workspace_id', '=', workspaceId).where('role', '=', 'owner').executeTakeFirst();
}

export async function firstMembershipOf(db: Db, personId: string): Promise<MembershipRow | undefined> {
  return db.selectFrom('memberships').selectAll().where('person_id', '=', personId).orderBy('created_at').orderBy('workspace_id').limit(1).executeTakeFirst();
}

export async function putMembership(db: Db, row: MembershipRow): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ ...row, agent_ids: jsonb(row.agent_ids) })
    .onConflict((oc) => oc.columns(['workspace_id', 'person_id']).doUpdateSet({ role: row.role, agent_ids: jsonb(row.agent_ids) }))
    .execute();
}

export async function setRole(db: Db, workspaceId: string, personId: string, role: Role, agentIds: string[] | null): Promise<void> {
  await db.updateTable('memberships').set({ role, agent_ids: jsonb(agentIds) }).where('workspace_id', '=', workspaceId).where('person_id', '=', personId).execute();
}

/** Changes a role in one statement that never touches the owner's (also when ownership moves meanwhile); returns the rows changed. */
export async function setRoleUnlessOwner(db: Db, workspaceId: string, personId: string, role: Role, agentIds: string[] | null): Promise<number> {
  const result = await db
    .updateTable('memberships')
    .set({ role, agent_ids: jsonb(agentIds) })
    .where('workspace_id', '=', workspaceId)
    .where('person_id', '=', personId)
    .where('role', '<>', 'owner')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Moves a role from one membership to another when the first still holds it; returns the rows changed. */
export async function setRoleWhere(db: Db, workspaceId: string, personId: string, heldRole: Role, role: Role, agentIds: string[] | null): Promise<number> {
  const result = await db
    .updateTable('memberships')
    .set({ role, agent_ids: jsonb(agentIds) })
    .where('workspace_id', '=', workspaceId)
    .where('person_id', '=', personId)
    .where('role', '=', heldRole)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertSignInLink(db: Db, row: SignInLinkRow): Promise<void> {
  await db.insertInto('sign_in_links').values({ ...row, agent_ids: jsonb(row.agent_ids) }).execute();
}

/** Marks a usable link used and returns it; a link unknown, expired or used already gives nothing (single use, also under a race). */
export async function useSignInLink(db: Db, linkFingerprint: string, at: Date): Promise<SignInLinkRow | undefined> {
  return db
    .updateTable('sign_in_links')
    .set({ used_at: at })
    .where('fingerprint', '=', linkFingerprint)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .returningAll()
    .executeTakeFirst();
}

/** Marks the unused invitations of a workspace to an address used, so none of their links works any more; returns how many there were. */
export async function voidInvitations(db: Db, workspaceId: string, email: string, at: Date): Promise<number> {
  const result = await db
    .updateTable('sign_in_links')
    .set({ used_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('purpose', '=', 'invite')
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The workspace's invitations still open (unused, unexpired), newest first. */
export async function openInvitations(db: Db, workspaceId: string, at: Date) {
  return db
    .selectFrom('sign_in_links')
    .select(['email', 'role', 'agent_ids', 'created_at', 'expires_at'])
    .where('workspace_id', '=', workspaceId)
    .where('purpose', '=', 'invite')
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** What a request signed in with a cookie needs, in one round trip: the session, its person and their membership in the session's workspace. */
export interface SessionWithMembership {
  session_id: string;
  person_id: string;
  workspace_id: string;
  idle_expires_at: Date;
  expires_at: Date;
  last_seen_at: Date;
  email: string;
  name: string;
  language: string;
  role: string;
  agent_ids: string[] | null;
  plan: string;
  status: string;
}

export async function findLiveSession(db: Db, sessionFingerprint: string, at: Date): Promise<SessionWithMembership | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('people as p', 'p.id', 's.person_id')
    .innerJoin('memberships as m', (join) => join.onRef('m.person_id', '=', 's.person_id').onRef('m.workspace_id', '=', 's.workspace_id'))
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .select([
      's.id as session_id',
      's.person_id',
      's.workspace_id',
      's.idle_expires_at',
      's.expires_at',
      's.last_seen_at',
      'p.email',
      'p.name',
      'p.language',
      'm.role',
      'm.agent_ids',
      'w.plan',
      'w.status',
    ])
    .where('s.fingerprint', '=', sessionFingerprint)
    .where('s.idle_expires_at', '>', at)
    .where('s.expires_at', '>', at)
    .executeTakeFirst();
}

export async function touchSession(db: Db, sessionId: string, at: Date, idleExpiresAt: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at, idle_expires_at: idleExpiresAt }).where('id', '=', sessionId).execute();
}

export async function listSessions(db: Db, personId: string, at: Date): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('person_id', '=', personId)
    .where('idle_expires_at', '>', at)
    .where('expires_at', '>', at)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id')
    .execute();
}

export async function deleteSession(db: Db, personId: string, sessionId: string): Promise<boolean> {
  const rows = await db.deleteFrom('sessions').where('id', '=', sessionId).where('person_id', '=', personId).returning('id').execute();
  return rows.length > 0;
}

export async function deleteSessionsIn(db: Db, workspaceId: string, personId: string): Promise<void> {
  await db.deleteFrom('sessions').where('workspace_id', '=', workspaceId).where('person_id', '=', personId).execute();
}

/** Ends every session of a person, in every workspace, but the one given. */
export async function deleteOtherSessions(db: Db, personId: string, keptSessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('person_id', '=', personId).where('id', '<>', keptSessionId).execute();
}

export async function setPasswordHash(db: Db, personId: string, hash: string, at: Date): Promise<void> {
  await db.updateTable('people').set({ password_hash: hash, updated_at: at }).where('id', '=', personId).execute();
}
