import { isEmbeddedHandle } from './db.ts';

/**
 * Statements in groups, one for many callers: group commit in the process. While one group is being run, the items
 * submitted meanwhile wait and go together as the next group (one statement, and for writes one commit, for all of
 * them, where each alone would run on its own). An item submitted when nothing is running goes at once, alone: an
 * idle process adds no wait. Each submitter's promise settles when its group has run (committed, for writes), with
 * its own item's result. Used for the answers' writes (recording, charge) and their reads (the question's parse, the
 * passages' texts, a follow-up's conversation).
 *
 * A group the database refused (an error with a SQLSTATE: nothing of it was committed) is run again item by item,
 * in the order submitted, so the item at fault fails alone. Any other error (the connection lost, possibly after the
 * commit) fails the whole group: running it again could write it twice.
 *
 * `gatherTurn` (the embedded store): PGlite runs a statement synchronously, in the process's one thread, so no
 * other request moves while a group runs and the groups above would all be of one. There the first item waits for
 * the end of the event loop's turn (setImmediate): the answers whose requests the same turn read, each run to its
 * statement, go together. An idle process waits for nothing (the turn's end comes at once).
 */
export class StatementGroups<Item, Result> {
  private readonly waiting: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private running = false;
  private readonly runGroup: (items: Item[]) => Promise<Result[]>;
  private readonly maxGroup: number;
  private readonly gatherTurn: boolean;

  constructor(runGroup: (items: Item[]) => Promise<Result[]>, maxGroup = 64, options: { gatherTurn?: boolean } = {}) {
    this.runGroup = runGroup;
    this.maxGroup = maxGroup;
    this.gatherTurn = options.gatherTurn ?? false;
  }

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.running) return;
      this.running = true;
      if (this.gatherTurn) setImmediate(() => void this.drain());
      else void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) await this.settle(this.waiting.splice(0, this.maxGroup));
    } finally {
      this.running = false;
    }
  }

  private async settle(group: typeof this.waiting): Promise<void> {
    try {
      const results = await this.runGroup(group.map((waiting) => waiting.item));
      group.forEach((waiting, i) => waiting.resolve(results[i]));
    } catch (error) {
      if (group.length === 1 || !refusedByDatabase(error)) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      for (const waiting of group) await this.settle([waiting]);
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
 * One StatementGroups per database handle (a process's pool, or the embedded store), made at first use; on the
 * embedded store's handle it gathers each event-loop turn's items (`gatherTurn`).
 */
export function statementGroupsOf<Key extends object, Item, Result>(
  groups: WeakMap<Key, StatementGroups<Item, Result>>,
  key: Key,
  runGroup: (items: Item[]) => Promise<Result[]>,
): StatementGroups<Item, Result> {
  let found = groups.get(key);
  if (!found) {
    found = new StatementGroups(runGroup, undefined, { gatherTurn: isEmbeddedHandle(key) });
    groups.set(key, found);
  }
  return found;
}
