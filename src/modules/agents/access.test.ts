import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a00000000049454e44ae426082', 'hex');

describe('agents: scopes, tied keys, workspaces and paused agents', () => {
  let service: Service;
  before(async () => {
    service = await startService();
  });
  after(() => service.close());

  async function createAgent(ws: SeededWorkspace, name = 'Agent'): Promise<string> {
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'general' } });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    return reply.body.data.id;
  }

  /** Every agent route, with a body that would succeed. */
  function routes(id: string): Array<[string, string, unknown?]> {
    return [
      ['GET', `/agents/${id}`],
      ['GET', `/agents/${id}/embed`],
      ['PATCH', `/agents/${id}`, { name: 'x' }],
      ['PUT', `/agents/${id}/branding/logo`, { url: 'https://example.com/logo.png' }],
      ['DELETE', `/agents/${id}/branding/logo`],
      ['DELETE', `/agents/${id}`],
    ];
  }

  test('a workspace never sees another workspace’s agents: every route answers 404 not_found', async () => {
    const mine = await service.seedWorkspace();
    const theirs = await service.seedWorkspace();
    const foreign = await createAgent(theirs, 'Theirs');
    await createAgent(mine, 'Mine');
    for (const [method, path, body] of routes(foreign)) {
      const reply = await service.api(method, path, { key: mine.keys.manage, body });
      assert.equal(reply.status, 404, `${method} ${path}`);
      assert.equal(reply.body.error.code, 'not_found');
    }
    const list = await service.api('GET', '/agents', { key: mine.keys.read });
    assert.deepEqual(list.body.data.map((a: { name: string }) => a.name), ['Mine']);
    const still = await service.api('GET', `/agents/${foreign}`, { key: theirs.keys.read });
    assert.equal(still.body.data.name, 'Theirs');
  });

  test('a key tied to another agent gets 404 not_found on every agent route', async () => {
    const ws = await service.seedWorkspace();
    const a = await createAgent(ws, 'a');
    const b = await createAgent(ws, 'b');
    const tied = await ws.addKey('manage', a);
    for (const [method, path, body] of routes(b)) {
      const reply = await service.api(method, path, { key: tied.key, body });
      assert.equal(reply.status, 404, `${method} ${path}`);
      assert.equal(reply.body.error.code, 'not_found');
    }
    const own = await service.api('PATCH', `/agents/${a}`, { key: tied.key, body: { name: 'renamed' } });
    assert.equal(own.status, 200);
  });

  test('a key tied to one agent cannot create agents (403 forbidden)', async () => {
    const ws = await service.seedWorkspace();
    const a = await createAgent(ws);
    const tied = await ws.addKey('manage', a);
    const reply = await service.api('POST', '/agents', { key: tied.key, body: { name: 'new', useCase: 'general' } });
    assert.equal(reply.status, 403);
    assert.equal(reply.body.error.code, 'forbidden');
  });

  test('a read key cannot change agents (403 forbidden)', async () => {
    const ws = await service.seedWorkspace();
    const id = await createAgent(ws);
    const changes: Array<[string, string, unknown?]> = [
      ['POST', '/agents', { name: 'A', useCase: 'general' }],
      ...routes(id).filter(([method]) => method !== 'GET'),
    ];
    for (const [method, path, body] of changes) {
      const reply = await service.api(method, path, { key: ws.keys.read, body });
      assert.equal(reply.status, 403, `${method} ${path}`);
      assert.equal(reply.body.error.code, 'forbidden');
    }
    assert.equal((await service.api('GET', `/agents/${id}`, { key: ws.keys.read })).body.data.name, 'Agent');
  });

  test('a chat key cannot read agent settings (403 forbidden)', async () => {
    const ws = await service.seedWorkspace();
    const id = await createAgent(ws);
    for (const path of ['/agents', `/agents/${id}`, `/agents/${id}/embed`]) {
      const reply = await service.api('GET', path, { key: ws.keys.chat });
      assert.equal(reply.status, 403, path);
      assert.equal(reply.body.error.code, 'forbidden');
    }
  });

  test('every agent change is in the audit log with the key that made it', async () => {
    const ws = await service.seedWorkspace();
    const id = await createAgent(ws);
    await service.api('PATCH', `/agents/${id}`, { key: ws.keys.manage, body: { name: 'b' } });
    await service.api('DELETE', `/agents/${id}/branding/icon`, { key: ws.keys.manage });
    await service.api('DELETE', `/agents/${id}`, { key: ws.keys.manage });
    const audit = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    const mine = audit.body.data.filter((e: { keyId: string }) => e.keyId === ws.keyIds.manage);
    assert.deepEqual(mine.map((e: { action: string }) => e.action).sort(), ['agent.branding.remove', 'agent.create', 'agent.delete', 'agent.update']);
    for (const entry of mine) assert.ok(entry.target === id || entry.target === `${id}/icon`, entry.target);
  });

  test('a move to a smaller plan pauses the newest agents beyond it; moving back makes them active', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(await createAgent(ws, `agent ${i}`));
      service.ctx.testClock!.advance(1);
    }
    const down = await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'studio' });
    assert.equal(down.status, 200);
    const statuses = async () => (await service.api('GET', '/agents', { key: ws.keys.read })).body.data.map((a: { status: string }) => a.status);
    assert.deepEqual(await statuses(), ['active', 'active', 'active', 'active'], 'studio holds 5');

    // Starter has no API, so the keys cannot look: read the rows.
    await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'starter' });
    const rows = await service.ctx.db.selectFrom('agents').select(['id', 'status']).where('workspace_id', '=', ws.id).orderBy('created_at').execute();
    assert.deepEqual(rows.map((r) => r.status), ['active', 'active', 'paused', 'paused'], 'starter holds 2: the oldest stay active');

    await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'studio' });
    assert.deepEqual(await statuses(), ['active', 'active', 'active', 'active']);
  });

  test('a paused agent answers 402 agent_paused to changes; reads and DELETE still work', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push(await createAgent(ws, `agent ${i}`));
      service.ctx.testClock!.advance(1);
    }
    const down = await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'studio' });
    assert.equal(down.status, 200);
    const list = (await service.api('GET', '/agents', { key: ws.keys.read })).body.data;
    assert.deepEqual(list.map((a: { status: string }) => a.status), ['active', 'active', 'active', 'active', 'active', 'paused', 'paused']);
    const paused = ids[6];

    for (const [method, path, body] of routes(paused).filter(([m, p]) => m !== 'GET' && p !== `/agents/${paused}`)) {
      const reply = await service.api(method, path, { key: ws.keys.manage, body });
      assert.equal(reply.status, 402, `${method} ${path}`);
      assert.equal(reply.body.error.code, 'agent_paused');
    }
    const changed = await service.api('PATCH', `/agents/${paused}`, { key: ws.keys.manage, body: { name: 'x' } });
    assert.equal(changed.status, 402);
    assert.equal(changed.body.error.code, 'agent_paused');
    assert.equal((await service.api('GET', `/agents/${paused}`, { key: ws.keys.read })).body.data.status, 'paused');
    assert.equal((await service.api('GET', `/agents/${paused}/embed`, { key: ws.keys.read })).status, 200);
    const full = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'eighth', useCase: 'general' } });
    assert.equal(full.status, 402);
    assert.equal(full.body.error.code, 'agent_limit_reached');

    // Deleting an active agent does not wake a paused one: only a plan change does.
    assert.equal((await service.api('DELETE', `/agents/${paused}`, { key: ws.keys.manage })).status, 200);
    assert.equal((await service.api('DELETE', `/agents/${ids[0]}`, { key: ws.keys.manage })).status, 200);
    assert.equal((await service.api('GET', `/agents/${ids[5]}`, { key: ws.keys.read })).body.data.status, 'paused');

    await service.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'agency' });
    const after = (await service.api('GET', '/agents', { key: ws.keys.read })).body.data;
    assert.ok(after.every((a: { status: string }) => a.status === 'active'));
    assert.equal((await service.api('PATCH', `/agents/${ids[5]}`, { key: ws.keys.manage, body: { name: 'awake' } })).status, 200);
  });

  test('branding images are served publicly without a key, and only for the agent that has them', async () => {
    const ws = await service.seedWorkspace();
    const id = await createAgent(ws);
    await service.ctx.db
      .insertInto('agent_images')
      .values({ agent_id: id, kind: 'icon', media_type: 'image/png', bytes: PNG, version: 'v1', created_at: new Date() })
      .execute();
    const response = await fetch(`${service.url}/api/v1/assets/agents/${id}/icon?v=v1`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.match(response.headers.get('cache-control') ?? '', /immutable/);
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), PNG);
    const missing = await fetch(`${service.url}/api/v1/assets/agents/${id}/logo`);
    assert.equal(missing.status, 404);
  });
});
