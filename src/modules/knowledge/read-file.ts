/**
 * Reading a file's text in isolation: a worker thread with a heap limit and a time
 * bound, so a hostile or huge file fails its own source (file_too_complex) instead of
 * taking the service down.
 */
import { Worker } from 'node:worker_threads';
import type { Context } from '../../context.ts';
import type { FileKind } from './store.ts';

export type FileReadFailure = 'file_unreadable' | 'file_too_complex';

export class FileReadError extends Error {
  readonly failure: FileReadFailure;
  constructor(failure: FileReadFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

export interface ReadLimits {
  memoryMb: number;
  timeoutMs: number;
}

export function readLimits(ctx: Context): ReadLimits {
  return { memoryMb: ctx.config.fileReadMemoryMb, timeoutMs: ctx.config.fileReadTimeoutMs };
}

const WORKER_URL = new URL('./read-file.worker.ts', import.meta.url);

export function readFileText(kind: FileKind, bytes: Uint8Array, limits: ReadLimits): Promise<string> {
  return readInIsolation<string>(WORKER_URL, { kind, bytes }, limits);
}

/**
 * Runs a reader script in a worker thread under these limits. The script posts
 * { ok: true, value } or { ok: false, message } once; visitor files use it too.
 */
export function readInIsolation<T>(script: URL, workerData: unknown, limits: ReadLimits): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, limits.memoryMb / 4)) },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new FileReadError('file_too_complex', `reading took longer than ${limits.timeoutMs} ms`))),
      limits.timeoutMs,
    );
    worker.on('message', (message: { ok: boolean; value?: T; message?: string }) =>
      settle(() => (message.ok ? resolve(message.value as T) : reject(new FileReadError('file_unreadable', message.message ?? 'unreadable')))),
    );
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new FileReadError('file_too_complex', `reading took more than ${limits.memoryMb} MB`)
            : new FileReadError('file_unreadable', error.message),
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new FileReadError('file_unreadable', `the reader stopped (exit ${code})`))));
  });
}
