/**
 * Reading a file source's text in the service's bounded reader (platform/file-reader.ts):
 * a process of its own with a memory and a time bound, after a check for decompression
 * bombs, so a hostile or huge file fails its own source (file_too_complex) instead of
 * taking the service down.
 */
import type { Context } from '../../context.ts';
import type { ReadBounds } from '../../platform/file-reader.ts';
import type { FileKind } from './store.ts';

export { FileReadError, type FileReadFailure } from '../../platform/file-reader.ts';

/** The reader's bounds from the configuration, read at each read (tests change them on a running service). */
export function readBounds(ctx: Context): ReadBounds {
  return { memoryMb: ctx.config.fileReadMemoryMb, timeoutMs: ctx.config.fileReadTimeoutMs };
}

const READER = new URL('./read-file.worker.ts', import.meta.url);

export function readFileText(ctx: Context, kind: FileKind, bytes: Uint8Array): Promise<string> {
  return ctx.fileReader.read<string>(READER, { kind, bytes }, readBounds(ctx));
}
