import type { Context } from '../../context.ts';
import { ApiError, errors } from '../../domain/errors.ts';
import { fingerprint } from '../../platform/crypto.ts';
import { firstUse } from '../../platform/first-use.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import { memoryLimiter, redisLimiter, type LimitResult, type RateLimiter } from '../../platform/limiter.ts';
import { admitMailTo } from '../../platform/mail.ts';
import { recordAudit } from '../audit/store.ts';
import { getWorkspace } from '../workspace/store.ts';
import { workspaceVersionNames } from '../workspace/keys.ts';
import { planOf } from '../../domain/plans.ts';
import { inviteMail, signInMail } from './mails.ts';
import { actorOf, type PersonCaller, type Principal } from '../../domain/principal.ts';
import type { InvitationView, Me, PersonView, SessionView } from './schemas.ts';
import * as store from './store.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A link asked for by mail (docs/people.md). */
export const SIGN_IN_LINK_MS = 15 * MINUTE_MS;
/** A link the operator prints (first start, `parley admin sign-in-link`). */
export const OPERATOR_LINK_MS = DAY_MS;
export const INVITE_LINK_MS = 7 * DAY_MS;
/** A session unused this long ends; however used, it ends this long after sign-in. */
export const SESSION_IDLE_MS = 7 * DAY_MS;
export const SESSION_ABSOLUTE_MS = 30 * DAY_MS;
/** Last seen (and with it the idle expiry) is written at most this often, not on every request. */
const TOUCH_EVERY_MS = MINUTE_MS;

/**
 * Sign-in attempts a minute (docs/people.md, "Limits"): wrong passwords per
 * address and client address, wrong passwords per address from every client
 * together, and link requests and password attempts per client address. Link
 * mails to one address are bounded by the service's per-recipient count
 * (MAILS_PER_RECIPIENT_PER_HOUR).
 */
export const SIGN_IN_LIMITS = { failuresPerEmailAndClient: 5, failuresPerEmail: 50, perClient: 20 };

export const SIGN_IN_PATH = '/app/sign-in';

/** Fresh random secrets (285 bits), kept only as fingerprints. */
const newSecret = () => randomBase62(48);

export function signInUrl(ctx: Context, token: string): string {
  return `${ctx.config.publicUrl}${SIGN_IN_PATH}?token=${token}`;
}

/** The CSRF token of a session: derived from its secret, so it needs no storage and is worth nothing without the cookie. */
export function csrfTokenOf(sessionToken: string): string {
  return fingerprint(`csrf:${sessionToken}`);
}

// ---------------------------------------------------------------- owners

/**
 * Makes the person with this address the workspace's owner (the operator's
 * ownerEmail). The owner before stays, as an admin; null leaves the workspace
 * without an owner, its owner before kept as an admin.
 */
export async function setOwnerByEmail(ctx: Context, workspaceId: string, email: string | null): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const current = await store.ownerOf(trx, workspaceId);
    const person = email === null ? undefined : await store.personForEmail(trx, email, now);
    if (current && current.person_id === person?.id) return;
    if (current) await store.setRole(trx, workspaceId, current.person_id, 'admin', null);
    if (person) await store.putMembership(trx, { workspace_id: workspaceId, person_id: person.id, role: 'owner', agent_ids: null, created_at: now });
  });
}

// ---------------------------------------------------------------- links

interface NewLink {
  workspaceId: string;
  email: string;
  personId: string | null;
  purpose: store.LinkPurpose;
  lifetimeMs: number;
  role?: 'admin' | 'member';
  agentIds?: string[] | null;
}

async function createLink(ctx: Context, link: NewLink): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + link.lifetimeMs);
  await store.insertSignInLink(ctx.db, {
    id: newId('lnk'),
    fingerprint: fingerprint(token),
    email: link.email,
    person_id: link.personId,
    workspace_id: link.workspaceId,
    purpose: link.purpose,
    role: link.role ?? null,
    agent_ids: link.agentIds ?? null,
    created_at: now,
    expires_at: expiresAt,
    used_at: null,
  });
  return { token, expiresAt };
}

/**
 * The operator's sign-in link (first start and `parley admin sign-in-link`):
 * for the owner unless an address is given, which must be a person of the
 * workspace; valid 24 hours, single use.
 */
