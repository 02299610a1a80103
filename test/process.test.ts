/**
 * The service as an operator runs it: real processes of src/main.ts, the
 * first-start bootstrap, the data-directory lock, the CLI, and (on the
 * PostgreSQL pass) several API processes sharing one rate limit through Redis.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MANAGE_KEY, OPERATOR_TOKEN, bounded, freePort, printed, run, startMain, stopAll, stop, waitFor, type Running } from './support/processes.ts';
import { freshDatabase, storeUnderTest, type TestDatabase } from './support/stores.ts';
import pg from 'pg';

after(stopAll);

const WORKSPACE_ID = /Workspace id:/;

/** Runs `npx parley admin …` as a process (bin/parley.js), bounded; its exit code and everything it printed. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const running = await run(['bin/parley.js', 'admin', ...args], env);
  const code = await bounded(running.exited, 30_000, `parley admin ${args.join(' ')}`);
  return { code, output: running.output() };
}

describe('npm start on the embedded database', { skip: storeUnderTest() !== 'embedded' && 'the data directory rules are tried on the embedded pass' }, () => {
  let dataDir: string;
  let first: Running;
  let manageKey: string;
  let firstOutput: string;
  let operatorToken: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-process-'));
    first = await startMain({ PARLEY_DATA_DIR: dataDir });
    // The first-start lines follow the listening line and may arrive in a later chunk.
    await waitFor(first, /Try: curl/, 10_000);
    firstOutput = first.output();
  });
  after(async () => {
    await stopAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the first start on an empty data directory prints a manage key and the operator token, once', async () => {
    const output = first.output();
    manageKey = printed(output, MANAGE_KEY)!;
    operatorToken = printed(output, OPERATOR_TOKEN)!;
    assert.match(manageKey ?? '', /^cl_[0-9A-Za-z]{48}$/, output);
    assert.match(operatorToken ?? '', /^pa_/, output);
  });

  test("the first start prints the Demo workspace's id, the one GET /workspace and the operator API give", async () => {
    const workspaceId = printed(first.output(), WORKSPACE_ID);
    assert.match(workspaceId ?? '', /^ws_[0-9A-Za-z]+$/, first.output());
    const me = await (await fetch(`${first.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${manageKey}` } })).json();
    assert.equal(me.data.workspace.id, workspaceId);
    const listed = await (await fetch(`${first.url}/admin/v1/workspaces`, { headers: { authorization: `Bearer ${operatorToken}` } })).json();
    assert.deepEqual(
      listed.data.map((ws: { id: string; name: string }) => [ws.id, ws.name]),
      [[workspaceId, 'Demo']],
    );
  });

  test('the printed manage key works and belongs to the Demo workspace on studio', async () => {
    const response = await fetch(`${first.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${manageKey}` } });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.data.key.scope, 'manage');
    assert.equal(body.data.workspace.name, 'Demo');
    assert.equal(body.data.workspace.plan, 'studio');
  });

  test("the first start says where the owner's mail goes: the owner's address, how to change it and the outbox, with the commands that work", async () => {
    await waitFor(first, /Read it: npx parley admin outbox/, 10_000);
    const output = first.output();
    const workspaceId = printed(output, WORKSPACE_ID)!;
    assert.match(output, /Owner mail: .*owner's address, owner@localhost \(PARLEY_OWNER_EMAIL\)/);
    assert.match(output, /No SMTP_URL is set, so mail is kept in the outbox, not sent\. Read it: npx parley admin outbox \(or GET \/admin\/v1\/outbox with the operator token\)/);
    const update = output.match(/npx parley admin (workspaces update \S+ --owner-email) you@example\.com/);
    assert.ok(update, output);
    const admin = (...args: string[]) => cli({ PARLEY_DATA_DIR: dataDir }, '--url', first.url, ...args);
    const changed = await admin(...update[1]!.split(' '), 'owner@demo.example');
    assert.equal(changed.code, 0, changed.output);
    assert.equal(JSON.parse(changed.output).data.id, workspaceId);
    assert.equal(JSON.parse(changed.output).data.ownerEmail, 'owner@demo.example');
    const outbox = await admin('outbox');
    assert.equal(outbox.code, 0, outbox.output);
    assert.ok(Array.isArray(JSON.parse(outbox.output).data));
  });

  test('the printed operator token opens the operator API', async () => {
    const response = await fetch(`${first.url}/admin/v1/clock`, { headers: { authorization: `Bearer ${operatorToken}` } });
    assert.equal(response.status, 200);
    const wrong = await fetch(`${first.url}/admin/v1/clock`, { headers: { authorization: `Bearer ${operatorToken}x` } });
    assert.equal(wrong.status, 401);
  });

  test('POST /admin/v1/clock without PARLEY_TEST_CLOCK=1 is 404 not_found and the clock does not move', async () => {
    const headers = { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' };
    const response = await fetch(`${first.url}/admin/v1/clock`, { method: 'POST', headers, body: JSON.stringify({ advanceSeconds: 86_400 }) });
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, 'not_found');
    const now = (await (await fetch(`${first.url}/admin/v1/clock`, { headers })).json()).data.now;
    assert.ok(Math.abs(Date.parse(now) - Date.now()) < 60_000);
  });

  test('a second process on the same data directory refuses to start, with a clear message and a non-zero exit', async () => {
    const second = await run(['src/main.ts'], { PARLEY_DATA_DIR: dataDir, PORT: String(await freePort()) });
    const code = await bounded(second.exited, 30_000, 'the second process');
    assert.notEqual(code, 0);
    assert.match(second.output(), /Another Parley process \(pid \d+\) is using the data directory/);
    assert.doesNotMatch(second.output(), MANAGE_KEY);
    const stillServing = await fetch(`${first.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${manageKey}` } });
    assert.equal(stillServing.status, 200, 'the first process is unharmed');
  });

  test('a later start prints neither the key nor the token, and the first key still works', async () => {
    await stop(first);
    const again = await startMain({ PARLEY_DATA_DIR: dataDir });
    first = again;
    assert.equal((await fetch(`${again.url}/admin/v1/clock`)).status, 401); // a round trip: any first-start lines would be out by now
    assert.doesNotMatch(again.output(), MANAGE_KEY);
    assert.doesNotMatch(again.output(), OPERATOR_TOKEN);
    assert.doesNotMatch(again.output(), WORKSPACE_ID);
    assert.ok(!again.output().includes(manageKey));
    const response = await fetch(`${again.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${manageKey}` } });
    assert.equal(response.status, 200);
  });

  test('npx parley admin creates a workspace and a key with the token from the data directory', async () => {
    const admin = (...args: string[]) => cli({ PARLEY_DATA_DIR: dataDir, PORT: String(first.port), PARLEY_PUBLIC_URL: first.url }, ...args);
    const workspace = await admin('workspaces', 'create', '--name', 'From the CLI', '--plan', 'agency');
    assert.equal(workspace.code, 0, workspace.output);
    const created = JSON.parse(workspace.output).data;
    assert.match(created.id, /^ws_/);
    assert.equal(created.plan, 'agency');
    const key = await admin('keys', 'create', created.id, '--name', 'CLI key', '--scope', 'read');
    assert.equal(key.code, 0, key.output);
    const made = JSON.parse(key.output).data;
    assert.match(made.key, /^cl_[0-9A-Za-z]{48}$/);
    const response = await fetch(`${first.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${made.key}` } });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).data.workspace.name, 'From the CLI');
    const refused = await admin('keys', 'create', created.id, '--name', 'bad', '--scope', 'owner');
    assert.notEqual(refused.code, 0);
    assert.match(refused.output, /invalid_request/);
    assert.equal((await admin('keys', 'revoke', created.id, made.id)).code, 0);
    const listed = await admin('keys', 'list', created.id);
    assert.equal(listed.code, 0, listed.output);
    const [only] = JSON.parse(listed.output).data;
    assert.equal(only.id, made.id);
    assert.equal(only.name, 'CLI key');
    assert.match(only.revokedAt, /^\d{4}-/);
    assert.ok(!listed.output.includes(made.key), 'the key itself is never listed');
  });

  test('npx parley admin workspaces list lists the workspaces newest first, a page at a time', async () => {
    const admin = (...args: string[]) => cli({ PARLEY_DATA_DIR: dataDir }, '--url', first.url, ...args);
    const all = await admin('workspaces', 'list');
    assert.equal(all.code, 0, all.output);
    const listed = JSON.parse(all.output);
    assert.deepEqual(
      listed.data.map((ws: { name: string }) => ws.name),
      ['From the CLI', 'Demo'],
    );
    assert.equal(listed.data[1].id, printed(firstOutput, WORKSPACE_ID));
    assert.equal(listed.pagination.nextCursor, null);
    const firstPage = JSON.parse((await admin('workspaces', 'list', '--limit', '1')).output);
    assert.deepEqual(firstPage.data, [listed.data[0]]);
    const secondPage = JSON.parse((await admin('workspaces', 'list', '--limit', '1', '--cursor', firstPage.pagination.nextCursor)).output);
    assert.deepEqual(secondPage.data, [listed.data[1]]);
  });

  test('the CLI says a wrong operator token was refused, and that --url and PARLEY_DATA_DIR must point at the same service', async () => {
    const refused = await cli({ PARLEY_ADMIN_TOKEN: 'pa_wrong' }, '--url', first.url, 'workspaces', 'list');
    assert.equal(refused.code, 1);
    assert.match(refused.output, /unauthorized/);
    assert.match(refused.output, /refused the operator token from PARLEY_ADMIN_TOKEN/);
  });
});

describe('npx parley admin without an operator token', () => {
  test('says where it looked for the token, that PARLEY_DATA_DIR decides that and --url which service it calls', async () => {
    const emptyDir = await mkdtemp(path.join(os.tmpdir(), 'parley-no-token-'));
    try {
      const result = await cli({ PARLEY_DATA_DIR: emptyDir }, 'workspaces', 'list');
      assert.equal(result.code, 2, result.output);
      assert.ok(result.output.includes(path.join(emptyDir, 'admin-token')), result.output);
      assert.match(result.output, /PARLEY_DATA_DIR decides/);
      assert.match(result.output, /--url decides/);
      assert.match(result.output, /PARLEY_ADMIN_TOKEN/);
    } finally {
      await rm(emptyDir, { recursive: true, force: true });
    }
  });
});

describe('several API processes on one PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass (TEST_DATABASE_URL and TEST_REDIS_URL)' }, () => {
  const LIMIT = 10;
  let database: TestDatabase;
  let dataDir: string;
  let api: Running[];

  before(async () => {
    database = await freshDatabase('postgres');
    await database.database.close();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-process-pg-'));
    const env = {
      DATABASE_URL: database.url!,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      PARLEY_ROLE: 'api',
      PARLEY_DATA_DIR: dataDir,
      PARLEY_RATE_LIMIT_PER_MINUTE: String(LIMIT),
      PARLEY_TEST_CLOCK: '1',
    };
    api = [await startMain(env)];
    await waitFor(api[0], /Try: curl/, 10_000);
    api.push(await startMain(env));
  });
  after(async () => {
    await stopAll();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the first process on a fresh database prints the key once; the second prints neither', async () => {
    assert.equal((await fetch(`${api[1].url}/admin/v1/clock`)).status, 401); // a round trip: any first-start lines would be out by now
    assert.match(printed(api[0].output(), MANAGE_KEY) ?? '', /^cl_/);
    assert.doesNotMatch(api[1].output(), MANAGE_KEY);
    assert.doesNotMatch(api[1].output(), OPERATOR_TOKEN);
  });

  test("the first process prints the Demo workspace's id; the CLI lists it through either process, with the token from the data directory", async () => {
    const workspaceId = printed(api[0].output(), WORKSPACE_ID);
    assert.match(workspaceId ?? '', /^ws_/);
    assert.doesNotMatch(api[1].output(), WORKSPACE_ID);
    for (const running of api) {
      const listed = await cli({ PARLEY_DATA_DIR: dataDir }, 'workspaces', 'list', '--url', running.url);
      assert.equal(listed.code, 0, listed.output);
      assert.deepEqual(
        JSON.parse(listed.output).data.map((ws: { id: string; name: string }) => [ws.id, ws.name]),
        [[workspaceId, 'Demo']],
      );
    }
  });

  test('the rate limit is exact across processes: 10 requests over both succeed, the 11th is 429', async () => {
    const key = printed(api[0].output(), MANAGE_KEY)!;
    const token = printed(api[0].output(), OPERATOR_TOKEN)!;
    // Both clocks to the start of the same minute, far from any other run's Redis counters.
    const minute = (Math.floor(Date.now() / 60_000) + 1_000_000 + Math.floor(Math.random() * 1_000_000)) * 60_000;
    for (const running of api) {
      const set = await fetch(`${running.url}/admin/v1/clock`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ now: new Date(minute).toISOString() }),
      });
      assert.equal(set.status, 200);
    }
    const remaining: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const response = await fetch(`${api[i % 2].url}/api/v1/workspace`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200, `request ${i + 1}`);
      remaining.push(response.headers.get('x-ratelimit-remaining')!);
    }
    assert.deepEqual(remaining, ['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    for (const running of api) {
      const response = await fetch(`${running.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 429);
      assert.equal((await response.json()).error.code, 'rate_limited');
      assert.ok(Number(response.headers.get('retry-after')) >= 1);
    }
  });
});

describe('several processes started together on an empty PostgreSQL database', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass (TEST_DATABASE_URL and TEST_REDIS_URL)' }, () => {
  const ROLES = ['api', 'worker', 'all', 'api'];
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;

  before(async () => {
    database = await emptyPostgresDatabase(process.env.TEST_DATABASE_URL!);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-process-together-'));
  });
  after(async () => {
    await stopAll();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test(`${ROLES.length} processes (${ROLES.join(', ')}) all come up healthy; one prints the first-start key`, async () => {
    const env = { DATABASE_URL: database.url, REDIS_URL: process.env.TEST_REDIS_URL!, PARLEY_DATA_DIR: dataDir };
    const started = await Promise.allSettled(ROLES.map((role) => startMain({ ...env, PARLEY_ROLE: role })));
    const failures = started.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
    assert.deepEqual(failures, [], 'every process started');
    const running = started.map((result) => (result as PromiseFulfilledResult<Running>).value);
    for (const [i, process] of running.entries()) {
      if (ROLES[i] === 'worker') continue;
      const health = await fetch(`${process.url}/health`);
      assert.equal(health.status, 200, `${ROLES[i]} process is healthy`);
      assert.equal((await health.json()).data.database.status, 'up');
    }
    // A round trip on each: any first-start lines would be out by now.
    for (const [i, process] of running.entries()) if (ROLES[i] !== 'worker') await fetch(`${process.url}/health`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const keys = running.filter((process) => MANAGE_KEY.test(process.output()));
    assert.equal(keys.length, 1, 'exactly one process made the Demo workspace');
    for (const process of running) assert.equal(process.child.exitCode, null, process.output());
  });
});

/** A database with nothing in it at all: no migrations, no job-queue schema (unlike freshDatabase's template copies). */
async function emptyPostgresDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_t_${Math.floor(Date.now() / 1000)}_empty_${Math.random().toString(16).slice(2, 10)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`).catch(() => {}) };
}
