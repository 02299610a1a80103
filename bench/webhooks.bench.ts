/**
 * Webhooks: deliveries to a local receiver.
 * - lead to delivery: leads left through the visitor API at a steady 100 a second on
 *   PostgreSQL, 20 on the embedded store (open loop: one every 1/rate s, whatever
 *   the replies do); for each, the time from
 *   the lead's createdAt to the receiver having its delivery; p50 and p99;
 * - deliveries a second: a burst of leads as fast as 20 connections leave them;
 *   deliveries counted over the span from the first arrival to the last.
 * One workspace, one webhook, the receiver answering 200 at once in this process.
 * The service runs as `npm start` does (its own process) with
 * PARLEY_ALLOW_PRIVATE_URLS=1 (the receiver is local), on the embedded store and,
 * with TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*), on PostgreSQL + Redis.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { printTable, startParley, type RunningService, manageApi, scratchDatabase } from './support.ts';

/** The target rate on PostgreSQL; the embedded store (one connection in one process) is asked for less. */
const RATE_PER_SECOND = Number(process.env.BENCH_WEBHOOK_RATE ?? 100);
const EMBEDDED_RATE_PER_SECOND = Number(process.env.BENCH_WEBHOOK_EMBEDDED_RATE ?? 20);
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BURST_LEADS = Number(process.env.BENCH_WEBHOOK_BURST ?? 1000);
const BURST_CONNECTIONS = 20;
const DRAIN_TIMEOUT_MS = 60_000;

interface Arrival {
  leadId: string;
  createdAt: number;
  at: number;
}

export async function run(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  await measureStore('embedded (PGlite)', {}, EMBEDDED_RATE_PER_SECOND);
  if (!databaseUrl || !redisUrl) {
    console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
    return;
  }
  const database = await scratchDatabase(databaseUrl);
  try {
    await measureStore('PostgreSQL + Redis', { DATABASE_URL: database.url, REDIS_URL: redisUrl }, RATE_PER_SECOND);
  } finally {
    await database.drop();
  }
}

async function measureStore(store: string, env: Record<string, string>, rate: number): Promise<void> {
  const arrivals: Arrival[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrivals.push({ leadId: body.data.id, createdAt: Date.parse(body.data.createdAt), at });
      response.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const service = await startParley({ ...env, PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_VISITOR_LIMIT_FACTOR: '1000000' });
  try {
    const agentId = await prepare(service, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    const leave = leaveLead(service.url, agentId);

    // Warm up, then the steady rate.
    for (let i = 0; i < 20; i++) await leave();
    await drain(arrivals, 20);
    arrivals.length = 0;
    const total = rate * STEADY_SECONDS;
    const started = performance.now();
    const posted: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      posted.push(leave());
    }
    await Promise.all(posted);
    await drain(arrivals, total);
    const latencies = arrivals.map((a) => a.at - a.createdAt).sort((a, b) => a - b);
    const steady = { case: `lead to delivery at ${rate} leads/s for ${STEADY_SECONDS} s`, delivered: `${arrivals.length}/${total}`, 'p50 ms': percentile(latencies, 0.5), 'p99 ms': percentile(latencies, 0.99), 'max ms': latencies.at(-1) ?? '-' };

    arrivals.length = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: BURST_CONNECTIONS }, async () => {
        while (next++ < BURST_LEADS) await leave();
      }),
    );
    await drain(arrivals, BURST_LEADS);
    const span = (Math.max(...arrivals.map((a) => a.at)) - Math.min(...arrivals.map((a) => a.at))) / 1000;
    const burst = { case: `burst of ${BURST_LEADS} leads (${BURST_CONNECTIONS} connections)`, delivered: `${arrivals.length}/${BURST_LEADS}`, 'deliveries/s': Math.round(arrivals.length / span) };
    printTable(`Webhooks, ${store}: one webhook, a local receiver answering at once`, [steady, burst]);
  } finally {
    await service.stop();
    receiver.closeAllConnections();
    receiver.close();
  }
}

async function prepare(service: RunningService, url: string): Promise<string> {
  const api = manageApi(service);
  const agent = await api('POST', '/agents', { name: 'Workshop', useCase: 'general' });
  await api('PATCH', `/agents/${agent.id}`, { leadCapture: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } });
  await api('POST', '/webhooks', { url, events: ['lead.created'] });
  return agent.id;
}

/** Leads through a pool of keep-alive connections, as a site's many visitors would reach a proxy in front of the service. */
function leaveLead(baseUrl: string, agentId: string): () => Promise<void> {
  const body = JSON.stringify({ name: 'Anna de Vries', email: 'anna@acme-bikes.nl', moment: 'button' });
  const dispatcher = new Agent({ connections: 64 });
  return async () => {
    const response = await request(`${baseUrl}/visitor/v1/agents/${agentId}/leads`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://shop.example.com' }, body, dispatcher });
    const text = await response.body.text();
    if (response.statusCode !== 201) throw new Error(`lead: ${response.statusCode} ${text}`);
  };
}

async function drain(arrivals: Arrival[], count: number): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (arrivals.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

function percentile(sorted: number[], p: number): number | string {
  if (sorted.length === 0) return '-';
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

