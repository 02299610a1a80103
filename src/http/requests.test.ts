import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startService, type Reply, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { seedAgent } from '../../test/support/seed-agent.ts';
import { assertError } from '../../test/support/assertions.ts';

let service: Service;
let ws: SeededWorkspace;
before(async () => {
  service = await startService();
  ws = await service.seedWorkspace();
});
after(() => service.close());


/** A raw request to the operator API, for bodies the harness would encode. */
function adminRaw(method: string, path: string, body: string | undefined, contentType?: string): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (contentType) headers['content-type'] = contentType;
  return rawCall(method, `/admin/v1${path}`, headers, body);
}

async function rawCall(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const response = await fetch(`${service.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // left as text: the assertion on the body will show it
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Whether a route exists yet (other areas are built alongside): an unknown route answers "No route ...". */
function isUnknownRoute(reply: Reply): boolean {
  return reply.status === 404 && /^No route/.test(reply.body?.error?.message ?? '');
}

describe('invalid_request (spec 2.1, 7.3)', () => {
  test('an unknown query parameter is 400 invalid_request and details names it', async () => {
    for (const path of ['/workspace?verbose=1', '/models?page=2', '/setup-guide?useCase=support&lang=nl']) {
      const reply = await service.api('GET', path, { key: ws.keys.read });
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details.length, 1, JSON.stringify(reply.body));
      assert.match(reply.body.error.details[0].field, /^(verbose|page|lang)$/);
    }
  });

  test('an unknown body field is 400 invalid_request and details names the field (operator API)', async () => {
    const reply = await service.admin('POST', '/workspaces', { name: 'Acme', colour: 'blue' });
    assertError(reply, 400, 'invalid_request');
    assert.deepEqual(reply.body.error.details, [{ field: 'colour', message: 'unknown field' }]);
    assertError(await service.admin('PATCH', `/workspaces/${ws.id}`, { owner: 'x' }), 400, 'invalid_request');
  });

  test('an unknown body field is 400 invalid_request and details names the field (public API)', async (t) => {
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'Helper', useCase: 'general', colour: 'blue' } });
    if (isUnknownRoute(reply)) return t.skip('POST /agents does not exist yet');
    assertError(reply, 400, 'invalid_request');
    assert.ok(
      reply.body.error.details.some((d: { field: string }) => d.field === 'colour'),
      JSON.stringify(reply.body),
    );
  });

  test('a body that is not valid JSON is 400 invalid_request', async () => {
    for (const body of ['{"name":', "{'name': 'x'}", 'name=x', '[1,2']) {
      assertError(await adminRaw('POST', '/workspaces', body, 'application/json'), 400, 'invalid_request');
    }
  });

  test('a body sent with another Content-Type than application/json is 400 invalid_request', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      const reply = await adminRaw('POST', '/workspaces', JSON.stringify({ name: 'Acme' }), contentType);
      assertError(reply, 400, 'invalid_request');
    }
    assertError(await adminRaw('POST', '/workspaces', JSON.stringify({ name: 'Acme' })), 400, 'invalid_request');
  });

  test('a missing or empty body where one is required is 400 invalid_request', async () => {
    assertError(await adminRaw('POST', '/workspaces', undefined), 400, 'invalid_request');
    assertError(await adminRaw('POST', '/workspaces', '', 'application/json'), 400, 'invalid_request');
    assertError(await adminRaw('POST', '/workspaces', 'null', 'application/json'), 400, 'invalid_request');
  });

  test('a body over 1 MB is 400 invalid_request', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const reply = await adminRaw('POST', '/workspaces', big, 'application/json');
    assertError(reply, 400, 'invalid_request');
    assert.equal(reply.body.error.details[0].field, 'body');
  });

  test('a body over 1 MB on the public API is 400 invalid_request', async (t) => {
    const probe = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 1 } });
    if (isUnknownRoute(probe)) return t.skip('POST /agents does not exist yet');
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), useCase: 'general' });
    const reply = await rawCall('POST', '/api/v1/agents', { authorization: `Bearer ${ws.keys.manage}`, 'content-type': 'application/json' }, big);
    assertError(reply, 400, 'invalid_request');
  });

  test('a missing field or a value of the wrong type is 400 invalid_request naming the field', async () => {
    const reply = await service.admin('POST', '/workspaces', { name: 'Acme', plan: 'platinum' });
    assertError(reply, 400, 'invalid_request');
    assert.equal(reply.body.error.details[0].field, 'plan');
    const missing = await service.admin('POST', '/workspaces', {});
    assertError(missing, 400, 'invalid_request');
    assert.equal(missing.body.error.details[0].field, 'name');
    const nested = await service.admin('POST', `/workspaces/${ws.id}/credit-packs`, { credits: -5 });
    assertError(nested, 400, 'invalid_request');
    assert.equal(nested.body.error.details[0].field, 'credits');
  });
});

describe('inputs the database cannot hold or the router cannot read', () => {
  test('text with the NUL character is 400 invalid_request naming the field, never a 500', async () => {
    const body = await adminRaw('POST', '/workspaces', '{"name":"Ac\\u0000me"}', 'application/json');
    assertError(body, 400, 'invalid_request');
    assert.equal(body.body.error.details[0].field, 'name');
    const nested = await adminRaw('POST', `/workspaces/${ws.id}/keys`, '{"name":"k","scope":"read","agentId":"ag_\\u0000"}', 'application/json');
    assert.equal(nested.body.error.details[0].field, 'agentId');
    const path = await service.admin('GET', '/workspaces/ws_%00x');
    assertError(path, 400, 'invalid_request');
    assert.equal(path.body.error.details[0].field, 'id');
    const query = await service.api('GET', '/setup-guide?useCase=sup%00port', { key: ws.keys.read });
    assertError(query, 400, 'invalid_request');
    assert.equal(query.body.error.details[0].field, 'useCase');
    const agent = await service.api('GET', '/agents/ag_%00', { key: ws.keys.read });
    assert.ok(agent.status === 400 || agent.status === 404, `${agent.status}`);
  });

  test('a malformed %-escape in the path is 400 invalid_request with the error body and a request id', async () => {
    for (const path of ['/api/v1/agents/%ZZ', '/admin/v1/workspaces/%E0%A4%A']) {
      const reply = await rawCall('GET', path, { authorization: `Bearer ${ws.keys.read}` });
      assertError(reply, 400, 'invalid_request');
      assert.match(reply.headers.get('x-request-id') ?? '', /^req_/);
    }
  });

  test('an id too long to exist is 404 not_found with the error body', async () => {
    const reply = await service.api('GET', `/agents/ag_${'x'.repeat(500)}`, { key: ws.keys.read });
    assertError(reply, 404, 'not_found');
    assert.match(reply.headers.get('x-request-id') ?? '', /^req_/);
    assertError(await service.admin('GET', `/workspaces/ws_${'x'.repeat(500)}`), 404, 'not_found');
  });
});

describe('not_found for unknown routes (spec 7.2)', () => {
  test('an unknown route is 404 not_found with the error body, never a framework page', async () => {
    const replies = [
      await service.api('GET', '/nothing-here', { key: ws.keys.read }),
      await service.api('GET', '/nothing-here'),
      await service.api('DELETE', '/workspace', { key: ws.keys.manage }),
      await service.api('GET', '/agents/ag_x/nothing-here', { key: ws.keys.read }),
      await rawCall('GET', '/', {}),
      await rawCall('GET', '/api/v2/workspace', {}),
      await rawCall('POST', '/favicon.ico', {}),
      await rawCall('GET', '/admin/v1/nothing', { authorization: `Bearer ${ADMIN_TOKEN}` }),
    ];
    for (const reply of replies) assertError(reply, 404, 'not_found');
  });

  test('an unknown id in the operator API is 404 not_found', async () => {
    assertError(await service.admin('GET', '/workspaces/ws_nothing'), 404, 'not_found');
    assertError(await service.admin('DELETE', `/workspaces/${ws.id}/keys/key_nothing`), 404, 'not_found');
  });
});

describe('x-request-id (spec 2.1)', () => {
  test('every response carries x-request-id, distinct per request', async () => {
    const replies = [
      await service.api('GET', '/workspace', { key: ws.keys.read }),
      await service.api('GET', '/workspace', { key: ws.keys.read }),
      await service.api('GET', '/workspace'),
      await service.api('GET', '/workspace', { key: ws.keys.chat }),
      await service.api('GET', '/workspace?x=1', { key: ws.keys.read }),
      await service.api('GET', '/unknown-route', { key: ws.keys.read }),
      await rawCall('GET', '/nowhere', {}),
      await service.api('GET', '/openapi.json'),
      await service.admin('GET', `/workspaces/${ws.id}`),
      await service.admin('GET', '/clock'),
      await rawCall('GET', '/admin/v1/clock', {}),
      await adminRaw('POST', '/workspaces', '{', 'application/json'),
    ];
    const ids = replies.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) assert.match(id ?? '', /^req_[0-9A-Za-z]{20}$/);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('a request id sent by the caller is not echoed: the service makes its own', async () => {
    const reply = await service.api('GET', '/workspace', { key: ws.keys.read, headers: { 'x-request-id': 'caller-chosen' } });
    assert.notEqual(reply.headers.get('x-request-id'), 'caller-chosen');
  });

  test("the audit log entry of a change made with a key carries the change's request id and key", async (t) => {
    const own = await service.seedWorkspace();
    const created = await service.api('POST', '/agents', { key: own.keys.manage, body: { name: 'Audited', useCase: 'general' } });
    if (isUnknownRoute(created)) return t.skip('no audited /api/v1 route exists yet (POST /agents)');
    assert.ok(created.status === 201 || created.status === 200, JSON.stringify(created.body));
    const audit = await service.admin('GET', `/workspaces/${own.id}/audit`);
    const entry = audit.body.data.find((e: { keyId: string | null }) => e.keyId === own.keyIds.manage);
    assert.ok(entry, JSON.stringify(audit.body.data));
    assert.equal(entry.requestId, created.headers.get('x-request-id'));
    assert.ok(String(entry.target).includes(created.body.data.id));
  });

  test('a request that fails writes no audit entry', async (t) => {
    const own = await service.seedWorkspace();
    const agentId = await seedAgent(service, own);
    const before = (await service.admin('GET', `/workspaces/${own.id}/audit`)).body.data.length;
    const refused = await service.api('PATCH', `/agents/${agentId}`, { key: own.keys.manage, body: { unknownField: 1 } });
    if (isUnknownRoute(refused)) return t.skip('PATCH /agents/{id} does not exist yet');
    assert.equal(refused.status, 400);
    const afterCount = (await service.admin('GET', `/workspaces/${own.id}/audit`)).body.data.length;
    assert.equal(afterCount, before);
  });
});
