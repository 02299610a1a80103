/**
 * The REST API for people signed in to the dashboard (docs/people.md, "The API
 * in the dashboard"): every /api/v1 route at /app/api/v1 with the session
 * cookie, the same rules for a person as for a key, the role for the scope.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { addPerson, appCall, signIn, type SignedIn } from './test-support.ts';

let service: Service;
let ws: SeededWorkspace;
let owner: SignedIn;
let admin: SignedIn;
let member: SignedIn;
let mine: string;
let notMine: string;

const API = '/api/v1';

async function createAgent(person: SignedIn, name: string): Promise<string> {
  const created = await person.call('POST', `${API}/agents`, { name, useCase: 'general' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.data.id as string;
}

before(async () => {
  service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ name: 'Dashboard API', plan: 'agency' });
  owner = await signIn(service, ws.id, 'owner@example.com');
  mine = await createAgent(owner, 'Mine');
  notMine = await createAgent(owner, 'Not mine');
  admin = await addPerson(service, owner, 'admin@example.org', 'admin');
  member = await addPerson(service, owner, 'member@example.org', 'member', [mine]);
});
after(async () => service?.close());

describe('a person uses the REST API under /app/api/v1', () => {
  test('the owner makes an agent, adds a source, asks in the playground and reads the conversation; the audit log names the person', async () => {
    const agentId = await createAgent(owner, 'Shop');
    const source = await owner.call('POST', `${API}/agents/${agentId}/sources`, { type: 'text', title: 'Opening hours', content: 'The shop is open on Saturday from 10:00 to 16:00.' });
    assert.equal(source.status, 201, JSON.stringify(source.body));
    const asked = await owner.call('POST', `${API}/agents/${agentId}/chat`, { message: 'When is the shop open on Saturday?', test: true });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    const conversationId = asked.body.data.conversationId as string;
    const read = await owner.call('GET', `${API}/agents/${agentId}/conversations/${conversationId}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.data.channel, 'playground');
    const listed = await owner.call('GET', `${API}/agents/${agentId}/conversations?channel=playground`);
    assert.deepEqual(listed.body.data.map((c: { id: string }) => c.id), [conversationId]);
    // The same agent is the API's: a key of the workspace reads it.
    assert.equal((await service.api('GET', `/agents/${agentId}`, { key: ws.keys.read })).status, 200);

    const audit = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data as Array<{ action: string; target: string; by: string; personId: string | null; keyId: string | null }>;
    const made = audit.find((entry) => entry.action === 'agent.create' && entry.target === agentId)!;
    assert.equal(made.by, 'person');
    assert.equal(made.keyId, null);
    const me = await owner.call('GET', '/api/me');
    assert.equal(made.personId, me.body.data.person.id);
  });

  test('GET /workspace answers a person without a key', async () => {
    const reply = await owner.call('GET', `${API}/workspace`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.key, undefined);
    assert.equal(reply.body.data.workspace.id, ws.id);
  });

  test('an admin may use webhooks; a member gets 403 forbidden on every webhook route', async () => {
    assert.equal((await admin.call('GET', `${API}/webhooks`)).status, 200);
    assertError(await member.call('GET', `${API}/webhooks`), 403, 'forbidden');
    assertError(await member.call('POST', `${API}/webhooks`, { url: 'https://hooks.example.com/x', events: ['lead.created'] }), 403, 'forbidden');
    assertError(await member.call('GET', `${API}/webhooks/wh_whatever`), 403, 'forbidden');
    assertError(await member.call('DELETE', `${API}/webhooks/wh_whatever`), 403, 'forbidden');
  });

  test('a member limited to one agent reaches it and sees any other as missing (404); may not make agents', async () => {
    assert.equal((await member.call('GET', `${API}/agents/${mine}`)).status, 200);
    const listed = await member.call('GET', `${API}/agents`);
    assert.deepEqual(listed.body.data.map((a: { id: string }) => a.id), [mine]);
    assertError(await member.call('GET', `${API}/agents/${notMine}`), 404, 'not_found');
    assertError(await member.call('GET', `${API}/agents/${notMine}/sources`), 404, 'not_found');
    assertError(await member.call('POST', `${API}/agents/${notMine}/chat`, { message: 'Hello?' }), 404, 'not_found');
    assertError(await member.call('DELETE', `${API}/agents/${notMine}`), 404, 'not_found');
    assertError(await member.call('POST', `${API}/agents`, { name: 'Own', useCase: 'general' }), 403, 'forbidden');
    // Their own agent is theirs to work with, the playground included.
    const source = await member.call('POST', `${API}/agents/${mine}/sources`, { type: 'qa', question: 'Do you deliver?', answer: 'Yes, within the city.' });
    assert.equal(source.status, 201, JSON.stringify(source.body));
    const asked = await member.call('POST', `${API}/agents/${mine}/chat`, { message: 'Do you deliver?', test: true });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal((await member.call('GET', `${API}/agents/${mine}/conversations/${asked.body.data.conversationId}`)).status, 200);
    assert.equal((await owner.call('GET', `${API}/agents/${notMine}`)).status, 200, 'unchanged for the owner');
  });

  test('a member reads a client without its fees and may not change it; a member limited to some agents is refused as a tied key; an owner sees the fees', async () => {
    const put = await owner.call('PUT', `${API}/agents/${mine}/client`, { name: 'Bakery', email: 'bakery@example.com', serviceFeeEur: 100 });
    if (put.status !== 200 && put.status !== 201) assert.fail(`PUT client: ${put.status} ${JSON.stringify(put.body)}`);
    const everyAgent = await addPerson(service, owner, 'member-all@example.org', 'member');
    assertError(await everyAgent.call('PUT', `${API}/agents/${mine}/client`, { name: 'Changed' }), 403, 'forbidden');
    const seen = await everyAgent.call('GET', `${API}/agents/${mine}/client`);
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    assert.equal(seen.body.data.client.name, 'Bakery');
    assert.equal(JSON.stringify(seen.body).includes('serviceFeeEur'), false);
    assertError(await member.call('GET', `${API}/agents/${mine}/client`), 403, 'forbidden');
    assert.equal(JSON.stringify((await owner.call('GET', `${API}/agents/${mine}/client`)).body).includes('serviceFeeEur'), true);
  });
});

describe('who may not use /app/api/v1', () => {
  test('an API key is 403 forbidden; no credentials are 401', async () => {
    for (const key of [ws.keys.read, ws.keys.manage]) {
      assertError(await appCall(service, 'GET', `${API}/agents`, { headers: { authorization: `Bearer ${key}` } }), 403, 'forbidden');
    }
    assertError(await appCall(service, 'GET', `${API}/agents`), 401, 'unauthorized');
    assertError(await appCall(service, 'GET', `${API}/no-such-route`), 401, 'unauthorized');
  });

  test('a change without the CSRF token, with a wrong one or from another Origin is 403 and changes nothing', async () => {
    const before = (await owner.call('GET', `${API}/agents`)).body.data.length;
    const body = { name: 'Forged', useCase: 'general' };
    assertError(await owner.call('POST', `${API}/agents`, body, { csrf: null }), 403, 'forbidden');
    assertError(await owner.call('POST', `${API}/agents`, body, { csrf: 'x'.repeat(43) }), 403, 'forbidden');
    assertError(await owner.call('POST', `${API}/agents`, body, { origin: 'https://evil.example' }), 403, 'forbidden');
    assertError(await owner.call('POST', `${API}/agents`, body, { origin: null }), 403, 'forbidden');
    assertError(await owner.call('DELETE', `${API}/agents/${notMine}`, undefined, { csrf: null }), 403, 'forbidden');
    assert.equal((await owner.call('GET', `${API}/agents`)).body.data.length, before);
    assert.equal((await owner.call('GET', `${API}/agents/${notMine}`)).status, 200);
  });

  test("another workspace's session sees this workspace's agents as missing (404)", async () => {
    const other = await service.seedWorkspace({ name: 'Elsewhere', plan: 'studio' });
    const stranger = await signIn(service, other.id, 'owner@example.com');
    assertError(await stranger.call('GET', `${API}/agents/${mine}`), 404, 'not_found');
    assertError(await stranger.call('DELETE', `${API}/agents/${mine}`), 404, 'not_found');
    assert.equal((await stranger.call('GET', `${API}/agents`)).body.data.length, 0);
    assert.equal((await owner.call('GET', `${API}/agents/${mine}`)).status, 200);
  });
});

describe('plans for people', () => {
  test('the dashboard works on a plan without the API; every other plan limit holds with the same codes', async () => {
    const free = await service.seedWorkspace({ name: 'Free', plan: 'studio' });
    assert.equal((await service.admin('PATCH', `/workspaces/${free.id}`, { plan: 'free' })).status, 200);
    assertError(await service.api('GET', '/agents', { key: free.keys.read }), 402, 'api_not_in_plan');
    const person = await signIn(service, free.id, 'owner@example.com');
    assert.equal((await person.call('GET', `${API}/agents`)).status, 200);
    await createAgent(person, 'Only one');
    assertError(await person.call('POST', `${API}/agents`, { name: 'Second', useCase: 'general' }), 402, 'agent_limit_reached');
    assertError(await person.call('GET', `${API}/webhooks`), 402, 'integrations_not_in_plan');
  });
});

describe('the API document and the MCP server', () => {
  test('openapi.json lists the /api/v1 routes only, not their /app copies', async () => {
    const doc = await service.api('GET', '/openapi.json', { key: ws.keys.read });
    assert.equal(doc.status, 200);
    const paths = Object.keys(doc.body.paths);
    assert.ok(paths.includes('/agents'));
    assert.ok(paths.every((path) => !path.startsWith('/app')), paths.filter((path) => path.startsWith('/app')).join(', '));
  });

  test('the MCP server still lists its tools for a key', async () => {
    const response = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.keys.read}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { result: { tools: Array<{ name: string }> } };
    assert.ok(body.result.tools.length > 0);
    assert.ok(!JSON.stringify(body).includes('/app/'));
  });
});