export async function operatorSignInLink(ctx: Context, workspaceId: string, email?: string) {
  const workspace = await getWorkspace(ctx.db, workspaceId);
  if (!workspace) throw new ApiError('not_found', `No workspace ${workspaceId}.`);
  const membership = email ? await membershipByEmail(ctx, workspaceId, email) : await store.ownerOf(ctx.db, workspaceId);
  if (!membership) {
    throw email
      ? errors.invalidField('email', `No person with that address belongs to workspace ${workspaceId}.`)
      : errors.invalidField('email', `Workspace ${workspaceId} has no owner: set its ownerEmail, or give an address.`);
  }
  const person = (await store.findPerson(ctx.db, membership.person_id))!;
  const link = await createLink(ctx, { workspaceId, email: person.email, personId: person.id, purpose: 'sign_in', lifetimeMs: OPERATOR_LINK_MS });
  return { url: signInUrl(ctx, link.token), email: person.email, expiresAt: link.expiresAt.toISOString() };
}

async function membershipByEmail(ctx: Context, workspaceId: string, email: string) {
  const person = await store.findPersonByEmail(ctx.db, email);
  return person && store.findMembership(ctx.db, workspaceId, person.id);
}

/**
 * A sign-in link by mail. The reply never depends on whether the address has an
 * account: the lookup and the mail happen after the reply is decided, and
 * their failures are only logged.
 */
export async function requestSignInLink(ctx: Context, email: string, clientAddress: string): Promise<void> {
  await countClient(ctx, clientAddress);
  // Counted for any address, account or not, so a refusal tells nothing either.
  if (!(await admitMailTo(ctx.db, email, ctx.clock.now()))) throw errors.rateLimited(secondsToNextHour(ctx.clock.now()));
  void mailSignInLink(ctx, email).catch((error: unknown) => console.error('[people] sign-in link mail failed:', error));
}

async function mailSignInLink(ctx: Context, email: string): Promise<void> {
  const person = await store.findPersonByEmail(ctx.db, email);
  const membership = person && (await store.firstMembershipOf(ctx.db, person.id));
  if (!person || !membership) return;
  const workspace = (await getWorkspace(ctx.db, membership.workspace_id))!;
  const link = await createLink(ctx, { workspaceId: workspace.id, email: person.email, personId: person.id, purpose: 'sign_in', lifetimeMs: SIGN_IN_LINK_MS });
  const mail = signInMail(languageOf(person), workspace.name, signInUrl(ctx, link.token));
  await ctx.mailer.send({ to: person.email, ...mail });
}

const linkRefused = () => errors.unauthorized('The sign-in link is unknown, expired or used already; ask for a new one.');

/**
 * Uses a link once: a sign-in link opens a session for its person; an
 * invitation makes the membership first (accepting it). Returns the new
 * session's secret.
 */
export async function signInWithLink(ctx: Context, token: string, userAgent: string): Promise<string> {
  if (!/^[0-9A-Za-z]{48}$/.test(token)) throw linkRefused();
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const link = await store.useSignInLink(trx, fingerprint(token), now);
    if (!link) throw linkRefused();
    const person = link.person_id ? await store.findPerson(trx, link.person_id) : await store.personForEmail(trx, link.email, now);
    if (!person) throw linkRefused();
    const membership = await store.findMembership(trx, link.workspace_id, person.id);
    if (link.purpose === 'invite' && !membership) {
      await store.putMembership(trx, { workspace_id: link.workspace_id, person_id: person.id, role: link.role!, agent_ids: link.agent_ids, created_at: now });
    } else if (!membership) {
      // Removed since the link was made.
      throw linkRefused();
    }
    return openSession(trx, ctx, person.id, link.workspace_id, userAgent);
  });
}

// ---------------------------------------------------------------- passwords

const PASSWORD_REFUSED = () => errors.unauthorized('The e-mail address or the password is wrong.');
/** argon2 (a native addon, about 3 MB resident) is loaded by the first password checked or set, not at start-up. */
const argon2 = firstUse(() => import('@node-rs/argon2'));
const argon2Hash = async (password: string): Promise<string> => (await argon2()).hash(password);
const argon2Verify = async (hash: string, password: string): Promise<boolean> => (await argon2()).verify(hash, password);
/** Verified against when the address has no password, so a refusal takes as long either way. */
let dummyHash: Promise<string> | undefined;

