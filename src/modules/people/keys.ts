import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { endKey, issueKey, type NewKey } from '../workspace/keys.ts';
import type { CreatedKey, ListedKey } from './schemas.ts';
import { audit } from './service.ts';
import { requireRole, type PersonCaller } from '../../domain/principal.ts';

/**
 * API keys, made and revoked in the dashboard only (spec 1.5), by owners and
 * admins, with the operator's rules: Studio and up (402 api_not_in_plan), at
 * most 25 live keys (409 key_limit_reached), the key shown once.
 */
export async function createKeyAsPerson(ctx: Context, caller: PersonCaller, input: NewKey, requestId: string): Promise<CreatedKey> {
  requireRole(caller, 'admin');
  const created = await issueKey(ctx, caller.workspaceId, input);
  await audit(ctx, caller, 'key.create', created.id, requestId);
  return created;
}

export async function listKeysAsPerson(ctx: Context, caller: PersonCaller): Promise<ListedKey[]> {
  requireRole(caller, 'admin');
  const rows = await ctx.db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'scope', 'agent_id', 'created_at', 'last_used_at'])
    .where('workspace_id', '=', caller.workspaceId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope as NewKey['scope'],
    agentId: row.agent_id,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }));
}

/** Revoked at once in every process (the auth version moves with it). */
export async function revokeKeyAsPerson(ctx: Context, caller: PersonCaller, keyId: string, requestId: string) {
  requireRole(caller, 'admin');
  if (!(await endKey(ctx, caller.workspaceId, keyId))) throw errors.notFound('key');
  await audit(ctx, caller, 'key.revoke', keyId, requestId);
  return { id: keyId, revoked: true as const };
}
