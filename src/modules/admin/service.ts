import type { Context } from '../../context.ts';
import { ApiError, errors } from '../../domain/errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf } from '../../domain/paging.ts';
import { equalInConstantTime, fingerprint, newAdminToken } from '../../platform/crypto.ts';
import { newId } from '../../platform/ids.ts';
import { isUniqueViolation } from '../../platform/db.ts';
import { versionNames } from '../../platform/versions.ts';
import { listAudit, recordAudit } from '../audit/store.ts';
import { getWorkspace, listWorkspacesPage, type WorkspaceRow } from '../workspace/store.ts';
import { planOf, type PlanId } from '../../domain/plans.ts';
import { afterPlanChange } from './plan-change.ts';
import { endKey, issueKey, type NewKey } from '../workspace/keys.ts';
import { setOwnerByEmail } from '../people/service.ts';

const ADMIN_TOKEN_SETTING = 'admin_token_fingerprint';

export function presentWorkspace(row: WorkspaceRow) {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as PlanId,
    status: row.status as 'active' | 'stopped',
    language: row.language,
    hostname: row.hostname,
    ownerEmail: row.owner_email,
    purchasedCredits: row.purchased_credits,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function verifyAdminToken(ctx: Context, presented: string | undefined): Promise<void> {
  if (!presented) throw errors.unauthorized('The operator token is missing or wrong.');
  const expected = ctx.config.adminToken
    ? fingerprint(ctx.config.adminToken)
    : (await ctx.db.selectFrom('settings').select('value').where('name', '=', ADMIN_TOKEN_SETTING).executeTakeFirst())?.value;
  if (!expected || !equalInConstantTime(expected, fingerprint(presented))) throw errors.unauthorized('The operator token is missing or wrong.');
}

/** Makes an operator token unless one exists; returns it only when it was made now. */
export async function ensureAdminToken(ctx: Context): Promise<string | undefined> {
  if (ctx.config.adminToken) return undefined;
  const token = newAdminToken();
  const inserted = await ctx.db
    .insertInto('settings')
    .values({ name: ADMIN_TOKEN_SETTING, value: fingerprint(token) })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  return inserted ? token : undefined;
}

export interface NewWorkspace {
  name: string;
  plan?: PlanId;
  ownerEmail?: string;
  language?: string;
  hostname?: string;
}

export async function createWorkspace(ctx: Context, input: NewWorkspace, requestId: string | null = null) {
  const now = ctx.clock.now();
  await assertHostnameFree(ctx, input.hostname);
  const row = await ctx.db
    .insertInto('workspaces')
    .values({
      id: newId('ws'),
      name: input.name,
      plan: input.plan ?? 'studio',
      status: 'active',
      language: input.language ?? 'en',
      hostname: input.hostname?.toLowerCase() ?? null,
      owner_email: input.ownerEmail ?? null,
      purchased_credits: 0,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
    .catch(hostnameTaken);
  if (row.owner_email) await setOwnerByEmail(ctx, row.id, row.owner_email);
  // Keys of other workspaces may be cached as usable on this hostname until now.
  if (row.hostname) await ctx.versions.bump(versionNames.auth);
  await audit(ctx, row.id, 'workspace.create', row.id, requestId);
  return presentWorkspace(row);
}

/** Every workspace, newest first, paged like the public API's lists. */
export async function listWorkspaces(ctx: Context, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listWorkspacesPage(ctx.db, limit, decodeCursor(query.cursor));
  const page = pageOf(rows, limit, (row) => ({ at: row.created_at.toISOString(), id: row.id }));
  return { items: page.items.map(presentWorkspace), nextCursor: page.nextCursor };
}

export async function readWorkspace(ctx: Context, id: string) {
  return presentWorkspace(await workspaceOrThrow(ctx, id));
}

export interface WorkspaceChange {
  name?: string;
  plan?: PlanId;
  status?: 'active' | 'stopped';
  hostname?: string | null;
  ownerEmail?: string | null;
}

export async function updateWorkspace(ctx: Context, id: string, change: WorkspaceChange, requestId: string | null = null) {
  const before = await workspaceOrThrow(ctx, id);
  if (change.hostname) await assertHostnameFree(ctx, change.hostname, id);
  const row = await ctx.db
    .updateTable('workspaces')
    .set({
      ...(change.name !== undefined && { name: change.name }),
      ...(change.plan !== undefined && { plan: change.plan }),
      ...(change.status !== undefined && { status: change.status }),
      ...(change.hostname !== undefined && { hostname: change.hostname?.toLowerCase() ?? null }),
      ...(change.ownerEmail !== undefined && { owner_email: change.ownerEmail }),
      updated_at: ctx.clock.now(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
    .catch(hostnameTaken);
  if (change.ownerEmail !== undefined) await setOwnerByEmail(ctx, id, change.ownerEmail);
  // Plan, status and hostname are part of what authentication caches; name and plan of what GET /workspace reports.
  await Promise.all([ctx.versions.bump(versionNames.auth), ctx.versions.bump(versionNames.workspace(id))]);
  if (row.plan !== before.plan) await afterPlanChange(ctx, id, planOf(row.plan));
  await audit(ctx, id, 'workspace.update', id, requestId);
  return presentWorkspace(row);
}

export async function addCreditPack(ctx: Context, id: string, credits: number, requestId: string | null = null) {
  await workspaceOrThrow(ctx, id);
  const packId = newId('chk');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('credit_packs').values({ id: packId, workspace_id: id, credits, created_at: ctx.clock.now() }).execute();
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ purchased_credits: eb('purchased_credits', '+', credits) }))
      .where('id', '=', id)
      .execute();
  });
  await ctx.versions.bump(versionNames.workspace(id));
  await audit(ctx, id, 'workspace.credit_pack', packId, requestId);
  return { id: packId, credits, workspace: await readWorkspace(ctx, id) };
}

/** Keys need Studio or above (spec 5.5), at most 25 live keys (5.4); the key is returned only here. */
export async function createKey(ctx: Context, workspaceId: string, input: NewKey, requestId: string | null = null) {
  await workspaceOrThrow(ctx, workspaceId);
  const created = await issueKey(ctx, workspaceId, input);
  await audit(ctx, workspaceId, 'key.create', created.id, requestId);
  return created;
}

/**
 * Every key of the workspace, live and revoked, oldest first: what tells them apart
 * (name, prefix, scope, agent) and their dates, never the key or its fingerprint.
 * A workspace holds at most 25 live keys; revoked ones stay listed with revokedAt.
 */
export async function listKeys(ctx: Context, workspaceId: string) {
  await workspaceOrThrow(ctx, workspaceId);
  const rows = await ctx.db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'scope', 'agent_id', 'created_at', 'revoked_at', 'last_used_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    agentId: row.agent_id,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }));
}

export async function revokeKey(ctx: Context, workspaceId: string, keyId: string, requestId: string | null = null) {
  if (!(await endKey(ctx, workspaceId, keyId))) throw operatorNotFound(`Workspace ${workspaceId} has no live key ${keyId} (unknown, revoked already, or another workspace's).`);
  await audit(ctx, workspaceId, 'key.revoke', keyId, requestId);
  return { id: keyId, revoked: true };
}

function auditActorKind(row: { key_id: string | null; person_id: string | null }): 'key' | 'person' | 'operator' {
  return row.key_id !== null ? 'key' : row.person_id !== null ? 'person' : 'operator';
}

export async function listAuditEntries(ctx: Context, workspaceId: string) {
  await workspaceOrThrow(ctx, workspaceId);
  const rows = await listAudit(ctx.db, workspaceId, 1000);
  // `by` says which kind of caller made the change: a key, a person in the dashboard, or the operator (neither).
  return rows.map((r) => ({ id: r.id, by: auditActorKind(r), keyId: r.key_id, personId: r.person_id, action: r.action, target: r.target, requestId: r.request_id, createdAt: r.created_at.toISOString() }));
}

export async function listOutbox(ctx: Context) {
  const rows = await ctx.db.selectFrom('outbox').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(500).execute();
  return rows.map((r) => ({ id: r.id, to: r.recipient, subject: r.subject, text: r.body, createdAt: r.created_at.toISOString() }));
}

async function workspaceOrThrow(ctx: Context, id: string): Promise<WorkspaceRow> {
  const row = await getWorkspace(ctx.db, id);
  if (!row) throw operatorNotFound(`No workspace ${id}.`);
  return row;
}

/** The operator sees everything, so the public API's "visible to this key" would mislead: say what is missing. */
function operatorNotFound(message: string): ApiError {
  return new ApiError('not_found', message);
}

/** The check above answers the usual case; two requests racing for one hostname meet the unique index. */
function hostnameTaken(error: unknown): never {
  throw isUniqueViolation(error) ? hostnameInUse() : error;
}

function hostnameInUse() {
  return errors.invalidField('hostname', 'Another workspace already has that hostname.');
}

async function assertHostnameFree(ctx: Context, hostname: string | undefined, exceptId?: string): Promise<void> {
  if (!hostname) return;
  const taken = await ctx.db.selectFrom('workspaces').select('id').where('hostname', '=', hostname.toLowerCase()).executeTakeFirst();
  if (taken && taken.id !== exceptId) throw hostnameInUse();
}

/** Operator actions are recorded too, without a key, with the operator request's id. */
function audit(ctx: Context, workspaceId: string, action: string, target: string, requestId: string | null) {
  return recordAudit(ctx.db, { workspaceId, keyId: null, action: `admin.${action}`, target, requestId, at: ctx.clock.now() });
}
