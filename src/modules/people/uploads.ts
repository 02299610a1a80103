/**
 * The dashboard's uploads (spec 1.5, docs/people.md "Uploading files"): file sources
 * from the computer and branding images. Multipart is parsed only in this scope. A
 * file is streamed to a private directory under the data directory and counted on its way: a part over
 * its limit is refused while it arrives, never buffered whole first.
 */
import multipart, { type MultipartFile } from '@fastify/multipart';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { ApiError, errors } from '../../domain/errors.ts';
import { withoutBidiControls } from '../../domain/text.ts';
import { sourceView } from '../knowledge/routes.ts';
import { addUploadedFiles, type ReceivedFile } from '../knowledge/service.ts';
import { cropImageAsPerson, MAX_UPLOADED_IMAGE_BYTES, uploadImageAsPerson, type CropRectangle } from '../agents/branding-dashboard.ts';
import { agentOfPerson } from './agents.ts';
import { agentParams, brandedAgentReply, cropBody, imageParams, uploadedSourcesReply } from './schemas.ts';
import { audit } from './service.ts';

const LEFTOVER_AFTER_MS = 6 * 60 * 60_000;

/** At most this many files in one upload request. */
export const MAX_FILES_PER_UPLOAD = 20;


export async function uploadRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  await parent.register(async (scope) => {
    await scope.register(multipart, { limits: { fieldNameSize: 100, fieldSize: 100, headerPairs: 20 } });
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const signedIn = { signedIn: true };

    app.post('/api/agents/:agentId/sources/upload', { config: signedIn, schema: { params: agentParams, response: { 201: uploadedSourcesReply } } }, async (request, reply) => {
      // The agent is checked before a byte of the body is read.
      const agent = await agentOfPerson(ctx, request.person, request.params.agentId, { active: true });
      const directory = await uploadDirectory(ctx);
      let sources;
      try {
        sources = await addUploadedFiles(ctx, agent, request.person.plan, (limits) => receiveFiles(request, directory, limits));
      } finally {
        // Gone before the reply: stored or refused, nothing of it stays on the disk.
        await rm(directory, { recursive: true, force: true });
      }
      for (const source of sources) await audit(ctx, request.person, 'source.create', source.id, request.id);
      return reply.status(201).send({ data: sources.map(sourceView) });
    });

    app.post('/api/agents/:agentId/branding/:image', { config: signedIn, schema: { params: imageParams, response: { 200: brandedAgentReply } } }, async (request) => {
      const agent = await agentOfPerson(ctx, request.person, request.params.agentId, { active: true });
      const upload = await receiveImage(request);
      const updated = await uploadImageAsPerson(ctx, agent, request.params.image, upload.bytes, upload.crop);
      await audit(ctx, request.person, 'agent.branding.set', agent.id, request.id);
      return { data: updated };
    });

    app.post('/api/agents/:agentId/branding/:image/crop', { config: signedIn, schema: { params: imageParams, body: cropBody, response: { 200: brandedAgentReply } } }, async (request) => {
      const agent = await agentOfPerson(ctx, request.person, request.params.agentId, { active: true });
      const updated = await cropImageAsPerson(ctx, agent, request.params.image, request.body);
      await audit(ctx, request.person, 'agent.branding.crop', agent.id, request.id);
      return { data: updated };
    });
  });
}

/**
 * A private directory for one request's files, under the data directory (PARLEY_DATA_DIR/uploads): the system's
 * temporary directory is often a RAM disk, and files kept there would be memory again.
 */
async function uploadDirectory(ctx: Context): Promise<string> {
  const parent = join(ctx.config.dataDir, 'uploads');
  await mkdir(parent, { recursive: true, mode: 0o700 });
  await sweepLeftovers(parent);
  return mkdtemp(join(parent, 'upload-'));
}

/** Directories a process that died mid-upload left behind (by real file times, after 6 hours). */
async function sweepLeftovers(parent: string): Promise<void> {
  const before = Date.now() - LEFTOVER_AFTER_MS;
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const path = join(parent, name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtimeMs < before) await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}

function requireMultipart(request: FastifyRequest, parts: string): void {
  if (!request.isMultipart()) throw errors.invalidField('content-type', `Send multipart/form-data with ${parts}.`);
}

/**
 * The `file` parts, each written to `directory` as it arrives. A file over 50 MB is
 * 413 file_too_large, files together over the agent's storage left 402
 * storage_limit_reached: both as soon as the limit is passed.
 */
