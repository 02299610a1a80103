/**
 * Real processes of the service (node src/main.ts, the CLI) for tests that need
 * what only a separate process shows: start-up, the data-directory lock, a kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { freshDatabase, storeUnderTest, type TestDatabase } from './stores.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const START_TIMEOUT_MS = 120_000;

/** Node's flags in `npm start` (package.json), so that a test's process runs as an operator's does. */
export const NPM_START_FLAGS: string[] = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

export interface Running {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const started: Running[] = [];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of the test run without anything that would point the child elsewhere. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PARLEY_|DATABASE_URL|REDIS_URL|PORT$|HOST$|SMTP_URL|OPENAI_|NODE_TEST)/.test(name)),
  );
  return { ...env, PARLEY_LOG_LEVEL: 'warn', ...extra };
}

/** Starts `node <command>` in the repository with a clean environment plus `env`. */
export async function run(command: string[], env: Record<string, string>, port = 0): Promise<Running> {
  storeUnderTest(); // a process of the service opens a store: refused in a file test/run.ts runs once
  const child = spawn(NODE, command, { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const running: Running = { child, port, url: `http://127.0.0.1:${port}`, output: () => text, exited };
  started.push(running);
  return running;
}

/** Starts `node src/main.ts` as `npm start` does (plus `nodeFlags`) and waits (bounded) until it listens, or for a worker-only process until it is up. */
export async function startMain(env: Record<string, string>, nodeFlags: string[] = []): Promise<Running> {
  const port = await freePort();
  const running = await run([...NPM_START_FLAGS, ...nodeFlags, 'src/main.ts'], { PORT: String(port), ...env }, port);
  await waitFor(running, env.PARLEY_ROLE === 'worker' ? /Parley worker/ : /listening on/, START_TIMEOUT_MS);
  return running;
}

export async function waitFor(running: Running, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void running.exited.then((code) => (exitCode = code));
  while (!pattern.test(running.output())) {
    if (exitCode !== undefined) throw new Error(`process exited (${exitCode}) before ${pattern}:\n${running.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGTERM, then SIGKILL when it has not stopped within 10 s. */
export async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const stopped = await bounded(running.exited, 10_000, 'stopping').then(
    () => true,
    () => false,
  );
  if (!stopped) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
}

/** Stops every process this test file started. */
export async function stopAll(): Promise<void> {
  for (const running of started) await stop(running);
}

export async function bounded<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${timeoutMs} ms`)), timeoutMs)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The word printed after `label` in a process's output. */
export function printed(output: string, label: RegExp): string | undefined {
  return output.match(new RegExp(`${label.source}\\s+(\\S+)`))?.[1];
}

export const MANAGE_KEY = /Manage key \(shown once\):/;
export const OPERATOR_TOKEN = /Operator token \(shown once\):/;

/** A started service's API address and a manage key for it. */
export interface ServiceApi {
  url: string;
  key: string;
}

/** A JSON call to a started service as `bearer` (a key or the admin token): the status and the parsed body. */
export async function callAs(url: string, method: string, route: string, bearer: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A call to a started service's public API: the reply's data, or an error naming the route and the reply. */
export async function callApi(api: ServiceApi, method: string, route: string, body?: unknown): Promise<any> {
  const reply = await callAs(api.url, method, `/api/v1${route}`, api.key, body);
  if (reply.status < 200 || reply.status >= 300) throw new Error(`${method} ${route}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/**
 * API processes' environment (PARLEY_ROLE=api) on a PostgreSQL database of their own and a data directory;
 * `close` stops every process started and drops both.
 */
export async function apiProcessesOnPostgres(adminToken: string): Promise<{ database: TestDatabase; env: Record<string, string>; close(): Promise<void> }> {
  const database = await freshDatabase('postgres');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-api-pg-'));
  return {
    database,
    env: {
      DATABASE_URL: database.url!,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      PARLEY_ROLE: 'api',
      PARLEY_DATA_DIR: dataDir,
      PARLEY_ADMIN_TOKEN: adminToken,
      PARLEY_RATE_LIMIT_PER_MINUTE: '100000',
    },
    close: async () => {
      await stopAll();
      await database.database.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A deployment whose background work can be killed mid-way: start it, SIGKILL the process doing that work, start one again. */
export interface KillableDeployment {
  start(env: Record<string, string>): Promise<ServiceApi>;
  /** SIGKILL the process doing the background work; the API it answers through afterwards (null: none until restarted). */
  killWorker(): Promise<ServiceApi | null>;
  restartWorker(): Promise<ServiceApi>;
}

/** PostgreSQL + Redis: an api process and a worker process on one database; the worker is the one killed. */
export function apiAndWorkerOn(databaseUrl: string, dataDir: string): KillableDeployment {
  let env: Record<string, string> = {};
  let api: ServiceApi;
  let worker: Running;
  return {
    async start(extra) {
      env = { ...extra, DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL!, PARLEY_DATA_DIR: dataDir };
      const server = await startMain({ ...env, PARLEY_ROLE: 'api' });
      await waitFor(server, /Try: curl/, 10_000);
      api = { url: server.url, key: printed(server.output(), MANAGE_KEY)! };
      worker = await startMain({ ...env, PARLEY_ROLE: 'worker' });
      return api;
    },
    async killWorker() {
      worker.child.kill('SIGKILL');
      await worker.exited;
      return api;
    },
    async restartWorker() {
      worker = await startMain({ ...env, PARLEY_ROLE: 'worker' });
      return api;
    },
  };
}

/** The embedded store: one process doing everything, killed and started again on the same data directory. */
export function oneEmbeddedProcess(dataDir: string): KillableDeployment {
  let env: Record<string, string> = {};
  let key = '';
  let service: Running;
  return {
    async start(extra) {
      env = { ...extra, PARLEY_DATA_DIR: dataDir };
      service = await startMain(env);
      await waitFor(service, /Try: curl/, 10_000);
      key = printed(service.output(), MANAGE_KEY)!;
      return { url: service.url, key };
    },
    async killWorker() {
      service.child.kill('SIGKILL');
      await service.exited;
      return null;
    },
    async restartWorker() {
      service = await startMain(env);
      return { url: service.url, key };
    },
  };
}

/** Reads until `done` holds of what was read, every 100 ms; past the deadline, fails naming what was awaited and the last value. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms, last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
