import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startService, type Reply, type Service } from '../../test/support/harness.ts';
import { newApiKey } from '../platform/crypto.ts';
import { assertError } from '../../test/support/assertions.ts';

let service: Service;
before(async () => {
  service = await startService();
});
after(() => service.close());


/** fetch() will not send another Host header, so the hostname rule is tried with node:http. */
function getWithHost(path: string, host: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${service.url}/api/v1${path}`, { headers: { host, authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('unauthorized (spec 5 rule 3)', () => {
  test('a request without an Authorization header is 401 unauthorized', async () => {
    assertError(await service.api('GET', '/workspace'), 401, 'unauthorized');
  });

  test('a malformed key is 401 unauthorized', async () => {
    const ws = await service.seedWorkspace();
    const malformed = [
      { authorization: 'Bearer abc' },
      { authorization: `Bearer ${ws.keys.read.slice(0, -1)}` },
      { authorization: `Bearer ${ws.keys.read}x` },
      { authorization: `Bearer xx${ws.keys.read.slice(2)}` },
      { authorization: `Basic ${ws.keys.read}` },
      { authorization: ws.keys.read },
      { authorization: 'Bearer' },
    ];
    for (const headers of malformed) {
      assertError(await service.api('GET', '/workspace', { headers }), 401, 'unauthorized');
    }
  });

  test('a well-formed key the service never issued is 401 unauthorized', async () => {
    assertError(await service.api('GET', '/workspace', { key: newApiKey() }), 401, 'unauthorized');
  });

  test('revocation takes effect at once: the next request with the key is 401', async () => {
    const ws = await service.seedWorkspace();
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 200);
    const revoked = await service.admin('DELETE', `/workspaces/${ws.id}/keys/${ws.keyIds.read}`);
    assert.equal(revoked.status, 200);
    assertError(await service.api('GET', '/workspace', { key: ws.keys.read }), 401, 'unauthorized');
    assertError(await service.api('GET', '/models', { key: ws.keys.read }), 401, 'unauthorized');
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.manage })).status, 200, 'other keys keep working');
  });

  test('one kept-alive connection that changes keys is answered for the key each request presents', async () => {
    const [first, second] = [await service.seedWorkspace({ name: 'First' }), await service.seedWorkspace({ name: 'Second' })];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const get = (key: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const request = http.request(`${service.url}/api/v1/workspace`, { agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
          ports.add(response.socket.localPort!);
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
        });
        request.on('error', reject);
        request.end();
      });
    try {
      assert.equal((await get(first.keys.read)).body.data.workspace.name, 'First');
      assert.equal((await get(second.keys.read)).body.data.workspace.name, 'Second');
      assert.equal((await get(newApiKey())).status, 401);
      assert.equal((await get(first.keys.read)).body.data.workspace.name, 'First');
      await service.admin('DELETE', `/workspaces/${first.id}/keys/${first.keyIds.read}`);
      assert.equal((await get(first.keys.read)).status, 401, 'revoked while its connection stays open');
      assert.equal(ports.size, 1, 'every request went over the same connection');
    } finally {
      agent.destroy();
    }
  });
});

describe('forbidden (spec 5 scopes)', () => {
  test('a chat key on a read route is 403 forbidden', async () => {
    const ws = await service.seedWorkspace();
    assertError(await service.api('GET', '/workspace', { key: ws.keys.chat }), 403, 'forbidden');
  });
});

describe('workspace_stopped (spec 5 rule 6)', () => {
  test('a stopped workspace lets no key in with 403 workspace_stopped, and lets them in again once active', async () => {
    const ws = await service.seedWorkspace();
    const stopped = await service.admin('PATCH', `/workspaces/${ws.id}`, { status: 'stopped' });
    assert.equal(stopped.status, 200);
    assert.equal(stopped.body.data.status, 'stopped');
    for (const key of Object.values(ws.keys)) {
      assertError(await service.api('GET', '/workspace', { key }), 403, 'workspace_stopped');
    }
    assertError(await service.api('GET', '/setup-guide', { key: ws.keys.manage }), 403, 'workspace_stopped');
    assert.equal((await service.admin('PATCH', `/workspaces/${ws.id}`, { status: 'active' })).status, 200);
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 200);
  });

  test('another workspace keeps working while one is stopped', async () => {
    const [stopped, running] = [await service.seedWorkspace(), await service.seedWorkspace()];
    await service.admin('PATCH', `/workspaces/${stopped.id}`, { status: 'stopped' });
    assert.equal((await service.api('GET', '/workspace', { key: running.keys.read })).status, 200);
  });
});

describe('api_not_in_plan (spec 5 rule 5)', () => {
  test('a key made on studio gives 402 api_not_in_plan while the workspace is on starter, and works again back on studio', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 200);
    assert.equal((await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'starter' })).status, 200);
    assertError(await service.api('GET', '/workspace', { key: ws.keys.read }), 402, 'api_not_in_plan');
    assertError(await service.api('GET', '/models', { key: ws.keys.manage }), 402, 'api_not_in_plan');
    assert.equal((await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'free' })).status, 200);
    assertError(await service.api('GET', '/workspace', { key: ws.keys.read }), 402, 'api_not_in_plan');
    assert.equal((await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'studio' })).status, 200);
    const back = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(back.status, 200);
    assert.equal(back.body.data.workspace.plan, 'studio');
  });

  test('no key can be made on a workspace below studio: 402 api_not_in_plan', async () => {
    for (const plan of ['free', 'starter']) {
      const created = await service.admin('POST', '/workspaces', { name: `On ${plan}`, plan });
      assert.equal(created.status, 201);
      assertError(await service.admin('POST', `/workspaces/${created.body.data.id}/keys`, { name: 'k', scope: 'read' }), 402, 'api_not_in_plan');
    }
  });

  test('keys work on every plan from studio up', async () => {
    for (const plan of ['studio', 'agency', 'enterprise']) {
      const ws = await service.seedWorkspace({ plan });
      const reply = await service.api('GET', '/workspace', { key: ws.keys.read });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.data.workspace.plan, plan);
    }
  });
});

describe('key_limit_reached (spec 5 rule 4)', () => {
  test('the 26th live key is 409 key_limit_reached; after revoking one a new key can be made and works', async () => {
    const ws = await service.seedWorkspace(); // 3 keys
    const made = [];
    for (let i = 0; i < 22; i++) made.push(await ws.addKey('read'));
    assertError(await service.admin('POST', `/workspaces/${ws.id}/keys`, { name: 'one too many', scope: 'read' }), 409, 'key_limit_reached');
    assert.equal((await service.admin('DELETE', `/workspaces/${ws.id}/keys/${made[0].id}`)).status, 200);
    const replacement = await ws.addKey('manage');
    assert.equal((await service.api('GET', '/workspace', { key: replacement.key })).status, 200);
    assertError(await service.admin('POST', `/workspaces/${ws.id}/keys`, { name: 'again too many', scope: 'read' }), 409, 'key_limit_reached');
  });

  test('the key limit is per workspace', async () => {
    const ws = await service.seedWorkspace();
    for (let i = 0; i < 22; i++) await ws.addKey('chat');
    const other = await service.seedWorkspace();
    assert.equal((await service.admin('POST', `/workspaces/${other.id}/keys`, { name: 'fine', scope: 'read' })).status, 201);
  });
});

describe('hostname rule (spec 1 rule 4)', () => {
  test("on a workspace's own hostname only its keys are let in; keys still work on the plain host", async () => {
    const acme = await service.seedWorkspace({ hostname: 'chat.acme.test' });
    const other = await service.seedWorkspace();
    assert.equal((await getWithHost('/workspace', 'chat.acme.test', acme.keys.read)).status, 200);
    assert.equal((await getWithHost('/workspace', 'CHAT.ACME.TEST:443', acme.keys.read)).status, 200, 'host is case-insensitive, port ignored');
    const foreign = await getWithHost('/workspace', 'chat.acme.test', other.keys.manage);
    assert.equal(foreign.status, 401);
    assert.equal(foreign.body.error.code, 'unauthorized');
    assert.equal((await getWithHost('/workspace', 'chat.acme.test:8080', other.keys.read)).status, 401);
    assert.equal((await service.api('GET', '/workspace', { key: other.keys.read })).status, 200);
    assert.equal((await service.api('GET', '/workspace', { key: acme.keys.read })).status, 200);
  });

  test('a hostname set later with PATCH applies at once, and taking it off lifts the rule', async () => {
    const shop = await service.seedWorkspace();
    const other = await service.seedWorkspace();
    const patched = await service.admin('PATCH', `/workspaces/${shop.id}`, { hostname: 'help.shop.test' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.hostname, 'help.shop.test');
    assert.equal((await getWithHost('/workspace', 'help.shop.test', other.keys.read)).status, 401);
    assert.equal((await getWithHost('/workspace', 'help.shop.test', shop.keys.read)).status, 200);
    assert.equal((await service.admin('PATCH', `/workspaces/${shop.id}`, { hostname: null })).status, 200);
    assert.equal((await getWithHost('/workspace', 'help.shop.test', other.keys.read)).status, 200);
  });

  test('a key used on a hostname before a new workspace claims it is refused there from the next request', async () => {
    const other = await service.seedWorkspace();
    assert.equal((await getWithHost('/workspace', 'new.claim.test', other.keys.read)).status, 200);
    const claimed = await service.admin('POST', '/workspaces', { name: 'Claims', hostname: 'new.claim.test' });
    assert.equal(claimed.status, 201);
    assert.equal((await getWithHost('/workspace', 'new.claim.test', other.keys.read)).status, 401);
  });

  test('two workspaces cannot share a hostname', async () => {
    await service.seedWorkspace({ hostname: 'chat.taken.test' });
    const second = await service.admin('POST', '/workspaces', { name: 'Second', hostname: 'chat.taken.test' });
    assertError(second, 400, 'invalid_request');
    assert.equal(second.body.error.details[0].field, 'hostname');
    const other = await service.seedWorkspace();
    assertError(await service.admin('PATCH', `/workspaces/${other.id}`, { hostname: 'CHAT.TAKEN.TEST' }), 400, 'invalid_request');
  });
});
