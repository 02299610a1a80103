import type { PGlite, Results } from '@electric-sql/pglite';
import { unpackEmptyCluster } from './empty-cluster.ts';
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  PostgresDialect,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import pg from 'pg';
import { createHash } from 'node:crypto';

/**
 * Every module adds its tables to this interface by declaration merging
 * (`declare module '../../platform/db.ts' { interface Tables { ... } }`), so the
 * query layer is typed without one file that every area must edit.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Tables {}

export type Db = Kysely<Tables>;

/** The embedded store's query handles (one process, one connection: platform/grouped-statements.ts gathers its writes by turn). */
const embeddedHandles = new WeakSet<object>();
export function isEmbeddedHandle(handle: object): boolean {
  return embeddedHandles.has(handle);
}

/** The narrow interface the rest of the service needs from a database. */
export interface Database {
  readonly kind: 'embedded' | 'postgres';
  readonly db: Db;
  /** Raw SQL with positional parameters; used by migrations and the job queue. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
  /** Several statements in one string, no parameters (migration files). */
  exec(text: string): Promise<void>;
  /** Runs work on one connection held throughout (session advisory locks need that). */
  session<T>(work: (session: Pick<Database, 'executeSql' | 'exec'>) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel, for the job queue to wake its workers the moment a job is sent
   * (platform/queue.ts). `onReconnect` runs after each (re)subscription: what was sent
   * while it was away is fetched then. PostgreSQL: a connection of its own; embedded: the one connection.
   */
  listen(channel: string, onNotification: (payload: string) => void, onReconnect: () => void): Promise<{ close(): Promise<void> }>;
  close(): Promise<void>;
}

// node-postgres returns int8 and numeric as strings; counts and sizes here fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * The rows of a query's result. Text without parameters may hold several
 * statements (the job queue sends such transactions); both drivers then give a
 * result per statement, and the rows of all of them are returned, as the job
 * queue expects.
 */
function rowsOf(result: { rows: any[] } | Array<{ rows: any[] }>): any[] {
  return Array.isArray(result) ? result.flatMap((each) => each.rows ?? []) : result.rows;
}

/**
 * Set on every session: an HNSW search filtered by agent keeps scanning until it has
 * its rows (pgvector's iterative scans); without it a filter can leave fewer than
 * asked (pgvector 0.8 and later). Setting it once per session spares each vector
 * search a transaction; it also means a pooler in transaction mode (PgBouncer) between
 * Parley and PostgreSQL would lose it: connect directly or in session mode.
 */
const SESSION_SETTINGS = `set hnsw.iterative_scan = 'relaxed_order'`;
/**
 * On PostgreSQL only: an agent's day of analytics is added to in one of 16 rows chosen per transaction
 * (migrations/050), so that answers committing at once do not wait for each other's row; the embedded
 * store's one connection runs one transaction at a time and keeps one row a day.
 */
const POSTGRES_SESSION_SETTINGS = `set parley.analytics_slots = 16`;

/**
 * The texts of the statements sent as named (prepared) statements, by text:
 * their names. Filled by `prepared` for the statements every answer sends; bounded, so a
 * caller that builds texts with varying parts cannot grow it (nor the server's memory).
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 200;

/**
 * The embedded store's names for the statements sent through `executeSql` without parameters that are one statement
 * (no ';' anywhere in the text, so none holds several). The job queue's polls are the reason: pg-boss sends each
 * queue's with a constant text, a few times a second whatever the load (about 1 ms of PGlite's time each when parsed
 * and planned every time); a few other constant reads (the index's row estimate) are named too. Bounded apart from
 * `prepared`'s names: texts with varying parts take no more than this budget, and the rest run unnamed.
 */
const parameterlessStatementNames = new Map<string, string>();
const MAX_PARAMETERLESS_STATEMENTS = 64;

function parameterlessStatementName(text: string): string | undefined {
  const known = parameterlessStatementNames.get(text);
  if (known !== undefined || text.includes(';') || parameterlessStatementNames.size >= MAX_PARAMETERLESS_STATEMENTS) return known;
  const name = `parley_q_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
  parameterlessStatementNames.set(text, name);
  return name;
}

/**
 * Runs a statement that is sent often as a named statement, parsed and planned once per
 * connection (the plan kept while the server finds it no worse than one made for the
 * values): on PostgreSQL by PreparingClient, on the embedded store by PgliteConnection.
 */
export async function prepared<R>(db: Db, query: { compile(db: Db): CompiledQuery<R> }): Promise<QueryResult<R>> {
  const compiled = query.compile(db);
  if (!preparedNames.has(compiled.sql) && preparedNames.size < MAX_PREPARED) {
    preparedNames.set(compiled.sql, `parley_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 16)}`);
  }
  return db.executeQuery(compiled);
}

/**
 * PostgreSQL's refusal to run a kept plan whose result columns changed (a table read with
 * `*` altered meanwhile), told by the server function that raises it (the message may be
 * translated): nothing ran, and the statement parsed again under a new name runs.
 */
function isCachedPlanChanged(error: unknown): boolean {
  return (error as { code?: string }).code === '0A000' && (error as { routine?: string }).routine === 'RevalidateCachedQuery';
}

/**
 * A connection's names for the statements of `prepared`: the base name, and after each refusal of a kept plan whose
 * result columns changed (isCachedPlanChanged) a new one, as the old may not be closed inside a refused transaction.
 */
class StatementNames {
  private readonly renamed = new Map<string, number>();

  of(text: string, base: string): string {
    const generation = this.renamed.get(text);
    return generation === undefined ? base : `${base}_${generation}`;
  }

  giveUp(text: string): void {
    this.renamed.set(text, (this.renamed.get(text) ?? 0) + 1);
  }
}

/**
 * A pg client that sends the statements `prepared` registered as named statements. A name
 * whose result columns changed (isCachedPlanChanged) is given up on this connection for a
 * new one, and the statement sent again at once when it was not in a transaction.
 */
class PreparingClient extends pg.Client {
  private readonly names = new StatementNames();

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg emits 'error' when the connection is lost, and the pool listens only while the
    // client is idle: lost while handed out (a statement running, a transaction open),
    // the event would have no listener and end the process. The statements on it fail
    // with the error, and the pool drops it when it is released.
    this.on('error', () => {});
  }

  // pg's overloads: only the (text, values) form that Kysely and executeSql use is changed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    const base = typeof config === 'string' && typeof values !== 'function' && callback === undefined ? preparedNames.get(config) : undefined;
    if (base === undefined) return super.query(config, values, callback);
    return this.queryNamed(config, base, values);
  }

  private async queryNamed(text: string, base: string, values: unknown[] | undefined): Promise<pg.QueryResult> {
    const idle = this.getTransactionStatus() === 'I';
    try {
      return await super.query({ name: this.names.of(text, base), text, values });
    } catch (error) {
      if (!isCachedPlanChanged(error)) throw error;
      this.names.giveUp(text);
      if (!idle) throw error;
      return super.query({ name: this.names.of(text, base), text, values });
    }
  }
}

export async function openPostgres(connectionString: string, maxConnections = 10): Promise<Database> {
  // onConnect is awaited before a new connection is handed out; if it fails, the query that asked for the connection fails.
  const pool = new pg.Pool({
    connectionString,
    max: maxConnections,
    Client: PreparingClient,
    onConnect: async (client) => void (await client.query(`${SESSION_SETTINGS}; ${POSTGRES_SESSION_SETTINGS}`)),
  });
  pool.on('error', () => {}); // an idle client's error must not take the process down; the next query reports it
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const executeSql: Database['executeSql'] = async (text, values) => ({ rows: rowsOf(await pool.query(text, values as unknown[])) });
  const exec: Database['exec'] = async (text) => void (await pool.query(text));
  return {
    kind: 'postgres',
    db,
    executeSql,
    exec,
    session: async (work) => {
      const client = await pool.connect();
      try {
        return await work({
          executeSql: async (text, values) => ({ rows: rowsOf(await client.query(text, values as unknown[])) }),
          exec: async (text) => void (await client.query(text)),
        });
      } finally {
        client.release();
      }
    },
    listen: (channel, onNotification, onReconnect) => listenOnPostgres(connectionString, channel, onNotification, onReconnect),
    close: async () => {
      await db.destroy();
      // Kysely ends the pool only if it opened a connection itself; raw statements used the pool directly.
      if (!pool.ended) await pool.end();
    },
  };
}

/**
 * A LISTEN on a connection of its own (a pooled one would go back to the pool), made
 * again a second after it is lost, for as long as it is not closed.
 */
async function listenOnPostgres(connectionString: string, channel: string, onNotification: (payload: string) => void, onReconnect: () => void): Promise<{ close(): Promise<void> }> {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connectOnce = async (): Promise<void> => {
    const next = new pg.Client({ connectionString });
    const lost = () => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void connectOnce().catch(() => lost()), 1000).unref();
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (message) => {
      if (message.channel === channel) onNotification(message.payload ?? '');
    });
    client = next;
    await next.connect();
    await next.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    onReconnect();
  };
  await connectOnce();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}

/**
 * PGlite's memory is the process's own: its defaults (shared_buffers 128 MB, wal_buffers
 * a 32nd of that) cost some 150 MB resident before a query. The embedded store serves
 * small agents whose tables fit a smaller cache; the operating system's file cache is
 * behind it. maintenance_work_mem stays at its default (64 MB): it is taken only while
 * an index is built, and an HNSW build that outgrows it gets much slower (docs/performance.md, Memory).
 */
const EMBEDDED_MEMORY_SETTINGS = ['-c', 'shared_buffers=16MB', '-c', 'wal_buffers=1MB', '-c', 'temp_buffers=4MB'];

/**
 * PGlite is one connection in one process. Every statement, and every
 * transaction as a whole, takes the connection through one queue so that a
 * transaction never interleaves with statements of other requests.
 */
export async function openEmbedded(dataDir: string | undefined, options: { loadDataDir?: Blob } = {}): Promise<Database & { pglite: PGlite }> {
  // A new data directory gets the saved empty cluster instead of initdb's memory peak (src/platform/empty-cluster.ts).
  if (dataDir && !options.loadDataDir) await unpackEmptyCluster(dataDir);
  // Imported here: a process on PostgreSQL never loads PGlite (docs/performance.md, Memory).
  const [{ PGlite, protocol, parse }, { vector }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-pgvector')]);
  const pglite = await PGlite.create({
    dataDir,
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_MEMORY_SETTINGS],
    loadDataDir: options.loadDataDir,
    extensions: { vector },
    // PGlite parses int8 to a JS number only when asked; keep both stores alike.
    parsers: { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) },
  });
  await pglite.exec(SESSION_SETTINGS);
  const lock = new ConnectionLock();
  const connection = new PgliteConnection(pglite, { serialize: protocol.serialize, parseResults: parse.parseResults });
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => {
      await lock.acquire();
      return connection;
    },
    beginTransaction: async (conn) => {
      await conn.executeQuery(CompiledQuery.raw('begin'));
    },
    commitTransaction: async (conn) => {
      await conn.executeQuery(CompiledQuery.raw('commit'));
    },
    rollbackTransaction: async (conn) => {
      await conn.executeQuery(CompiledQuery.raw('rollback'));
    },
    releaseConnection: async () => lock.release(),
    destroy: async () => {},
  };
  const db = new Kysely<Tables>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  embeddedHandles.add(db);
  const withLock = async <T>(work: () => Promise<T>): Promise<T> => {
    await lock.acquire();
    try {
      return await work();
    } finally {
      lock.release();
    }
  };
  const executeSql: Database['executeSql'] = (text, values) =>
    withLock(async () => {
      if (values && values.length > 0) return { rows: (await pglite.query(text, values as any[])).rows as any[] };
      // The job queue's polls (a few a second per queue, idle or not; constant texts, one statement without ';'):
      // named statements, parsed and planned once (docs/performance.md, "Capacity", tenth round).
      const name = parameterlessStatementName(text);
      if (name) return { rows: (await connection.executeNamed(text, name, [])).rows as any[] };
      // Without parameters the text may hold several statements, which the extended protocol refuses.
      return { rows: rowsOf(await pglite.exec(text)) };
    });
  const exec: Database['exec'] = (text) => withLock(async () => void (await pglite.exec(text)));
  return {
    kind: 'embedded',
    db,
    pglite,
    executeSql,
    exec,
    // One connection only: every statement is already on the same session.
    session: (work) => work({ executeSql, exec }),
    // LISTEN on the one connection, between statements (inside another's transaction a rollback would undo it).
    listen: async (channel, onNotification, onReconnect) => {
      const unlisten = await withLock(() => pglite.listen(channel, onNotification));
      onReconnect();
      return { close: () => withLock(() => unlisten()) };
    },
    close: async () => {
      await withLock(async () => pglite.close());
    },
  };
}

class PgliteConnection implements DatabaseConnection {
  private readonly pglite: PGlite;
  private readonly wire: Wire;
  /** The statements `prepared` named, parsed once on the one session: each one's name and parameters' types. */
  private readonly parsed = new Map<string, { name: string; parameterTypes: number[] }>();
  private readonly names = new StatementNames();

  constructor(pglite: PGlite, wire: Wire) {
    this.pglite = pglite;
    this.wire = wire;
  }

  /** A statement without parameters (`executeSql`'s) as a named statement. */
  executeNamed<R>(text: string, name: string, values: readonly unknown[]): Promise<Results<R>> {
    return this.queryNamed<R>(text, name, values);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const name = preparedNames.get(query.sql);
    const result =
      name === undefined
        ? await this.pglite.query<R>(query.sql, query.parameters as unknown[])
        : await this.queryNamed<R>(query.sql, name, query.parameters as unknown[]);
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on the embedded database');
  }

  /**
   * A named statement, as on PostgreSQL: parsed, analysed and (with a generic plan) planned once, then each
   * run is one call into the database with its bind, execute and sync, where `query` makes six calls and parses
   * the text every time (docs/performance.md, "Chat", run 8). A kept plan whose result columns changed is parsed
   * again under a new name, at once outside a transaction, as PreparingClient does.
   */
  private async queryNamed<R>(text: string, base: string, values: readonly unknown[]): Promise<Results<R>> {
    try {
      return await this.runNamed<R>(this.parsed.get(text) ?? (await this.parse(text, base)), values);
    } catch (error) {
      if (!isCachedPlanChanged(error)) throw error;
      this.names.giveUp(text);
      this.parsed.delete(text);
      if (this.pglite.isInTransaction()) throw error;
      return this.runNamed<R>(await this.parse(text, base), values);
    }
  }

  private async parse(text: string, base: string): Promise<{ name: string; parameterTypes: number[] }> {
    const name = this.names.of(text, base);
    const { messages } = await this.pglite.runExclusive(() =>
      this.pglite.execProtocol(concat(this.wire.serialize.parse({ name, text, types: [] }), this.wire.serialize.describe({ type: 'S', name }), this.wire.serialize.sync())),
    );
    const description = messages.find((message) => message.name === 'parameterDescription') as { dataTypeIDs: number[] } | undefined;
    const statement = { name, parameterTypes: description?.dataTypeIDs ?? [] };
    this.parsed.set(text, statement);
    return statement;
  }

  private async runNamed<R>(statement: { name: string; parameterTypes: number[] }, values: readonly unknown[]): Promise<Results<R>> {
    // As PGlite's own query serialises a parameter: by its type's serializer, else as text.
    const serialized = values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.pglite.serializers[statement.parameterTypes[i]];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await this.pglite.runExclusive(() =>
      this.pglite.execProtocol(
        concat(
          this.wire.serialize.bind({ statement: statement.name, values: serialized }),
          this.wire.serialize.describe({ type: 'P' }),
          this.wire.serialize.execute({}),
          this.wire.serialize.sync(),
        ),
      ),
    );
    return this.wire.parseResults(messages, this.pglite.parsers)[0] as Results<R>;
  }
}

/** PGlite's protocol writer and result reader, from its module (imported only by a process on the embedded store). */
interface Wire {
  serialize: typeof import('@electric-sql/pglite').protocol.serialize;
  parseResults: typeof import('@electric-sql/pglite').parse.parseResults;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/** A FIFO mutex: callers get the connection in the order they asked for it. */
class ConnectionLock {
  private held = false;
  private readonly waiting: Array<() => void> = [];
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/** PostgreSQL's unique_violation, as both drivers report it: the losing side of two writes racing for one value. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
