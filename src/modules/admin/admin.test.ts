import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startService, type Reply, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';

let service: Service;
before(async () => {
  service = await startService();
});
after(() => service.close());


async function adminWithToken(method: string, path: string, authorization: string | undefined, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${service.url}/admin/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('operator API token (operator contract)', () => {
  test('every operator endpoint refuses a missing or wrong token with 401 unauthorized', async () => {
    const ws = (await service.admin('POST', '/workspaces', { name: 'Guarded' })).body.data;
    const endpoints: Array<[string, string, unknown?]> = [
      ['POST', '/workspaces', { name: 'x' }],
      ['GET', '/workspaces'],
      ['GET', `/workspaces/${ws.id}`],
      ['PATCH', `/workspaces/${ws.id}`, { name: 'y' }],
      ['POST', `/workspaces/${ws.id}/credit-packs`, { credits: 10 }],
      ['POST', `/workspaces/${ws.id}/keys`, { name: 'k', scope: 'read' }],
      ['DELETE', `/workspaces/${ws.id}/keys/key_x`],
      ['GET', `/workspaces/${ws.id}/audit`],
      ['GET', '/outbox'],
      ['GET', '/clock'],
      ['POST', '/clock', { advanceSeconds: 1 }],
      ['GET', '/workspaces/ws_unknown'],
    ];
    const wrongTokens = [undefined, '', `Bearer ${ADMIN_TOKEN}x`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, `Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN, 'Bearer pa_'];
    for (const [method, path, body] of endpoints) {
      for (const token of wrongTokens) {
        assertError(await adminWithToken(method, path, token, body), 401, 'unauthorized');
      }
    }
    assert.equal((await service.admin('GET', `/workspaces/${ws.id}`)).body.data.name, 'Guarded', 'nothing was changed');
  });

  test('an API key is not an operator token', async () => {
    const ws = await service.seedWorkspace();
    assertError(await adminWithToken('GET', `/workspaces/${ws.id}`, `Bearer ${ws.keys.manage}`), 401, 'unauthorized');
  });

  test('the operator token is not an API key', async () => {
    const response = await fetch(`${service.url}/api/v1/workspace`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.status, 401);
  });
});

describe('operator API workspaces', () => {
  test('POST /workspaces creates a workspace: 201 with id ws_…, name, plan studio by default, status active', async () => {
    const reply = await service.admin('POST', '/workspaces', { name: 'Acme' });
    assert.equal(reply.status, 201);
    const ws = reply.body.data;
    assert.match(ws.id, /^ws_[0-9A-Za-z]+$/);
    assert.equal(ws.name, 'Acme');
    assert.equal(ws.plan, 'studio');
    assert.equal(ws.status, 'active');
    assert.equal(ws.language, 'en');
    assert.equal(ws.hostname, null);
  });

  test('POST /workspaces takes plan, ownerEmail, language and hostname', async () => {
    const reply = await service.admin('POST', '/workspaces', {
      name: 'Bakkerij',
      plan: 'agency',
      ownerEmail: 'eigenaar@bakkerij.test',
      language: 'nl',
      hostname: 'Chat.Bakkerij.test',
    });
    assert.equal(reply.status, 201);
    assert.equal(reply.body.data.plan, 'agency');
    assert.equal(reply.body.data.ownerEmail, 'eigenaar@bakkerij.test');
    assert.equal(reply.body.data.language, 'nl');
    assert.equal(reply.body.data.hostname, 'chat.bakkerij.test');
    for (const plan of ['free', 'starter', 'studio', 'agency', 'enterprise']) {
      assert.equal((await service.admin('POST', '/workspaces', { name: plan, plan })).body.data.plan, plan);
    }
  });

  test('POST /workspaces refuses a bad plan, e-mail, language or hostname with 400 invalid_request naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', plan: 'gold' }, 'plan'],
      [{ name: 'x', ownerEmail: 'not-an-email' }, 'ownerEmail'],
      [{ name: 'x', language: 'xx' }, 'language'],
      [{ name: 'x', hostname: 'http://chat.acme.test/' }, 'hostname'],
      [{ name: '' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const reply = await service.admin('POST', '/workspaces', body);
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, field);
    }
  });

  test('GET /workspaces/{id} returns the workspace; an unknown id is 404 not_found', async () => {
    const created = (await service.admin('POST', '/workspaces', { name: 'Readable', plan: 'starter' })).body.data;
    const reply = await service.admin('GET', `/workspaces/${created.id}`);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.data, created);
    assertError(await service.admin('GET', '/workspaces/ws_doesnotexist'), 404, 'not_found');
  });

  test('GET /workspaces lists every workspace newest first, 50 a page, with limit (up to 100) and cursor like the API', async () => {
    service.ctx.testClock!.advance(1);
    const older = (await service.admin('POST', '/workspaces', { name: 'Listed first' })).body.data;
    service.ctx.testClock!.advance(1);
    // Two made in the same instant (the test clock cannot stop time, so their rows are set so): the id
    // breaks the tie, and paging through them skips neither.
    const made = [(await service.admin('POST', '/workspaces', { name: 'Same A' })).body.data, (await service.admin('POST', '/workspaces', { name: 'Same B' })).body.data];
    const instant = new Date(service.ctx.clock.now().getTime() + 1000);
    await service.ctx.db.updateTable('workspaces').set({ created_at: instant }).where('id', 'in', made.map((ws) => ws.id)).execute();
    const [same1, same2] = await Promise.all(made.map(async (ws) => (await service.admin('GET', `/workspaces/${ws.id}`)).body.data));
    const first = await service.admin('GET', '/workspaces?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data.map((ws: { id: string }) => ws.id), [same1, same2].map((ws) => ws.id).sort().reverse());
    assert.deepEqual(first.body.data[0], [same1, same2].find((ws) => ws.id === first.body.data[0].id), 'each item is the workspace as GET /workspaces/{id} gives it');
    assert.equal(typeof first.body.pagination.nextCursor, 'string');

    const seen = [...first.body.data];
    let cursor: string | null = first.body.pagination.nextCursor;
    while (cursor) {
      const page = await service.admin('GET', `/workspaces?limit=1&cursor=${encodeURIComponent(cursor)}`);
      assert.equal(page.status, 200);
      assert.ok(page.body.data.length <= 1);
      seen.push(...page.body.data);
      cursor = page.body.pagination.nextCursor;
    }
    const ids = seen.map((ws: { id: string }) => ws.id);
    assert.equal(new Set(ids).size, ids.length, 'no workspace twice');
    assert.equal(ids[2], older.id);
    const times = seen.map((ws: { createdAt: string }) => Date.parse(ws.createdAt));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    const all = await service.admin('GET', '/workspaces?limit=100');
    assert.deepEqual(all.body.data.map((ws: { id: string }) => ws.id), ids.slice(0, 100));
    const byDefault = await service.admin('GET', '/workspaces');
    assert.equal(byDefault.body.data.length, Math.min(50, ids.length));
    assert.equal(byDefault.body.pagination.nextCursor === null, ids.length <= 50);
  });

  test('GET /workspaces refuses a bad limit, a cursor it did not give out or an unknown parameter with 400 invalid_request naming it', async () => {
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      ['status=active', 'status'],
    ];
    for (const [query, field] of cases) {
      const reply = await service.admin('GET', `/workspaces?${query}`);
      assertError(reply, 400, 'invalid_request');
      assert.ok(reply.body.error.details.some((detail: { field: string }) => detail.field === field), `${query}: ${JSON.stringify(reply.body.error)}`);
    }
  });

  test("the operator API's 404s say what was not found, not what a key may see", async () => {
    const ws = await service.seedWorkspace();
    const replies = [
      [await service.admin('GET', '/workspaces/ws_doesnotexist'), /workspace ws_doesnotexist/i],
      [await service.admin('PATCH', '/workspaces/ws_doesnotexist', { name: 'x' }), /workspace ws_doesnotexist/i],
      [await service.admin('POST', '/workspaces/ws_doesnotexist/keys', { name: 'k', scope: 'read' }), /workspace ws_doesnotexist/i],
      [await service.admin('GET', '/workspaces/ws_doesnotexist/audit'), /workspace ws_doesnotexist/i],
      [await service.admin('DELETE', `/workspaces/${ws.id}/keys/key_doesnotexist`), new RegExp(`${ws.id}.*key_doesnotexist`)],
    ] as const;
    for (const [reply, names] of replies) {
      assertError(reply, 404, 'not_found');
      assert.match(reply.body.error.message, names);
      assert.doesNotMatch(reply.body.error.message, /this key|visible/);
    }
  });

  test('PATCH /workspaces/{id} changes name, plan, status, hostname and ownerEmail, only what is sent', async () => {
    const created = (await service.admin('POST', '/workspaces', { name: 'Before', ownerEmail: 'a@b.test' })).body.data;
    const renamed = await service.admin('PATCH', `/workspaces/${created.id}`, { name: 'After' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.data.name, 'After');
    assert.equal(renamed.body.data.ownerEmail, 'a@b.test');
    const changed = await service.admin('PATCH', `/workspaces/${created.id}`, {
      plan: 'enterprise',
      status: 'stopped',
      hostname: 'help.after.test',
      ownerEmail: null,
    });
    assert.equal(changed.status, 200);
    assert.deepEqual(
      { name: changed.body.data.name, plan: changed.body.data.plan, status: changed.body.data.status, hostname: changed.body.data.hostname, ownerEmail: changed.body.data.ownerEmail },
      { name: 'After', plan: 'enterprise', status: 'stopped', hostname: 'help.after.test', ownerEmail: null },
    );
    assert.deepEqual((await service.admin('GET', `/workspaces/${created.id}`)).body.data, changed.body.data);
    assertError(await service.admin('PATCH', `/workspaces/${created.id}`, { status: 'paused' }), 400, 'invalid_request');
    assertError(await service.admin('PATCH', '/workspaces/ws_doesnotexist', { name: 'x' }), 404, 'not_found');
  });

  test('two workspaces racing for one hostname: one gets it, the other 400 invalid_request naming hostname, never a 500', async () => {
    const hostname = `race-${Date.now()}.example.test`;
    const [first, second] = await Promise.all([service.admin('POST', '/workspaces', { name: 'A' }), service.admin('POST', '/workspaces', { name: 'B' })]);
    const claims = await Promise.all(
      [first, second, first, second].map((created, i) =>
        i < 2 ? service.admin('PATCH', `/workspaces/${created.body.data.id}`, { hostname }) : service.admin('POST', '/workspaces', { name: `C${i}`, hostname }),
      ),
    );
    assert.equal(claims.filter((reply) => reply.status < 300).length, 1, JSON.stringify(claims.map((reply) => reply.status)));
    for (const reply of claims.filter((reply) => reply.status >= 300)) {
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, 'hostname');
    }
  });

  test('POST /workspaces/{id}/credit-packs is 201 and adds purchased credits', async () => {
    const created = (await service.admin('POST', '/workspaces', { name: 'Buyer' })).body.data;
    const pack = await service.admin('POST', `/workspaces/${created.id}/credit-packs`, { credits: 1000 });
    assert.equal(pack.status, 201);
    assert.equal(pack.body.data.credits, 1000);
    await service.admin('POST', `/workspaces/${created.id}/credit-packs`, { credits: 1 });
    assert.equal((await service.admin('GET', `/workspaces/${created.id}`)).body.data.purchasedCredits, 1001);
    for (const credits of [0, -1, 1.5, '10']) {
      assertError(await service.admin('POST', `/workspaces/${created.id}/credit-packs`, { credits }), 400, 'invalid_request');
    }
    assertError(await service.admin('POST', '/workspaces/ws_doesnotexist/credit-packs', { credits: 5 }), 404, 'not_found');
  });
});

describe('operator API keys', () => {
  test('POST /workspaces/{id}/keys is 201 with id, key cl_ + 48 characters, name, prefix, scope and agentId; the key works', async () => {
    const ws = (await service.admin('POST', '/workspaces', { name: 'Keys' })).body.data;
    for (const scope of ['read', 'chat', 'manage']) {
      const reply = await service.admin('POST', `/workspaces/${ws.id}/keys`, { name: `My ${scope} key`, scope });
      assert.equal(reply.status, 201);
      const key = reply.body.data;
      assert.match(key.key, /^cl_[0-9A-Za-z]{48}$/);
      assert.match(key.id, /^key_/);
      assert.equal(key.name, `My ${scope} key`);
      assert.equal(key.scope, scope);
      assert.equal(key.agentId, null);
      assert.ok(key.key.startsWith(key.prefix));
      const me = await service.api('GET', '/workspace', { key: key.key });
      if (scope === 'chat') assert.equal(me.status, 403);
      else assert.equal(me.body.data.key.id, key.id);
    }
  });

  test('two keys are never the same', async () => {
    const ws = await service.seedWorkspace();
    const keys = new Set([...Object.values(ws.keys), (await ws.addKey('read')).key, (await ws.addKey('read')).key]);
    assert.equal(keys.size, 5);
  });

  test('POST /workspaces/{id}/keys refuses a bad scope, an unknown agent or an unknown workspace', async () => {
    const ws = (await service.admin('POST', '/workspaces', { name: 'Keys' })).body.data;
    assertError(await service.admin('POST', `/workspaces/${ws.id}/keys`, { name: 'k', scope: 'admin' }), 400, 'invalid_request');
    assertError(await service.admin('POST', `/workspaces/${ws.id}/keys`, { name: 'k', scope: 'read', agentId: 'ag_nothing' }), 400, 'invalid_request');
    assertError(await service.admin('POST', '/workspaces/ws_doesnotexist/keys', { name: 'k', scope: 'read' }), 404, 'not_found');
  });

  test('DELETE /workspaces/{id}/keys/{keyId} is 200; the key is refused at once; a second revoke is 404', async () => {
    const ws = await service.seedWorkspace();
    const revoked = await service.admin('DELETE', `/workspaces/${ws.id}/keys/${ws.keyIds.manage}`);
    assert.equal(revoked.status, 200);
    assertError(await service.api('GET', '/workspace', { key: ws.keys.manage }), 401, 'unauthorized');
    assertError(await service.admin('DELETE', `/workspaces/${ws.id}/keys/${ws.keyIds.manage}`), 404, 'not_found');
  });

  test('a key cannot be revoked through another workspace', async () => {
    const ws = await service.seedWorkspace();
    const other = await service.seedWorkspace();
    assertError(await service.admin('DELETE', `/workspaces/${other.id}/keys/${ws.keyIds.read}`), 404, 'not_found');
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 200);
  });
});

describe('operator API key list', () => {
  test('GET /workspaces/{id}/keys lists every key oldest first, revoked ones with revokedAt; never the key or its fingerprint', async () => {
    const ws = await service.seedWorkspace();
    const agentId = (await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'Shop', useCase: 'general' } })).body.data.id;
    const tied = (await service.admin('POST', `/workspaces/${ws.id}/keys`, { name: 'Site bot', scope: 'chat', agentId })).body.data;
    assert.equal((await service.admin('DELETE', `/workspaces/${ws.id}/keys/${ws.keyIds.read}`)).status, 200);
    const reply = await service.admin('GET', `/workspaces/${ws.id}/keys`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const keys = reply.body.data as Array<Record<string, unknown>>;
    assert.deepEqual(keys.map((key) => key.id).sort(), [...Object.values(ws.keyIds), tied.id].sort());
    assert.deepEqual(keys.at(-1), { id: tied.id, name: 'Site bot', prefix: tied.prefix, scope: 'chat', agentId, createdAt: tied.createdAt, revokedAt: null, lastUsedAt: null });
    for (const key of keys) assert.deepEqual(Object.keys(key).sort(), ['agentId', 'createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scope']);
    const sorted = [...keys].sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)) || String(a.id).localeCompare(String(b.id)));
    assert.deepEqual(keys, sorted, 'oldest first');
    assert.match(String(keys.find((key) => key.id === ws.keyIds.read)!.revokedAt), /^\d{4}-\d{2}-\d{2}T/);
    assert.ok(keys.filter((key) => key.id !== ws.keyIds.read).every((key) => key.revokedAt === null));
    const raw = JSON.stringify(reply.body);
    for (const secret of [...Object.values(ws.keys), tied.key]) assert.ok(!raw.includes(secret), 'no key in the list');
    const stored = await service.ctx.db.selectFrom('api_keys').select('fingerprint').where('workspace_id', '=', ws.id).execute();
    for (const { fingerprint } of stored) assert.ok(!raw.includes(fingerprint), 'no fingerprint in the list');
  });

  test('GET /workspaces/{id}/keys: an unknown workspace is 404, another workspace\'s keys are not listed, the operator token is needed', async () => {
    assertError(await service.admin('GET', '/workspaces/ws_doesnotexist/keys'), 404, 'not_found');
    const ws = await service.seedWorkspace();
    const other = await service.seedWorkspace();
    const listed = (await service.admin('GET', `/workspaces/${other.id}/keys`)).body.data.map((key: { id: string }) => key.id);
    for (const id of Object.values(ws.keyIds)) assert.ok(!listed.includes(id));
    assertError(await adminWithToken('GET', `/workspaces/${ws.id}/keys`, `Bearer ${ws.keys.manage}`), 401, 'unauthorized');
    assertError(await service.admin('GET', `/workspaces/${ws.id}/keys?active=1`), 400, 'invalid_request');
  });
});

describe('operator API audit', () => {
  test('GET /workspaces/{id}/audit lists entries newest first as { id, keyId, action, target, requestId, createdAt }', async () => {
    const ws = await service.seedWorkspace();
    service.ctx.testClock!.advance(1);
    await service.admin('DELETE', `/workspaces/${ws.id}/keys/${ws.keyIds.chat}`);
    service.ctx.testClock!.advance(1);
    const renamed = await service.admin('PATCH', `/workspaces/${ws.id}`, { name: 'Renamed' });
    const reply = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.pagination, { nextCursor: null });
    const entries = reply.body.data;
    for (const entry of entries) {
      assert.deepEqual(Object.keys(entry).sort(), ['action', 'by', 'createdAt', 'id', 'keyId', 'personId', 'requestId', 'target']);
      assert.ok(!Number.isNaN(Date.parse(entry.createdAt)));
    }
    const times = entries.map((e: { createdAt: string }) => Date.parse(e.createdAt));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    assert.match(entries[0].action, /workspace\.update/);
    assert.equal(entries[0].requestId, renamed.headers.get('x-request-id'), 'operator changes carry their request id');
    assert.equal(entries[0].by, 'operator');
    assert.match(entries[1].action, /key\.revoke/);
    assert.equal(entries[1].target, ws.keyIds.chat);
    assert.ok(entries.some((e: { action: string }) => /key\.create/.test(e.action)));
    assert.match(entries.at(-1).action, /workspace\.create/);
  });

  test("a workspace's audit log holds only its own entries; an unknown workspace is 404", async () => {
    const ws = await service.seedWorkspace();
    const other = await service.seedWorkspace();
    await service.admin('DELETE', `/workspaces/${other.id}/keys/${other.keyIds.read}`);
    const entries = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data;
    assert.ok(!JSON.stringify(entries).includes(other.keyIds.read));
    assertError(await service.admin('GET', '/workspaces/ws_doesnotexist/audit'), 404, 'not_found');
  });
});

describe('operator API outbox', () => {
  test('GET /outbox lists mails sent while no SMTP_URL is set, newest first, as { id, to, subject, text, createdAt }', async () => {
    await service.ctx.mailer.send({ to: 'first@example.test', subject: 'First', text: 'one' });
    service.ctx.testClock!.advance(1);
    await service.ctx.mailer.send({ to: 'second@example.test', subject: 'Second', text: 'two\nlines' });
    const reply = await service.admin('GET', '/outbox');
    assert.equal(reply.status, 200);
    const [newest, older] = reply.body.data;
    assert.deepEqual(Object.keys(newest).sort(), ['createdAt', 'id', 'subject', 'text', 'to']);
    assert.deepEqual({ to: newest.to, subject: newest.subject, text: newest.text }, { to: 'second@example.test', subject: 'Second', text: 'two\nlines' });
    assert.equal(older.subject, 'First');
    assert.ok(Date.parse(newest.createdAt) > Date.parse(older.createdAt));
  });
});

describe('operator API clock', () => {
  test('GET /clock gives now; POST /clock advances it or sets it, with PARLEY_TEST_CLOCK=1', async () => {
    const start = Date.parse((await service.admin('GET', '/clock')).body.data.now);
    assert.ok(Math.abs(start - service.ctx.clock.now().getTime()) < 5_000);
    const advanced = await service.admin('POST', '/clock', { advanceSeconds: 3600 });
    assert.equal(advanced.status, 200);
    const after = Date.parse(advanced.body.data.now);
    assert.ok(after - start >= 3600_000 && after - start < 3610_000, `${after - start}`);
    const set = await service.admin('POST', '/clock', { now: '2031-02-03T04:05:06.000Z' });
    assert.equal(set.status, 200);
    assert.ok(Date.parse(set.body.data.now) - Date.parse('2031-02-03T04:05:06.000Z') < 5_000);
    assert.ok(Math.abs(service.ctx.clock.now().getTime() - Date.parse('2031-02-03T04:05:06.000Z')) < 5_000);
    const now = Date.parse((await service.admin('GET', '/clock')).body.data.now);
    assert.ok(now >= Date.parse('2031-02-03T04:05:06.000Z'));
  });

  test('POST /clock refuses a negative advance, an unknown field or a bad time with 400 invalid_request', async () => {
    for (const body of [{ advanceSeconds: -1 }, { advanceSeconds: 1, extra: true }, { now: 'yesterday' }, {}]) {
      assertError(await service.admin('POST', '/clock', body), 400, 'invalid_request');
    }
  });
});
