/**
 * The one reader of untrusted files (visitor files, knowledge file sources): each
 * read runs in a process of its own, so nothing it allocates (pdf.js's inflated
 * streams and decoded pictures are typed arrays, text recognition is WebAssembly,
 * none of it on the V8 heap a worker thread's resourceLimits bound) is the
 * service's memory. The process is bounded three ways:
 * - memory: its anonymous resident memory (RssAnon in /proc, measured by the kernel)
 *   is watched every 20 ms, by the service and by a guardian thread inside the reader
 *   (file-reader.child.ts), and the process killed past `memoryMb`; its V8 heap is
 *   capped at the same figure by V8 itself;
 * - time: killed after `timeoutMs` (and by its guardian when the service is gone);
 * - inflated bytes: before any reader runs, the file's compressed parts are inflated
 *   into nothing, counting (inflate-guard.ts), so a bomb is refused in a fraction of
 *   a second.
 * At most `concurrency` reads run at once in a process; the rest wait their turn.
 * docs/security.md ("Reading untrusted files") gives the figures.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InflateCaps } from './inflate-guard.ts';

export type FileReadFailure = 'file_unreadable' | 'file_too_complex';

export class FileReadError extends Error {
  readonly failure: FileReadFailure;
  constructor(failure: FileReadFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

/** Every read slot is taken and too many reads wait already (only for callers that asked to be refused). */
export class FileReaderBusyError extends Error {
  constructor() {
    super('every file reader is busy');
  }
}

export interface ReadBounds {
  memoryMb: number;
  timeoutMs: number;
}

/** What a reader script gets; `kind` and `bytes` are checked for bombs before it runs. */
export interface ReaderInput {
  kind: string;
  bytes: Uint8Array;
  [field: string]: unknown;
}

export interface ReadOptions {
  /** A caller that must not wait long (a visitor's request) is refused with FileReaderBusyError instead of queueing behind many reads. */
  refuseWhenBusy?: boolean;
}

export interface FileReader {
  /**
   * Runs `script`'s exported `read(input)` in a bounded process and gives its result.
   * Throws FileReadError (file_too_complex past a bound, file_unreadable when the
   * reader failed) or FileReaderBusyError.
   */
  read<T>(script: URL, input: ReaderInput, bounds: ReadBounds, options?: ReadOptions): Promise<T>;
  close(): Promise<void>;
}

/** Reads waiting for a slot, per slot, before a caller that asked to be refused is. */
const WAITING_PER_SLOT = 4;
const WATCH_EVERY_MS = 20;
const CHILD_PATH = fileURLToPath(new URL('./file-reader.child.ts', import.meta.url));

/** What the child is sent. */
export interface ChildRequest {
  script: string;
  input: ReaderInput;
  caps: InflateCaps;
  memoryMb: number;
  /** When the read's time is up (ms since the epoch). */
  deadline: number;
}

export type ChildReply = { ok: true; value: unknown } | { ok: false; failure: FileReadFailure; message: string };

export interface FileReaderOptions {
  /** Reads at once in this process. */
  concurrency: number;
  /**
   * Where the reader processes keep node's compile cache (the reader's code, its
   * TypeScript already stripped), so each starts in about the time of a bare node
   * instead of loading the TypeScript stripper. A directory only the service writes.
   */
  compileCacheDir?: string;
}

export function createFileReader({ concurrency, compileCacheDir }: FileReaderOptions): FileReader {
  const slots = new Slots(concurrency);
  // The reader handles hostile bytes: it gets none of the service's settings or secrets.
  const env: NodeJS.ProcessEnv = compileCacheDir ? { NODE_COMPILE_CACHE: compileCacheDir } : {};
  const children = new Set<ChildProcess>();
  let closed = false;
  return {
    async read<T>(script: URL, input: ReaderInput, bounds: ReadBounds, options: ReadOptions = {}): Promise<T> {
      if (closed) throw new Error('the file reader is closed');
      const release = await slots.take(options.refuseWhenBusy ? concurrency * WAITING_PER_SLOT : Infinity);
      try {
        const request = { script: script.href, input, caps: inflateCaps(bounds), memoryMb: bounds.memoryMb, deadline: Date.now() + bounds.timeoutMs };
        return await readInChild<T>(request, bounds, env, children);
      } finally {
        release();
      }
    },
    async close() {
      closed = true;
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

/**
 * A compressed part (a PDF stream, a Word document's XML) is held whole once inflated
 * and then parsed into objects and strings several times its size, so one over a
 * quarter of the reader's memory could not be read within it. All of a PDF's streams,
 * read a page at a time, may come to twice the reader's memory.
 */
export function inflateCaps(bounds: ReadBounds): InflateCaps {
  const memory = bounds.memoryMb * 1024 * 1024;
  return { maxPartBytes: memory / 4, maxTotalBytes: 2 * memory };
}

function readInChild<T>(request: ChildRequest, bounds: ReadBounds, env: NodeJS.ProcessEnv, children: Set<ChildProcess>): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD_PATH, [], {
      execArgv: [`--max-old-space-size=${bounds.memoryMb}`, '--max-semi-space-size=16'],
      env,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.add(child);
    let reply: ChildReply | undefined;
    let stopped: 'memory' | 'time' | undefined;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const stop = (why: 'memory' | 'time') => {
      stopped ??= why;
      child.kill('SIGKILL');
    };
    const limitBytes = bounds.memoryMb * 1024 * 1024;
    const watch = setInterval(() => {
      const used = child.pid === undefined ? undefined : anonymousMemoryBytes(child.pid);
      if (used !== undefined && used > limitBytes) stop('memory');
    }, WATCH_EVERY_MS);
    const timer = setTimeout(() => stop('time'), bounds.timeoutMs);
    child.on('message', (message: ChildReply) => {
      reply = message;
      // Text recognition's threads would keep it alive: it has nothing more to say.
      child.kill('SIGKILL');
    });
    child.on('error', (error) => {
      // Could not start the process: a fault of this machine, not of the file.
      if (child.pid !== undefined) return;
      clearInterval(watch);
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    // 'close', not 'exit': by then its last words on stderr (a guardian's reason) have arrived.
    child.on('close', (code, signal) => {
      clearInterval(watch);
      clearTimeout(timer);
      children.delete(child);
      if (reply?.ok) resolve(reply.value as T);
      else if (reply) reject(new FileReadError(reply.failure, reply.message));
      else if (stopped === 'memory' || /heap limit|out of memory|guardian: over its memory/i.test(stderr)) reject(new FileReadError('file_too_complex', `reading took more than ${bounds.memoryMb} MB`));
      else if (stopped === 'time' || /guardian: past its time/.test(stderr)) reject(new FileReadError('file_too_complex', `reading took longer than ${bounds.timeoutMs} ms`));
      else reject(new FileReadError('file_unreadable', `the reader stopped (${signal ?? `exit ${code}`})`));
    });
    if (child.pid !== undefined) child.send(request);
  });
}

/**
 * The process's anonymous resident memory (its heap, typed arrays, WebAssembly
 * memory; not the shared code of node itself), as the kernel counts it. Undefined
 * where there is no /proc (not Linux) or the process is gone.
 */
function anonymousMemoryBytes(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const match = /^RssAnon:\s+(\d+) kB/m.exec(status) ?? /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** A counting semaphore: take() waits for a slot (or refuses when `maxWaiting` wait already) and gives its release. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async take(maxWaiting: number): Promise<() => void> {
    if (this.free > 0) this.free--;
    else if (this.waiting.length >= maxWaiting) throw new FileReaderBusyError();
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
