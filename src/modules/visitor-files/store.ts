import { sql, type Selectable } from 'kysely';
import type { Db } from '../../platform/db.ts';
import { TEST_CHANNEL } from '../chat/store.ts';
import type { VisitorFileKind } from './read.ts';

export interface VisitorFileRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  conversation_id: string | null;
  visitor_token_fingerprint: string | null;
  file_name: string;
  kind: VisitorFileKind;
  media_type: string;
  size_bytes: number;
  pages: number | null;
  truncated: boolean;
  ocr_pages: number | null;
  text: string | null;
  bytes: Uint8Array | null;
  created_at: Date;
  drop_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    visitor_files: VisitorFileRow;
  }
}

/** A file as it is read back: everything but its bytes, and whether they are still stored. */
export type VisitorFile = Omit<Selectable<VisitorFileRow>, 'bytes'> & { stored: boolean };

const FIELDS = [
  'id',
  'workspace_id',
  'agent_id',
  'conversation_id',
  'visitor_token_fingerprint',
  'file_name',
  'kind',
  'media_type',
  'size_bytes',
  'pages',
  'truncated',
  'ocr_pages',
  'text',
  'created_at',
  'drop_at',
] as const;

function selectFiles(db: Db) {
  return db.selectFrom('visitor_files').select(FIELDS).select(sql<boolean>`bytes is not null`.as('stored'));
}

export async function insertVisitorFile(db: Db, file: VisitorFileRow): Promise<void> {
  // The bytes go in as base64 text decoded by the server: the embedded store takes a bytea
  // parameter at about 1 MB a second, base64 text six times faster (10 MB: 1.6 s instead of 10).
  const bytes = file.bytes === null ? null : sql<Uint8Array>`decode(${Buffer.from(file.bytes).toString('base64')}, 'base64')`;
  await db.insertInto('visitor_files').values({ ...file, bytes }).execute();
}

/** A file of the agent; without `includeTests`, a file in a test conversation is not there. */
export async function findVisitorFile(db: Db, agentId: string, fileId: string, includeTests: boolean): Promise<VisitorFile | undefined> {
  let query = selectFiles(db).where('id', '=', fileId).where('agent_id', '=', agentId);
  if (!includeTests) {
    query = query.where((eb) =>
      eb.not(eb.exists(eb.selectFrom('conversations').select('conversations.id').whereRef('conversations.id', '=', 'visitor_files.conversation_id').where('channel', '=', TEST_CHANNEL))),
    );
  }
  return query.executeTakeFirst();
}

export async function findVisitorFiles(db: Db, agentId: string, fileIds: string[]): Promise<VisitorFile[]> {
  if (fileIds.length === 0) return [];
  return selectFiles(db).where('agent_id', '=', agentId).where('id', 'in', fileIds).execute();
}

/** Ties files sent before their conversation to it; a file tied meanwhile to another stays with that one. */
export async function tieToConversation(db: Db, fileIds: string[], conversationId: string): Promise<void> {
  if (fileIds.length === 0) return;
  await db.updateTable('visitor_files').set({ conversation_id: conversationId }).where('id', 'in', fileIds).where('conversation_id', 'is', null).execute();
}

export async function deleteVisitorFile(db: Db, agentId: string, fileId: string): Promise<boolean> {
  const deleted = await db.deleteFrom('visitor_files').where('id', '=', fileId).where('agent_id', '=', agentId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/**
 * At the end of their 30 days files keep only their description: the text and the
 * bytes go. A file never attached to a conversation is deleted whole (nothing shows it).
 */
export async function dropDueFiles(db: Db, now: Date): Promise<{ dropped: number; deleted: number }> {
  const deleted = await db.deleteFrom('visitor_files').where('drop_at', '<=', now).where('conversation_id', 'is', null).executeTakeFirst();
  const dropped = await db
    .updateTable('visitor_files')
    .set({ text: null, bytes: null })
    .where('drop_at', '<=', now)
    .where((eb) => eb.or([eb('bytes', 'is not', null), eb('text', 'is not', null)]))
    .executeTakeFirst();
  return { dropped: Number(dropped.numUpdatedRows), deleted: Number(deleted.numDeletedRows) };
}
