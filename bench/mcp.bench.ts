/**
 * MCP: a read tool call against the same REST read, at saturation.
 * get_agent over MCP (POST /mcp, tools/call, as a connected client sends it)
 * against GET /api/v1/agents/{id} with the same key: autocannon, 100
 * connections, rounds alternating between the two; the median round of each
 * is reported, and MCP/REST as a ratio (target at least 0.7 for requests a second).
 * Beside it, the service's event-loop CPU per request in each round (from
 * /proc): on a machine shared with other work the requests a second swing
 * with the load, the CPU a request costs much less.
 * The service runs as `npm start` does (its own process) on the embedded store.
 */
import autocannon from 'autocannon';
import { eventLoopCpuMicros, manageApi, printTable, ratio, startParley } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 100;

interface Round {
  rps: number;
  p50: number;
  p99: number;
  /** The service's event-loop CPU per request, µs (NaN where /proc is missing). */
  cpu: number;
}

export async function run(): Promise<void> {
  const service = await startParley();
  try {
    const agent = await manageApi(service)('POST', '/agents', { name: 'Bench', useCase: 'general' });
    const authorization = `Bearer ${service.manageKey}`;
    const pid = service.child.pid!;
    const restRound = () => saturate(pid, { url: `${service.url}/api/v1/agents/${agent.id}`, method: 'GET', headers: { authorization } });
    const mcpRound = () =>
      saturate(pid, {
        url: `${service.url}/mcp`,
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_agent', arguments: { id: agent.id } } }),
      });
    // Warm up both paths.
    await restRound();
    await mcpRound();
    const rest: Round[] = [];
    const mcp: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rest.push(await restRound());
      mcp.push(await mcpRound());
    }
    const [r, m] = [median(rest), median(mcp)];
    printTable(`get_agent over MCP against GET /agents/{id}, ${CONNECTIONS} connections, median of ${ROUNDS} alternating rounds of ${SECONDS} s (embedded store)`, [
      { path: 'REST GET /api/v1/agents/{id}', 'req/s': Math.round(r.rps), 'p50 ms': r.p50, 'p99 ms': r.p99, 'CPU µs/req': Math.round(medianCpu(rest)) },
      { path: 'MCP tools/call get_agent', 'req/s': Math.round(m.rps), 'p50 ms': m.p50, 'p99 ms': m.p99, 'CPU µs/req': Math.round(medianCpu(mcp)) },
      { path: 'MCP / REST', 'req/s': ratio(m.rps, r.rps), 'p50 ms': ratio(m.p50, r.p50), 'p99 ms': ratio(m.p99, r.p99), 'CPU µs/req': ratio(medianCpu(mcp), medianCpu(rest)) },
    ]);
    console.log(`req/s by round: REST ${rest.map((x) => Math.round(x.rps)).join(' ')}; MCP ${mcp.map((x) => Math.round(x.rps)).join(' ')}`);
  } finally {
    await service.stop();
  }
}

async function saturate(pid: number, options: { url: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<Round> {
  const cpuBefore = eventLoopCpuMicros(pid) ?? Number.NaN;
  const result = await autocannon({ ...options, duration: SECONDS, connections: CONNECTIONS, pipelining: 1 });
  const cpu = ((eventLoopCpuMicros(pid) ?? Number.NaN) - cpuBefore) / result.requests.total;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${options.method} ${options.url}: ${result.non2xx} non-2xx replies, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu };
}

function medianCpu(rounds: Round[]): number {
  return [...rounds].map((round) => round.cpu).sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
}

/** The round with the median requests a second. */
function median(rounds: Round[]): Round {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}
