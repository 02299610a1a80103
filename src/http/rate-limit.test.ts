import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Reply, type Service } from '../../test/support/harness.ts';
import { newApiKey } from '../platform/crypto.ts';

const LIMIT = 5;
let service: Service;

before(async () => {
  service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
after(() => service.close());

/**
 * Each test starts at the beginning of its own minute, far from real time: a
 * window edge cannot pass mid-test, and counters other test files keep in a
 * shared Redis (the unauthorized budget is per address) are never this window's.
 */
beforeEach(() => {
  const minutesAhead = 1_000_000 + Math.floor(Math.random() * 1_000_000);
  const start = (Math.floor(service.ctx.clock.now().getTime() / 60_000) + minutesAhead) * 60_000;
  service.ctx.testClock!.set(new Date(start));
});

function rateHeaders(reply: Reply) {
  return {
    limit: reply.headers.get('x-ratelimit-limit'),
    remaining: reply.headers.get('x-ratelimit-remaining'),
    reset: Number(reply.headers.get('x-ratelimit-reset')),
  };
}

function assertWithinMinute(reset: number): void {
  assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `x-ratelimit-reset ${reset}`);
}

describe('rate limit headers (spec 8)', () => {
  test('every response carries x-ratelimit-limit, -remaining and -reset, errors included', async () => {
    const ws = await service.seedWorkspace();
    const replies = [
      await service.api('GET', '/workspace', { key: ws.keys.read }),
      await service.api('GET', '/workspace?unknown=1', { key: ws.keys.read }),
      await service.api('GET', '/setup-guide?useCase=nonsense', { key: ws.keys.read }),
    ];
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 400, 400],
    );
    assert.deepEqual(
      replies.map((r) => rateHeaders(r).remaining),
      ['4', '3', '2'],
    );
    for (const reply of replies) {
      assert.equal(rateHeaders(reply).limit, String(LIMIT));
      assertWithinMinute(rateHeaders(reply).reset);
    }
    const forbidden = await service.api('GET', '/models', { key: ws.keys.chat });
    assert.equal(forbidden.status, 403);
    assert.equal(rateHeaders(forbidden).limit, String(LIMIT));
    const unauthorized = await service.api('GET', '/workspace', { key: newApiKey() });
    assert.equal(unauthorized.status, 401);
    assert.equal(rateHeaders(unauthorized).limit, String(LIMIT));
    assertWithinMinute(rateHeaders(unauthorized).reset);
  });

  test('unknown routes and the OpenAPI document carry the headers too; with a key they count against it', async () => {
    const ws = await service.seedWorkspace();
    const unknown = await service.api('GET', '/no-such-route', { key: ws.keys.read });
    assert.equal(unknown.status, 404);
    assert.equal(rateHeaders(unknown).remaining, '4');
    assert.equal(rateHeaders(await service.api('GET', '/workspace', { key: ws.keys.read })).remaining, '3');
    for (const reply of [await service.api('GET', '/openapi.json'), await service.api('GET', '/no-such-route')]) {
      assert.equal(rateHeaders(reply).limit, String(LIMIT));
      assertWithinMinute(rateHeaders(reply).reset);
    }
  });

  test('paths the router refuses carry the headers: 401 without a key, and with one the path error counted against that key', async () => {
    const ws = await service.seedWorkspace();
    const paths = ['/agents/%ZZ', `/agents/ag_${'x'.repeat(500)}`];
    for (const path of paths) {
      const keyless = await service.api('GET', path);
      assert.equal(keyless.status, 401, path);
      assert.equal(rateHeaders(keyless).limit, String(LIMIT));
      assertWithinMinute(rateHeaders(keyless).reset);
    }
    const keyed = await Promise.all(paths.map(async (path) => service.api('GET', path, { key: ws.keys.read })));
    assert.deepEqual(keyed.map((reply) => reply.status).sort(), [400, 404]);
    assert.deepEqual(keyed.map((reply) => rateHeaders(reply).remaining).sort(), ['3', '4']);
    for (const reply of keyed) assertWithinMinute(rateHeaders(reply).reset);
    assert.equal(rateHeaders(await service.api('GET', '/workspace', { key: ws.keys.read })).remaining, '2');
  });

  test('x-ratelimit-reset counts down the seconds left in the minute', async () => {
    const ws = await service.seedWorkspace();
    const first = rateHeaders(await service.api('GET', '/workspace', { key: ws.keys.read })).reset;
    assert.ok(first >= 59, `reset at the start of a window: ${first}`);
    service.ctx.testClock!.advance(45);
    assert.ok(rateHeaders(await service.api('GET', '/workspace', { key: ws.keys.read })).reset <= 15);
  });

  test('the headers are also on answers to stopped workspaces and plans without the API', async () => {
    const ws = await service.seedWorkspace();
    await service.admin('PATCH', `/workspaces/${ws.id}`, { status: 'stopped' });
    const stopped = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(stopped.status, 403);
    assert.equal(rateHeaders(stopped).remaining, '4');
    await service.admin('PATCH', `/workspaces/${ws.id}`, { status: 'active', plan: 'starter' });
    const notInPlan = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(notInPlan.status, 402);
    assert.equal(rateHeaders(notInPlan).remaining, '3');
  });
});

