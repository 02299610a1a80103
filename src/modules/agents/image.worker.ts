/**
 * Runs in the bounded reader process (platform/file-reader.ts): crops and re-encodes a
 * branding image with sharp, and draws an SVG into a PNG.
 *
 * Why an SVG becomes a PNG: DOMPurify, the maintained sanitiser, needs a DOM, and the
 * DOM installed here (linkedom) is not one it runs on (it reports itself unsupported and
 * then hands its input back untouched; given the missing pieces it fails while walking
 * the tree). A hand-made SVG sanitiser is what the rule forbids. Drawn by librsvg (through
 * sharp) into pixels, nothing of the SVG survives but its picture: no script, event
 * attribute, foreign object, style sheet or reference. librsvg runs no scripts and,
 * given bytes without a base address, loads no outside file or address (only data:
 * images inside the SVG). docs/people.md, "Branding images".
 */
import sharp, { type OutputInfo, type Sharp } from 'sharp';

export interface ImageJob {
  kind: 'image';
  bytes: Uint8Array;
  mediaType: string;
  crop: { x: number; y: number; width: number; height: number } | null;
  /** The most the result may weigh (512 KB). */
  maxBytes: number;
}

export type ImageResult =
  | { ok: true; bytes: Uint8Array; mediaType: string }
  | { ok: false; reason: 'outside'; width: number; height: number }
  | { ok: false; reason: 'too_large' | 'unreadable' };

/** A decoded image above this many pixels is refused (a pixel bomb). */
const MAX_PIXELS = 25_000_000;
/** An SVG is drawn so its longer side (of the crop, when there is one) has this many pixels. */
const SVG_SIDE = 512;
/** A crop is scaled down (never up) to fit this on its longer side. */
const MAX_SIDE = 1024;

export async function read(job: ImageJob): Promise<ImageResult> {
  sharp.cache(false);
  sharp.concurrency(1);
  try {
    const pixels = job.mediaType === 'image/svg+xml' ? await drawSvg(job) : await cropRaster(job);
    if (!pixels.ok) return pixels;
    return await encode(pixels.data, pixels.info, job.mediaType, job.maxBytes);
  } catch (error) {
    if (/pixel limit/i.test(String((error as Error).message))) return { ok: false, reason: 'too_large' };
    return { ok: false, reason: 'unreadable' };
  }
}

type Pixels = { ok: true; data: Buffer; info: OutputInfo } | Extract<ImageResult, { ok: false }>;

async function drawSvg(job: ImageJob): Promise<Pixels> {
  // Its size in its own units draws nothing yet; the pixel cap holds for the drawing below, at its scale.
  const meta = await sharp(job.bytes, { limitInputPixels: false }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) return { ok: false, reason: 'unreadable' };
  const region = job.crop ?? { x: 0, y: 0, width, height };
  if (!within(region, width, height)) return { ok: false, reason: 'outside', width, height };
  // Coordinates are the SVG's own (its width and height as drawn at 72 dpi); drawn larger, never blurred.
  const scale = SVG_SIDE / Math.max(region.width, region.height);
  const drawn = sharp(job.bytes, { density: 72 * scale, limitInputPixels: MAX_PIXELS });
  const full = { width: Math.round(width * scale), height: Math.round(height * scale) };
  const left = Math.min(Math.round(region.x * scale), full.width - 1);
  const top = Math.min(Math.round(region.y * scale), full.height - 1);
  const area = {
    left,
    top,
    width: Math.max(1, Math.min(Math.round(region.width * scale), full.width - left)),
    height: Math.max(1, Math.min(Math.round(region.height * scale), full.height - top)),
  };
  const { data, info } = await drawn.ensureAlpha().extract(area).raw().toBuffer({ resolveWithObject: true });
  return { ok: true, data, info };
}

async function cropRaster(job: ImageJob): Promise<Pixels> {
  const meta = await sharp(job.bytes, { limitInputPixels: MAX_PIXELS }).metadata();
  // The crop is in the pixels as shown: after the photo's own orientation is applied.
  const turned = (meta.orientation ?? 1) >= 5;
  const width = (turned ? meta.height : meta.width) ?? 0;
  const height = (turned ? meta.width : meta.height) ?? 0;
  const region = job.crop ?? { x: 0, y: 0, width, height };
  if (!within(region, width, height)) return { ok: false, reason: 'outside', width, height };
  const { data, info } = await sharp(job.bytes, { limitInputPixels: MAX_PIXELS, animated: false })
    .rotate()
    .extract({ left: region.x, top: region.y, width: region.width, height: region.height })
    .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { ok: true, data, info };
}

function within(region: { x: number; y: number; width: number; height: number }, width: number, height: number): boolean {
  return region.width >= 1 && region.height >= 1 && region.x >= 0 && region.y >= 0 && region.x + region.width <= width && region.y + region.height <= height;
}

/**
 * The kind it came as (a GIF or an SVG becomes a PNG), at falling quality until it weighs
 * at most maxBytes, then smaller, then as WebP: the result always comes into range.
 */
async function encode(data: Buffer, info: OutputInfo, mediaType: string, maxBytes: number): Promise<ImageResult> {
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const attempts: Array<[string, (image: Sharp) => Sharp]> =
    mediaType === 'image/jpeg'
      ? [85, 70, 55, 40].map((quality) => ['image/jpeg', (image) => image.jpeg({ quality, mozjpeg: true })])
      : mediaType === 'image/webp'
        ? [85, 70, 55, 40].map((quality) => ['image/webp', (image) => image.webp({ quality })])
        : [
            ['image/png', (image) => image.png({ compressionLevel: 9 })],
            ['image/png', (image) => image.png({ compressionLevel: 9, palette: true })],
            ['image/webp', (image) => image.webp({ quality: 80 })],
          ];
  for (let side = Math.max(info.width, info.height); side >= 16; side = Math.floor(side * 0.7)) {
    for (const [type, encoder] of attempts) {
      const image = sharp(data, raw).resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
      const bytes = await encoder(image).toBuffer();
      if (bytes.length <= maxBytes) return { ok: true, bytes: new Uint8Array(bytes), mediaType: type };
    }
  }
  return { ok: false, reason: 'too_large' };
}
