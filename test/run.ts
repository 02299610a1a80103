/**
 * npm test: the whole suite on the embedded store and, when TEST_DATABASE_URL and
 * TEST_REDIS_URL are set, on PostgreSQL and Redis; `node test/run.ts FILE...` runs
 * only those files (on both stores likewise).
 *
 * Each test file runs in a process of its own (as `node --test` runs them), and
 * the two stores' runs share one pool of PARLEY_TEST_CONCURRENCY processes (2 by
 * default, as many as each pass ran before) instead of running one after the
 * other, and the slowest files start first (durations from the last run, kept in
 * .tmp/test-durations.json, else the CI figures committed in test/durations.json):
 * the run no longer ends each pass on its one long file with a core idle (docs/performance.md, CI). A file's output is printed whole when it ends;
 * the end of the run lists each store's slowest files and every failure.
 *
 * STORE_INDEPENDENT files run once: they never open a store, so a second run
 * would prove nothing more. They run with PARLEY_TEST_STORE=none, under which
 * the test support refuses to open a store (test/support/stores.ts), so a file
 * wrongly listed here fails instead of running on one store only. ONE_STORE files
 * (browser files: the widget's, five of the dashboard's) run on the one store named there. Every other file
 * runs on both stores; a file not listed (a new one) therefore runs on both.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareTemplates, type StoreKind } from './support/stores.ts';

/**
 * Files that open no store (no service, no database, no process of the service):
 * pure logic, the file readers, config parsing, the Redis helpers against TEST_REDIS_URL
 * (which both passes use alike), npm's behaviour. Keep sorted; a path that no longer
 * exists fails the run.
 */
export const STORE_INDEPENDENT = [
  'src/http/request-log.test.ts',
  'src/http/serializer.test.ts',
  'src/http/text-guard.test.ts',
  'src/modules/chat/grounding.test.ts',
  'src/modules/chat/offline-model.test.ts',
  'src/modules/email-channel/inbound-config.test.ts',
  'src/modules/email-channel/reading.test.ts',
  'src/modules/knowledge/chunk.test.ts',
  'src/modules/knowledge/crawl/extract.test.ts',
  'src/modules/knowledge/languages.test.ts',
  'src/modules/webhooks/mails.test.ts',
  'src/modules/widget/handoff.test.ts',
  'src/platform/crypto.test.ts',
  'src/platform/file-reader.test.ts',
  'src/platform/grouped-statements.test.ts',
  'src/platform/limiter.test.ts',
  'src/platform/redis.test.ts',
  'src/platform/safe-fetch.test.ts',
  'src/platform/versions.test.ts',
  'test/first-run.test.ts',
];

/**
 * Browser files that run on one store. The widget's prove its browser code (what it draws and sends, layout, the
 * keyboard, its safety on a hostile page); five of the dashboard's prove its pages (serving, sign-in, the first run,
 * the preloaded data, the playground, settings and install, the figures as the API gives them, the inbox). The API
 * rules behind what they check are proven over HTTP on both stores by the modules' own files (visitors, leads,
 * tickets, visitor-files, chat, analytics, clients, people, agents, knowledge; the inbox's ticket replies, held
 * drafts, text search and member limits by people/ticket-reply, email-channel, chat/inbox-filters and
 * people/people). The dashboard's files with more of the stores' machinery in their flows (sources-page,
 * team-pages: crawls stopped, webhooks switched off and on, sessions ended) still run on both. The files named here are spread over the two stores, so a browser
 * still talks to each. A file whose store is not set up runs on the embedded one. docs/performance.md, CI. A path
 * that no longer exists fails the run.
 */
export const ONE_STORE: Record<string, StoreKind> = {
  'src/modules/dashboard/agent-pages.test.ts': 'postgres',
  'src/modules/dashboard/analytics-pages.test.ts': 'postgres',
  'src/modules/dashboard/dashboard.test.ts': 'embedded',
  'src/modules/dashboard/first-load.test.ts': 'embedded',
  'src/modules/dashboard/inbox-pages.test.ts': 'postgres',
  'src/modules/widget/widget-forms.test.ts': 'postgres',
  'src/modules/widget/widget.test.ts': 'embedded',
};

type Pass = StoreKind | 'none';

interface Job {
  pass: Pass;
  file: string;
  expected: number;
}

interface Done extends Job {
  ok: boolean;
  seconds: number;
  output: string;
}

const DURATIONS_FILE = path.join('.tmp', 'test-durations.json');
/**
 * Committed: every file's duration in a CI run, read when the checkout has no durations of its own (a clean clone, as
 * CI runs on), so that the slowest files start first there too instead of the biggest. Refresh it from a CI clone's
 * .tmp/test-durations.json when a file's place among the slowest changes.
 */
const DURATIONS_SEED = path.join('test', 'durations.json');
const COMPILE_CACHE = path.resolve('.tmp', 'compile-cache');
const SLOWEST_SHOWN = 15;
/** CI keeps only the end of a run's output: each failure's details are printed again last. */
const FAILURE_LINES_REPEATED = 120;