export async function signInWithPassword(ctx: Context, email: string, password: string, clientAddress: string, userAgent: string): Promise<string> {
  await countClient(ctx, clientAddress);
  const failures = await countPossibleFailure(ctx, email, clientAddress);
  const person = await store.findPersonByEmail(ctx.db, email);
  const hash = person?.password_hash ?? (await (dummyHash ??= argon2Hash('not a password of anyone')));
  const matches = await argon2Verify(hash, password).catch(() => false);
  if (!person?.password_hash || !matches) throw PASSWORD_REFUSED();
  await failures.release();
  const membership = await store.firstMembershipOf(ctx.db, person.id);
  if (!membership) throw PASSWORD_REFUSED();
  return openSession(ctx.db, ctx, person.id, membership.workspace_id, userAgent);
}

/** Sets or changes the caller's own password (changing one needs the current one); the caller's other sessions end. */
export async function setPassword(ctx: Context, caller: PersonCaller, input: { password: string; currentPassword?: string }): Promise<void> {
  const person = (await store.findPerson(ctx.db, caller.personId))!;
  if (person.password_hash) {
    const matches = input.currentPassword !== undefined && (await argon2Verify(person.password_hash, input.currentPassword).catch(() => false));
    if (!matches) throw errors.invalidField('currentPassword', 'The current password is missing or wrong.');
  }
  // argon2id (the library's default algorithm) with its default cost: 19 MiB, 2 passes (OWASP's minimum).
  const hash = await argon2Hash(input.password);
  // A new password is often set because the old one, or a device, was lost: the person's other sessions end with it.
  await ctx.db.transaction().execute(async (trx) => {
    await store.setPasswordHash(trx, caller.personId, hash, ctx.clock.now());
    await store.deleteOtherSessions(trx, caller.personId, caller.sessionId);
  });
  await audit(ctx, caller, 'person.password', caller.personId);
}

// ---------------------------------------------------------------- limits

type SignInLimiters = Record<keyof typeof SIGN_IN_LIMITS, RateLimiter>;
const limitersOf = new WeakMap<Context, SignInLimiters>();

function limiters(ctx: Context): SignInLimiters {
  let found = limitersOf.get(ctx);
  if (!found) {
    const make = (limit: number) => (ctx.redis ? redisLimiter(limit, ctx.clock, ctx.redis) : memoryLimiter(limit, ctx.clock));
    found = {
      failuresPerEmailAndClient: make(SIGN_IN_LIMITS.failuresPerEmailAndClient),
      failuresPerEmail: make(SIGN_IN_LIMITS.failuresPerEmail),
      perClient: make(SIGN_IN_LIMITS.perClient),
    };
    limitersOf.set(ctx, found);
  }
  return found;
}

function refusedFor(results: LimitResult[]): ApiError {
  return errors.rateLimited(Math.max(...results.map((result) => result.resetSeconds)));
}

/** Every link request and password attempt of one client address (a guess in a loop meets 429). */
export async function countClient(ctx: Context, clientAddress: string): Promise<void> {
  const result = await limiters(ctx).perClient.hit(`sign-in:client:${clientAddress}`);
  if (!result.allowed) throw refusedFor([result]);
}

/**
 * Counts a password attempt as a failure until it proves right (then given
 * back), so the buckets hold failures only. A client is stopped by its own
 * failures for this address; the wider bound on one address's failures from
 * every client stops only clients that have failed themselves, so nobody's
 * failures refuse the right password of a client that has not.
 */
async function countPossibleFailure(ctx: Context, email: string, clientAddress: string): Promise<{ release(): Promise<void> }> {
  const { failuresPerEmailAndClient, failuresPerEmail } = limiters(ctx);
  const emailKey = `sign-in:failures:${fingerprint(email.toLowerCase())}`;
  const pairKey = `${emailKey}:${clientAddress}`;
  const countedAt = ctx.clock.now();
  const [byPair, byEmail] = await Promise.all([failuresPerEmailAndClient.hit(pairKey), failuresPerEmail.hit(emailKey)]);
  const failedBefore = byPair.remaining < byPair.limit - 1;
  if (!byPair.allowed || (!byEmail.allowed && failedBefore)) throw refusedFor([byPair, byEmail].filter((result) => !result.allowed));
  return {
    release: () => Promise.all([failuresPerEmailAndClient.release(pairKey, countedAt), failuresPerEmail.release(emailKey, countedAt)]).then(() => undefined),
  };
}