describe('rate_limited (spec 7.2, 8)', () => {
  test('the request over the limit is 429 rate_limited with Retry-After and the error body', async () => {
    const ws = await service.seedWorkspace();
    // The test clock runs on from real time: on a busy machine the requests below take seconds of it.
    const startedAt = Date.now();
    for (let i = 0; i < LIMIT; i++) assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 200);
    const spentSeconds = Math.ceil((Date.now() - startedAt) / 1000);
    service.ctx.testClock!.advance(20);
    const limited = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limited');
    assert.equal(typeof limited.body.error.message, 'string');
    assert.deepEqual(limited.body.error.details, []);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 39 - spentSeconds && retryAfter <= 40, `Retry-After ${retryAfter} (${spentSeconds} s spent)`);
    assert.equal(rateHeaders(limited).remaining, '0');
    assert.equal(rateHeaders(limited).reset, retryAfter);
    assert.ok(limited.headers.get('x-request-id'));
    assert.equal((await service.api('GET', '/models', { key: ws.keys.read })).status, 429, 'every route shares the budget');
  });

  test('the window resets when the clock passes into the next minute', async () => {
    const ws = await service.seedWorkspace();
    for (let i = 0; i < LIMIT; i++) await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 429);
    service.ctx.testClock!.advance(60);
    const fresh = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(fresh.status, 200);
    assert.equal(rateHeaders(fresh).remaining, String(LIMIT - 1));
  });

  test('two keys have separate budgets, also within one workspace', async () => {
    const ws = await service.seedWorkspace();
    const other = await service.seedWorkspace();
    for (let i = 0; i < LIMIT; i++) await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 429);
    const sameWorkspace = await service.api('GET', '/workspace', { key: ws.keys.manage });
    assert.equal(sameWorkspace.status, 200);
    assert.equal(rateHeaders(sameWorkspace).remaining, String(LIMIT - 1));
    assert.equal((await service.api('GET', '/workspace', { key: other.keys.read })).status, 200);
  });

  test('requests arriving together, for two keys, are counted exactly: LIMIT pass for each and every remaining figure is given once', async () => {
    const ws = await service.seedWorkspace();
    const burst = Array.from({ length: 3 * LIMIT }, (_, i) => (i % 3 === 0 ? ws.keys.manage : ws.keys.read));
    const replies = await Promise.all(burst.map((key) => service.api('GET', '/workspace', { key })));
    for (const key of [ws.keys.read, ws.keys.manage]) {
      const mine = replies.filter((_, i) => burst[i] === key);
      const passed = mine.filter((reply) => reply.status === 200);
      assert.equal(passed.length, LIMIT);
      assert.deepEqual(
        passed.map((reply) => Number(rateHeaders(reply).remaining)).sort(),
        Array.from({ length: LIMIT }, (_, i) => i),
      );
      assert.ok(mine.filter((reply) => reply.status !== 200).every((reply) => reply.status === 429 && rateHeaders(reply).remaining === '0'));
    }
  });

  test('requests refused for scope still count against the key', async () => {
    const ws = await service.seedWorkspace();
    for (let i = 0; i < LIMIT; i++) assert.equal((await service.api('GET', '/workspace', { key: ws.keys.chat })).status, 403);
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.chat })).status, 429);
  });

  test('guessing keys is rate limited too', async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await service.api('GET', '/workspace', { key: newApiKey() })).status, 401);
    const limited = await service.api('GET', '/workspace', { key: newApiKey() });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limited');
  });
});
