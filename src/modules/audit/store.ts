import type { Db } from '../../platform/db.ts';
import { newId } from '../../platform/ids.ts';

export interface AuditEntry {
  workspaceId: string;
  keyId: string | null;
  /** Set for a change a signed-in person made in the dashboard (docs/people.md). */
  personId?: string | null;
  action: string;
  target: string | null;
  requestId: string | null;
  at: Date;
  /** Set for a change made through the MCP server; the REST API and the operator leave it out. */
  via?: 'mcp';
}

export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('aud'),
      workspace_id: entry.workspaceId,
      key_id: entry.keyId,
      action: entry.action,
      target: entry.target,
      request_id: entry.requestId,
      created_at: entry.at,
      via: entry.via ?? null,
      ...(entry.personId ? { person_id: entry.personId } : {}),
    })
    .execute();
}

export async function listAudit(db: Db, workspaceId: string, limit: number) {
  return db
    .selectFrom('audit_log')
    .select(['id', 'key_id', 'action', 'target', 'request_id', 'created_at', 'via', 'person_id'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
