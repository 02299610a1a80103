/**
 * The kind of a fetched file, told from its bytes (never its name or content type):
 * PDF by its %PDF signature, Word by the zip holding word/document.xml (file-type),
 * Markdown and plain text as valid UTF-8 without binary bytes that is not HTML.
 */
import type { FileKind } from './store.ts';
import { firstUse } from '../../platform/first-use.ts';

/** file-type loads with the first file (docs/performance.md, Memory): requests without files never need it. */
const fileType = firstUse(() => import('file-type'));

/** The type file-type reads from the bytes' signature, if any. */
export async function fileTypeOf(bytes: Uint8Array): Promise<{ ext: string; mime: string } | undefined> {
  return (await fileType()).fileTypeFromBuffer(bytes);
}

export async function detectFileKind(bytes: Uint8Array): Promise<FileKind | null> {
  if (bytes.length === 0) return null;
  // The PDF signature may follow a little junk (the format allows it within the first 1 KB).
  if (Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-')) return 'pdf';
  const detected = await fileTypeOf(bytes);
  if (detected) return detected.ext === 'docx' ? 'docx' : null;
  const text = decodeUtf8(bytes);
  if (text === null || hasBinaryBytes(text) || looksLikeHtml(text)) return null;
  return looksLikeMarkdown(text) ? 'markdown' : 'text';
}

export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

function hasBinaryBytes(text: string): boolean {
  // Control characters other than tab, newline, form feed and carriage return.
  return /[\u0000-\u0008\u000B\u000E-\u001F\u007F]/.test(text);
}

function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 4096).trimStart().toLowerCase();
  if (/^<!doctype\s+html/.test(head) || /^<html[\s>]/.test(head) || /^<\?xml/.test(head)) return true;
  return /<(html|head|body|script|style|iframe|meta|div)[\s>]/.test(head) && head.startsWith('<');
}

function looksLikeMarkdown(text: string): boolean {
  return /^(#{1,6}\s|\s*[-*+]\s|\s*\d+\.\s|```|>\s)/m.test(text) || /\[[^\]]+\]\([^)]+\)/.test(text);
}

export const CONTENT_TYPES: Record<FileKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  markdown: 'text/markdown',
  text: 'text/plain',
};
