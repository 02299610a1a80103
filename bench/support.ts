import { randomBytes } from 'node:crypto';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

const execFileAsync = promisify(execFile);

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export interface LoadOptions {
  headers?: Record<string, string>;
  seconds?: number;
  connections?: number;
}

/** A load generator run from this process against a server in another. */
export type LoadGenerator = (url: string, options?: LoadOptions) => Promise<LoadResult>;

/** Requests per second and latency over `seconds`, with autocannon (Node, in this process). */
export const load: LoadGenerator = async (url, options = {}) => {
  const result = await autocannon({ url, headers: options.headers, duration: options.seconds ?? 5, connections: options.connections ?? 20, pipelining: 1 });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
};

/**
 * The same with wrk (Debian's package, written in C, one thread): it needs a
 * fraction of autocannon's CPU, which on a small machine otherwise competes
 * with the service and the servers it depends on. Undefined when wrk is not
 * installed.
 */
export function wrkLoadGenerator(): LoadGenerator | undefined {
  if (spawnSync('wrk', ['--version']).error) return undefined;
  return async (url, options = {}) => {
    const headers = Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const args = ['-t1', `-c${options.connections ?? 20}`, `-d${options.seconds ?? 5}s`, '--latency', ...headers, url];
    const { stdout } = await execFileAsync('wrk', args);
    const figure = (pattern: RegExp) => Number(stdout.match(pattern)?.[1] ?? Number.NaN);
    return {
      rps: figure(/Requests\/sec:\s+([\d.]+)/),
      p50: millisecondsOf(stdout.match(/^\s+50%\s+(\S+)/m)?.[1]),
      p99: millisecondsOf(stdout.match(/^\s+99%\s+(\S+)/m)?.[1]),
      non2xx: stdout.includes('Non-2xx') ? figure(/Non-2xx or 3xx responses:\s+(\d+)/) : 0,
    };
  };
}

/** wrk prints latencies as 812.00us, 1.25ms or 1.02s. */
function millisecondsOf(text: string | undefined): number {
  const match = text?.match(/^([\d.]+)(us|ms|s)$/);
  if (!match) return Number.NaN;
  const scale = { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'];
  return Math.round(Number(match[1]) * scale * 100) / 100;
}

/**
 * CPU time (user and system, in µs) that a process's main thread (its event
 * loop) has used so far, from /proc; undefined where there is none.
 */
export function eventLoopCpuMicros(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU time (user and system, in µs) of a whole process, all its threads (garbage collection, the embedded database's work), from /proc. */
export function processCpuMicros(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (µs) of each process whose command line holds `marker`, by pid: on a local
 * PostgreSQL server, the backends serving one database (their title names it).
 */
export function processesCpu(marker: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(marker)) continue;
      const micros = processCpuMicros(Number(entry));
      if (micros !== undefined) cpu.set(Number(entry), micros);
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** The CPU (µs) processesCpu's processes used between two readings (a process gone meanwhile is not counted; one new, from its start). */
export function processesCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
  return total;
}

/** The machine's CPU time so far, every core (µs): busy (neither idle nor waiting on I/O) and in all, from /proc/stat. */
export function machineCpuMicros(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, ticks) => sum + ticks, 0);
  const idle = fields[3]! + fields[4]!;
  return { busy: ((total - idle) * 1_000_000) / CLOCK_TICKS_PER_SECOND, total: (total * 1_000_000) / CLOCK_TICKS_PER_SECOND };
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString()) || 100;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Node's flags in `npm start` (a checkout's package.json, this one's by default): the benches run the service as an
 * operator does, and a version compared against runs with its own flags (BENCH_NODE_FLAGS replaces both, to compare).
 */
export function npmStartFlags(cwd = '.'): string[] {
  const start = (JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return (process.env.BENCH_NODE_FLAGS ?? start).split(/\s+/).filter((word) => word.startsWith('--'));
}

export const NPM_START_FLAGS: string[] = npmStartFlags();

export interface RunningService {
  url: string;
  manageKey: string;
  /** The one-time sign-in link to the dashboard the first start prints (for Demo's owner). */
  signInLink: Promise<string>;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `npm start`'s entry point as its own process on a fresh data directory and reads the first-start key from its
 * output; `cwd`: another checkout's code (a bench comparing two versions), this one's by default.
 */
export async function startParley(env: Record<string, string> = {}, cwd?: string): Promise<RunningService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...npmStartFlags(cwd), 'src/main.ts'], {
    cwd,
    env: { ...process.env, PORT: String(port), PARLEY_DATA_DIR: dataDir, PARLEY_LOG_LEVEL: 'warn', PARLEY_RATE_LIMIT_PER_MINUTE: '100000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const signInLink = new Promise<string>((resolve) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk;
      const link = seen.match(/Sign-in link[^:]*:\s+(\S+)/)?.[1];
      if (!link) return;
      child.stdout!.off('data', look);
      resolve(link);
    };
    child.stdout!.on('data', look);
  });
  const manageKey = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Parley did not start: ${output}`)), 180_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const key = output.match(/Manage key[^:]*:\s+(cl_\w+)/)?.[1];
      if (key) {
        clearTimeout(timer);
        resolve(key);
      }
    });
    child.on('exit', (code) => reject(new Error(`Parley exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    manageKey,
    signInLink,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One more process of a deployment whose database another already set up (a second
 * API process, a worker): started as startParley starts one, ready once it says it
 * listens (or, as a worker, runs); there is no first-start key to read.
 */
export async function startParleyProcess(env: Record<string, string>, cwd?: string): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...npmStartFlags(cwd), 'src/main.ts'], {
    cwd,
    env: { ...process.env, PORT: String(port), PARLEY_DATA_DIR: dataDir, PARLEY_LOG_LEVEL: 'warn', PARLEY_RATE_LIMIT_PER_MINUTE: '100000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`Parley did not start: ${output}`)), 180_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (/Parley (listening|worker)/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`Parley exited with ${code}: ${output}`)));
  });
  child.stdout!.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function ratio(a: number, b: number): string {
  return (a / b).toFixed(2);
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n## ${title}`);
  console.table(rows);
}

/** A database of its own on the PostgreSQL server, dropped after the run. */
export async function scratchDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Calls the public API with the service's manage key; answers the reply's data, throws on a refusal. */
export function manageApi(service: { url: string; manageKey: string }) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${service.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${service.manageKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await response.json()) as any;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
    return parsed.data;
  };
}

/** Runs a measurement on the embedded store, then on a scratch PostgreSQL database with Redis when BENCH_* or TEST_* name them. */
export async function onBothStores(measure: (store: string, env: Record<string, string>) => Promise<void>): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  await measure('embedded (PGlite)', {});
  if (!databaseUrl || !redisUrl) {
    console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
    return;
  }
  const database = await scratchDatabase(databaseUrl);
  try {
    await measure('PostgreSQL + Redis', { DATABASE_URL: database.url, REDIS_URL: redisUrl });
  } finally {
    await database.drop();
  }
}

/** Adds purchased credits to a service's workspace through the operator API. */
export async function addCredits(service: { url: string }, adminToken: string, workspaceId: string, credits: number): Promise<void> {
  const response = await fetch(`${service.url}/admin/v1/workspaces/${workspaceId}/credit-packs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ credits }),
  });
  if (response.status !== 201) throw new Error(`credit pack: ${response.status} ${await response.text()}`);
}