function secondsToNextHour(now: Date): number {
  const hourMs = 60 * MINUTE_MS;
  return Math.max(1, Math.ceil((hourMs - (now.getTime() % hourMs)) / 1000));
}

// ---------------------------------------------------------------- sessions

export async function openSession(db: Context['db'], ctx: Context, personId: string, workspaceId: string, userAgent: string): Promise<string> {
  const token = newSecret();
  const now = ctx.clock.now();
  await store.insertSession(db, {
    id: newId('ses'),
    fingerprint: fingerprint(token),
    person_id: personId,
    workspace_id: workspaceId,
    created_at: now,
    last_seen_at: now,
    idle_expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    user_agent: userAgent.slice(0, 300),
  });
  return token;
}

/**
 * The caller behind a session secret, read from the database on every request
 * (so an ended session, a removed member or a changed role counts at once in
 * every process), or undefined. A stopped workspace is refused.
 */
export async function personOfSession(ctx: Context, token: string): Promise<PersonCaller | undefined> {
  const now = ctx.clock.now();
  const row = await store.findLiveSession(ctx.db, fingerprint(token), now);
  if (!row) return undefined;
  if (row.status === 'stopped') throw errors.workspaceStopped();
  if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) {
    await store.touchSession(ctx.db, row.session_id, now, new Date(Math.min(now.getTime() + SESSION_IDLE_MS, row.expires_at.getTime())));
  }
  const [workspaceVersion, agentsVersion] = await ctx.versions.read(workspaceVersionNames(row.workspace_id));
  return {
    kind: 'person',
    personId: row.person_id,
    email: row.email,
    name: row.name,
    language: languageOf(row),
    workspaceId: row.workspace_id,
    role: row.role as store.Role,
    agentIds: row.agent_ids,
    plan: planOf(row.plan),
    sessionId: row.session_id,
    workspaceVersion: workspaceVersion!,
    agentsVersion: agentsVersion!,
  };
}

export async function describeMe(ctx: Context, caller: PersonCaller, sessionToken: string): Promise<Me> {
  const workspace = (await getWorkspace(ctx.db, caller.workspaceId))!;
  const person = (await store.findPerson(ctx.db, caller.personId))!;
  const workspaces = await ctx.db
    .selectFrom('memberships as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['w.id', 'w.name', 'm.role'])
    .where('m.person_id', '=', caller.personId)
    .orderBy('m.created_at')
    .orderBy('w.id')
    .execute();
  return {
    workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role as store.Role })),
    person: { id: caller.personId, email: caller.email, name: caller.name, language: caller.language, hasPassword: person.password_hash !== null },
    workspace: { id: workspace.id, name: workspace.name, plan: workspace.plan },
    role: caller.role,
    agentIds: caller.agentIds,
    csrfToken: csrfTokenOf(sessionToken),
  };
}

/** The caller's own name and interface language (the language of the mails they are sent, such as sign-in links). */
export async function updateMe(ctx: Context, caller: PersonCaller, change: { name?: string; language?: 'en' | 'nl' }): Promise<void> {
  await ctx.db
    .updateTable('people')
    .set({ ...(change.name !== undefined && { name: change.name }), ...(change.language !== undefined && { language: change.language }), updated_at: ctx.clock.now() })
    .where('id', '=', caller.personId)
    .execute();
}

/** Moves the caller's session to another workspace they belong to; one they do not belong to is 404. */
export async function switchWorkspace(ctx: Context, caller: PersonCaller, workspaceId: string): Promise<void> {
  if (!(await store.findMembership(ctx.db, workspaceId, caller.personId))) throw errors.notFound('workspace');
  await ctx.db.updateTable('sessions').set({ workspace_id: workspaceId }).where('id', '=', caller.sessionId).execute();
}