async function receiveFiles(request: FastifyRequest, directory: string, limits: { allowanceLeftBytes: number; maxFileBytes: number }): Promise<ReceivedFile[]> {
  requireMultipart(request, 'one or more parts named file');
  const files: ReceivedFile[] = [];
  let total = 0;
  // Past the allowance the rest of the body is still read, but into nothing: the
  // refusal then reaches the browser whole instead of as a connection reset mid-upload.
  let refused: ApiError | undefined;
  try {
    const parts = request.parts({ limits: { fileSize: limits.maxFileBytes, files: MAX_FILES_PER_UPLOAD, fields: 0, parts: MAX_FILES_PER_UPLOAD } });
    for await (const part of parts) {
      if (part.fieldname !== 'file' || part.type !== 'file') throw errors.invalidField(printable(part.fieldname), 'unknown field: the parts are files named file');
      const path = join(directory, String(files.length));
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          total += chunk.length;
          if (total > limits.allowanceLeftBytes) refused ??= errors.storageLimitReached();
          done(null, refused ? undefined : chunk);
        },
      });
      await pipeline(part.file, counter, refused ? discard() : createWriteStream(path, { mode: 0o600 }));
      if (part.file.truncated) refused ??= tooLarge(limits.maxFileBytes);
      files.push({ name: cleanFileName(part.filename), path });
    }
  } catch (error) {
    throw uploadRefusal(error, limits.maxFileBytes, `Send at most ${MAX_FILES_PER_UPLOAD} files, each as a part named file.`);
  }
  if (refused) throw refused;
  if (files.length === 0) throw errors.invalidField('file', 'required: one or more parts named file');
  return files;
}

/** The `file` part (an image, held in memory up to its cap) and an optional crop: the fields x, y, width and height, all or none. */
async function receiveImage(request: FastifyRequest): Promise<{ bytes: Buffer; crop?: CropRectangle }> {
  requireMultipart(request, 'a part named file, and x, y, width and height to crop');
  let bytes: Buffer | undefined;
  const fields: Record<string, string> = {};
  try {
    const parts = request.parts({ limits: { fileSize: MAX_UPLOADED_IMAGE_BYTES, files: 1, fields: 4, parts: 5 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw errors.invalidField(printable(part.fieldname), 'unknown field');
        bytes = await readCapped(part);
      } else if (['x', 'y', 'width', 'height'].includes(part.fieldname)) {
        fields[part.fieldname] = String(part.value);
      } else {
        throw errors.invalidField(printable(part.fieldname), 'unknown field');
      }
    }
  } catch (error) {
    throw uploadRefusal(error, MAX_UPLOADED_IMAGE_BYTES, 'The parts are file, and x, y, width and height, once each.');
  }
  if (!bytes) throw errors.invalidField('file', 'required');
  if (bytes.length === 0) throw errors.unsupportedFileType('The file is empty.');
  const given = Object.keys(fields);
  if (given.length === 0) return { bytes };
  if (given.length !== 4) throw errors.invalidField('crop', 'A crop needs all of x, y, width and height (in pixels of the image sent).');
  const crop = cropBody.safeParse(Object.fromEntries(given.map((name) => [name, /^\d{1,6}$/.test(fields[name]!) ? Number(fields[name]) : NaN])));
  if (!crop.success) throw errors.invalidField('crop', 'x and y are whole numbers from 0, width and height whole numbers from 1.');
  return { bytes, crop: crop.data };
}

/** The part's bytes; the multipart reader stops it at its fileSize limit, so no more than that is ever held. */
async function readCapped(part: MultipartFile): Promise<Buffer> {
  const bytes = await part.toBuffer();
  if (part.file.truncated) throw tooLarge(MAX_UPLOADED_IMAGE_BYTES);
  return bytes;
}

/** A sink that keeps nothing. */
function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

function tooLarge(maxBytes: number): ApiError {
  return errors.fileTooLarge(`The file is larger than ${maxBytes / 1024 / 1024} MB, the most that may be uploaded.`);
}

/** The multipart reader's refusals in the spec's terms. */
function uploadRefusal(error: unknown, maxBytes: number, partsMessage: string): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return errors.invalidField('body', partsMessage);
  return errors.invalidField('body', 'The multipart/form-data body is malformed.');
}

const CONTROL = /[\u0000-\u001f\u007f]/g;

function printable(text: string): string {
  return text.toWellFormed().replace(CONTROL, '');
}

/** The name as the person's system had it, without a path, at most 200 characters (a source's name). */
function cleanFileName(raw: string | undefined): string {
  const name = withoutBidiControls(printable(raw ?? ''))
    .split(/[\\/]/)
    .pop()!
    .trim()
    .slice(0, 200);
  return name || 'file';
}
