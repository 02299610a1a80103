import { Redis } from 'ioredis';

/**
 * How one kind of call (a rate-limit count, a version read) is served in
 * bulk: sends the commands for the items gathered in one turn and resolves to
 * one result per item, in order.
 */
export type ServeBatch<Item, Result> = (client: Redis, items: Item[]) => Promise<Result[]>;

/** The service's Redis connection. */
export interface SharedRedis {
  client: Redis;
  /**
   * A function served in bulk: its calls made during one turn of the event
   * loop are served together, and with every other batch's in one write,
   * once the turn's I/O callbacks have run (setImmediate), so requests that
   * arrive together share one round trip. A turn is sent without waiting for
   * an earlier turn's replies. A call's commands are sent after the call, so
   * it sees every write to Redis completed before it was made.
   */
  batch<Item, Result>(serve: ServeBatch<Item, Result>): (item: Item) => Promise<Result>;
  close(): Promise<void>;
}

interface Call<Result> {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

interface Gathered<Item, Result> {
  serve: ServeBatch<Item, Result>;
  items: Item[];
  calls: Array<Call<Result>>;
}

export function connectRedis(url: string, keyPrefix = ''): SharedRedis {
  const client = new Redis(url, { maxRetriesPerRequest: 2, keyPrefix });
  // Without a listener ioredis reports "Unhandled error event" on every reconnect attempt; the
  // commands themselves fail and are reported by their callers (GET /health says 503 meanwhile).
  let reported = false;
  client.on('error', (error: Error) => {
    if (!reported) console.error('[redis]', error.message);
    reported = true;
  });
  client.on('ready', () => {
    reported = false;
  });
  let turn: Array<Gathered<any, any>> | undefined;

  // The socket is corked while the turn's commands are issued: they leave in one write.
  const send = () => {
    const batches = turn!;
    turn = undefined;
    const socket = client.stream;
    socket?.cork();
    try {
      for (const gathered of batches) void serveBatch(client, gathered);
    } finally {
      socket?.uncork();
    }
  };

  return {
    client,
    batch<Item, Result>(serve: ServeBatch<Item, Result>) {
      let gathered: Gathered<Item, Result> | undefined;
      return (item: Item) =>
        new Promise<Result>((resolve, reject) => {
          if (!turn) {
            turn = [];
            setImmediate(send);
          }
          if (!gathered || !turn.includes(gathered)) {
            gathered = { serve, items: [], calls: [] };
            turn.push(gathered);
          }
          gathered.items.push(item);
          gathered.calls.push({ resolve, reject });
        });
    },
    close: async () => void (await client.quit().catch(() => {})),
  };
}

async function serveBatch<Item, Result>(client: Redis, gathered: Gathered<Item, Result>): Promise<void> {
  try {
    const results = await gathered.serve(client, gathered.items);
    gathered.calls.forEach((call, i) => call.resolve(results[i]!));
  } catch (error) {
    for (const call of gathered.calls) call.reject(error);
  }
}
