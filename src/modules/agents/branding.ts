/**
 * Branding images (spec 4.5): fetched once from an address through the safe
 * fetch, kept in the database, served publicly by this service.
 */
import type { Context } from '../../context.ts';
import type { Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { SafeFetchError } from '../../platform/safe-fetch-error.ts';
import { agentsChanged, requireAgent } from './access.ts';
import type { Agent } from './schemas.ts';
import { loadAgent, presentAgent } from './service.ts';
import * as store from './store.ts';

export type ImageKind = 'logo' | 'icon';

export const MAX_IMAGE_BYTES = 512 * 1024;
const FETCH_LIMITS = { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 10_000, maxRedirects: 3 };

/** Where the public image route lives; the agent object's logoUrl and iconUrl point here. */
export function imagePath(agentId: string, kind: ImageKind): string {
  return `/api/v1/assets/agents/${agentId}/${kind}`;
}

export async function setImage(ctx: Context, auth: Principal, agentId: string, kind: ImageKind, url: string): Promise<Agent> {
  const ref = await requireAgent(ctx, auth, agentId, { active: true });
  checkImageAddress(ctx, url);
  const bytes = await fetchImage(ctx, url);
  const mediaType = imageTypeOf(bytes);
  if (!mediaType) throw errors.unsupportedFileType('The image must be PNG, JPEG, GIF or WebP (SVG is not accepted).');
  return storeImage(ctx, ref, kind, bytes, mediaType);
}

/** Keeps the image (in place of the one before) under a new version and points the agent's logoUrl or iconUrl at it. */
export async function storeImage(ctx: Context, ref: { id: string; workspaceId: string }, kind: ImageKind, bytes: Uint8Array, mediaType: string): Promise<Agent> {
  const version = randomBase62(10);
  const now = ctx.clock.now();
  await store.putImage(ctx.db, { agent_id: ref.id, kind, media_type: mediaType, bytes, version, created_at: now });
  return setImageUrl(ctx, ref, kind, `${ctx.config.publicUrl}${imagePath(ref.id, kind)}?v=${version}`);
}

export async function removeImage(ctx: Context, auth: Principal, agentId: string, kind: ImageKind): Promise<Agent> {
  const ref = await requireAgent(ctx, auth, agentId, { active: true });
  await store.deleteImage(ctx.db, ref.id, kind);
  return setImageUrl(ctx, ref, kind, null);
}

async function setImageUrl(ctx: Context, ref: { id: string; workspaceId: string }, kind: ImageKind, url: string | null): Promise<Agent> {
  const { id: _id, status: _s, lastTrainedAt: _t, createdAt: _c, updatedAt: _u, ...settings } = await loadAgent(ctx, { ...ref, status: 'active' });
  settings.branding = { ...settings.branding, [kind === 'logo' ? 'logoUrl' : 'iconUrl']: url };
  const row = await store.updateAgentSettings(ctx.db, ref.workspaceId, ref.id, settings, ctx.clock.now());
  if (!row) throw errors.notFound('agent');
  await agentsChanged(ctx, ref.workspaceId);
  return presentAgent(ctx, row);
}

/**
 * The spec asks for an https address. With PARLEY_ALLOW_PRIVATE_URLS=1 (a
 * development and test mode) plain http is accepted too, so local servers work.
 */
function checkImageAddress(ctx: Context, url: string): void {
  const allowed = ctx.config.allowPrivateUrls ? /^https?:\/\//i : /^https:\/\//i;
  if (!allowed.test(url) || !URL.canParse(url)) throw errors.invalidField('url', 'The image address must start with https://.');
}

async function fetchImage(ctx: Context, url: string): Promise<Uint8Array> {
  let response;
  try {
    response = await ctx.safeFetch.fetch(url, FETCH_LIMITS);
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    switch (error.kind) {
      case 'unsafe_url':
        throw errors.unsafeUrl();
      case 'too_large':
        throw errors.fileTooLarge('The image is larger than 512 KB; nothing is shrunk, so send a smaller one.');
      case 'invalid_url':
        throw errors.invalidField('url', 'That is not an address that can be fetched.');
      case 'timeout':
        throw errors.fetchFailed('The address did not answer within 10 seconds.');
      case 'too_many_redirects':
        throw errors.fetchFailed('The address redirected more than 3 times.');
      default:
        throw errors.fetchFailed(`The address could not be reached: ${error.message}`);
    }
  }
  if (response.status < 200 || response.status > 299) throw errors.fetchFailed(`The address answered ${response.status} instead of an image.`);
  if (response.body.byteLength === 0) throw errors.fetchFailed('The address answered with an empty body.');
  return response.body;
}

/** The kind is told from the bytes, never from the name or the content-type header. */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  const ascii = (from: number, text: string) => [...text].every((ch, i) => bytes[from + i] === ch.charCodeAt(0));
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  return undefined;
}

/** For the public route: the stored image, looked up by agent id alone (the address carries no key). */
export async function publicImage(ctx: Context, agentId: string, kind: ImageKind) {
  return store.getImage(ctx.db, agentId, kind);
}
