/**
 * Capacity: answers a second at saturation, the offline model answering from the lexical
 * index of one agent's 10,000 passages, through the REST API (POST /api/v1/agents/{id}/chat)
 * and the visitor API (POST /visitor/v1/agents/{id}/chat), each as conversations of a new
 * question and two follow-ups; then p50/p99 at 50% and 90% of that rate (autocannon's
 * fixed overallRate), and the CPU an answer costs.
 *
 * Deployments, each run as `npm start` runs (own processes, request log at warn):
 * - the embedded store (one process, PGlite);
 * - PostgreSQL + Redis: one API process (PARLEY_ROLE=api) beside a worker, and the same
 *   with a second API process on the same database, the load split between the two (two
 *   autocannon instances, one a process).
 * Within a deployment the cases take turns, round after round, each figure the median of
 * its rounds; the baseline, measured in the same rounds, is the authenticated
 * GET /api/v1/workspace on the same process. Rate limits are raised by environment
 * (PARLEY_RATE_LIMIT_PER_MINUTE, PARLEY_VISITOR_LIMIT_FACTOR): one address makes every request.
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { WORKSHOP_CORPUS, WORKSHOP_QUESTIONS } from '../src/modules/chat/quality-corpus.ts';
import { CORPUS_WORDS, MADE_UP, seeded } from './filler.ts';
import {
  addCredits,
  eventLoopCpuMicros,
  machineCpuMicros,
  manageApi,
  printTable,
  processCpuMicros,
  processesCpu,
  processesCpuSince,
  ratio,
  type RunningService,
  scratchDatabase,
  startParley,
  startParleyProcess,
} from './support.ts';

const SECONDS = Number(process.env.BENCH_CAPACITY_SECONDS ?? process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_CAPACITY_ROUNDS ?? process.env.BENCH_ROUNDS ?? 3);
/** Connections at saturation (split between the API processes); enough that the service, not the client, is the limit. */
const CONNECTIONS = Number(process.env.BENCH_CAPACITY_CONNECTIONS ?? 32);
const PASSAGES = Number(process.env.BENCH_CAPACITY_PASSAGES ?? 10_000);
/** Comma list: embedded, postgres (one API process, then two). */
const DEPLOYMENTS = (process.env.BENCH_CAPACITY_DEPLOYMENTS ?? 'embedded,postgres').split(',');
/**
 * A checkout of other code (with node_modules beside it) to compare with this one on PostgreSQL (or, with
 * BENCH_CAPACITY_DEPLOYMENTS=embedded, on the embedded store): one API process each, each on its own store with the same agent, their cases in the same alternating rounds, so that both see
 * the same load from whatever else runs on the machine. Replaces the deployments above.
 */
const BEFORE = process.env.BENCH_CAPACITY_BEFORE;
/**
 * BENCH_CAPACITY_WAITS=1: the database's client backends sampled every 20 ms during each round (pg_stat_activity):
 * how many were running a statement, and the share of those waiting for another transaction's lock (a row another
 * answer holds until its commit) or for the WAL (a commit's flush). The sampling costs the database a little CPU.
 */
const WAITS = process.env.BENCH_CAPACITY_WAITS === '1';
/** Fractions of the saturation rate at which latency is measured. */
const FRACTIONS = [0.5, 0.9];
const WARM_UP_SECONDS = 3;
const FOLLOW_UPS = 2;
const PARAGRAPHS_A_SOURCE = 800;
const ADMIN_TOKEN = `pa_${'c'.repeat(48)}`;
const ORIGIN = 'https://shop.example.com';
const LIMITS = { PARLEY_RATE_LIMIT_PER_MINUTE: '1000000000', PARLEY_VISITOR_LIMIT_FACTOR: '100000000', PARLEY_ADMIN_TOKEN: ADMIN_TOKEN };

type Row = Record<string, string | number>;

function progress(message: string): void {
  if (process.env.BENCH_VERBOSE) console.error(`  [capacity] ${message}`);
}

// ---------- the agent's material ----------

/**
 * A paragraph of about 140 words (one passage: the chunker keeps it whole), half drawn
 * from the workshop corpus as often as they occur there, so that the questions' words
 * have long posting lists, half made up (as chat.bench.ts does).
 */
