import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createContext, type Context } from '../../src/context.ts';
import { buildApp, type App } from '../../src/app.ts';
import { startWorkers } from '../../src/workers.ts';
import { freshDatabase, storeUnderTest } from './stores.ts';

export const ADMIN_TOKEN = 'pa_testtesttesttesttesttesttesttesttesttesttesttestte';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface Service {
  url: string;
  ctx: Context;
  app: App;
  /** The public API: path relative to /api/v1. */
  api<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** The operator API: path relative to /admin/v1. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** A new workspace with one key of each scope. */
  seedWorkspace(options?: { plan?: string; name?: string; hostname?: string }): Promise<SeededWorkspace>;
  close(): Promise<void>;
}

export interface SeededWorkspace {
  id: string;
  keys: { read: string; chat: string; manage: string };
  keyIds: { read: string; chat: string; manage: string };
  /** Another key; tied to an agent when agentId is given. */
  addKey(scope: 'read' | 'chat' | 'manage', agentId?: string): Promise<{ id: string; key: string }>;
}

export interface ServiceOptions {
  env?: Record<string, string>;
  /** Start the background workers in-process (default true). */
  workers?: boolean;
  /** Check every reply against its schema, as tests do (default true); benches measure what production runs. */
  checkResponses?: boolean;
}

/** The real app on the store under test, listening on a random local port, with the test clock on. */
export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-test-'));
  const testDb = await freshDatabase();
  const config: Config = {
    ...loadConfig({
      PARLEY_DATA_DIR: dataDir,
      PARLEY_ADMIN_TOKEN: ADMIN_TOKEN,
      PARLEY_TEST_CLOCK: '1',
      PARLEY_LOG_LEVEL: 'silent',
      // Every test calls the visitor API from 127.0.0.1: only the tests of its limits (factor 1) meet them.
      PARLEY_VISITOR_LIMIT_FACTOR: '1000',
      // A loaded CI machine (load 15 to 30) took longer than 60% of the 30 s bound to recognise a scanned page: the
      // reads stopped early and the tests of their text failed. The tests of the bound set their own.
      PARLEY_FILE_READ_TIMEOUT_MS: '120000',
      ...(storeUnderTest() === 'postgres' && testDb.url ? { DATABASE_URL: testDb.url } : {}),
      ...(storeUnderTest() === 'postgres' && process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
      // Test files run side by side on one Redis: each service counts its own windows (the keyless ones are all 127.0.0.1's).
      PARLEY_REDIS_KEY_PREFIX: `test-${path.basename(dataDir)}:`,
      ...options.env,
    }),
  };
  const ctx = await createContext(config, { database: testDb.database });
  if (options.workers !== false) await startWorkers(ctx);
  const app = await buildApp(ctx, { logger: false, checkResponses: options.checkResponses ?? true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // The service's own origin (its pages call the visitor API from it) is where it listens, unless a test names one.
  if (options.env?.PARLEY_PUBLIC_URL === undefined) config.publicUrl = url;

  const call = async (method: string, fullPath: string, options: RequestOptions & { bearer?: string } = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${url}${fullPath}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: left as text for the test to inspect
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };

  const service: Service = {
    url,
    ctx,
    app,
    api: (method, p, options = {}) => call(method, `/api/v1${p}`, { ...options, bearer: options.key }),
    admin: (method, p, body) => call(method, `/admin/v1${p}`, { bearer: ADMIN_TOKEN, body }),
    seedWorkspace: async (seed = {}) => {
      const created = await service.admin('POST', '/workspaces', { name: seed.name ?? 'Test workspace', plan: seed.plan ?? 'studio', hostname: seed.hostname, ownerEmail: 'owner@example.com' });
      if (created.status !== 201) throw new Error(`seeding failed: ${JSON.stringify(created.body)}`);
      const id = created.body.data.id as string;
      const addKey = async (scope: 'read' | 'chat' | 'manage', agentId?: string) => {
        const reply = await service.admin('POST', `/workspaces/${id}/keys`, { name: `${scope} key`, scope, agentId });
        if (reply.status !== 201) throw new Error(`key failed: ${JSON.stringify(reply.body)}`);
        return { id: reply.body.data.id as string, key: reply.body.data.key as string };
      };
      const [read, chat, manage] = [await addKey('read'), await addKey('chat'), await addKey('manage')];
      return {
        id,
        keys: { read: read.key, chat: chat.key, manage: manage.key },
        keyIds: { read: read.id, chat: chat.id, manage: manage.id },
        addKey,
      };
    },
    close: async () => {
      // A reply whose body the test never read (a PDF, an image: more than the socket's buffers) keeps its
      // connection busy until the client's response object is garbage-collected, and app.close() waits for
      // it: up to a minute and a half. The test is over; its connections go with it.
      app.server.closeAllConnections();
      await app.close();
      await ctx.close();
      await testDb.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/**
 * Moves the service's test clock to the start of the next window (a rate limit's minute,
 * or the clock hour mails to one address are counted in), so a test's counts are not
 * split by the window's end, whatever the hour the suite runs at.
 */
export async function clockToStartOfNext(service: Service, windowMs: number): Promise<void> {
  const now = Date.parse((await service.admin('GET', '/clock')).body.data.now);
  const moved = await service.admin('POST', '/clock', { now: new Date(Math.ceil((now + 1) / windowMs) * windowMs).toISOString() });
  if (moved.status !== 200) throw new Error(`the test clock did not move: ${moved.status}`);
}
