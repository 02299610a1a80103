import { Redis, type ChainableCommander } from 'ioredis';

/**
 * How one kind of call (a rate-limit count, a version read) is served in bulk:
 * the commands for the items gathered in one turn, and one result per item,
 * in order, from their replies.
 */
export interface BatchCommands<Item, Result> {
  /** Adds the commands for these items to the turn's pipeline; returns how many it added. */
  write(pipeline: ChainableCommander, items: Item[]): number;
  read(replies: unknown[], items: Item[]): Result[] | Promise<Result[]>;
}

/** The service's Redis connection. */
export interface SharedRedis {
  client: Redis;
  /**
   * A function served in bulk: its calls made during one turn of the event
   * loop, and those of every other batch, leave in one write once the turn's
   * I/O callbacks have run (setImmediate), so requests that arrive together
   * share one round trip. A turn never waits for an earlier turn's replies
   * (ioredis' auto-pipelining keeps one batch in flight at a time, and
   * requests queue behind it). Every call waits for replies to commands sent
   * after it was made.
   */
  batch<Item, Result>(commands: BatchCommands<Item, Result>): (item: Item) => Promise<Result>;
  close(): Promise<void>;
}

interface Call<Result> {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

interface Gathered<Item, Result> {
  commands: BatchCommands<Item, Result>;
  items: Item[];
  calls: Array<Call<Result>>;
}

export function connectRedis(url: string): SharedRedis {
  const client = new Redis(url, { maxRetriesPerRequest: 2 });
  let turn: Array<Gathered<any, any>> | undefined;

  const send = () => {
    const batches = turn!;
    turn = undefined;
    const pipeline = client.pipeline();
    const sizes = batches.map((gathered) => gathered.commands.write(pipeline, gathered.items));
    pipeline.exec().then(
      (replies) => {
        let at = 0;
        batches.forEach((gathered, i) => settle(gathered, replies!.slice(at, (at += sizes[i]!))));
      },
      (error: unknown) => batches.forEach((gathered) => fail(gathered, error)),
    );
  };

  return {
    client,
    batch<Item, Result>(commands: BatchCommands<Item, Result>) {
      let gathered: Gathered<Item, Result> | undefined;
      return (item: Item) =>
        new Promise<Result>((resolve, reject) => {
          if (!turn) {
            turn = [];
            setImmediate(send);
          }
          if (!gathered || !turn.includes(gathered)) {
            gathered = { commands, items: [], calls: [] };
            turn.push(gathered);
          }
          gathered.items.push(item);
          gathered.calls.push({ resolve, reject });
        });
    },
    close: async () => void (await client.quit().catch(() => {})),
  };
}

async function settle<Item, Result>(gathered: Gathered<Item, Result>, replies: Array<[Error | null, unknown]>): Promise<void> {
  try {
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
    const results = await gathered.commands.read(
      replies.map(([, value]) => value),
      gathered.items,
    );
    gathered.calls.forEach((call, i) => call.resolve(results[i]!));
  } catch (error) {
    fail(gathered, error);
  }
}

function fail(gathered: Gathered<unknown, unknown>, error: unknown): void {
  for (const call of gathered.calls) call.reject(error);
}