function paragraph(n: number): string {
  const random = seeded(n + 9_000_001);
  const word = () => (random() < 0.5 ? CORPUS_WORDS[Math.floor(random() * CORPUS_WORDS.length)]! : MADE_UP[Math.floor(random() * MADE_UP.length)]!);
  const sentences: string[] = [];
  for (let s = 0; s < 10; s++) {
    const list = Array.from({ length: 14 }, word);
    sentences.push(`${list[0]![0]!.toUpperCase()}${list[0]!.slice(1)} ${list.slice(1).join(' ')}.`);
  }
  return sentences.join(' ');
}

/**
 * An agent on the offline model with the workshop corpus (one source, a section a passage)
 * and generated sources up to PASSAGES passages, read by the service as any text source is;
 * credits for every answer the rounds ask.
 */
export async function prepareAgent(service: { url: string; manageKey: string }): Promise<string> {
  const api = manageApi(service);
  const workspace = await api('GET', '/workspace');
  await addCredits(service, ADMIN_TOKEN, workspace.workspace.id, 10_000_000);
  const agent = await api('POST', '/agents', { name: 'Capacity', useCase: 'general' });
  await api('PATCH', `/agents/${agent.id}`, { model: 'parley-offline' });
  const sources: string[] = [];
  const corpus = WORKSHOP_CORPUS.map((p) => `## ${p.title}\n\n${p.text}`).join('\n\n');
  sources.push((await api('POST', `/agents/${agent.id}/sources`, { type: 'text', title: 'Workshop', content: corpus })).id);
  for (let made = 0, n = 0; made < PASSAGES - WORKSHOP_CORPUS.length; made += PARAGRAPHS_A_SOURCE, n++) {
    const count = Math.min(PARAGRAPHS_A_SOURCE, PASSAGES - WORKSHOP_CORPUS.length - made);
    const content = Array.from({ length: count }, (_, i) => paragraph(made + i)).join('\n\n');
    sources.push((await api('POST', `/agents/${agent.id}/sources`, { type: 'text', title: `Notes ${n + 1}`, content })).id);
  }
  let passages = 0;
  for (const id of sources) {
    const until = Date.now() + 300_000;
    for (;;) {
      const source = await api('GET', `/agents/${agent.id}/sources/${id}`);
      if (source.status === 'ready') {
        passages += source.chunkCount ?? 0;
        break;
      }
      if (source.status !== 'pending' && source.status !== 'processing') throw new Error(`source ${id}: ${source.status} ${source.error ?? ''}`);
      if (Date.now() > until) throw new Error(`source ${id} still ${source.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  progress(`agent ${agent.id}: ${sources.length} sources, ${passages} passages`);
  return agent.id;
}

// ---------- the load ----------

interface Api {
  url: string;
  pid: number;
}

interface Case {
  name: string;
  /** The processes the load is split between. */
  apis: Api[];
  /** The database whose backends' CPU is counted, when not the deployment's. */
  databaseMarker?: string;
  /** The version measured, when two are compared (BENCH_CAPACITY_BEFORE). */
  version?: string;
  requests(api: Api): autocannon.Request[];
}

let asked = 0;
const nextQuestion = () => WORKSHOP_QUESTIONS[asked++ % WORKSHOP_QUESTIONS.length]!.question;

/**
 * A conversation: a new question, then FOLLOW_UPS follow-ups naming the conversation (and,
 * through the visitor API, sending its token). Each connection repeats it.
 */
function conversation(path: string, headers: Record<string, string>): autocannon.Request[] {
  const ask = (followUp: boolean): autocannon.Request => ({
    method: 'POST',
    path,
    setupRequest: (request: any, context: any) => {
      const body: Record<string, string> = { message: nextQuestion() };
      const sent = { ...headers };
      if (!followUp) context.conversationId = context.token = undefined;
      else if (context.conversationId) {
        body.conversationId = context.conversationId;
        if (context.token) sent['x-visitor-token'] = context.token;
      }
      return { ...request, headers: sent, body: JSON.stringify(body) };
    },
    onResponse: (status: number, body: string, context: any) => {
      if (followUp || status !== 200) return;
      const data = JSON.parse(body).data;
      context.conversationId = data.conversationId;
      context.token = data.visitorToken;
    },
  } as autocannon.Request);
  return [ask(false), ...Array.from({ length: FOLLOW_UPS }, () => ask(true))];
}

function restCase(name: string, apis: Api[], agentId: string, key: string): Case {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  return { name, apis, requests: () => conversation(`/api/v1/agents/${agentId}/chat`, headers) };
}

function visitorCase(name: string, apis: Api[], agentId: string): Case {
  const headers = { 'content-type': 'application/json', origin: ORIGIN };
  return { name, apis, requests: () => conversation(`/visitor/v1/agents/${agentId}/chat`, headers) };
}

function baselineCase(name: string, apis: Api[], key: string): Case {
  return { name, apis, requests: () => [{ method: 'GET', path: '/api/v1/workspace', headers: { authorization: `Bearer ${key}` } }] };
}

interface Round {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** µs a request: the API processes' event loops, the API processes whole, the database's backends. */
  loopCpu: number;
  processCpu: number;
  databaseCpu: number | undefined;
  /** µs a request: the load generator (autocannon, in this process). */
  loadCpu: number;
  /** The share of the machine's CPU (every core) busy during the round, whatever used it. */
  machineBusy: number;
  /** BENCH_CAPACITY_WAITS: the backends running a statement (mean of the samples), the shares of them waiting. */
  waits?: Waits;
}

interface Waits {
  active: number;
  lock: number;
  wal: number;
}

let waitsDatabaseUrl: string | undefined;

/**
 * After loading the agent, its scratch database is vacuumed and analysed (BENCH_CAPACITY_VACUUM=0 leaves it to
 * autovacuum): otherwise the first minutes of rounds measure autovacuum and analyze of the 10,000 passages' postings
 * (13 to 52 ms of the database's CPU an answer in the fourth to sixth rounds of docs/performance.md), not the answers.
 * Again after the warm-up, as autovacuum's analyze does once a table has grown (this machine's server runs none):
 * the first pass recorded the answers' tables as empty, so the plans each connection kept from then, the foreign key
 * checks' on `conversations` among them, scanned the whole table (102 buffers a check against 5 after the analyze).
 */
async function settle(databaseUrl: string): Promise<void> {
  if (process.env.BENCH_CAPACITY_VACUUM === '0') return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('vacuum (analyze)');
  } finally {
    await client.end();
  }
}

/** Samples the named database's client backends until stopped (BENCH_CAPACITY_WAITS). */
function sampleWaits(database: string): { stop(): Promise<Waits | undefined> } {
  if (!WAITS || !waitsDatabaseUrl) return { stop: async () => undefined };
  const client = new pg.Client({ connectionString: waitsDatabaseUrl });
  let stopped = false;
  const totals = { samples: 0, active: 0, lock: 0, wal: 0 };
  const sampling = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ active: number; lock: number; wal: number }>(
        `select count(*)::int as active,
           count(*) filter (where wait_event_type = 'Lock')::int as lock,
           count(*) filter (where wait_event in ('WALSync', 'WALWrite', 'WALInsert', 'WALWriteLock', 'WalSync'))::int as wal
         from pg_stat_activity
         where datname = $1 and backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid()`,
        [database],
      );
      totals.samples++;
      totals.active += rows[0]!.active;
      totals.lock += rows[0]!.lock;
      totals.wal += rows[0]!.wal;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await sampling.catch(() => {});
      await client.end().catch(() => {});
      if (totals.samples === 0) return undefined;
      return { active: totals.active / totals.samples, lock: totals.lock / Math.max(1, totals.active), wal: totals.wal / Math.max(1, totals.active) };
    },
  };
}

/** One autocannon instance a process, all at once; at a fixed rate when `rate` is given (split alike). */
async function measure(c: Case, seconds: number, deploymentMarker: string | undefined, rate?: number): Promise<Round> {
  const databaseMarker = c.databaseMarker ?? deploymentMarker;
  const loopBefore = c.apis.map((api) => eventLoopCpuMicros(api.pid) ?? Number.NaN);
  const processBefore = c.apis.map((api) => processCpuMicros(api.pid) ?? Number.NaN);
  const databaseBefore = databaseMarker ? processesCpu(databaseMarker) : undefined;
  const sampler = databaseMarker && !c.name.startsWith('baseline') ? sampleWaits(databaseMarker) : undefined;
  const loadBefore = process.cpuUsage();
  const machineBefore = machineCpuMicros();
  const results = await Promise.all(
    c.apis.map((api) =>
      autocannon({
        url: api.url,
        requests: c.requests(api),
        duration: seconds,
        connections: Math.max(1, Math.round(CONNECTIONS / c.apis.length)),
        pipelining: 1,
        ...(rate ? { overallRate: Math.max(1, Math.round(rate / c.apis.length)) } : {}),
      }),
    ),
  );
  const loop = c.apis.reduce((sum, api, i) => sum + (eventLoopCpuMicros(api.pid) ?? Number.NaN) - loopBefore[i]!, 0);
  const whole = c.apis.reduce((sum, api, i) => sum + (processCpuMicros(api.pid) ?? Number.NaN) - processBefore[i]!, 0);
  const database = databaseMarker && databaseBefore ? processesCpuSince(databaseBefore, processesCpu(databaseMarker)) : undefined;
  const load = process.cpuUsage(loadBefore);
  const machine = machineCpuMicros();
  const waits = await sampler?.stop();
  const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
  const ok = results.reduce((sum, r) => sum + r['2xx'], 0);
  // Latency over the instances: the slower instance's percentile (they share the load evenly).
  return {
    rps: ok / seconds,
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    requests,
    errors: requests - ok + results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    loopCpu: loop / Math.max(1, requests),
    processCpu: whole / Math.max(1, requests),
    databaseCpu: database === undefined ? undefined : database / Math.max(1, requests),
    loadCpu: (load.user + load.system) / Math.max(1, requests),
    machineBusy: (machine.busy - machineBefore.busy) / Math.max(1, machine.total - machineBefore.total),
    ...(waits && { waits }),
  };
}

function median(rounds: Round[]): Round {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

interface Measured {
  deployment: string;
  c: Case;
  saturation: Round;
  rounds: Round[];
  atFraction: Map<number, Round>;
}

/**
 * Warm-up, then ROUNDS rounds with the cases taking turns, then each answering case at the fixed fractions of its rate.
 * `afterWarmUp` settles the databases again once the warm-up has filled the tables the answers write.
 */
async function measureDeployment(deployment: string, cases: Case[], databaseMarker: string | undefined, afterWarmUp?: () => Promise<void>): Promise<Measured[]> {
  for (const c of cases) await measure(c, WARM_UP_SECONDS, databaseMarker);
  await afterWarmUp?.();
  const rounds = new Map<Case, Round[]>(cases.map((c) => [c, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const result = await measure(c, SECONDS, databaseMarker);
      rounds.get(c)!.push(result);
      progress(`${deployment}, ${c.version ? `${c.version}, ` : ''}${c.name}: ${Math.round(result.rps)}/s`);
    }
  }
  const measured = cases.map((c) => ({ deployment, c, saturation: median(rounds.get(c)!), rounds: rounds.get(c)!, atFraction: new Map<number, Round>() }));
  for (const fraction of FRACTIONS) {
    for (const m of measured) {
      if (m.c.name.startsWith('baseline')) continue;
      m.atFraction.set(fraction, await measure(m.c, SECONDS, databaseMarker, m.saturation.rps * fraction));
    }
  }
  return measured;
}

// ---------- deployments ----------

async function embedded(): Promise<Measured[]> {
  const service = await startParley(LIMITS);
  try {
    progress('embedded: loading the agent');
    const agentId = await prepareAgent(service);
    const apis = [{ url: service.url, pid: service.child.pid! }];
    return await measureDeployment('embedded', [baselineCase('baseline: GET /workspace', apis, service.manageKey), restCase('REST', apis, agentId, service.manageKey), visitorCase('visitor', apis, agentId)], undefined);
  } finally {
    await service.stop();
  }
}

async function postgres(databaseUrl: string, redisUrl: string): Promise<Measured[]> {
  const database = await scratchDatabase(databaseUrl);
  const env = { ...LIMITS, DATABASE_URL: database.url, REDIS_URL: redisUrl };
  const stops: Array<() => Promise<void>> = [];
  try {
    const first = await startParley({ ...env, PARLEY_ROLE: 'api' });
    stops.push(first.stop);
    const worker = await startParleyProcess({ ...env, PARLEY_ROLE: 'worker' });
    stops.push(worker.stop);
    const second = await startParleyProcess({ ...env, PARLEY_ROLE: 'api' });
    stops.push(second.stop);
    progress('postgres: loading the agent');
    const agentId = await prepareAgent(first);
    await settle(database.url);
    const one = [{ url: first.url, pid: first.child.pid! }];
    const two = [...one, { url: second.url, pid: second.child.pid! }];
    const marker = new URL(database.url).pathname.slice(1);
    return await measureDeployment(
      'PostgreSQL + Redis',
      [
        baselineCase('baseline: GET /workspace, 1 API process', one, first.manageKey),
        restCase('REST, 1 API process', one, agentId, first.manageKey),
        visitorCase('visitor, 1 API process', one, agentId),
        restCase('REST, 2 API processes', two, agentId, first.manageKey),
        visitorCase('visitor, 2 API processes', two, agentId),
      ],
      marker,
      () => settle(database.url),
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await database.drop();
  }
}

/** One version's service for `compared`: the embedded store alone, or an API process and a worker on a scratch database. */
async function comparedService(
  store: 'embedded' | 'postgres',
  cwd: string | undefined,
  urls: { databaseUrl?: string; redisUrl?: string },
  stops: Array<() => Promise<void>>,
): Promise<{ api: RunningService; databaseMarker?: string; databaseUrl?: string }> {
  if (store === 'embedded') {
    const api = await startParley(LIMITS, cwd);
    stops.push(api.stop);
    return { api };
  }
  const database = await scratchDatabase(urls.databaseUrl!);
  stops.push(database.drop);
  const env = { ...LIMITS, DATABASE_URL: database.url, REDIS_URL: urls.redisUrl! };
  const api = await startParley({ ...env, PARLEY_ROLE: 'api' }, cwd);
  stops.push(api.stop);
  const worker = await startParleyProcess({ ...env, PARLEY_ROLE: 'worker' }, cwd);
  stops.push(worker.stop);
  return { api, databaseMarker: new URL(database.url).pathname.slice(1), databaseUrl: database.url };
}

/**
 * This checkout against BEFORE's code on one store (BENCH_CAPACITY_DEPLOYMENTS=embedded compares the embedded store,
 * otherwise PostgreSQL): one API process each (on PostgreSQL with a worker, each on its own scratch database) with the
 * same agent, their cases in the same alternating rounds.
 */
async function compared(store: 'embedded' | 'postgres', urls: { databaseUrl?: string; redisUrl?: string }, before: string): Promise<Measured[]> {
  const stops: Array<() => Promise<void>> = [];
  const cases: Case[] = [];
  const databaseUrls: string[] = [];
  try {
    for (const [label, cwd] of [['before', before], ['this checkout', undefined]] as const) {
      const { api, databaseMarker, databaseUrl } = await comparedService(store, cwd, urls, stops);
      progress(`${label}: loading the agent`);
      const agentId = await prepareAgent(api);
      if (databaseUrl) {
        await settle(databaseUrl);
        databaseUrls.push(databaseUrl);
      }
      const apis = [{ url: api.url, pid: api.child.pid! }];
      cases.push(
        { ...baselineCase('baseline: GET /workspace', apis, api.manageKey), databaseMarker, version: label },
        { ...restCase('REST', apis, agentId, api.manageKey), databaseMarker, version: label },
        { ...visitorCase('visitor', apis, agentId), databaseMarker, version: label },
      );
    }
    // Each kind of case of both versions side by side, so that their rounds are neighbours.
    const order = ['baseline', 'REST', 'visitor'].flatMap((kind) => cases.filter((c) => c.name.startsWith(kind)));
    const deployment = store === 'embedded' ? 'embedded' : 'PostgreSQL + Redis, 1 API process';
    const measured = await measureDeployment(deployment, order, undefined, async () => {
      for (const url of databaseUrls) await settle(url);
    });
    return measured.map((m) => ({ ...m, deployment: `${m.deployment}, ${m.c.version}` }));
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

// ---------- run ----------

const us = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '-' : Math.round(value));

export async function run(): Promise<void> {
  const started = performance.now();
  const measured: Measured[] = [];
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  waitsDatabaseUrl = databaseUrl;
  if (BEFORE && DEPLOYMENTS.join() === 'embedded') {
    measured.push(...(await compared('embedded', {}, BEFORE)));
  } else if (BEFORE) {
    if (!databaseUrl || !redisUrl) throw new Error('BENCH_CAPACITY_BEFORE compares on PostgreSQL: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
    measured.push(...(await compared('postgres', { databaseUrl, redisUrl }, BEFORE)));
  } else {
    if (DEPLOYMENTS.includes('embedded')) measured.push(...(await embedded()));
    if (DEPLOYMENTS.includes('postgres') && databaseUrl && redisUrl) measured.push(...(await postgres(databaseUrl, redisUrl)));
    else if (DEPLOYMENTS.includes('postgres')) console.log('PostgreSQL figures skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (or BENCH_*).');
  }

  const find = (deployment: string, name: string) => measured.find((m) => m.deployment === deployment && m.c.name === name);
  const rows: Row[] = measured.map((m) => {
    const baseline = measured.find((b) => b.deployment === m.deployment && b.c.name.startsWith('baseline'))!;
    const rest = measured.find((b) => b.deployment === m.deployment && b.c.name.startsWith('REST') && b.c.apis.length === m.c.apis.length);
    const s = m.saturation;
    return {
      deployment: m.deployment,
      case: m.c.name,
      'req/s': Math.round(s.rps),
      'rounds req/s': m.rounds.map((r) => Math.round(r.rps)).join(' '),
      'p50/p99 ms (saturated)': `${s.p50}/${s.p99}`,
      ...Object.fromEntries(FRACTIONS.map((f) => [`p50/p99 ms at ${f * 100}%`, m.atFraction.get(f) ? `${m.atFraction.get(f)!.p50}/${m.atFraction.get(f)!.p99}` : '-'])),
      'loop CPU µs/req': us(s.loopCpu),
      'process CPU µs/req': us(s.processCpu),
      'DB CPU µs/req': us(s.databaseCpu),
      'load generator CPU µs/req': us(s.loadCpu),
      'machine busy': `${Math.round(s.machineBusy * 100)}%`,
      ...(WAITS && {
        'DB backends active': s.waits ? s.waits.active.toFixed(1) : '-',
        'of them waiting on a lock / the WAL': s.waits ? `${Math.round(s.waits.lock * 100)}% / ${Math.round(s.waits.wal * 100)}%` : '-',
      }),
      'vs baseline req/s': ratio(s.rps, baseline.saturation.rps),
      'visitor / REST': m.c.name.startsWith('visitor') && rest ? ratio(s.rps, rest.saturation.rps) : '',
      errors: m.rounds.reduce((sum, r) => sum + r.errors, 0),
    };
  });
  printTable(
    `Answers a second at saturation (offline model, lexical retrieval, ${PASSAGES} passages; conversations of a question and ${FOLLOW_UPS} follow-ups; ${CONNECTIONS} connections; median of ${ROUNDS} alternating rounds of ${SECONDS} s; CPU a request at saturation). Targets: PostgreSQL 1 API >= 600/s, embedded >= 400/s, visitor / REST >= 0.85`,
    rows,
  );
  const scaling: Row[] = [];
  for (const kind of ['REST', 'visitor']) {
    const one = find('PostgreSQL + Redis', `${kind}, 1 API process`);
    const two = find('PostgreSQL + Redis', `${kind}, 2 API processes`);
    if (one && two) scaling.push({ API: kind, '1 process req/s': Math.round(one.saturation.rps), '2 processes req/s': Math.round(two.saturation.rps), 'second adds (share of the first)': ratio(two.saturation.rps - one.saturation.rps, one.saturation.rps), 'machine busy with 1 process': `${Math.round(one.saturation.machineBusy * 100)}%` });
  }
  if (scaling.length) printTable('A second API process on PostgreSQL + Redis (target: adds >= 0.60 of the first)', scaling);
  printTable('Bench runtime', [{ seconds: ((performance.now() - started) / 1000).toFixed(0) }]);
}
