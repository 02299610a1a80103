/**
 * What a visitor's file is (told from its bytes) and the text the agent reads from it,
 * in the same bounded reader as knowledge files (platform/file-reader.ts).
 * docs/visitors.md ("Visitor files") gives the caps.
 */
import type { Context } from '../../context.ts';
import { OCR_LANGUAGES, type OcrLanguage } from '../../platform/ocr.ts';
import { CONTENT_TYPES, detectFileKind, fileTypeOf } from '../knowledge/file-kind.ts';
import { readBounds } from '../knowledge/read-file.ts';

/** The largest file a visitor may send. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Files one question may carry. */
export const MAX_ATTACHMENTS = 3;

export interface ReadCaps {
  /** Characters of text the agent is given, at most. */
  maxChars: number;
  /** PDF pages read, at most. */
  maxPages: number;
  /** Scanned PDF pages read by text recognition, at most. */
  maxOcrPages: number;
  /** A scanned page's picture is scaled down to this many pixels before recognition. */
  maxPicturePixels: number;
}

export const READ_CAPS: ReadCaps = { maxChars: 20_000, maxPages: 100, maxOcrPages: 5, maxPicturePixels: 12_000_000 };

export interface ReadResult {
  text: string | null;
  pages: number | null;
  truncated: boolean;
  ocrPages: number | null;
}

export type VisitorFileKind = 'pdf' | 'docx' | 'text' | 'image';

const READER = new URL('./read.worker.ts', import.meta.url);

const PICTURES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/** The kind and media type of the bytes, or null for a kind a visitor may not send. */
export async function detectVisitorFile(bytes: Uint8Array): Promise<{ kind: VisitorFileKind; mediaType: string } | null> {
  const detected = await fileTypeOf(bytes);
  if (detected && PICTURES.has(detected.mime)) return { kind: 'image', mediaType: detected.mime };
  const kind = await detectFileKind(bytes);
  if (kind === null) return null;
  return { kind: kind === 'markdown' ? 'text' : kind, mediaType: CONTENT_TYPES[kind] };
}

/**
 * The text of the file. Pictures are kept as pictures (spec 2.9: text null). Reading
 * stops starting pages at 60% of the reader's time, so a long scan gives its first
 * part (truncated) rather than nothing; the reader is ended at 100%.
 */
export async function readVisitorFile(ctx: Context, kind: VisitorFileKind, bytes: Uint8Array, languages: readonly string[]): Promise<ReadResult> {
  if (kind === 'image') return { text: null, pages: null, truncated: false, ocrPages: null };
  const bounds = readBounds(ctx);
  return ctx.fileReader.read<ReadResult>(
    READER,
    { kind, bytes, caps: READ_CAPS, languages: ocrLanguages(languages), stopBy: Date.now() + bounds.timeoutMs * 0.6 },
    bounds,
    // A visitor's request does not queue behind many reads: it is refused (429) and may try again.
    { refuseWhenBusy: true },
  );
}

function ocrLanguages(languages: readonly string[]): OcrLanguage[] {
  return languages.filter((language): language is OcrLanguage => language in OCR_LANGUAGES);
}
