/**
 * npm run bench -- memory: resident memory of the service as `npm start` runs it
 * (docs/performance.md, Memory), read from /proc/<pid>/status: VmRSS when idle after
 * start-up, VmHWM (the peak) over start-up, and VmRSS after N answers through the
 * REST chat (offline model, a new conversation each), with the target beside
 * each figure. Embedded store always, a first start and a later start on its data
 * directory; PostgreSQL (an api process and a worker) with TEST_DATABASE_URL or
 * BENCH_DATABASE_URL, started on that data directory as a later start is (its compile
 * cache filled: src/compile-cache.js). BENCH_ANSWERS sets N (2,000 by default).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { WORKSHOP_CORPUS } from '../src/modules/chat/quality-corpus.ts';
import { addCredits, freePort, NPM_START_FLAGS, manageApi, printTable, scratchDatabase, startParley, type RunningService } from './support.ts';

const ANSWERS = Number(process.env.BENCH_ANSWERS ?? 2000);
const CONCURRENCY = 4;
const SETTLE_MS = 10_000;
const ADMIN_TOKEN = `pa_${'m'.repeat(48)}`;
const MB = 1024 * 1024;

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? NaN);
  return { rss: Math.round((kb('VmRSS') * 1024) / MB), peak: Math.round((kb('VmHWM') * 1024) / MB) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

interface Row {
  [column: string]: string | number;
}

function row(what: string, mb: number, target: number | undefined): Row {
  return { what, MB: mb, target: target === undefined ? '-' : `<= ${target}`, met: target === undefined ? '-' : mb <= target ? 'yes' : 'NO' };
}

export async function run(): Promise<void> {
  const rows: Row[] = [];
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-memory-'));
  try {
    // BENCH_MEMORY_STORES=postgres leaves the embedded store out (a long run on PostgreSQL only; its processes then start cold).
    if (process.env.BENCH_MEMORY_STORES !== 'postgres') await measureEmbedded(dataDir, rows);
    const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (databaseUrl) await measurePostgres(databaseUrl, dataDir, rows);
    else console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL (or BENCH_DATABASE_URL).');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  printTable(`Resident memory (node ${NPM_START_FLAGS.join(' ')} src/main.ts; ${ANSWERS} answers, ${CONCURRENCY} at a time)`, rows);
}

async function measureEmbedded(dataDir: string, rows: Row[]): Promise<void> {
  const service = await startParley({ PARLEY_DATA_DIR: dataDir, PARLEY_ADMIN_TOKEN: ADMIN_TOKEN, PARLEY_VISITOR_LIMIT_FACTOR: '1000000' });
  try {
    await settle();
    const started = memoryOf(service.child.pid!);
    rows.push(row('embedded, first start: start-up peak', started.peak, 400));
    rows.push(row('embedded, first start: idle after start-up', started.rss, 250));
    await answerMany(service, 'embedded', rows);
  } finally {
    await service.stop();
  }
  const later = await startProcess({ PARLEY_DATA_DIR: dataDir }, /listening on/);
  try {
    await settle();
    const started = memoryOf(later.pid!);
    rows.push(row('embedded, later start: start-up peak', started.peak, 400));
    rows.push(row('embedded, later start: idle after start-up', started.rss, 250));
  } finally {
    await stopProcess(later);
  }
}

async function measurePostgres(baseUrl: string, dataDir: string, rows: Row[]): Promise<void> {
  const database = await scratchDatabase(baseUrl);
  try {
    // The api process makes the schema and the first-start workspace; the worker then starts on it.
    const api = await startParley({ DATABASE_URL: database.url, PARLEY_DATA_DIR: dataDir, PARLEY_ROLE: 'api', PARLEY_ADMIN_TOKEN: ADMIN_TOKEN, PARLEY_VISITOR_LIMIT_FACTOR: '1000000' });
    try {
      const worker = await startProcess({ DATABASE_URL: database.url, PARLEY_DATA_DIR: dataDir, PARLEY_ROLE: 'worker' }, /Parley worker/);
      try {
        await settle();
        rows.push(row('PostgreSQL api: idle after start-up', memoryOf(api.child.pid!).rss, 120));
        rows.push(row('PostgreSQL worker: idle after start-up', memoryOf(worker.pid!).rss, 150));
        await answerMany(api, 'PostgreSQL api', rows);
      } finally {
        await stopProcess(worker);
      }
    } finally {
      await api.stop();
    }
  } finally {
    await database.drop();
  }
}

/** `npm start`'s entry point with `env`, once its output shows `ready`. */
async function startProcess(env: Record<string, string>, ready: RegExp) {
  const child = spawn(process.execPath, [...NPM_START_FLAGS, 'src/main.ts'], {
    env: { ...process.env, PORT: String(await freePort()), PARLEY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (ready.test(output)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return child;
}

async function stopProcess(child: ReturnType<typeof spawn>): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** N answers, CONCURRENCY at a time; resident memory before, half-way and after (settled). */
async function answerMany(service: RunningService, store: string, rows: Row[]): Promise<void> {
  const agentId = await prepareAgent(service);
  const pid = service.child.pid!;
  const ask = async () => {
    const response = await fetch(`${service.url}/api/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.manageKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'How long does a wheel repair take?' }),
    });
    if (response.status !== 200) throw new Error(`chat: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const askMany = async (count: number) => {
    let left = count;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await ask();
    }));
  };
  await askMany(50);
  await settle();
  const before = memoryOf(pid).rss;
  await askMany(ANSWERS / 2);
  await settle();
  const half = memoryOf(pid).rss;
  const started = Date.now();
  await askMany(ANSWERS / 2);
  const seconds = (Date.now() - started) / 1000;
  await settle();
  const after = memoryOf(pid);
  rows.push(row(`${store}: after 50 answers (warm)`, before, undefined));
  rows.push(row(`${store}: after ${ANSWERS / 2} answers more`, half, undefined));
  rows.push(row(`${store}: after ${ANSWERS} answers more (${Math.round(ANSWERS / 2 / seconds)} answers/s in the last ${ANSWERS / 2})`, after.rss, undefined));
  rows.push(row(`${store}: peak over the whole run`, after.peak, undefined));
}

/** An agent with the workshop corpus learnt and credits for every answer. */
async function prepareAgent(service: RunningService): Promise<string> {
  const api = manageApi(service);
  const workspace = await api('GET', '/workspace');
  await addCredits(service, ADMIN_TOKEN, workspace.workspace.id, 5_000_000);
  const agent = await api('POST', '/agents', { name: 'Workshop', useCase: 'general' });
  const sources = [];
  for (const passage of WORKSHOP_CORPUS) sources.push(await api('POST', `/agents/${agent.id}/sources`, { type: 'text', title: passage.title, content: passage.text }));
  for (const source of sources) {
    const until = Date.now() + 120_000;
    while ((await api('GET', `/agents/${agent.id}/sources/${source.id}`)).status === 'pending') {
      if (Date.now() > until) throw new Error(`source ${source.id} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return agent.id;
}
