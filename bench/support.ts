import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** Requests per second and latency over `seconds`, from this process against a server in another. */
export async function load(url: string, options: { headers?: Record<string, string>; seconds?: number; connections?: number } = {}): Promise<LoadResult> {
  const result = await autocannon({ url, headers: options.headers, duration: options.seconds ?? 5, connections: options.connections ?? 20, pipelining: 1 });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningService {
  url: string;
  manageKey: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `npm start`'s entry point as its own process on a fresh data directory and reads the first-start key from its output. */
export async function startParley(env: Record<string, string> = {}): Promise<RunningService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: { ...process.env, PORT: String(port), PARLEY_DATA_DIR: dataDir, PARLEY_LOG_LEVEL: 'warn', PARLEY_RATE_LIMIT_PER_MINUTE: '100000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const manageKey = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`Parley did not start: ${output}`)), 60_000);
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
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
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
