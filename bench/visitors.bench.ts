/**
 * Visitors: what the keyless visitor API costs against the keyed API.
 * - questions a second through POST /visitor/v1/agents/{id}/chat against
 *   POST /api/v1/agents/{id}/chat, the offline model answering, on one agent with
 *   the workshop corpus; the two take turns, round after round, and each figure is
 *   the median of its rounds;
 * - a lead left through POST /visitor/v1/agents/{id}/leads: p50 and p99 (and
 *   leads a second) under load, each lead with its owner's notice recorded;
 * - the service's memory under a burst of hostile files (PDF and Word decompression
 *   bombs, 1.5 GB each once inflated, sent to POST /visitor/v1/agents/{id}/files)
 *   next to its memory at rest, and the memory of its reader processes.
 * The service runs as `npm start` does (its own process), on the embedded store
 * and, with TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*), on PostgreSQL +
 * Redis. Its visitor limits are raised (PARLEY_VISITOR_LIMIT_FACTOR): one address
 * makes every request here.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { docxBomb, pdfBomb } from '../src/modules/knowledge/read-file.bombs.ts';
import { WORKSHOP_CORPUS } from '../src/modules/chat/quality-corpus.ts';
import { addCredits, eventLoopCpuMicros, manageApi, onBothStores, printTable, ratio, startParley, type RunningService } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARM_UP_SECONDS = 3;
const ADMIN_TOKEN = `pa_${'b'.repeat(48)}`;
const QUESTION = 'How long does a wheel repair take?';
/** Hostile files in a burst, half PDF and half Word, sent all at once. */
const BOMBS = Number(process.env.BENCH_BOMBS ?? 20);
const ORIGIN = 'https://shop.example.com';
const MB = 1024 * 1024;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  cpuMicrosPerRequest: number | undefined;
}

interface Case {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export async function run(): Promise<void> {
  await onBothStores(measureStore);
}

async function measureStore(store: string, env: Record<string, string>): Promise<void> {
  const service = await startParley({ ...env, PARLEY_VISITOR_LIMIT_FACTOR: '1000000', PARLEY_ADMIN_TOKEN: ADMIN_TOKEN });
  try {
    const agentId = await prepareAgent(service);
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ message: QUESTION });
    const cases: Case[] = [
      { name: 'keyed API: POST /api/v1/agents/{id}/chat', url: `${service.url}/api/v1/agents/${agentId}/chat`, headers: { ...json, authorization: `Bearer ${service.manageKey}` }, body },
      { name: 'visitor API: POST /visitor/v1/agents/{id}/chat', url: `${service.url}/visitor/v1/agents/${agentId}/chat`, headers: { ...json, origin: 'https://shop.example.com' }, body },
    ];
    for (const c of cases) await measure(service, c, WARM_UP_SECONDS);
    const rounds = new Map<Case, Load[]>(cases.map((c) => [c, []]));
    for (let round = 0; round < ROUNDS; round++) for (const c of cases) rounds.get(c)!.push(await measure(service, c, SECONDS));
    const [keyed, visitor] = cases.map((c) => median(rounds.get(c)!));
    printTable(
      `Questions, ${store}: visitor API against keyed API (offline model, ${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${SECONDS} s)`,
      cases.map((c, i) => ({ ...rowOf(c.name, [keyed, visitor][i]!, rounds.get(c)!), 'ratio to keyed': ratio([keyed, visitor][i]!.rps, keyed!.rps) })),
    );

    const lead: Case = {
      name: 'POST /visitor/v1/agents/{id}/leads',
      url: `${service.url}/visitor/v1/agents/${agentId}/leads`,
      headers: { ...json, origin: 'https://shop.example.com' },
      body: JSON.stringify({ name: 'Anna de Vries', email: 'anna@acme-bikes.nl', moment: 'button', page: { url: 'https://shop.example.com/repairs' } }),
    };
    await measure(service, lead, WARM_UP_SECONDS);
    const leadRounds: Load[] = [];
    for (let round = 0; round < ROUNDS; round++) leadRounds.push(await measure(service, lead, SECONDS));
    printTable(`Leads, ${store} (${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${SECONDS} s)`, [rowOf(lead.name, median(leadRounds), leadRounds)]);

    await measureHostileFiles(service, agentId, store);
  } finally {
    await service.stop();
  }
}

