/**
 * Branding images from the dashboard (spec 1.5, docs/people.md "Branding images"):
 * uploaded from the computer, an SVG made safe, and cropped. Every decoding of the
 * image runs in the bounded reader process (platform/file-reader.ts, ./image.worker.ts),
 * so a hostile image (a pixel bomb, an SVG full of entities) costs that process, never
 * the service.
 */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { FileReadError } from '../../platform/file-reader.ts';
import type { AgentRef } from './access.ts';
import { imageTypeOf, MAX_IMAGE_BYTES, storeImage, type ImageKind } from './branding.ts';
import type { Agent } from './schemas.ts';
import * as store from './store.ts';
import type { ImageJob, ImageResult } from './image.worker.ts';

/** An image sent to be cropped may be this large; what is kept is at most MAX_IMAGE_BYTES (512 KB). */
export const MAX_UPLOADED_IMAGE_BYTES = 10 * 1024 * 1024;

export interface CropRectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

const WORKER = new URL('./image.worker.ts', import.meta.url);

/**
 * A PNG, JPEG, GIF or WebP of at most 512 KB is kept as it is; a larger one only with a
 * crop, which re-encodes it into range. An SVG is never kept as SVG: it is drawn into a
 * PNG (./image.worker.ts says why), cropped first when a crop is given.
 */
export async function uploadImageAsPerson(ctx: Context, agent: AgentRef, kind: ImageKind, bytes: Uint8Array, crop?: CropRectangle): Promise<Agent> {
  const mediaType = imageTypeOf(bytes) ?? (looksLikeSvg(bytes) ? 'image/svg+xml' : undefined);
  if (!mediaType) throw errors.unsupportedFileType('The image must be PNG, JPEG, GIF, WebP or SVG.');
  if (mediaType !== 'image/svg+xml' && !crop) {
    if (bytes.length > MAX_IMAGE_BYTES) throw errors.fileTooLarge('The image is larger than 512 KB: crop it (a crop also makes it smaller) or send a smaller one.');
    return storeImage(ctx, agent, kind, bytes, mediaType);
  }
  const result = await transform(ctx, { bytes, mediaType, crop: crop ?? null });
  return storeImage(ctx, agent, kind, result.bytes, result.mediaType);
}

/** Crops the image the agent has (in its pixels); none is 404 not_found. */
export async function cropImageAsPerson(ctx: Context, agent: AgentRef, kind: ImageKind, crop: CropRectangle): Promise<Agent> {
  const image = await store.getImage(ctx.db, agent.id, kind);
  if (!image) throw errors.notFound(kind);
  const result = await transform(ctx, { bytes: image.bytes, mediaType: image.media_type, crop });
  return storeImage(ctx, agent, kind, result.bytes, result.mediaType);
}

async function transform(ctx: Context, job: Omit<ImageJob, 'kind' | 'maxBytes'>): Promise<{ bytes: Uint8Array; mediaType: string }> {
  let result: ImageResult;
  try {
    result = await ctx.fileReader.read<ImageResult>(
      WORKER,
      { kind: 'image', ...job, maxBytes: MAX_IMAGE_BYTES },
      { memoryMb: ctx.config.fileReadMemoryMb, timeoutMs: ctx.config.fileReadTimeoutMs },
    );
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (error.failure === 'file_too_complex') throw errors.fileTooLarge('The image takes more memory or time to draw than an image may use.');
    throw errors.unsupportedFileType('The image could not be read: it is damaged or not the kind it claims to be.');
  }
  if (result.ok) return { bytes: result.bytes, mediaType: result.mediaType };
  if (result.reason === 'outside') {
    throw errors.invalidField('crop', `The crop must lie within the image, which is ${result.width} × ${result.height} pixels.`);
  }
  if (result.reason === 'too_large') throw errors.fileTooLarge('The image is too large to draw (more than 25 million pixels).');
  throw errors.unsupportedFileType('The image could not be read: it is damaged or not the kind it claims to be.');
}

/** An SVG: UTF-8 text whose first element is <svg> (after an XML declaration, comments or a doctype). */
export function looksLikeSvg(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096)).replace(/^\uFEFF/, '');
  } catch {
    // Cut inside a character at 4096: the start is still text.
    text = new TextDecoder('utf-8').decode(bytes.subarray(0, 4096));
  }
  const head = text.replace(/^(\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>)*/i, '');
  return /^<svg[\s>/]/i.test(head);
}
