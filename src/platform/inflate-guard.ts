/**
 * Refusing a decompression bomb before a reader unpacks it: the Flate streams of a
 * PDF and the parts of a Word document (a zip) are inflated into nothing, counting
 * bytes, and the count stops at the cap. A bomb is so refused in a fraction of a
 * second with a few kilobytes of memory, where pdf.js or mammoth would have built
 * the whole inflated part in memory first. This is the fast path; the hard bound is
 * the reader process's memory (file-reader.ts).
 */
import { createInflate, createInflateRaw } from 'node:zlib';

/** A file that would take more than a reader may use; the reader answers file_too_complex. */
export class FileTooComplexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileTooComplexError';
  }
}

export interface InflateCaps {
  /** One PDF stream, or a Word document's parts together, may inflate to this many bytes. */
  maxPartBytes: number;
  /** All of a PDF's streams together. */
  maxTotalBytes: number;
}

export async function refuseBombs(kind: string, bytes: Uint8Array, caps: InflateCaps): Promise<void> {
  if (kind === 'pdf') await refusePdfBomb(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), caps);
  if (kind === 'docx') await refuseZipBomb(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), caps);
}

/**
 * Every stream whose data opens with a zlib header (FlateDecode's format; pdf.js
 * refuses anything else as Flate) is inflated up to `endstream`. Streams behind
 * encryption or other filters are not seen here; the reader's memory bound holds them.
 */
async function refusePdfBomb(pdf: Buffer, caps: InflateCaps): Promise<void> {
  let total = 0;
  for (let at = pdf.indexOf('stream'); at !== -1; at = pdf.indexOf('stream', at + 6)) {
    if (at >= 3 && pdf.toString('latin1', at - 3, at) === 'end') continue;
    let start = at + 6;
    if (pdf[start] === 0x0d) start++;
    if (pdf[start] === 0x0a) start++;
    if (!isZlibHeader(pdf[start], pdf[start + 1])) continue;
    const end = pdf.indexOf('endstream', start);
    const left = Math.min(caps.maxPartBytes, caps.maxTotalBytes - total);
    const size = await inflatedSize(pdf.subarray(start, end === -1 ? pdf.length : end), left, 'zlib');
    if (size > left) {
      throw new FileTooComplexError(
        size > caps.maxPartBytes ? `a stream inflates to more than ${mb(caps.maxPartBytes)}` : `the streams inflate to more than ${mb(caps.maxTotalBytes)} in all`,
      );
    }
    total += size;
  }
}

function isZlibHeader(cmf: number | undefined, flg: number | undefined): boolean {
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const DEFLATE = 8;
const STORED = 0;

/**
 * The sizes the zip's central directory declares are checked first (an honest bomb
 * is refused without inflating anything); then each part is inflated, counting, so
 * a zip that understates its sizes is caught too.
 */
async function refuseZipBomb(zip: Buffer, caps: InflateCaps): Promise<void> {
  const entries = directoryEntries(zip);
  const declared = entries.reduce((sum, entry) => sum + entry.declaredSize, 0);
  if (declared > caps.maxPartBytes) throw new FileTooComplexError(`its parts unpack to more than ${mb(caps.maxPartBytes)}`);
  let total = 0;
  for (const entry of entries) {
    const data = entryData(zip, entry);
    if (!data) continue;
    const left = caps.maxPartBytes - total;
    const size = entry.method === STORED ? data.length : entry.method === DEFLATE ? await inflatedSize(data, left, 'raw') : 0;
    total += size;
    if (total > caps.maxPartBytes) throw new FileTooComplexError(`its parts unpack to more than ${mb(caps.maxPartBytes)}`);
  }
}

interface ZipEntry {
  method: number;
  compressedSize: number;
  declaredSize: number;
  localOffset: number;
}

/** The central directory's entries; none when it cannot be found (the reader then says the file is damaged). */
function directoryEntries(zip: Buffer): ZipEntry[] {
  const searchFrom = Math.max(0, zip.length - 22 - 0xffff);
  let end = -1;
  for (let i = zip.length - 22; i >= searchFrom; i--) {
    if (zip.readUInt32LE(i) === END_OF_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end === -1) return [];
  const count = zip.readUInt16LE(end + 10);
  const entries: ZipEntry[] = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count && at + 46 <= zip.length && zip.readUInt32LE(at) === DIRECTORY_ENTRY; i++) {
    const declared = zip.readUInt32LE(at + 24);
    entries.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      // 0xFFFFFFFF: the size is in a zip64 field, over 4 GB; no document part is.
      declaredSize: declared === 0xffffffff ? Number.MAX_SAFE_INTEGER : declared,
      localOffset: zip.readUInt32LE(at + 42),
    });
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

function entryData(zip: Buffer, entry: ZipEntry): Buffer | undefined {
  const at = entry.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL_HEADER) return undefined;
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  return zip.subarray(start, Math.min(zip.length, start + entry.compressedSize));
}

/**
 * The bytes `data` inflates to, counted as they come and thrown away; stops once past
 * `limit` (returning more than it). Damaged data counts what came before the damage.
 */
function inflatedSize(data: Uint8Array, limit: number, format: 'zlib' | 'raw'): Promise<number> {
  const inflater = format === 'zlib' ? createInflate({ chunkSize: 1024 * 1024 }) : createInflateRaw({ chunkSize: 1024 * 1024 });
  let size = 0;
  return new Promise((resolve) => {
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        inflater.destroy();
        resolve(size);
      }
    });
    inflater.on('end', () => resolve(size));
    inflater.on('error', () => resolve(size));
    inflater.on('close', () => resolve(size));
    inflater.end(data);
  });
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
