import { Redis, type ChainableCommander } from 'ioredis';

/**
 * How one kind of call (a rate-limit count, a version read) is served in bulk:
 * adds the commands for the items gathered in one turn to the turn's
 * pipeline, and says how many it added and how to read one result per item,
 * in order, from their replies.
 */
export type BatchCommands<Item, Result> = (pipeline: ChainableCommander, items: Item[]) => BatchReplies<Result>;

export interface BatchReplies<Result> {
  commands: number;
  read(replies: unknown[]): Result[] | Promise<Result[]>;
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
  replies?: BatchReplies<Result>;
}

export function connectRedis(url: string): SharedRedis {
  const client = new Redis(url, { maxRetriesPerRequest: 2 });
  let turn: Array<Gathered<any, any>> | undefined;

  const send = () => {
    const batches = turn!;
    turn = undefined;
    const pipeline = client.pipeline();
    for (const gathered of batches) gathered.replies = gathered.commands(pipeline, gathered.items);
    pipeline.exec().then(
      (replies) => {
        let at = 0;
        for (const gathered of batches) settle(gathered, replies!.slice(at, (at += gathered.replies!.commands)));
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
    const results = await gathered.replies!.read(replies.map(([, value]) => value));
    gathered.calls.forEach((call, i) => call.resolve(results[i]!));
  } catch (error) {
    fail(gathered, error);
  }
}

function fail<Item, Result>(gathered: Gathered<Item, Result>, error: unknown): void {
  for (const call of gathered.calls) call.reject(error);
}