export async function listOwnSessions(ctx: Context, caller: PersonCaller): Promise<SessionView[]> {
  const rows = await store.listSessions(ctx.db, caller.personId, ctx.clock.now());
  return rows.map((row) => ({
    id: row.id,
    workspaceId: row.workspace_id,
    userAgent: row.user_agent,
    createdAt: row.created_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    expiresAt: new Date(Math.min(row.idle_expires_at.getTime(), row.expires_at.getTime())).toISOString(),
    current: row.id === caller.sessionId,
  }));
}

export async function endOwnSession(ctx: Context, caller: PersonCaller, sessionId: string): Promise<void> {
  if (!(await store.deleteSession(ctx.db, caller.personId, sessionId))) throw errors.notFound('session');
}

// ---------------------------------------------------------------- people

export async function listPeople(ctx: Context, caller: PersonCaller): Promise<PersonView[]> {
  const rows = await ctx.db
    .selectFrom('memberships as m')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .select(['p.id', 'p.email', 'p.name', 'm.role', 'm.agent_ids', 'm.created_at'])
    .where('m.workspace_id', '=', caller.workspaceId)
    .orderBy('m.created_at')
    .orderBy('p.id')
    .execute();
  return rows.map((row) => ({ id: row.id, email: row.email, name: row.name, role: row.role as store.Role, agentIds: row.agent_ids, since: row.created_at.toISOString() }));
}

export interface Invitation {
  email: string;
  role: 'admin' | 'member';
  agentIds?: string[] | null;
}

/** An invitation by mail, valid 7 days; opening it and clicking accepts it (the membership is made then). */
export async function invite(ctx: Context, caller: PersonCaller, input: Invitation, requestId: string) {
  const agentIds = input.role === 'member' ? await checkedAgentIds(ctx, caller.workspaceId, input.agentIds ?? null) : null;
  const existing = await membershipByEmail(ctx, caller.workspaceId, input.email);
  if (existing) throw errors.invalidField('email', 'That person already belongs to this workspace.');
  const workspace = (await getWorkspace(ctx.db, caller.workspaceId))!;
  // Only the newest invitation to an address works: the role and agents of one before are not the inviter's last word.
  await store.voidInvitations(ctx.db, caller.workspaceId, input.email, ctx.clock.now());
  const link = await createLink(ctx, { workspaceId: caller.workspaceId, email: input.email, personId: null, purpose: 'invite', lifetimeMs: INVITE_LINK_MS, role: input.role, agentIds });
  const invitedBy = caller.name || caller.email;
  await ctx.mailer.send({ to: input.email, ...inviteMail(caller.language, workspace.name, invitedBy, signInUrl(ctx, link.token)) });
  await audit(ctx, caller, 'person.invite', input.email, requestId);
  return { email: input.email, role: input.role, agentIds, expiresAt: link.expiresAt.toISOString() };
}

/** The open invitations (only the newest to an address works; inviting again voids the one before). */
export async function listInvitations(ctx: Context, caller: PersonCaller): Promise<InvitationView[]> {
  const rows = await store.openInvitations(ctx.db, caller.workspaceId, ctx.clock.now());
  return rows.map((row) => ({ email: row.email, role: row.role as 'admin' | 'member', agentIds: row.agent_ids, createdAt: row.created_at.toISOString(), expiresAt: row.expires_at.toISOString() }));
}

/** Withdraws the unused invitations to an address: their links no longer work. None is 404. */
export async function withdrawInvitation(ctx: Context, caller: PersonCaller, email: string, requestId: string): Promise<void> {
  if ((await store.voidInvitations(ctx.db, caller.workspaceId, email, ctx.clock.now())) === 0) throw errors.notFound('invitation');
  await audit(ctx, caller, 'person.invite.withdraw', email, requestId);
}

async function checkedAgentIds(ctx: Context, workspaceId: string, agentIds: string[] | null): Promise<string[] | null> {
  if (agentIds === null) return null;
  const unique = [...new Set(agentIds)];
  if (unique.length === 0) return [];
  const found = await ctx.db.selectFrom('agents').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', unique).execute();
  if (found.length !== unique.length) throw errors.invalidField('agentIds', 'No agent with one of those ids in this workspace.');
  return unique;
}

async function otherMembership(ctx: Context, caller: PersonCaller, personId: string) {
  const membership = await store.findMembership(ctx.db, caller.workspaceId, personId);
  if (!membership) throw errors.notFound('person');
  return membership;
}

