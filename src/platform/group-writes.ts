import { isEmbeddedHandle } from './db.ts';

/**
 * Group commit in the process: while one batch of writes is being written, the writes submitted meanwhile wait and
 * go together as the next batch (one statement and one commit for all of them, where each alone would commit on its
 * own). A write submitted when nothing is being written goes at once, alone: an idle process adds no wait. Each
 * submitter's promise settles when its batch has committed, with its own item's result.
 *
 * A batch the database refused (an error with a SQLSTATE: nothing of it was committed) is written again item by item,
 * in the order submitted, so the item at fault fails alone. Any other error (the connection lost, possibly after the
 * commit) fails the whole batch: writing it again could write it twice.
 *
 * `gatherTurn` (the embedded store): PGlite runs a statement synchronously, in the process's one thread, so no
 * other request moves while a batch is written and the batches above would all be of one. There the first write
 * waits for the end of the event loop's turn (setImmediate): the answers whose requests the same turn read, each
 * run to its write, go together. An idle process waits for nothing (the turn's end comes at once).
 */
export class GroupWriter<Item, Result> {
  private readonly waiting: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private writing = false;
  private readonly writeBatch: (items: Item[]) => Promise<Result[]>;
  private readonly maxBatch: number;
  private readonly gatherTurn: boolean;

  constructor(writeBatch: (items: Item[]) => Promise<Result[]>, maxBatch = 64, options: { gatherTurn?: boolean } = {}) {
    this.writeBatch = writeBatch;
    this.maxBatch = maxBatch;
    this.gatherTurn = options.gatherTurn ?? false;
  }

  write(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      if (this.gatherTurn) setImmediate(() => void this.drain());
      else void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) await this.settle(this.waiting.splice(0, this.maxBatch));
    } finally {
      this.writing = false;
    }
  }

  private async settle(batch: typeof this.waiting): Promise<void> {
    try {
      const results = await this.writeBatch(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1 || !refusedByDatabase(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) await this.settle([waiting]);
    }
  }
}

/**
 * An error the server reported for the statement (a SQLSTATE, five characters with a digit; the system's errors
 * such as EPIPE have none): the statement's transaction was rolled back.
 */
function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && /[0-9]/.test(code);
}

/**
 * One group writer per database handle (a process's pool, or the embedded store), made at first use; on the
 * embedded store's handle it gathers each event-loop turn's writes (`gatherTurn`).
 */
export function groupWriterOf<Key extends object, Item, Result>(
  writers: WeakMap<Key, GroupWriter<Item, Result>>,
  key: Key,
  writeBatch: (items: Item[]) => Promise<Result[]>,
): GroupWriter<Item, Result> {
  let writer = writers.get(key);
  if (!writer) {
    writer = new GroupWriter(writeBatch, undefined, { gatherTurn: isEmbeddedHandle(key) });
    writers.set(key, writer);
  }
  return writer;
}
