/**
 * npm test: the whole suite on the embedded store, then again on PostgreSQL and
 * Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { prepareTemplates, type StoreKind } from './support/stores.ts';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : [...testFiles('src'), ...testFiles('test')].sort();

async function runPass(store: StoreKind): Promise<boolean> {
  console.log(`\n=== test pass on the ${store === 'embedded' ? 'embedded database (PGlite)' : 'PostgreSQL server and Redis'} ===`);
  await prepareTemplates(store);
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
    stdio: 'inherit',
    env: { ...process.env, PARLEY_TEST_STORE: store },
  });
  return result.status === 0;
}

const embeddedOk = await runPass('embedded');
let postgresOk = true;
if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) postgresOk = await runPass('postgres');
else console.log('\nThe PostgreSQL and Redis pass is SKIPPED: set TEST_DATABASE_URL and TEST_REDIS_URL to run it (.ci/run does).');
process.exit(embeddedOk && postgresOk ? 0 : 1);
