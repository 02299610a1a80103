import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { ApiError, errors } from '../../domain/errors.ts';
import { commonErrors, errorBody, single } from '../../http/schemas.ts';
import { withoutBidiControls } from '../../domain/text.ts';
import { visitorTokenOf } from '../visitors/token.ts';
import { MAX_FILE_BYTES } from './read.ts';
import { sentFileSchema, visitorAgentParams, visitorFileParams, visitorFileSchema } from './schemas.ts';
import { deleteVisitorFile, getVisitorFile, requireFilesTaken, sendFile, type Upload } from './service.ts';

const tags = ['visitor files'];

/** The team's routes under /api/v1 (spec 4.9). */
export async function visitorFileRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/visitor-files/:fileId',
    {
      // Reading a visitor file hands out its text: recorded in the audit trail.
      config: { scope: 'read', audit: 'visitor_file.read' },
      schema: {
        tags,
        summary: 'A file a visitor sent, with the text the agent read',
        params: visitorFileParams,
        querystring: z.strictObject({}),
        response: { 200: single(visitorFileSchema), ...commonErrors },
      },
    },
    async (request) => ({ data: await getVisitorFile(ctx, request.auth, request.params.id, request.params.fileId) }),
  );

  app.delete(
    '/agents/:id/visitor-files/:fileId',
    {
      config: { scope: 'manage', audit: 'visitor_file.delete' },
      schema: {
        tags,
        summary: 'Erase a visitor file and its text (the conversation stays)',
        params: visitorFileParams,
        response: { 200: single(z.object({ id: z.string(), deleted: z.literal(true) })), ...commonErrors },
      },
    },
    async (request) => ({ data: await deleteVisitorFile(ctx, request.auth, request.params.id, request.params.fileId) }),
  );
}

/** The visitor's route under /visitor/v1 (operator contract, "Visitor API"); multipart is parsed only here. */
export async function fileVisitorRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  await parent.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 1, parts: 2, fieldNameSize: 100, fieldSize: 1000, headerPairs: 20 },
    });
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/agents/:agentId/files',
      {
        config: { visitorLimit: 'send' },
        schema: {
          tags: ['visitor'],
          summary: 'Send a file (multipart/form-data: file, conversationId?)',
          params: visitorAgentParams,
          response: { 201: single(sentFileSchema), 413: errorBody, 415: errorBody, ...commonErrors },
        },
      },
      async (request, reply) => {
        // Refused before the file is read from the request.
        requireFilesTaken(request.visitor);
        const sent = await sendFile(ctx, request.visitor, await readUpload(request), visitorTokenOf(request));
        return reply.status(201).send({ data: sent });
      },
    );
  });
}

/** The request's parts: `file` (required) and `conversationId`; anything else is an unknown field. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) {
    throw errors.invalidField('content-type', 'A file is sent as multipart/form-data, with the parts file and conversationId.');
  }
  let file: { fileName: string; bytes: Buffer } | undefined;
  let conversationId: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.fieldname === 'file') {
        if (part.type !== 'file') throw errors.invalidField('file', 'must be a file (a part with a filename)');
        file = { fileName: cleanFileName(part.filename), bytes: await part.toBuffer() };
      } else if (part.fieldname === 'conversationId') {
        if (part.type !== 'field') throw errors.invalidField('conversationId', 'must be text, not a file');
        conversationId = checkedConversationId(String(part.value));
      } else {
        throw errors.invalidField(printable(part.fieldname), 'unknown field');
      }
    }
  } catch (error) {
    throw uploadRefusal(error);
  }
  if (!file) throw errors.invalidField('file', 'required');
  return { ...file, conversationId };
}

function checkedConversationId(value: string): string {
  if (value === '' || value.length > 100 || !value.isWellFormed() || value.includes('\u0000')) {
    throw errors.invalidField('conversationId', 'An id of a conversation: 1 to 100 characters of text.');
  }
  return value;
}

const CONTROL = /[\u0000-\u001f\u007f]/g;

/** The name as the visitor's system had it, without a path (some browsers send one), at most 255 characters. */
function cleanFileName(raw: string | undefined): string {
  const name = withoutBidiControls(printable(raw ?? ''))
    .split(/[\\/]/)
    .pop()!
    .trim()
    .slice(0, 255);
  return name || 'file';
}

function printable(text: string): string {
  return text.toWellFormed().replace(CONTROL, '');
}

/** The multipart reader's refusals in the spec's terms. */
function uploadRefusal(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return errors.fileTooLarge(`A visitor's file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MB.`);
  if (code === 'FST_FILES_LIMIT') return errors.invalidField('file', 'Send one file at a time.');
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return errors.invalidField('body', 'The parts are file and conversationId, once each.');
  return errors.invalidField('body', 'The multipart/form-data body is malformed.');
}
