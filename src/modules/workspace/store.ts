import { sql, type Generated } from 'kysely';
import type { Db } from '../../platform/db.ts';
import { utcMonth } from '../../platform/clock.ts';

export interface WorkspaceRow {
  id: string;
  name: string;
  plan: string;
  status: string;
  language: string;
  hostname: string | null;
  owner_email: string | null;
  purchased_credits: number;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  fingerprint: string;
  scope: string;
  agent_id: string | null;
  created_at: Date;
  revoked_at: Date | null;
  /** Written at most once a minute per key (./key-use.ts). */
  last_used_at: Generated<Date | null>;
}

declare module '../../platform/db.ts' {
  interface Tables {
    workspaces: WorkspaceRow;
    api_keys: ApiKeyRow;
    /** Whoever writes here bumps versionNames.workspace(id): GET /workspace caches usage behind that version. */
    credit_usage: { workspace_id: string; month: string; used: number; from_packs: Generated<number> };
    credit_packs: { id: string; workspace_id: string; credits: number; created_at: Date };
    settings: { name: string; value: string };
    outbox: { id: string; recipient: string; subject: string; body: string; created_at: Date };
    audit_log: {
      id: string;
      workspace_id: string;
      key_id: string | null;
      action: string;
      target: string | null;
      request_id: string | null;
      created_at: Date;
      /** 'mcp' for a change made through the MCP server (migration 017); null otherwise. */
      via: string | null;
      /** The person who made a change in the dashboard (migration 024); null otherwise. */
      person_id: Generated<string | null>;
    };
  }
}

/** What authentication needs, in one round trip: the key, its workspace, and whether the host belongs to a workspace. */
export interface KeyWithWorkspace {
  key_id: string;
  fingerprint: string;
  scope: string;
  agent_id: string | null;
  name: string;
  prefix: string;
  revoked_at: Date | null;
  workspace_id: string;
  plan: string;
  status: string;
  host_workspace_id: string | null;
}

export async function findKeyByFingerprint(db: Db, keyFingerprint: string, host: string): Promise<KeyWithWorkspace | undefined> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
    .select([
      'k.id as key_id',
      'k.fingerprint',
      'k.scope',
      'k.agent_id',
      'k.name',
      'k.prefix',
      'k.revoked_at',
      'w.id as workspace_id',
      'w.plan',
      'w.status',
      (eb) => eb.selectFrom('workspaces as h').select('h.id').where('h.hostname', '=', host).as('host_workspace_id'),
    ])
    .where('k.fingerprint', '=', keyFingerprint)
    .executeTakeFirst();
}

export async function getWorkspace(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first, limit + 1 rows from after the given position (see http/paging.ts). */
export async function listWorkspacesPage(db: Db, limit: number, after: { at: string; id: string } | undefined): Promise<WorkspaceRow[]> {
  let query = db.selectFrom('workspaces').selectAll();
  if (after) {
    const at = new Date(after.at);
    query = query.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', after.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

export interface WorkspaceUsage {
  agentCount: number;
  creditsUsed: number;
}

/** The workspace with its agents counted and this month's credits, in one round trip. */
export async function workspaceWithUsage(db: Db, workspaceId: string, now: Date): Promise<(WorkspaceRow & WorkspaceUsage) | undefined> {
  const result = await sql<WorkspaceRow & { agent_count: number; credits_used: number }>`
    select w.*,
      (select count(*) from agents where workspace_id = w.id)::int as agent_count,
      coalesce((select used from credit_usage where workspace_id = w.id and month = ${utcMonth(now)}), 0)::int as credits_used
    from workspaces w where w.id = ${workspaceId}`.execute(db);
  const row = result.rows[0];
  return row && { ...row, agentCount: row.agent_count, creditsUsed: row.credits_used };
}

export async function countLiveKeys(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
