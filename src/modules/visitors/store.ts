import type { Db } from '../../platform/db.ts';
import type { AgentRecord } from '../agents/store.ts';
import type { Conversation } from '../chat/store.ts';

export type VisitorEventType = 'opened' | 'lead_form_declined';
export type OpenedBy = 'launcher' | 'greeting' | 'nudge';

export interface VisitorEventRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  type: VisitorEventType;
  opened_by: OpenedBy | null;
  page_url: string | null;
  created_at: Date;
}

export interface IdentitySecretRow {
  agent_id: string;
  secret: string;
  created_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    visitor_events: VisitorEventRow;
    agent_identity_secrets: IdentitySecretRow;
  }
}

/** An agent by id alone: a visitor has no workspace of its own. */
export async function findAgentById(db: Db, agentId: string): Promise<AgentRecord | undefined> {
  return db.selectFrom('agents').selectAll().where('id', '=', agentId).executeTakeFirst();
}

export interface WorkspaceState {
  plan: string;
  status: string;
}

export async function findWorkspaceState(db: Db, workspaceId: string): Promise<WorkspaceState | undefined> {
  return db.selectFrom('workspaces').select(['plan', 'status']).where('id', '=', workspaceId).executeTakeFirst();
}

export async function findVisitorConversation(db: Db, agentId: string, conversationId: string): Promise<Conversation | undefined> {
  return db.selectFrom('conversations').selectAll().where('id', '=', conversationId).where('agent_id', '=', agentId).executeTakeFirst();
}

export async function insertVisitorEvent(db: Db, row: VisitorEventRow): Promise<void> {
  await db.insertInto('visitor_events').values(row).execute();
}

/** The agent's identity secret, made with `fresh` when it has none yet (two first reads at once agree on one). */
export async function identitySecretOf(db: Db, agentId: string, fresh: () => IdentitySecretRow): Promise<IdentitySecretRow> {
  const found = await db.selectFrom('agent_identity_secrets').selectAll().where('agent_id', '=', agentId).executeTakeFirst();
  if (found) return found;
  await db.insertInto('agent_identity_secrets').values(fresh()).onConflict((oc) => oc.column('agent_id').doNothing()).execute();
  return db.selectFrom('agent_identity_secrets').selectAll().where('agent_id', '=', agentId).executeTakeFirstOrThrow();
}

export async function findIdentitySecret(db: Db, agentId: string): Promise<string | undefined> {
  const row = await db.selectFrom('agent_identity_secrets').select('secret').where('agent_id', '=', agentId).executeTakeFirst();
  return row?.secret;
}

export async function replaceIdentitySecret(db: Db, row: IdentitySecretRow): Promise<void> {
  await db
    .insertInto('agent_identity_secrets')
    .values(row)
    .onConflict((oc) => oc.column('agent_id').doUpdateSet({ secret: row.secret, created_at: row.created_at }))
    .execute();
}
