import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { seedAgent } from '../../test/support/seed-agent.ts';
import { newApiKey } from '../platform/crypto.ts';
import { TOOLS } from './tools.ts';
import { connect, listToolsMessage, rawMcp } from './test-support.ts';

// The spec's own limit: API requests and MCP requests of one key add up to it.
const LIMIT = 120;

describe('MCP access: the API\'s keys, scopes, plans, audit and rate limit (spec 1.6, 5, 8)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  // Each test starts at the beginning of a minute of its own (as in http/rate-limit.test.ts): no window edge passes mid-test.
  beforeEach(() => {
    const minutesAhead = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    service.ctx.testClock!.set(new Date((Math.floor(service.ctx.clock.now().getTime() / 60_000) + minutesAhead) * 60_000));
  });

  const namesOf = async (key: string) => {
    const session = await connect(service, key);
    const { tools } = await session.client.listTools();
    await session.close();
    return tools.map((tool) => tool.name).sort();
  };
  /** fetch() will not send another Host header: the hostname rule is tried with node:http. */
  const listWithHost = (key: string, host: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const request = http.request(`${service.url}/mcp`, {
        method: 'POST',
        headers: { host, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      }, (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      });
      request.on('error', reject);
      request.end(JSON.stringify(listToolsMessage));
    });

  test('a missing, malformed or unknown key is HTTP 401 with the spec body, before any MCP handling', async () => {
    for (const key of [undefined, 'not-a-key', newApiKey()]) {
      const reply = await rawMcp(service, key, listToolsMessage);
      assert.equal(reply.status, 401);
      assert.equal(reply.body.error.code, 'unauthorized');
      assert.ok(reply.headers.get('x-request-id'));
      assert.ok(reply.headers.get('x-ratelimit-limit'));
    }
    // The SDK's client reports it on connecting.
    await assert.rejects(connect(service, newApiKey()), /401|unauthorized/i);
  });

  test('GET and DELETE on /mcp: 405 for a good key (stateless: no stream, no session), 401 without one', async () => {
    for (const method of ['GET', 'DELETE']) {
      const refused = await fetch(`${service.url}/mcp`, { method });
      assert.equal(refused.status, 401);
      const reply = await fetch(`${service.url}/mcp`, { method, headers: { authorization: `Bearer ${ws.keys.read}`, accept: 'text/event-stream' } });
      assert.equal(reply.status, 405);
      assert.equal(reply.headers.get('allow'), 'POST');
    }
  });

  test('revocation takes effect at once, also for a client already connected', async () => {
    const key = await ws.addKey('read');
    const session = await connect(service, key.key);
    await session.ok('list_agents');
    assert.equal((await service.admin('DELETE', `/workspaces/${ws.id}/keys/${key.id}`)).status, 200);
    await assert.rejects(session.client.listTools(), /401|unauthorized/i);
    await session.close();
  });

  test('plans: below Studio 402 api_not_in_plan, back on Studio it works again; a stopped workspace is 403 workspace_stopped', async () => {
    const own = await service.seedWorkspace({ plan: 'studio' });
    assert.equal((await rawMcp(service, own.keys.read, listToolsMessage)).status, 200);
    await service.admin('PATCH', `/workspaces/${own.id}`, { plan: 'starter' });
    const below = await rawMcp(service, own.keys.read, listToolsMessage);
    assert.equal(below.status, 402);
    assert.equal(below.body.error.code, 'api_not_in_plan');
    await service.admin('PATCH', `/workspaces/${own.id}`, { plan: 'studio', status: 'stopped' });
    const stopped = await rawMcp(service, own.keys.read, listToolsMessage);
    assert.equal(stopped.status, 403);
    assert.equal(stopped.body.error.code, 'workspace_stopped');
    await service.admin('PATCH', `/workspaces/${own.id}`, { status: 'active' });
    assert.equal((await rawMcp(service, own.keys.read, listToolsMessage)).status, 200);
  });

  test('the host-name rule: on a workspace\'s own hostname only its own keys get in', async () => {
    const host = `mcp-${Date.now()}.example.test`;
    const hosted = await service.seedWorkspace({ plan: 'studio', hostname: host });
    assert.equal((await listWithHost(hosted.keys.read, host)).status, 200);
    const foreign = await listWithHost(ws.keys.read, host);
    assert.equal(foreign.status, 401);
    assert.equal(foreign.body.error.code, 'unauthorized');
  });

  test('scopes: tools/list shows what the key may call; a read key calling a change gets forbidden, as REST', async () => {
    const read = await namesOf(ws.keys.read);
    const chat = await namesOf(ws.keys.chat);
    const manage = await namesOf(ws.keys.manage);
    assert.deepEqual(manage, TOOLS.map((tool) => tool.name).sort());
    assert.deepEqual(chat, ['ask_agent']);
    assert.ok(read.includes('list_leads') && read.includes('export_conversations') && read.includes('get_visitor_file'));
    for (const name of ['create_agent', 'delete_agent', 'ask_agent', 'add_text_source', 'update_ticket_status', 'get_identity_secret']) assert.ok(!read.includes(name), name);

    const agent = await seedAgent(service, ws);
    const session = await connect(service, ws.keys.read);
    const refused = await session.refused('delete_agent', { id: agent });
    const restRefused = await service.api('DELETE', `/agents/${agent}`, { key: ws.keys.read });
    assert.equal(refused.code, 'forbidden');
    assert.deepEqual(refused, restRefused.body.error);
    assert.equal((await session.refused('ask_agent', { id: agent, message: 'Hello?' })).code, 'forbidden');
    await session.close();
    const chatter = await connect(service, ws.keys.chat);
    assert.equal((await chatter.refused('get_agent', { id: agent })).code, 'forbidden');
    await chatter.close();
    assert.equal((await service.api('GET', `/agents/${agent}`, { key: ws.keys.manage })).status, 200, 'nothing was deleted');
  });

  test('client tools: shown from the agency plan up; below it a call gives clients_not_in_plan, and a tied key is refused, as REST', async () => {
    const clientTools = ['get_client', 'set_client', 'remove_client', 'new_report_link'];
    const studio = await service.seedWorkspace({ plan: 'studio' });
    const studioAgent = await seedAgent(service, studio);
    const listed = await namesOf(studio.keys.manage);
    for (const name of clientTools) assert.ok(!listed.includes(name), `${name} not listed on studio`);
    assert.ok(listed.includes('get_analytics'));
    const session = await connect(service, studio.keys.manage);
    const refused = await session.refused('get_client', { id: studioAgent });
    assert.equal(refused.code, 'clients_not_in_plan');
    assert.deepEqual(refused, (await service.api('GET', `/agents/${studioAgent}/client`, { key: studio.keys.manage })).body.error);
    await session.close();

    const mine = await seedAgent(service, ws, 'Client agent');
    const tied = await ws.addKey('manage', mine);
    const tiedNames = await namesOf(tied.key);
    for (const name of clientTools) assert.ok(!tiedNames.includes(name), `${name} not listed for a tied key`);
    const tiedSession = await connect(service, tied.key);
    const tiedRefused = await tiedSession.refused('set_client', { id: mine, name: 'X', email: 'x@example.com' });
    assert.deepEqual(tiedRefused, (await service.api('PUT', `/agents/${mine}/client`, { key: tied.key, body: { name: 'X', email: 'x@example.com' } })).body.error);
    await tiedSession.close();
  });

  test('a key tied to one agent reaches only that agent, and is not shown create_agent', async () => {
    const mine = await seedAgent(service, ws, 'Mine');
    const other = await seedAgent(service, ws, 'Other');
    const tied = await ws.addKey('manage', mine);
    const names = await namesOf(tied.key);
    assert.ok(!names.includes('create_agent'));
    assert.ok(names.includes('delete_agent'));
    const session = await connect(service, tied.key);
    assert.deepEqual((await session.ok('list_agents')).data.map((agent: { id: string }) => agent.id), [mine]);
    assert.equal((await session.ok('get_agent', { id: mine })).data.id, mine);
    for (const [name, args] of [
      ['get_agent', { id: other }],
      ['list_leads', { id: other }],
      ['list_conversations', { id: other }],
      ['add_qa_source', { id: other, question: 'Q?', answer: 'A.' }],
      ['delete_agent', { id: other }],
    ] as const) {
      assert.equal((await session.refused(name, args)).code, 'not_found', name);
    }
    assert.equal((await session.refused('create_agent', { name: 'Sneaky', useCase: 'general' })).code, 'forbidden');
    const workspace = await session.ok('get_workspace');
    assert.deepEqual(Object.keys(workspace.data), ['key'], 'told nothing about the workspace');
    await session.close();
    assert.equal((await service.api('GET', `/agents/${other}`, { key: ws.keys.manage })).status, 200);
  });

  test('another workspace\'s agent is the same not_found as a missing one', async () => {
    const foreign = await service.seedWorkspace({ plan: 'studio' });
    const theirs = await seedAgent(service, foreign, 'Theirs');
    const session = await connect(service, ws.keys.manage);
    const refused = await session.refused('get_agent', { id: theirs });
    assert.deepEqual(refused, await session.refused('get_agent', { id: 'ag_missing' }));
    await session.close();
  });

  test('every change through MCP is in the audit log with the key and the REST action, marked mcp; REST entries are not', async () => {
    const key = await ws.addKey('manage');
    const session = await connect(service, key.key);
    const agent = (await session.ok('create_agent', { name: 'Audited', useCase: 'general' })).data.id;
    await session.ok('update_agent', { id: agent, description: 'Changed through MCP' });
    const source = (await session.ok('add_qa_source', { id: agent, question: 'Open on Sunday?', answer: 'No.' })).data.id;
    await session.ok('get_agent', { id: agent });
    await session.close();
    await service.api('PATCH', `/agents/${agent}`, { key: key.key, body: { description: 'Changed through REST' } });
    const rows = await sql<{ action: string; target: string | null; via: string | null; key_id: string; request_id: string }>`
      select action, target, via, key_id, request_id from audit_log where key_id = ${key.id} order by created_at, id`.execute(service.ctx.db);
    assert.deepEqual(
      rows.rows.map((row) => [row.action, row.target, row.via]),
      [
        ['agent.create', agent, 'mcp'],
        ['agent.update', agent, 'mcp'],
        ['source.create', `${agent}/${source}`, 'mcp'],
        ['agent.update', agent, null],
      ],
    );
    for (const row of rows.rows) assert.match(row.request_id, /^req_/);
  });

  test('one count per key for API and MCP together: 120 a minute, then HTTP 429 with Retry-After on both', async () => {
    const key = (await ws.addKey('read')).key;
    const session = await connect(service, key);
    // Connecting is two requests (initialize and its notification) and the client's attempt at a stream (GET, 405).
    const first = await rawMcp(service, key, listToolsMessage);
    assert.equal(first.status, 200);
    const used = LIMIT - Number(first.headers.get('x-ratelimit-remaining'));
    assert.equal(first.headers.get('x-ratelimit-limit'), String(LIMIT));
    let remaining = LIMIT - used;
    for (let i = 0; remaining > 0; i++) {
      const reply = i % 2 === 0 ? await service.api('GET', '/agents', { key }) : await rawMcp(service, key, { ...listToolsMessage, id: i + 2 });
      assert.equal(reply.status, 200, `request ${i}`);
      remaining -= 1;
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(remaining));
    }
    const overMcp = await rawMcp(service, key, listToolsMessage);
    assert.equal(overMcp.status, 429);
    assert.equal(overMcp.body.error.code, 'rate_limited');
    assert.ok(Number(overMcp.headers.get('retry-after')) >= 1);
    await assert.rejects(session.ok('list_agents'), /429|rate_limited|Too many/i);
    const overApi = await service.api('GET', '/agents', { key });
    assert.equal(overApi.status, 429);
    await session.close();
    // Another key of the same workspace has its own window.
    assert.equal((await rawMcp(service, ws.keys.read, listToolsMessage)).status, 200);
  });

  describe('batches (2025-03-26 JSON-RPC batches, still taken by the SDK): each message counts against the key', () => {
    const ask = (agent: string, id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask_agent', arguments: { id: agent, message: 'Do you repair electric bikes?' } } });
    const creditsUsed = async () => (await service.api('GET', '/workspace', { key: ws.keys.manage })).body.data.workspace.credits.usedThisMonth as number;
    const conversations = async (agent: string) => (await service.api('GET', `/agents/${agent}/conversations?limit=100`, { key: ws.keys.manage })).body.data.length as number;
    let agent: string;
    before(async () => {
      agent = await seedAgent(service, ws, 'Batch agent');
      const source = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Repairs', content: 'We repair electric bikes within two working days.' } });
      assert.equal(source.status, 201, JSON.stringify(source.body));
    });

    test('a small batch counts each call: three ask_agent calls take three from the window, and run', async () => {
      const key = await ws.addKey('chat');
      const first = await rawMcp(service, key.key, listToolsMessage);
      const remaining = Number(first.headers.get('x-ratelimit-remaining'));
      const creditsBefore = await creditsUsed();
      const reply = await rawMcp(service, key.key, [ask(agent, 1), ask(agent, 2), ask(agent, 3)]);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(reply.body.length, 3);
      for (const answer of reply.body) assert.ok(!answer.result.isError, JSON.stringify(answer));
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(remaining - 3));
      assert.ok((await creditsUsed()) > creditsBefore, 'the calls ran');
      // A notification in a batch is a message too.
      const mixed = await rawMcp(service, key.key, [{ ...listToolsMessage, id: 9 }, { jsonrpc: '2.0', method: 'notifications/initialized' }]);
      assert.equal(mixed.status, 200);
      assert.equal(mixed.headers.get('x-ratelimit-remaining'), String(remaining - 5));
    });

    test('a batch of 100 ask_agent with 10 left in the window is refused whole: HTTP 429 rate_limited with Retry-After, no call runs, no credit is used', async () => {
      const key = await ws.addKey('chat');
      const first = await rawMcp(service, key.key, listToolsMessage);
      // The window spent down to 10 left, as 110 earlier requests of this key would have.
      for (let left = Number(first.headers.get('x-ratelimit-remaining')); left > 10; left--) await service.ctx.limiter.hit(key.id);
      const creditsBefore = await creditsUsed();
      const conversationsBefore = await conversations(agent);
      const reply = await rawMcp(service, key.key, Array.from({ length: 100 }, (_, i) => ask(agent, i + 1)));
      assert.equal(reply.status, 429, JSON.stringify(reply.body).slice(0, 300));
      assert.equal(reply.body.error.code, 'rate_limited');
      assert.ok(Number(reply.headers.get('retry-after')) >= 1);
      assert.equal(reply.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(await creditsUsed(), creditsBefore, 'no credit was used');
      assert.equal(await conversations(agent), conversationsBefore, 'no question was asked');
    });
  });
});
