/**
 * Runs in the bounded reader process (platform/file-reader.ts, called from read.ts):
 * the text of a visitor's file, page by page, within the caps it is given. A PDF page
 * without text that shows a picture (a scan) is read by text recognition.
 */
import { createRecogniser, type OcrLanguage, type Recogniser } from '../../platform/ocr.ts';
import { encodeGrayPng, type GrayImage } from '../../platform/png.ts';
import { pdfPageText } from '../../platform/pdf-text.ts';
import type { ReadCaps, ReadResult } from './read.ts';

interface Input {
  kind: 'pdf' | 'docx' | 'text';
  bytes: Uint8Array;
  caps: ReadCaps;
  /** Languages of text recognition, the agent's first. */
  languages: OcrLanguage[];
  /** No page is begun after this time (ms since the epoch): what was read so far is the result. */
  stopBy: number;
}

export async function read(input: Input): Promise<ReadResult> {
  if (input.kind === 'pdf') return readPdf(input);
  const whole =
    input.kind === 'docx'
      ? (await (await import('mammoth')).default.extractRawText({ buffer: Buffer.from(input.bytes) })).value
      : new TextDecoder('utf-8').decode(input.bytes).replace(/^\uFEFF/, '');
  const text = whole.trim();
  const truncated = text.length > input.caps.maxChars;
  return { text: truncated ? cut(text, input.caps.maxChars) : text, pages: null, truncated, ocrPages: null };
}

/** Cuts at the last word boundary before `max` characters. */
function cut(text: string, max: number): string {
  const head = text.slice(0, max);
  const space = head.search(/\s\S*$/);
  return (space > max * 0.8 ? head.slice(0, space) : head).trimEnd();
}

/** A page scanned at 600 dpi is about 35 megapixels. */
const MAX_DECODED_PIXELS = 50_000_000;

async function readPdf(input: Input): Promise<ReadResult> {
  const { getDocumentProxy, getResolvedPDFJS } = await import('unpdf');
  const { OPS } = await getResolvedPDFJS();
  // A picture larger than this is not decoded at all: its pixels alone would near the reader's memory bound.
  const pdf = await getDocumentProxy(new Uint8Array(input.bytes), { maxImageSize: MAX_DECODED_PIXELS });
  const { caps } = input;
  const texts: string[] = [];
  let length = 0;
  let ocrPages = 0;
  let truncated = false;
  let recogniser: Recogniser | undefined;
  try {
    for (let number = 1; number <= pdf.numPages; number++) {
      if (number > caps.maxPages || length >= caps.maxChars || Date.now() > input.stopBy) {
        truncated = true;
        break;
      }
      const page = await pdf.getPage(number);
      let text = pdfPageText((await page.getTextContent()).items);
      if (!hasText(text)) {
        const picture = await largestPicture(page, OPS, caps.maxPicturePixels);
        if (picture) {
          if (ocrPages >= caps.maxOcrPages) {
            truncated = true;
            break;
          }
          recogniser ??= await createRecogniser(input.languages);
          text = (await recogniser.recognise(encodeGrayPng(picture, 1))).trim();
          ocrPages++;
        }
      }
      page.cleanup();
      if (!text) continue;
      texts.push(text);
      length += text.length + 2;
    }
  } finally {
    await recogniser?.close();
    await pdf.destroy();
  }
  let text = texts.join('\n\n');
  if (text.length > caps.maxChars) {
    text = cut(text, caps.maxChars);
    truncated = true;
  }
  return { text, pages: pdf.numPages, truncated, ocrPages: ocrPages > 0 ? ocrPages : null };
}

/** A page with a few stray characters (a page number, a stamp) is still a scan. */
function hasText(text: string): boolean {
  return text.replace(/\s/g, '').length >= 20;
}

interface PdfImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray | string;
}

interface PdfPage {
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  objs: { get(key: string, callback: (value: unknown) => void): void };
  commonObjs: { get(key: string, callback: (value: unknown) => void): void };
}

/** The page's largest picture as grayscale pixels (a scan is one picture the size of the page). */
async function largestPicture(page: PdfPage, OPS: Record<string, number>, maxPixels: number): Promise<GrayImage | undefined> {
  const operators = await page.getOperatorList();
  let best: PdfImage | undefined;
  for (let i = 0; i < operators.fnArray.length; i++) {
    const op = operators.fnArray[i];
    if (op !== OPS.paintImageXObject && op !== OPS.paintInlineImageXObject && op !== OPS.paintImageMaskXObject) continue;
    const image = await imageOf(page, operators.argsArray[i][0]);
    if (!image?.data || !image.width || !image.height) continue;
    if (!best || image.width * image.height > best.width * best.height) best = image;
  }
  return best ? shrunk(grayOf(best), maxPixels) : undefined;
}

/** An image is named by a key into the page's objects, or given inline; a stencil mask names its pixels by key. */
async function imageOf(page: PdfPage, argument: unknown): Promise<PdfImage | undefined> {
  const image = typeof argument === 'string' ? await pageObject<PdfImage>(page, argument) : (argument as PdfImage | undefined);
  if (typeof image?.data !== 'string') return image;
  const pixels = await pageObject<PdfImage>(page, image.data);
  return pixels && { ...image, data: pixels.data };
}

function pageObject<T>(page: PdfPage, key: string): Promise<T | undefined> {
  const objects = key.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => objects.get(key, (value) => resolve(value as T | undefined)));
}

const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

/**
 * pdf.js's decoded pixels as 8-bit gray. One-bit pictures (images and stencil masks)
 * come packed, a row padded to whole bytes, a clear bit where the page is inked.
 */
function grayOf(image: PdfImage): GrayImage {
  const { width, height } = image;
  const data = image.data as Uint8Array;
  const pixels = new Uint8Array(width * height);
  const channels = data.length / (width * height);
  if (image.kind === GRAYSCALE_1BPP || channels < 1) {
    const rowBytes = Math.ceil(width / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) pixels[y * width + x] = (data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
    return { width, height, pixels };
  }
  const step = image.kind === RGBA_32BPP ? 4 : image.kind === RGB_24BPP ? 3 : Math.round(channels);
  for (let p = 0, i = 0; p < pixels.length; p++, i += step) {
    pixels[p] = step >= 3 ? (data[i] * 299 + data[i + 1] * 587 + data[i + 2] * 114) / 1000 : data[i];
  }
  return { width, height, pixels };
}

/** A picture over `maxPixels` averaged down by a whole factor (recognition needs no more). */
function shrunk(image: GrayImage, maxPixels: number): GrayImage {
  const factor = Math.ceil(Math.sqrt((image.width * image.height) / maxPixels));
  if (factor <= 1) return image;
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy++) {
        const row = (y * factor + dy) * image.width + x * factor;
        for (let dx = 0; dx < factor; dx++) sum += image.pixels[row + dx];
      }
      pixels[y * width + x] = sum / (factor * factor);
    }
  }
  return { width, height, pixels };
}