/** The part of a failed file's output that says why: node's failure summary when it printed one, else the end. */
function whyItFailed(output: string): string {
  const lines = output.trimEnd().split('\n');
  const summary = lines.findIndex((line) => line.startsWith('✖ failing tests:'));
  const why = summary >= 0 ? lines.slice(summary) : lines;
  return why.slice(-FAILURE_LINES_REPEATED).join('\n');
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

function passName(pass: Pass): string {
  if (pass === 'none') return 'no store (store-independent files, once)';
  return pass === 'embedded' ? 'embedded database (PGlite)' : 'PostgreSQL server and Redis';
}

function readDurations(): Record<string, number> {
  for (const file of [DURATIONS_FILE, DURATIONS_SEED]) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    } catch {
      // none yet (or unreadable): the next one
    }
  }
  return {};
}

/** Runs one file in its own process; its output is kept and printed whole when it ends. */
function runFile(job: Job): Promise<Done> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test-reporter=spec', job.file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Node's compile cache keeps the modules' compiled (and type-stripped) code on disk for the next process: about
      // 0.6 s of CPU less at each file's start (docs/performance.md, CI).
      env: { NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env, PARLEY_TEST_STORE: job.pass },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      const ok = code === 0;
      const verdict = ok ? 'ok' : `FAILED (${signal ? `signal ${signal}` : `exit ${code}`})`;
      const output = Buffer.concat(chunks).toString();
      process.stdout.write(`\n── [${job.pass}] ${job.file} ${verdict} in ${seconds.toFixed(1)} s\n${output}`);
      resolve({ ...job, ok, seconds, output: ok ? '' : output });
    });
  });
}

async function runPool(jobs: Job[], concurrency: number): Promise<Done[]> {
  const queue = [...jobs];
  const done: Done[] = [];
  const lane = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) done.push(await runFile(job));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, lane));
  return done;
}

const only = process.argv.slice(2).map((file) => path.normalize(file));
const files = only.length > 0 ? only : [...testFiles('src'), ...testFiles('test')].sort();
const missing = [...STORE_INDEPENDENT, ...Object.keys(ONE_STORE)].filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.error(`test/run.ts lists files that do not exist (STORE_INDEPENDENT, ONE_STORE): ${missing.join(', ')}`);
  process.exit(1);
}
const once = new Set(STORE_INDEPENDENT);
const stores: StoreKind[] = ['embedded'];
if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) stores.push('postgres');
else console.log('The PostgreSQL and Redis pass is SKIPPED: set TEST_DATABASE_URL and TEST_REDIS_URL to run it (.ci/run does).');

const concurrency = Number(process.env.PARLEY_TEST_CONCURRENCY ?? 2);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`PARLEY_TEST_CONCURRENCY must be a whole number of processes, not ${process.env.PARLEY_TEST_CONCURRENCY}`);
  process.exit(1);
}

for (const store of stores) await prepareTemplates(store);

const known = readDurations();
/** Files without a recorded duration (new ones, or a fresh checkout) are guessed by size: bigger files tend to run longer. */
const guess = (file: string) => statSync(file).size / 1000;
const passesOf = (file: string): Pass[] => {
  if (once.has(file)) return ['none'];
  const one = ONE_STORE[file.split(path.sep).join('/')];
  if (one) return [stores.includes(one) ? one : 'embedded'];
  return stores;
};
const jobs: Job[] = files.flatMap((file) => passesOf(file).map((pass) => ({ pass, file, expected: known[`${pass} ${file}`] ?? guess(file) })));
jobs.sort((a, b) => b.expected - a.expected);

console.log(`${jobs.length} test file runs on ${[...new Set(jobs.map((job) => job.pass))].map(passName).join(', ')}; ${concurrency} at a time, slowest first`);
const started = performance.now();
const done = await runPool(jobs, concurrency);
const wall = (performance.now() - started) / 1000;

mkdirSync('.tmp', { recursive: true });
writeFileSync(DURATIONS_FILE, JSON.stringify({ ...known, ...Object.fromEntries(done.map((job) => [`${job.pass} ${job.file}`, Number(job.seconds.toFixed(1))])) }, null, 1));

console.log('\n==================== test durations ====================');
for (const pass of ['none', ...stores] as Pass[]) {
  const ofPass = done.filter((job) => job.pass === pass).sort((a, b) => b.seconds - a.seconds);
  if (ofPass.length === 0) continue;
  const total = ofPass.reduce((sum, job) => sum + job.seconds, 0);
  console.log(`\n${passName(pass)}: ${ofPass.length} files, ${total.toFixed(1)} s of file time${ofPass.length > SLOWEST_SHOWN ? `; the slowest ${SLOWEST_SHOWN}` : ''}:`);
  for (const job of ofPass.slice(0, SLOWEST_SHOWN)) console.log(`  ${job.seconds.toFixed(1).padStart(7)} s  ${job.file}`);
}
const cpus = os.availableParallelism();
console.log(`\nwall time ${wall.toFixed(1)} s, ${concurrency} files at a time on ${cpus} core${cpus === 1 ? '' : 's'}`);

const failed = done.filter((job) => !job.ok);
for (const pass of [...new Set(jobs.map((job) => job.pass))]) console.log(`${passName(pass)}: ${failed.some((job) => job.pass === pass) ? 'FAILED' : 'passed'}`);
if (failed.length > 0) {
  console.log(`\n${failed.length} file run${failed.length === 1 ? '' : 's'} FAILED (output above, under the ── line of each):`);
  for (const job of failed) console.log(`  [${job.pass}] ${job.file}`);
  for (const job of failed) console.log(`\n── why [${job.pass}] ${job.file} failed (the end of its output)\n${whyItFailed(job.output)}`);
}
process.exit(failed.length === 0 ? 0 : 1);
