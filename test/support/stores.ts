import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openEmbedded, openPostgres, type Database } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { createQueue } from '../../src/platform/queue.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE_DIR = path.join(ROOT, '.tmp');

export type StoreKind = 'embedded' | 'postgres';

/**
 * Which store this test run uses: test/run.ts runs the suite once per store, and
 * the files it lists as store-independent once, with PARLEY_TEST_STORE=none: such
 * a file that reaches for a store is wrongly listed and fails here.
 */
export function storeUnderTest(): StoreKind {
  const store = process.env.PARLEY_TEST_STORE;
  if (store === 'none') {
    throw new Error('this test file is listed in STORE_INDEPENDENT (test/run.ts), so it runs once, yet it opens a store: take it off that list so that it runs on both stores');
  }
  return store === 'postgres' ? 'postgres' : 'embedded';
}

/** Migrations and the job queue's schema: a template is valid while neither changes. */
async function schemaVersion(): Promise<string> {
  const hash = createHash('sha256');
  const dir = path.join(ROOT, 'migrations');
  for (const file of (await readdir(dir)).sort()) hash.update(file).update(await readFile(path.join(dir, file)));
  hash.update(JSON.parse(await readFile(path.join(ROOT, 'node_modules/pg-boss/package.json'), 'utf8')).version);
  return hash.digest('hex').slice(0, 12);
}

async function prepareSchema(database: Database): Promise<void> {
  await migrate(database);
  const queue = await createQueue(database);
  await queue.stop();
}

/**
 * A fresh embedded database for one test: made once per schema version as a
 * dump (initdb and migrations take seconds), then loaded in a fraction of that.
 */
async function embeddedTemplate(): Promise<Blob> {
  const file = path.join(CACHE_DIR, `pglite-template-${await schemaVersion()}.tar.gz`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const database = await openEmbedded(undefined);
    await prepareSchema(database);
    const dump = await database.pglite.dumpDataDir('gzip');
    await database.close();
    await mkdir(CACHE_DIR, { recursive: true });
    const partial = `${file}.${process.pid}.part`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    return dump;
  }
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** On PostgreSQL each test gets its own database, copied from a migrated template database. */
async function postgresTemplate(baseUrl: string): Promise<string> {
  const name = `parley_template_${await schemaVersion()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) {
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      await admin.query(`create database ${building}`);
      const database = await openPostgres(databaseUrl(baseUrl, building), 2);
      await prepareSchema(database);
      await database.close();
      try {
        await admin.query(`alter database ${building} rename to ${name}`);
      } catch {
        await admin.query(`drop database if exists ${building}`); // another process finished first
      }
    }
  } finally {
    await admin.end();
  }
  return name;
}

export interface TestDatabase {
  database: Database;
  /** Set on PostgreSQL: other processes of the test may connect to it. */
  url: string | undefined;
  drop(): Promise<void>;
}

export async function freshDatabase(kind: StoreKind = storeUnderTest()): Promise<TestDatabase> {
  if (kind === 'embedded') {
    const database = await openEmbedded(undefined, { loadDataDir: await embeddedTemplate() });
    return { database, url: undefined, drop: async () => {} };
  }
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) throw new Error('TEST_DATABASE_URL is needed for the PostgreSQL pass');
  const template = await postgresTemplate(baseUrl);
  const name = `parley_t_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${template}`);
  await admin.end();
  const url = databaseUrl(baseUrl, name);
  const database = await openPostgres(url, 5);
  return {
    database,
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await client.end();
    },
  };
}

const STALE_TEST_DATABASE_SECONDS = 2 * 60 * 60;

/**
 * Prepares templates before the test files run in parallel, so they do not all
 * build one at once, and drops what crashed runs left behind: test databases
 * older than two hours (names carry their creation time, so a run going on
 * beside this one keeps its own) and, in CI only, templates of other schemas.
 */
export async function prepareTemplates(kind: StoreKind): Promise<void> {
  if (kind === 'embedded') {
    await embeddedTemplate();
    return;
  }
  const baseUrl = process.env.TEST_DATABASE_URL!;
  const current = await postgresTemplate(baseUrl);
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like 'parley\\_t\\_%' or datname like 'parley\\_template\\_%'`);
  const oldest = Math.floor(Date.now() / 1000) - STALE_TEST_DATABASE_SECONDS;
  const stale = rows
    .map((row) => row.datname)
    .filter((name) => {
      if (name.startsWith('parley_template_')) return Boolean(process.env.CI) && name !== current;
      const created = Number(name.split('_')[2]);
      return !(created > oldest);
    });
  for (const name of stale) await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
  await admin.end();
}
