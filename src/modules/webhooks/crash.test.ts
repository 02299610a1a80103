/**
 * A worker process killed (SIGKILL) in the middle of a retry schedule on
 * PostgreSQL, with attempts under way when the kill comes (the receiver holds
 * them). A new worker takes the deliveries up once their claims lapse: every
 * delivery still arrives (a repeat is allowed and carries the same
 * service-delivery), none is lost.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MANAGE_KEY, OPERATOR_TOKEN, printed, startMain, stopAll, waitFor, type Running } from '../../../test/support/processes.ts';
import { freshDatabase, storeUnderTest } from '../../../test/support/stores.ts';
import { leaveLead, startReceiver } from './test-support.ts';

const LEADS = 5;

describe('a worker killed mid-schedule, on PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass (several processes on one database)' }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    await stopAll();
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test('after SIGKILL of the worker during attempts, a new worker delivers every lead; none is lost', async () => {
    const database = await freshDatabase('postgres');
    await database.database.close();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-webhooks-crash-'));
    cleanups.push(() => database.drop(), () => rm(dataDir, { recursive: true, force: true }));
    let offsetMs = 0;
    const receiver = await startReceiver(() => Date.now() + offsetMs);
    cleanups.push(() => receiver.close());
    const env = {
      DATABASE_URL: database.url!,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      PARLEY_DATA_DIR: dataDir,
      PARLEY_TEST_CLOCK: '1',
      PARLEY_ALLOW_PRIVATE_URLS: '1',
      // Every lead comes from 127.0.0.1: the visitor limits are raised, and the windows are this test's own in the shared Redis.
      PARLEY_VISITOR_LIMIT_FACTOR: '1000',
      PARLEY_REDIS_KEY_PREFIX: `test-${path.basename(dataDir)}:`,
    };
    const api = await startMain({ ...env, PARLEY_ROLE: 'api' });
    await waitFor(api, /Try: curl/, 120_000);
    const key = printed(api.output(), MANAGE_KEY)!;
    const operator = printed(api.output(), OPERATOR_TOKEN)!;
    let worker: Running = await startMain({ ...env, PARLEY_ROLE: 'worker' });

    const call = async (method: string, route: string, body?: unknown, token = key): Promise<any> => {
      const response = await fetch(`${api.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const reply = await response.json();
      assert.ok(response.ok, `${method} ${route}: ${response.status} ${JSON.stringify(reply)}`);
      return reply.data;
    };
    const advance = async (seconds: number) => {
      const { now } = await call('POST', '/admin/v1/clock', { advanceSeconds: seconds }, operator);
      offsetMs = new Date(now).getTime() - Date.now();
    };

    const agent = await call('POST', '/api/v1/agents', { name: 'Shop', useCase: 'general' });
    await call('PATCH', `/api/v1/agents/${agent.id}`, { leadCapture: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } });
    receiver.secret = (await call('POST', '/api/v1/webhooks', { url: receiver.url(), events: ['lead.created'] })).secret;

    receiver.answer = 'fail';
    const leadIds: string[] = [];
    for (let i = 0; i < LEADS; i++) leadIds.push(await leaveLead(api.url, agent.id, `Lead ${i}`));
    await receiver.waitFor(LEADS, 30_000);

    // The second attempts are held by the receiver when the worker dies.
    receiver.answer = 'late';
    await advance(5 * 60 + 10);
    await receiver.waitFor(2 * LEADS, 30_000);
    worker.child.kill('SIGKILL');
    await worker.exited;

    receiver.answer = 'ok';
    worker = await startMain({ ...env, PARLEY_ROLE: 'worker' });
    const deadline = Date.now() + 60_000;
    const delivered = () => new Set(receiver.received.filter((r) => r.answeredWith === 'ok').map((r) => r.body.data.id));
    while (delivered().size < LEADS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

    assert.deepEqual([...delivered()].sort(), [...leadIds].sort(), 'every lead arrived');
    const byDelivery = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      assert.ok(r.verified, 'every attempt is signed');
      const id = String(r.headers['service-delivery']);
      byDelivery.set(id, (byDelivery.get(id) ?? new Set()).add(r.body.data.id));
    }
    assert.equal(byDelivery.size, LEADS, 'one delivery per lead; repeats carry the same service-delivery');
    assert.ok([...byDelivery.values()].every((leads) => leads.size === 1));
  });
});
