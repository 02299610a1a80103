/**
 * Authenticated GET /api/v1/workspace (key lookup, rate-limit count, usage
 * query) against a bare Fastify hello-world route measured in the same run.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, load, printTable, ratio, startParley, type LoadResult } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = 3;

async function bareRoute(): Promise<LoadResult> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bench/hello.ts'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  try {
    await load(`http://127.0.0.1:${port}/hello`, { seconds: WARM_UP_SECONDS }); // warm-up: JIT, first-start work
    return await load(`http://127.0.0.1:${port}/hello`, { seconds: SECONDS });
  } finally {
    child.kill();
  }
}

async function workspaceRead(env: Record<string, string>): Promise<LoadResult> {
  const service = await startParley(env);
  try {
    const headers = { authorization: `Bearer ${service.manageKey}` };
    await load(`${service.url}/api/v1/workspace`, { headers, seconds: WARM_UP_SECONDS }); // warm-up: JIT, first-start work
    return await load(`${service.url}/api/v1/workspace`, { headers, seconds: SECONDS });
  } finally {
    await service.stop();
  }
}

async function withScratchDatabase<T>(baseUrl: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

export async function run(): Promise<void> {
  const bare = await bareRoute();
  const rows: Array<Record<string, string | number>> = [row('bare Fastify hello-world', bare, bare)];
  rows.push(row('GET /workspace, embedded (PGlite)', await workspaceRead({}), bare));
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (databaseUrl && redisUrl) {
    const result = await withScratchDatabase(databaseUrl, (url) => workspaceRead({ DATABASE_URL: url, REDIS_URL: redisUrl, PARLEY_ROLE: 'api' }));
    rows.push(row('GET /workspace, PostgreSQL + Redis (API process)', result, bare));
  } else {
    console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
  }
  printTable(`Authenticated read vs bare route (${SECONDS} s each, 20 connections; target: PostgreSQL ratio >= 0.5)`, rows);
}

function row(name: string, result: LoadResult, baseline: LoadResult) {
  return {
    case: name,
    'req/s': Math.round(result.rps),
    'p50 ms': result.p50,
    'p99 ms': result.p99,
    'throughput ratio': ratio(result.rps, baseline.rps),
    non2xx: result.non2xx,
  };
}
