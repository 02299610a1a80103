import type { Context } from '../../context.ts';
import { sql } from 'kysely';
import { equalInConstantTime, fingerprint, newApiKey } from '../../platform/crypto.ts';
import { newId } from '../../platform/ids.ts';
import type { LimitResult } from '../../platform/limiter.ts';
import { VersionedCache, versionNames } from '../../platform/versions.ts';
import { errors } from '../../domain/errors.ts';
import { planOf } from '../../domain/plans.ts';
import type { KeyCaller, Scope } from '../../domain/principal.ts';
import { countLiveKeys, findKeyByFingerprint, getWorkspace, type KeyWithWorkspace } from './store.ts';

/** A well-formed key as presented: its fingerprint and the hostname it was sent to. */
export interface PresentedKey {
  fingerprint: string;
  host: string;
  /** Names the pair in the key cache. */
  cacheKey: string;
}

/** A usable key, with the request counted against it. */
export interface FoundKey {
  row: KeyWithWorkspace;
  limit: LimitResult;
  workspaceVersion: string;
  agentsVersion: string;
}

/**
 * The principal of a counted request, or the refusal of its key, workspace or
 * plan: a missing, malformed or revoked key is 401, a stopped workspace 403 and
 * a plan without the API 402 api_not_in_plan (a key's own rule, spec 5.5: the
 * dashboard's people work on every plan).
 */
export function admitKey(found: FoundKey | undefined): KeyCaller {
  if (!found) throw errors.unauthorized();
  const { row, workspaceVersion, agentsVersion } = found;
  if (row.status === 'stopped') throw errors.workspaceStopped();
  const plan = planOf(row.plan);
  if (!plan.api) throw errors.apiNotInPlan();
  return {
    kind: 'key',
    keyId: row.key_id,
    keyName: row.name,
    keyPrefix: row.prefix,
    workspaceId: row.workspace_id,
    scope: row.scope as Scope,
    agentId: row.agent_id,
    agentIds: row.agent_id === null ? null : [row.agent_id],
    plan,
    workspaceVersion,
    agentsVersion,
  };
}

/**
 * Finds a usable key and counts the request against it. A key found before is
 * reused while the auth version is unchanged (see platform/versions.ts); the
 * version reads and the count go out together. Unknown keys are never cached,
 * so a new key works at once.
 */
export function cachedKeyLookup(ctx: Context) {
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
export function workspaceVersionNames(workspaceId: string): string[] {
  return [versionNames.workspace(workspaceId), versionNames.agents(workspaceId)];
}

// ---------------------------------------------------------------- issuing and revoking

/** Spec 5.4: at most 25 live keys per workspace. */
export const MAX_KEYS_PER_WORKSPACE = 25;

export interface NewKey {
  name: string;
  scope: 'read' | 'chat' | 'manage';
  agentId?: string;
}

/** The key rules shared by the operator and the dashboard (admin/service.ts, people/keys.ts); each records its own audit entry. */
export async function issueKey(ctx: Context, workspaceId: string, input: NewKey) {
  const workspace = await getWorkspace(ctx.db, workspaceId);
  if (!workspace) throw errors.notFound('workspace');
  if (!planOf(workspace.plan).api) throw errors.apiNotInPlan();
  if (input.agentId) {
    const agent = await sql`select 1 from agents where id = ${input.agentId} and workspace_id = ${workspaceId}`.execute(ctx.db);
    if (agent.rows.length === 0) throw errors.invalidField('agentId', 'No agent with that id in this workspace.');
  }
  const key = newApiKey();
  // Counted and inserted in one transaction holding the workspace's row: of two creations at once, the
  // second counts after the first's insert, so the 26th is refused however the requests interleave.
  const row = await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
    if ((await countLiveKeys(trx, workspaceId)) >= MAX_KEYS_PER_WORKSPACE) throw errors.keyLimitReached();
    return trx
      .insertInto('api_keys')
      .values({
        id: newId('key'),
        workspace_id: workspaceId,
        name: input.name,
        prefix: key.slice(0, 8),
        fingerprint: fingerprint(key),
        scope: input.scope,
        agent_id: input.agentId ?? null,
        created_at: ctx.clock.now(),
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { id: row.id, key, name: row.name, prefix: row.prefix, scope: input.scope, agentId: row.agent_id, createdAt: row.created_at.toISOString() };
}

/** Revokes a live key of the workspace, at once in every process (the auth version moves); false when there is none. */
export async function endKey(ctx: Context, workspaceId: string, keyId: string): Promise<boolean> {
  const row = await ctx.db
    .updateTable('api_keys')
    .set({ revoked_at: ctx.clock.now() })
    .where('id', '=', keyId)
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .returning(['id'])
    .executeTakeFirst();
  if (!row) return false;
  await ctx.versions.bump(versionNames.auth);
  return true;
}

