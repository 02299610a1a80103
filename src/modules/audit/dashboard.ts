/** The audit log read in the dashboard (docs/people.md, "The audit log"), by owners and admins. */
import type { Context } from '../../context.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, pageOf } from '../../domain/paging.ts';
import { requireRole, type PersonCaller } from '../../domain/principal.ts';
import '../people/store.ts'; // declares the people table read below

export interface AuditFilter {
  personId?: string;
  keyId?: string;
  action?: string;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

/**
 * The workspace's audit entries, newest first, 50 a page (limit up to 100),
 * paged with a cursor as the API's lists are; each names who made the change: a
 * person (id, name, e-mail), a key (id, name, prefix; also once revoked) or the
 * operator.
 */
export async function listAuditAsPerson(ctx: Context, caller: PersonCaller, filter: AuditFilter) {
  requireRole(caller, 'admin');
  const limit = filter.limit ?? DEFAULT_PAGE_SIZE;
  const after = decodeCursor(filter.cursor);
  let query = ctx.db
    .selectFrom('audit_log as a')
    .leftJoin('people as p', 'p.id', 'a.person_id')
    .leftJoin('api_keys as k', 'k.id', 'a.key_id')
    .select([
      'a.id',
      'a.action',
      'a.target',
      'a.request_id',
      'a.created_at',
      'a.via',
      'a.person_id',
      'a.key_id',
      'p.name as person_name',
      'p.email as person_email',
      'k.name as key_name',
      'k.prefix as key_prefix',
    ])
    .where('a.workspace_id', '=', caller.workspaceId);
  if (filter.personId) query = query.where('a.person_id', '=', filter.personId);
  if (filter.keyId) query = query.where('a.key_id', '=', filter.keyId);
  if (filter.action) query = query.where('a.action', '=', filter.action);
  if (filter.from) query = query.where('a.created_at', '>=', new Date(filter.from));
  if (filter.to) query = query.where('a.created_at', '<', new Date(filter.to));
  if (after) {
    const at = new Date(after.at);
    query = query.where((eb) => eb.or([eb('a.created_at', '<', at), eb.and([eb('a.created_at', '=', at), eb('a.id', '<', after.id)])]));
  }
  const rows = await query.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(limit + 1).execute();
  const { items, nextCursor } = pageOf(rows, limit, (row) => ({ at: row.created_at.toISOString(), id: row.id }));
  return {
    items: items.map((row) => ({
      id: row.id,
      action: row.action,
      target: row.target,
      requestId: row.request_id,
      createdAt: row.created_at.toISOString(),
      via: row.via,
      by: row.person_id
        ? { kind: 'person' as const, id: row.person_id, name: row.person_name, email: row.person_email }
        : row.key_id
          ? { kind: 'key' as const, id: row.key_id, name: row.key_name, prefix: row.key_prefix }
          : { kind: 'operator' as const },
    })),
    nextCursor,
  };
}
