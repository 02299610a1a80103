/**
 * A role loads what it needs when it needs it (docs/performance.md, Memory): once
 * started and idle, a process holds none of the heavy modules that only some
 * requests or jobs use. Real processes of src/main.ts, with a load hook
 * (test/support/loaded-modules.ts) that lists the packages they have loaded.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startMain, stopAll } from './support/processes.ts';
import { freshDatabase, storeUnderTest } from './support/stores.ts';

after(stopAll);

/**
 * Used by some requests or jobs only: text recognition, PDF and chart rendering, the widget's bundler, the crawl's
 * HTML parsers, mail, the API reference's page, the MCP server (the first /mcp request), Redis's client (REDIS_URL
 * only; these processes have none), passkeys' WebAuthn (the first passkey request) and the HTTP clients of outbound
 * requests (the first fetch).
 */
const HEAVY = [
  'tesseract.js',
  'pdfkit',
  'fontkit',
  '@resvg/resvg-js',
  'esbuild',
  'cheerio',
  'linkedom',
  '@mozilla/readability',
  'nodemailer',
  '@scalar/fastify-api-reference',
  '@modelcontextprotocol/sdk',
  'ioredis',
  '@simplewebauthn/server',
  'undici',
  // Node's own undici: loaded by the first fetch, or by an ESM import of node:http (src/platform/http-status.ts).
  'node:undici',
  // The public suffix list (the first wildcard origin) and file signatures (the first file).
  'tldts',
  'file-type',
  // Ajv (Fastify's default validator and fast-json-stringify's, for its unions): the first response compiles a
  // serializer; requests are validated by zod. Fastify's default compilers are never required.
  'ajv',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  // Password hashing (a native addon: the first password checked or set), the mailbox providers' domains (the first
  // lead with an e-mail address) and ALTCHA (the first proof-of-work challenge).
  '@node-rs/argon2',
  'email-providers',
  'altcha-lib',
];

/** The job handlers: only a role that runs jobs loads them. */
const WORKERS = 'src/workers.ts';
/** The embedded store's database: never loaded by a process on PostgreSQL. */
const EMBEDDED_DATABASE = '@electric-sql/pglite';
/** The job queue's library: an api process only sends jobs, and loads it with its first send. */
const JOB_QUEUE = 'pg-boss';

/** The packages a started process has loaded. */
async function loadedPackages(env: Record<string, string>): Promise<string[]> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'parley-loaded-')), 'modules.txt');
  const running = await startMain({ ...env, PARLEY_LOADED_MODULES_FILE: file }, ['--import', './test/support/loaded-modules.ts']);
  running.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.endsWith('\n')) return text.trim().split('\n');
    if (Date.now() > deadline) throw new Error(`no module list from the process:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function heavyAmong(loaded: string[]): string[] {
  return HEAVY.filter((name) => loaded.includes(name));
}

describe('an idle embedded npm start holds no heavy module', { skip: storeUnderTest() !== 'embedded' && 'tried on the embedded pass' }, () => {
  test('none of the renderers, text recognition or the bundler is loaded after start-up', async () => {
    const loaded = await loadedPackages({ PARLEY_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'parley-lean-')) });
    assert.ok(loaded.includes('@electric-sql/pglite'), 'the list is the process\'s own');
    assert.deepEqual(heavyAmong(loaded), []);
  });
});

describe('idle PostgreSQL roles hold no heavy module', { skip: storeUnderTest() !== 'postgres' && 'tried on the PostgreSQL pass' }, () => {
  for (const role of ['api', 'worker']) {
    test(`an idle ${role} process has loaded none of them`, async () => {
      const { url, drop } = await freshDatabase();
      try {
        const loaded = await loadedPackages({ DATABASE_URL: url!, PARLEY_ROLE: role });
        assert.ok(loaded.includes('pg'), 'the list is the process\'s own');
        assert.deepEqual(heavyAmong(loaded), []);
        assert.equal(loaded.includes(WORKERS), role === 'worker', `${WORKERS} loaded by the ${role} process`);
        assert.equal(loaded.includes(JOB_QUEUE), role === 'worker', `${JOB_QUEUE} loaded by the ${role} process`);
        assert.equal(loaded.includes(EMBEDDED_DATABASE), false, `${EMBEDDED_DATABASE} loaded by the ${role} process`);
      } finally {
        await drop();
      }
    });
  }
});