const ownerKeepsRole = () => errors.forbidden('The owner keeps their role until they hand ownership over.');
const ownerStays = () => errors.forbidden('The owner cannot be removed; ownership must be handed over first.');

/** Why a write guarded by `role <> 'owner'` changed nothing: the person left (404), or became the owner meanwhile (403). */
async function untouchedBecause(db: Context['db'], caller: PersonCaller, personId: string, forOwner: () => ApiError): Promise<ApiError> {
  return (await store.findMembership(db, caller.workspaceId, personId)) ? forOwner() : errors.notFound('person');
}

/** Changes a person's role (not the owner's: ownership is handed over instead); ends their sessions, so the new role holds at once. */
export async function changeRole(ctx: Context, caller: PersonCaller, personId: string, input: { role: 'admin' | 'member'; agentIds?: string[] | null }, requestId: string): Promise<PersonView> {
  const membership = await otherMembership(ctx, caller, personId);
  if (membership.role === 'owner') throw ownerKeepsRole();
  const agentIds = input.role === 'member' ? await checkedAgentIds(ctx, caller.workspaceId, input.agentIds ?? null) : null;
  if ((await store.setRoleUnlessOwner(ctx.db, caller.workspaceId, personId, input.role, agentIds)) === 0) {
    throw await untouchedBecause(ctx.db, caller, personId, ownerKeepsRole);
  }
  await audit(ctx, caller, 'person.role', personId, requestId);
  // Removed by someone else right after the change: there is no one left to show (was a 500 from the reply's schema).
  const changed = (await listPeople(ctx, caller)).find((person) => person.id === personId);
  if (!changed) throw errors.notFound('person');
  return changed;
}

/** Removes a person from the workspace; their sessions in it end at once. The owner cannot be removed. */
export async function removePerson(ctx: Context, caller: PersonCaller, personId: string, requestId: string): Promise<void> {
  const membership = await otherMembership(ctx, caller, personId);
  if (membership.role === 'owner') throw ownerStays();
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('memberships')
      .where('workspace_id', '=', caller.workspaceId)
      .where('person_id', '=', personId)
      .where('role', '<>', 'owner')
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw await untouchedBecause(trx, caller, personId, ownerStays);
    await store.deleteSessionsIn(trx, caller.workspaceId, personId);
    // An invitation still open would let the person back in.
    const person = (await store.findPerson(trx, personId))!;
    await store.voidInvitations(trx, caller.workspaceId, person.email, ctx.clock.now());
  });
  await audit(ctx, caller, 'person.remove', personId, requestId);
}

/**
 * The owner hands the workspace over to another of its people, and becomes an
 * admin; the workspace's owner address follows. Both rows are checked by the
 * writes themselves, so a person removed or an ownership moved meanwhile rolls
 * it all back.
 */
export async function handOver(ctx: Context, caller: PersonCaller, personId: string, requestId: string): Promise<void> {
  await otherMembership(ctx, caller, personId);
  if (personId === caller.personId) throw errors.invalidField('personId', 'You own this workspace already.');
  const person = (await store.findPerson(ctx.db, personId))!;
  await ctx.db.transaction().execute(async (trx) => {
    if ((await store.setRoleWhere(trx, caller.workspaceId, caller.personId, 'owner', 'admin', null)) === 0) {
      throw errors.forbidden('Only the owner may hand ownership over.');
    }
    if ((await store.setRoleUnlessOwner(trx, caller.workspaceId, personId, 'owner', null)) === 0) throw errors.notFound('person');
    await trx.updateTable('workspaces').set({ owner_email: person.email, updated_at: ctx.clock.now() }).where('id', '=', caller.workspaceId).execute();
  });
  await audit(ctx, caller, 'person.ownership', personId, requestId);
}

// ---------------------------------------------------------------- shared

function languageOf(row: { language: string }): 'en' | 'nl' {
  return row.language === 'nl' ? 'nl' : 'en';
}

/** A change names its caller in the audit log: the person (dashboard) or the key. */
export function audit(ctx: Context, caller: Principal, action: string, target: string | null, requestId: string | null = null) {
  return recordAudit(ctx.db, { workspaceId: caller.workspaceId, ...actorOf(caller), action, target, requestId, at: ctx.clock.now() });
}
