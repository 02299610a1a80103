/**
 * Visitor files (spec 2.8, 2.9, 4.9): a visitor sends a file in the chat, the agent
 * reads its text (text recognition for a scan) and answers with it; the team reads
 * and erases it over the API. docs/visitors.md ("Visitor files") tells the rules.
 */
import type { Context } from '../../context.ts';
import { seesTestConversations, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { equalInConstantTime, fingerprint } from '../../platform/crypto.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import { requireAgent } from '../agents/access.ts';
import type { QuestionFile } from '../chat/service.ts';
import { FileReaderBusyError } from '../../platform/file-reader.ts';
import { FileReadError } from '../knowledge/read-file.ts';
import { requireVisitorConversation, type Visitor } from '../visitors/access.ts';
import { detectVisitorFile, readVisitorFile, type ReadResult, type VisitorFileKind } from './read.ts';
import type { AttachmentView, VisitorFileView } from './schemas.ts';
import * as store from './store.ts';

/** How long a file and its text are kept (spec 8: visitor file text retention). */
export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface Upload {
  fileName: string;
  bytes: Buffer;
  conversationId?: string;
}

/**
 * Visitors may send files when the plan has visitor files and the agent takes them;
 * checked before the file is read from the request. A plan without them is refused
 * as PATCH /agents refuses switching attachmentsEnabled on there.
 */
export function requireFilesTaken(visitor: Visitor): void {
  if (!visitor.plan.visitorFiles) throw errors.invalidField('attachmentsEnabled', 'The plan does not let visitors send files (Studio and up).');
  if (!visitor.settings.attachmentsEnabled) throw errors.invalidField('attachmentsEnabled', 'This agent does not take files from visitors (attachmentsEnabled is off).');
}

/**
 * A file sent by a visitor, read at once (the reply tells what the agent could read).
 * In a conversation it needs that conversation's token; sent before one, it is bound to
 * the token sent with it, or to a new one in the reply, which the question it goes with
 * must carry.
 */
export async function sendFile(ctx: Context, visitor: Visitor, upload: Upload, token: string | undefined): Promise<AttachmentView & { visitorToken?: string }> {
  requireFilesTaken(visitor);
  const conversation = upload.conversationId === undefined ? null : await requireVisitorConversation(ctx, visitor, upload.conversationId, token);
  if (upload.bytes.length === 0) throw errors.invalidField('file', 'The file is empty.');
  const detected = await detectVisitorFile(upload.bytes);
  if (!detected) throw errors.unsupportedFileType('Send a PDF, a Word document (.docx), a text file or a picture (PNG, JPEG, WebP or GIF).');
  const read = await readOrRefuse(ctx, detected.kind, upload.bytes, visitor.settings.languages);
  // The same form as a conversation's token (visitors/service.ts).
  const newToken = conversation === null && token === undefined ? `vt_${randomBase62(43)}` : undefined;
  const now = ctx.clock.now();
  const row: store.VisitorFileRow = {
    id: newId('file'),
    workspace_id: visitor.workspaceId,
    agent_id: visitor.agent.id,
    conversation_id: conversation?.id ?? null,
    visitor_token_fingerprint: conversation === null ? fingerprint((token ?? newToken)!) : null,
    file_name: upload.fileName,
    kind: detected.kind,
    media_type: detected.mediaType,
    size_bytes: upload.bytes.length,
    pages: read.pages,
    truncated: read.truncated,
    ocr_pages: read.ocrPages,
    text: read.text,
    bytes: upload.bytes,
    created_at: now,
    drop_at: new Date(now.getTime() + RETENTION_DAYS * DAY_MS),
  };
  await store.insertVisitorFile(ctx.db, row);
  const attachment = attachmentView({ ...row, stored: true });
  return newToken === undefined ? attachment : { ...attachment, visitorToken: newToken };
}

/** Retry-After when every file reader is busy and enough files wait already. */
const BUSY_RETRY_SECONDS = 5;

async function readOrRefuse(ctx: Context, kind: VisitorFileKind, bytes: Uint8Array, languages: readonly string[]): Promise<ReadResult> {
  try {
    return await readVisitorFile(ctx, kind, bytes, languages);
  } catch (error) {
    if (error instanceof FileReaderBusyError) throw errors.rateLimited(BUSY_RETRY_SECONDS);
    if (!(error instanceof FileReadError)) throw error;
    if (error.failure === 'file_too_complex') throw errors.fileTooLarge('The file takes more memory or time to read than a visitor’s file may use.');
    // A reader ran: the refusal uses the files limit, not only the address's noise.
    throw errors.invalidField('file', 'The file could not be read: it is damaged or locked with a password.').afterWork();
  }
}

/**
 * The files a question names (POST /visitor/v1/agents/{id}/chat attachments): each
 * must be one the visitor sent in that conversation, or sent before it with the token
 * this request carries. Anything else is 404, as another visitor's conversation is.
 */
export async function filesForQuestion(
  ctx: Context,
  visitor: Visitor,
  fileIds: readonly string[],
  where: { conversationId?: string; token?: string },
): Promise<QuestionFile[]> {
  const wanted = [...new Set(fileIds)];
  if (wanted.length === 0) return [];
  requireFilesTaken(visitor);
  if (where.conversationId !== undefined) await requireVisitorConversation(ctx, visitor, where.conversationId, where.token);
  const found = new Map((await store.findVisitorFiles(ctx.db, visitor.agent.id, wanted)).map((file) => [file.id, file]));
  const tokenPrint = where.token === undefined ? undefined : fingerprint(where.token);
  return wanted.map((id) => {
    const file = found.get(id);
    const sentHere = file !== undefined && file.conversation_id !== null && file.conversation_id === where.conversationId;
    const sentBefore =
      file?.conversation_id === null && file.visitor_token_fingerprint !== null && tokenPrint !== undefined && equalInConstantTime(file.visitor_token_fingerprint, tokenPrint);
    if (!file || !(sentHere || sentBefore)) throw errors.notFound('file').beforeWork();
    return { attachment: attachmentView(file), text: pastItsDays(ctx, file) ? null : file.text };
  });
}

/** Files sent before their conversation belong to it once a question in it carried them. */
export async function tieFilesToConversation(ctx: Context, files: readonly QuestionFile[], conversationId: string): Promise<void> {
  await store.tieToConversation(
    ctx.db,
    files.map((file) => file.attachment.id),
    conversationId,
  );
}

// ---------------------------------------------------------------- the team's API

/** A visitor file with its text; a key tied to one agent does not see one sent in a test conversation. */
export async function getVisitorFile(ctx: Context, auth: Principal, agentId: string, fileId: string): Promise<VisitorFileView> {
  const agent = await requireAgent(ctx, auth, agentId);
  const file = await store.findVisitorFile(ctx.db, agent.id, fileId, seesTestConversations(auth));
  if (!file) throw errors.notFound('visitor file');
  return visitorFileView(ctx, file);
}

/** Erases the file and its text; the conversation and the question's mention of the file stay. */
export async function deleteVisitorFile(ctx: Context, auth: Principal, agentId: string, fileId: string): Promise<{ id: string; deleted: true }> {
  const agent = await requireAgent(ctx, auth, agentId);
  const file = await store.findVisitorFile(ctx.db, agent.id, fileId, seesTestConversations(auth));
  if (!file || !(await store.deleteVisitorFile(ctx.db, agent.id, file.id))) throw errors.notFound('visitor file');
  return { id: file.id, deleted: true };
}

function attachmentView(file: Omit<store.VisitorFile, 'text'>): AttachmentView {
  return {
    id: file.id,
    fileName: file.file_name,
    kind: file.kind,
    mediaType: file.media_type,
    sizeBytes: file.size_bytes,
    pages: file.pages,
    truncated: file.truncated,
    ocrPages: file.ocr_pages,
  };
}

/** Past its 30 days a file shows neither text nor stored file, also before the sweep has dropped them. */
function visitorFileView(ctx: Context, file: store.VisitorFile): VisitorFileView {
  const past = pastItsDays(ctx, file);
  return { ...attachmentView(file), conversationId: file.conversation_id, stored: file.stored && !past, text: past ? null : file.text };
}

function pastItsDays(ctx: Context, file: Pick<store.VisitorFile, 'drop_at'>): boolean {
  return ctx.clock.now().getTime() >= file.drop_at.getTime();
}

/** The sweep of the worker (jobs.ts). */
export async function dropDueFiles(ctx: Context): Promise<void> {
  await store.dropDueFiles(ctx.db, ctx.clock.now());
}
