/**
 * Spec 4.6: while a file source is being fetched the agent is busy (409 agent_busy on
 * retrain), for every API process, and a fetch whose process died stops counting once
 * it could no longer be running.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { MANAGE_KEY, printed, startMain, stopAll, waitFor, type Running } from '../../../test/support/processes.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { freshDatabase, storeUnderTest } from '../../../test/support/stores.ts';
import { startServer, waitForSource } from './test-support.ts';

const env = { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };
/** The fetch time limit (PARLEY_FILE_FETCH_TIMEOUT_MS, default 20 s) plus the margin a fetch record keeps (60 s). */
const RECORD_LIFETIME_SECONDS = 20 + 60;

/** A file server whose /slow.md answers only when released: a file that takes its time to arrive. */
async function startSlowFileServer() {
  const waiting: http.ServerResponse[] = [];
  let requests = 0;
  const server = await startServer({
    '/slow.md': (_request, response) => {
      requests++;
      waiting.push(response);
    },
  });
  return {
    url: `${server.url}/slow.md`,
    requests: () => requests,
    release(text = '# Slow\n\nThe slow file arrived at last.') {
      for (const response of waiting.splice(0)) if (!response.destroyed) response.writeHead(200, { 'content-type': 'text/markdown' }).end(text);
    },
    close: server.close,
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a file source being fetched, in one process', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let files: Awaited<ReturnType<typeof startSlowFileServer>>;

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'studio' });
    files = await startSlowFileServer();
  });
  after(async () => {
    files?.release();
    await files?.close();
    await service?.close();
  });

  const retrain = (agent: string) => service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage });

  test('POST /retrain gives 409 agent_busy while a file source is still being fetched, and 202 once it is stored and read', async () => {
    const agent = await seedAgent(service, ws, 'Fetching');
    const adding = service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: files.url } });
    const before = files.requests();
    await until('the file server is asked for the file', () => files.requests() > before);

    const busy = await retrain(agent);
    assert.equal(busy.status, 409, JSON.stringify(busy.body));
    assert.equal(busy.body.error.code, 'agent_busy');

    files.release();
    const added = await adding;
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal((await waitForSource(service, ws.keys.read, agent, added.body.data.id)).status, 'ready');
    assert.equal((await retrain(agent)).status, 202);
  });

  test('a refused file leaves the agent free at once: POST /retrain after a 422 fetch_failed is 202', async () => {
    const agent = await seedAgent(service, ws, 'Refused');
    const refused = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: `${files.url}.missing` } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.code, 'fetch_failed');
    assert.equal((await retrain(agent)).status, 202);
  });

  test('an agent deleted while its file is fetched: the POST gives 404 not_found and nothing is stored', async () => {
    const agent = await seedAgent(service, ws, 'Deleted');
    const adding = service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: files.url } });
    const before = files.requests();
    await until('the file server is asked for the file', () => files.requests() > before);
    assert.equal((await service.api('DELETE', `/agents/${agent}`, { key: ws.keys.manage })).status, 200);
    files.release();
    const added = await adding;
    assert.equal(added.status, 404, JSON.stringify(added.body));
    assert.equal(added.body.error.code, 'not_found');
    const left = await service.ctx.db.selectFrom('sources').select('id').where('agent_id', '=', agent).execute();
    assert.deepEqual(left, []);
  });

  test('a fetch under way longer than the fetch time limit plus a margin no longer makes the agent busy (test clock)', async () => {
    const agent = await seedAgent(service, ws, 'Lapsed');
    const clock = service.ctx.testClock!;
    // The fetch starts between these two moments.
    const sentAt = clock.now().getTime();
    const adding = service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: files.url } });
    const before = files.requests();
    await until('the file server is asked for the file', () => files.requests() > before);
    const askedAt = clock.now().getTime();
    assert.equal((await retrain(agent)).status, 409);
    clock.set(new Date(sentAt + (RECORD_LIFETIME_SECONDS - 5) * 1000));
    assert.equal((await retrain(agent)).status, 409, 'still within the limit and its margin');
    clock.set(new Date(askedAt + (RECORD_LIFETIME_SECONDS + 1) * 1000));
    assert.equal((await retrain(agent)).status, 202, 'past them the fetch cannot still be running');
    files.release();
    await adding;
  });
});

interface Api {
  url: string;
  key: string;
}

