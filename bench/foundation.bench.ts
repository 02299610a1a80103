/**
 * Authenticated GET /api/v1/workspace (key lookup, rate-limit count,
 * workspace and usage) against a bare Fastify hello-world route measured in
 * the same run. The cases take turns, round after round, and each figure is
 * the median of its rounds: what else the machine is doing then weighs on
 * every case alike instead of on whichever ran at a bad moment.
 *
 * Each case is loaded by autocannon and, when Debian's wrk is installed, by
 * wrk too: on a two-core machine the load generator shares the cores with the
 * service and, on PostgreSQL, with Redis, and autocannon needs several times
 * wrk's CPU. Beside throughput, each row gives the CPU time the service's
 * event loop spent per request: the cost that bounds one process's capacity.
 */
import { spawn } from 'node:child_process';
import { eventLoopCpuMicros, freePort, load, printTable, ratio, startParley, wrkLoadGenerator, type LoadGenerator, type LoadResult, scratchDatabase } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** 20 connections as before; 100 as a busy API process sees (Redis work is shared by the requests of a turn). */
const CONNECTIONS = [20, 100];
const WARM_UP_SECONDS = 3;

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

/** A round's load result and the service's event-loop CPU time per request during it. */
interface Round extends LoadResult {
  cpuMicrosPerRequest: number | undefined;
}

async function bareRoute(): Promise<Target> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bench/hello.ts'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return { name: 'bare Fastify hello-world', url: `http://127.0.0.1:${port}/hello`, headers: {}, pid: child.pid!, stop: async () => void child.kill() };
}

async function workspaceRead(name: string, env: Record<string, string>): Promise<Target> {
  const service = await startParley(env);
  return { name, url: `${service.url}/api/v1/workspace`, headers: { authorization: `Bearer ${service.manageKey}` }, pid: service.child.pid!, stop: service.stop };
}


export async function run(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  const database = databaseUrl && redisUrl ? await scratchDatabase(databaseUrl) : undefined;
  if (!database) console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
  const targets: Target[] = [];
  try {
    targets.push(await bareRoute(), await workspaceRead('GET /workspace, embedded (PGlite)', {}));
    if (database) {
      targets.push(await workspaceRead('GET /workspace, PostgreSQL + Redis (API process)', { DATABASE_URL: database.url, REDIS_URL: redisUrl!, PARLEY_ROLE: 'api' }));
    }
    for (const target of targets) await load(target.url, { headers: target.headers, seconds: WARM_UP_SECONDS }); // JIT, first-start work
    const wrk = wrkLoadGenerator();
    if (!wrk) console.log('wrk figures skipped: wrk is not installed (Debian package wrk).');
    const generators: Array<[string, LoadGenerator]> = [['autocannon', load], ...(wrk ? [['wrk', wrk] as [string, LoadGenerator]] : [])];
    for (const [generator, loadWith] of generators) {
      for (const connections of CONNECTIONS) {
        const rounds = new Map<Target, Round[]>(targets.map((target) => [target, []]));
        for (let round = 0; round < ROUNDS; round++) {
          for (const target of targets) rounds.get(target)!.push(await measureRound(target, loadWith, connections));
        }
        const medians = targets.map((target) => median(rounds.get(target)!));
        printTable(
          `Authenticated read vs bare route, ${generator}, ${connections} connections (median of ${ROUNDS} rounds of ${SECONDS} s; target: PostgreSQL ratio >= 0.5)`,
          targets.map((target, i) => row(target.name, medians[i]!, medians[0]!, rounds.get(target)!)),
        );
      }
    }
  } finally {
    await Promise.allSettled(targets.map((target) => target.stop()));
    await database?.drop();
  }
}

async function measureRound(target: Target, loadWith: LoadGenerator, connections: number): Promise<Round> {
  const cpuBefore = eventLoopCpuMicros(target.pid);
  const result = await loadWith(target.url, { headers: target.headers, seconds: SECONDS, connections });
  const cpuAfter = eventLoopCpuMicros(target.pid);
  const requests = result.rps * SECONDS;
  return { ...result, cpuMicrosPerRequest: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / requests };
}

/** The round with the median throughput. */
function median(rounds: Round[]): Round {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

function row(name: string, result: Round, baseline: Round, rounds: Round[]) {
  const cpu = result.cpuMicrosPerRequest;
  return {
    case: name,
    'req/s': Math.round(result.rps),
    'p50 ms': result.p50,
    'p99 ms': result.p99,
    'throughput ratio': ratio(result.rps, baseline.rps),
    'event-loop CPU µs/req': cpu === undefined ? '-' : cpu.toFixed(1),
    'rounds req/s': rounds.map((r) => Math.round(r.rps)).join(' '),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}
