import { sql, type GeneratedAlways, type Selectable } from 'kysely';
import type { Db } from '../../platform/db.ts';
import type { AgentSettings } from './settings.ts';

export type AgentStatus = 'active' | 'paused';

export interface AgentRow {
  id: string;
  workspace_id: string;
  status: AgentStatus;
  settings: AgentSettings;
  /** Copies of settings.name and settings.language kept by the database. */
  name: GeneratedAlways<string | null>;
  language: GeneratedAlways<string>;
  last_trained_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AgentImageRow {
  agent_id: string;
  kind: 'logo' | 'icon';
  media_type: string;
  bytes: Uint8Array;
  version: string;
  created_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    agents: AgentRow;
    agent_images: AgentImageRow;
  }
}

/**
 * jsonb goes in as text cast on the server: the two drivers encode a
 * parameter of an inferred jsonb type differently (one would store a string).
 */
function asJsonb(value: unknown) {
  return sql<AgentSettings>`cast(${JSON.stringify(value)}::text as jsonb)`;
}

export type NewAgentRow = Omit<AgentRow, 'name' | 'language'>;
export type AgentRecord = Selectable<AgentRow>;

export async function getAgentRow(db: Db, workspaceId: string, agentId: string): Promise<AgentRecord | undefined> {
  return db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', agentId).executeTakeFirst();
}

/** Oldest first (spec 4.1); a tied key passes its agent to see only that one. */
export async function listAgentRows(db: Db, workspaceId: string, onlyAgentIds: string[] | null): Promise<AgentRecord[]> {
  let query = db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId);
  if (onlyAgentIds !== null) {
    if (onlyAgentIds.length === 0) return [];
    query = query.where('id', 'in', onlyAgentIds);
  }
  return query.orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
}

/**
 * Counts and inserts under a lock on the workspace row, so two creates at the
 * same moment cannot both take the last free place of the plan.
 */
export async function insertAgentWithinLimit(
  db: Db,
  row: NewAgentRow,
  limit: number | null,
): Promise<AgentRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('workspaces').select('id').where('id', '=', row.workspace_id).forUpdate().execute();
    if (limit !== null) {
      const { n } = await trx
        .selectFrom('agents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', row.workspace_id)
        .executeTakeFirstOrThrow();
      if (Number(n) >= limit) return undefined;
    }
    return trx
      .insertInto('agents')
      .values({ ...row, settings: asJsonb(row.settings) })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function updateAgentSettings(db: Db, workspaceId: string, agentId: string, settings: AgentSettings, at: Date): Promise<AgentRecord | undefined> {
  return db
    .updateTable('agents')
    .set({ settings: asJsonb(settings), updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', agentId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The agent and everything it owns, in one transaction: other areas' tables
 * reference agents(id) on delete cascade. Keys tied to the agent are deleted
 * here by name too (the foreign key would do it) so the rule reads where it is applied.
 */
export async function deleteAgentRow(db: Db, workspaceId: string, agentId: string): Promise<{ deleted: boolean; keysDeleted: number }> {
  return db.transaction().execute(async (trx) => {
    const keys = await trx.deleteFrom('api_keys').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).returning('id').execute();
    const deleted = await trx.deleteFrom('agents').where('workspace_id', '=', workspaceId).where('id', '=', agentId).returning('id').executeTakeFirst();
    return { deleted: deleted !== undefined, keysDeleted: keys.length };
  });
}

/**
 * Keeps the oldest `limit` agents active and pauses the rest (null: all active).
 * Returns how many agents changed state.
 */
export async function applyAgentLimit(db: Db, workspaceId: string, limit: number | null, at: Date): Promise<number> {
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'status'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  const wanted = rows.map((row, index) => ({ id: row.id, from: row.status, to: (limit === null || index < limit ? 'active' : 'paused') as AgentStatus }));
  const changes = wanted.filter((w) => w.from !== w.to);
  for (const status of ['active', 'paused'] as const) {
    const ids = changes.filter((c) => c.to === status).map((c) => c.id);
    if (ids.length === 0) continue;
    await db.updateTable('agents').set({ status, updated_at: at }).where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
  }
  return changes.length;
}

export async function workspaceLanguage(db: Db, workspaceId: string): Promise<string> {
  const row = await db.selectFrom('workspaces').select('language').where('id', '=', workspaceId).executeTakeFirst();
  return row?.language ?? 'en';
}

// ---------------------------------------------------------------- images

export async function putImage(db: Db, image: AgentImageRow): Promise<void> {
  await db
    .insertInto('agent_images')
    .values(image)
    .onConflict((oc) =>
      oc.columns(['agent_id', 'kind']).doUpdateSet({ media_type: image.media_type, bytes: image.bytes, version: image.version, created_at: image.created_at }),
    )
    .execute();
}

export async function deleteImage(db: Db, agentId: string, kind: 'logo' | 'icon'): Promise<void> {
  await db.deleteFrom('agent_images').where('agent_id', '=', agentId).where('kind', '=', kind).execute();
}

/** Public serving: looked up by agent id alone, which is what the public address carries. */
export async function getImage(db: Db, agentId: string, kind: 'logo' | 'icon'): Promise<AgentImageRow | undefined> {
  return db.selectFrom('agent_images').selectAll().where('agent_id', '=', agentId).where('kind', '=', kind).executeTakeFirst();
}