async function call(api: Api, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${api.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** What a store's deployment does here: start an API process, start another beside it or after it. */
interface Deployment {
  start(): Promise<{ process: Running; api: Api }>;
  /** Another API process on the same store; `alive` is the first one when the store lets both run at once. */
  another(alive: Running): Promise<Api>;
}

/**
 * The process fetching is killed (SIGKILL) mid-fetch. The agent stays busy for the
 * process that carries on, until the dead fetch's deadline has passed on its clock.
 */
async function killMidFetch(deployment: Deployment, files: Awaited<ReturnType<typeof startSlowFileServer>>): Promise<void> {
  const { process: fetching, api } = await deployment.start();
  const created = await call(api, 'POST', '/api/v1/agents', { name: 'Killed mid-fetch', useCase: 'general' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const agent = created.body.data.id as string;
  // The fetch starts between these two moments, on the clock of the process fetching (never moved).
  const sentAt = Date.now();
  const asked = files.requests();
  const adding = call(api, 'POST', `/api/v1/agents/${agent}/sources`, { type: 'file', url: files.url }).catch(() => null);
  await until('the file server is asked for the file', () => files.requests() > asked);
  const askedAt = Date.now();
  assert.equal((await call(api, 'POST', `/api/v1/agents/${agent}/retrain`)).body.error?.code, 'agent_busy');

  const other = await deployment.another(fetching);
  fetching.child.kill('SIGKILL');
  await fetching.exited;
  await adding;
  const busy = await call(other, 'POST', `/api/v1/agents/${agent}/retrain`);
  assert.equal(busy.status, 409, `the fetch's record outlives its process: ${JSON.stringify(busy.body)}`);
  assert.equal(busy.body.error.code, 'agent_busy');

  // Set, not advanced: starting the other process takes real time of its own.
  const setClock = async (at: number) => assert.equal((await call({ ...other, key: ADMIN_TOKEN }, 'POST', '/admin/v1/clock', { now: new Date(at).toISOString() })).status, 200);
  await setClock(sentAt + (RECORD_LIFETIME_SECONDS - 5) * 1000);
  assert.equal((await call(other, 'POST', `/api/v1/agents/${agent}/retrain`)).status, 409, 'within the limit and its margin');
  await setClock(askedAt + (RECORD_LIFETIME_SECONDS + 1) * 1000);
  const free = await call(other, 'POST', `/api/v1/agents/${agent}/retrain`);
  assert.equal(free.status, 202, `a dead fetch stops counting: ${JSON.stringify(free.body)}`);
}

describe('a file source being fetched, across processes', () => {
  let files: Awaited<ReturnType<typeof startSlowFileServer>> | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  const processEnv = { ...env, PARLEY_TEST_CLOCK: '1', PARLEY_ADMIN_TOKEN: ADMIN_TOKEN };

  before(async () => {
    files = await startSlowFileServer();
  });
  afterEach(async () => {
    await stopAll();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  after(async () => {
    await files?.close();
  });

  test(
    'on PostgreSQL another API process gets 409 agent_busy while the first fetches, and after that process is killed until the fetch deadline passes',
    { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass' },
    async () => {
      const database = await freshDatabase('postgres');
      await database.database.close();
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-fetch-pg-'));
      cleanups.push(() => database.drop(), () => rm(dataDir, { recursive: true, force: true }));
      const storeEnv = { ...processEnv, DATABASE_URL: database.url!, REDIS_URL: process.env.TEST_REDIS_URL!, PARLEY_DATA_DIR: dataDir, PARLEY_ROLE: 'api' };
      let key = '';
      await killMidFetch(
        {
          async start() {
            const process = await startMain(storeEnv);
            await waitFor(process, /Try: curl/, 10_000);
            key = printed(process.output(), MANAGE_KEY)!;
            return { process, api: { url: process.url, key } };
          },
          async another(alive) {
            const process = await startMain(storeEnv);
            const api = { url: process.url, key };
            const agents = await call(api, 'GET', '/api/v1/agents');
            const agent = agents.body.data[0].id as string;
            // Two live processes: the second sees the first one's fetch.
            assert.equal(alive.child.exitCode, null);
            const busy = await call(api, 'POST', `/api/v1/agents/${agent}/retrain`);
            assert.equal(busy.status, 409, `another process sees the fetch: ${JSON.stringify(busy.body)}`);
            assert.equal(busy.body.error.code, 'agent_busy');
            return api;
          },
        },
        files!,
      );
    },
  );

  test(
    'on the embedded database the service killed mid-fetch and started again gives 409 agent_busy until the fetch deadline passes',
    { skip: storeUnderTest() !== 'embedded' && 'the embedded pass tries it' },
    async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-fetch-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      const storeEnv = { ...processEnv, PARLEY_DATA_DIR: dataDir };
      let key = '';
      await killMidFetch(
        {
          async start() {
            const process = await startMain(storeEnv);
            await waitFor(process, /Try: curl/, 10_000);
            key = printed(process.output(), MANAGE_KEY)!;
            return { process, api: { url: process.url, key } };
          },
          async another(alive) {
            // One process at a time on a data directory: the next starts once the first is gone.
            alive.child.kill('SIGKILL');
            await alive.exited;
            const process = await startMain(storeEnv);
            return { url: process.url, key };
          },
        },
        files!,
      );
    },
  );
});