/** An agent with the workshop corpus learnt, the lead form on, and credits for every answer the rounds ask for. */
async function prepareAgent(service: RunningService): Promise<string> {
  const api = manageApi(service);
  const workspace = await api('GET', '/workspace');
  await addCredits(service, ADMIN_TOKEN, workspace.workspace.id, 5_000_000);
  const agent = await api('POST', '/agents', { name: 'Workshop', useCase: 'general' });
  await api('PATCH', `/agents/${agent.id}`, { leadCapture: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } });
  const sources = [];
  for (const passage of WORKSHOP_CORPUS) sources.push(await api('POST', `/agents/${agent.id}/sources`, { type: 'text', title: passage.title, content: passage.text }));
  for (const source of sources) {
    const until = Date.now() + 60_000;
    while ((await api('GET', `/agents/${agent.id}/sources/${source.id}`)).status === 'pending') {
      if (Date.now() > until) throw new Error(`source ${source.id} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return agent.id;
}

async function measure(service: RunningService, c: Case, seconds: number): Promise<Load> {
  const cpuBefore = eventLoopCpuMicros(service.child.pid!);
  const result = await autocannon({ url: c.url, method: 'POST', headers: c.headers, body: c.body, duration: seconds, connections: CONNECTIONS, pipelining: 1 });
  const cpuAfter = eventLoopCpuMicros(service.child.pid!);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: cpuBefore === undefined || cpuAfter === undefined || requests === 0 ? undefined : (cpuAfter - cpuBefore) / requests,
  };
}

/** The round with the median throughput. */
function median(rounds: Load[]): Load {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

function rowOf(name: string, load: Load, rounds: Load[]) {
  return {
    case: name,
    'req/s': Math.round(load.rps),
    'p50 ms': load.p50,
    'p99 ms': load.p99,
    'event-loop CPU µs/req': load.cpuMicrosPerRequest === undefined ? '-' : Math.round(load.cpuMicrosPerRequest),
    'rounds req/s': rounds.map((r) => Math.round(r.rps)).join(' '),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}


/**
 * The service's resident memory at rest (2 s sampled), then while BOMBS decompression
 * bombs are sent at once as visitor files, and 2 s after. Its reader processes are its
 * children: their memory is shown apart (each is bounded by PARLEY_FILE_READ_MEMORY_MB).
 */
async function measureHostileFiles(service: RunningService, agentId: string, store: string): Promise<void> {
  const api = manageApi(service);
  await api('PATCH', `/agents/${agentId}`, { attachmentsEnabled: true });
  const bombs = { pdf: pdfBomb(1536), docx: docxBomb(1536) };
  const pid = service.child.pid!;
  const send = async (kind: 'pdf' | 'docx') => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bombs[kind])]), `bomb.${kind}`);
    const started = Date.now();
    const response = await fetch(`${service.url}/visitor/v1/agents/${agentId}/files`, { method: 'POST', body: form, headers: { origin: ORIGIN } });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  };
  await send('pdf'); // warm-up: the service loads its multipart and file-kind code once
  const alone = { pdf: await send('pdf'), docx: await send('docx') };

  const rest = await sampleWhile(pid, () => new Promise((resolve) => setTimeout(resolve, 2_000)));
  const burst = await sampleWhile(pid, () => Promise.all(Array.from({ length: BOMBS }, (_, i) => send(i % 2 === 0 ? 'pdf' : 'docx'))));
  const after = await sampleWhile(pid, () => new Promise((resolve) => setTimeout(resolve, 2_000)));
  const replies = burst.result;
  const statuses = [...new Set(replies.map((r) => r.status))].map((status) => `${replies.filter((r) => r.status === status).length}× ${status}`).join(', ');
  const times = replies.map((r) => r.ms).sort((a, b) => a - b);
  const row = (name: string, s: Sampled<unknown>, extra: Record<string, string | number> = {}) => ({
    moment: name,
    'service RSS MB (first)': Math.round(s.first / MB),
    'service RSS MB (peak)': Math.round(s.peak / MB),
    'readers MB (peak, all together)': Math.round(s.readersPeak / MB),
    ...extra,
  });
  printTable(
    `Hostile files, ${store}: ${BOMBS} decompression bombs (${(bombs.pdf.length / MB).toFixed(1)} MB PDF and ${(bombs.docx.length / MB).toFixed(1)} MB Word, 1.5 GB each inflated) sent at once as visitor files`,
    [
      row('at rest (2 s)', rest),
      row('burst', burst, {
        replies: statuses,
        'refused p50 ms': times[Math.floor(times.length / 2)]!,
        'refused max ms': times[times.length - 1]!,
        'service moved MB': Math.round((burst.peak - rest.peak) / MB),
      }),
      row('2 s after', after),
    ],
  );
  console.log(`One bomb alone: PDF ${alone.pdf.status} in ${alone.pdf.ms} ms, Word ${alone.docx.status} in ${alone.docx.ms} ms.`);
}

interface Sampled<T> {
  result: T;
  first: number;
  peak: number;
  readersPeak: number;
}

/** Samples the service's resident memory (and its reader processes') every 20 ms while the work runs. */
async function sampleWhile<T>(pid: number, work: () => Promise<T>): Promise<Sampled<T>> {
  const first = residentBytes(pid);
  let peak = first;
  let readersPeak = 0;
  const sample = () => {
    peak = Math.max(peak, residentBytes(pid));
    readersPeak = Math.max(readersPeak, readerPids(pid).reduce((sum, child) => sum + residentBytes(child), 0));
  };
  const timer = setInterval(sample, 20);
  try {
    const result = await work();
    sample();
    return { result, first, peak, readersPeak };
  } finally {
    clearInterval(timer);
  }
}

function residentBytes(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The service's reader processes (not its other children, such as esbuild's service). */
function readerPids(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.filter((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, 'latin1').includes('file-reader.child');
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}
