import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Reply, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';

let service: Service;
let ws: SeededWorkspace;
before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ plan: 'studio' });
});
after(() => service.close());


describe('GET /workspace', () => {
  test('GET /workspace returns the key and the plan, credits and agent usage', async () => {
    const reply = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.key.scope, 'read');
    assert.equal(reply.body.data.key.agentId, null);
    assert.equal(reply.body.data.key.id, ws.keyIds.read);
    assert.deepEqual(reply.body.data.workspace.agents, { count: 0, limit: 5 });
    assert.equal(reply.body.data.workspace.credits.overage, false);
    assert.equal(reply.body.data.workspace.plan, 'studio');
  });

  test('GET /workspace describes the key by id, name, prefix, scope and agentId, never the key itself', async () => {
    const reply = await service.api('GET', '/workspace', { key: ws.keys.manage });
    const key = reply.body.data.key;
    assert.deepEqual(Object.keys(key).sort(), ['agentId', 'id', 'name', 'prefix', 'scope']);
    assert.equal(key.scope, 'manage');
    assert.ok(ws.keys.manage.startsWith(key.prefix) && key.prefix.length < 16);
    assert.ok(!JSON.stringify(reply.body).includes(ws.keys.manage));
  });

  test("GET /workspace gives the workspace's id, the one the operator API and the CLI take", async () => {
    const own = await service.seedWorkspace({ name: 'Findable' });
    const workspace = (await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace;
    assert.equal(workspace.id, own.id);
    assert.match(workspace.id, /^ws_/);
    assert.equal((await service.admin('GET', `/workspaces/${workspace.id}`)).body.data.name, 'Findable');
    const agentId = await seedAgent(service, own, 'Tied');
    const tied = await own.addKey('read', agentId);
    assert.ok(!JSON.stringify((await service.api('GET', '/workspace', { key: tied.key })).body).includes(own.id), 'a key tied to one agent is told nothing of the workspace');
  });

  test('GET /workspace shows name, language, credits included and storage per agent of the plan', async () => {
    const own = await service.seedWorkspace({ plan: 'agency', name: 'Agency Co' });
    const workspace = (await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace;
    assert.equal(workspace.name, 'Agency Co');
    assert.equal(workspace.language, 'en');
    assert.equal(workspace.plan, 'agency');
    assert.deepEqual(workspace.agents, { count: 0, limit: 25 });
    assert.deepEqual(workspace.credits, { usedThisMonth: 0, included: 40_000, purchased: 0, overage: false });
    assert.equal(workspace.storagePerAgentBytes, 100 * 1024 * 1024);
  });

  test('credit packs bought through the operator API show as purchased credits', async () => {
    const own = await service.seedWorkspace();
    assert.equal((await service.admin('POST', `/workspaces/${own.id}/credit-packs`, { credits: 500 })).status, 201);
    assert.equal((await service.admin('POST', `/workspaces/${own.id}/credit-packs`, { credits: 250 })).status, 201);
    const credits = (await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace.credits;
    assert.equal(credits.purchased, 750);
    assert.equal(credits.overage, false);
  });

  test('the agent count follows the agents the workspace has', async () => {
    const own = await service.seedWorkspace();
    await seedAgent(service, own, 'One');
    await seedAgent(service, own, 'Two');
    const workspace = (await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace;
    assert.deepEqual(workspace.agents, { count: 2, limit: 5 });
  });

  test('GET /workspace read just before a change shows the change at once: agents, credit packs, a rename', async () => {
    const own = await service.seedWorkspace();
    const read = async () => (await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace;
    assert.equal((await read()).agents.count, 0);
    const agentId = await seedAgent(service, own, 'Counted');
    assert.equal((await read()).agents.count, 1);
    assert.equal((await service.admin('POST', `/workspaces/${own.id}/credit-packs`, { credits: 100 })).status, 201);
    assert.equal((await read()).credits.purchased, 100);
    assert.equal((await service.admin('PATCH', `/workspaces/${own.id}`, { name: 'Renamed' })).status, 200);
    assert.equal((await read()).name, 'Renamed');
    assert.equal((await service.api('DELETE', `/agents/${agentId}`, { key: own.keys.manage })).status, 200);
    assert.equal((await read()).agents.count, 0);
  });

  test('credits used this month start again at 0 in a new UTC month', async () => {
    const own = await service.seedWorkspace();
    const clock = service.ctx.testClock!;
    clock.set(new Date('2026-03-31T23:59:00Z'));
    await service.ctx.db.insertInto('credit_usage').values({ workspace_id: own.id, month: '2026-03', used: 42 }).execute();
    const used = async () => (await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace.credits.usedThisMonth;
    assert.equal(await used(), 42);
    try {
      clock.set(new Date('2026-04-01T00:00:01Z'));
      assert.equal(await used(), 0);
    } finally {
      clock.set(new Date());
    }
  });

  test('an enterprise workspace has no agent limit (null)', async () => {
    const own = await service.seedWorkspace({ plan: 'enterprise' });
    assert.equal((await service.api('GET', '/workspace', { key: own.keys.read })).body.data.workspace.agents.limit, null);
  });
});

describe('GET /models', () => {
  test('GET /models lists models with id, provider, creditsPerAnswer, contextSize and available for the plan', async () => {
    const reply = await service.api('GET', '/models', { key: ws.keys.read });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.pagination, { nextCursor: null });
    assert.ok(reply.body.data.length >= 2);
    for (const model of reply.body.data) {
      assert.equal(typeof model.id, 'string');
      assert.equal(typeof model.provider, 'string');
      assert.ok(Number.isInteger(model.creditsPerAnswer));
      assert.ok(Number.isInteger(model.contextSize));
      assert.equal(typeof model.available, 'boolean');
    }
    assert.ok(reply.body.data.some((m: { available: boolean }) => m.available));
  });

  test('a higher plan makes more models available', async () => {
    const starterOnStudio = await service.seedWorkspace({ plan: 'studio' });
    const top = await service.seedWorkspace({ plan: 'enterprise' });
    const availableOn = async (key: string) =>
      (await service.api('GET', '/models', { key })).body.data.filter((m: { available: boolean }) => m.available).map((m: { id: string }) => m.id);
    const studio = await availableOn(starterOnStudio.keys.read);
    const enterprise = await availableOn(top.keys.read);
    assert.ok(enterprise.length > studio.length, `${enterprise} vs ${studio}`);
    for (const id of studio) assert.ok(enterprise.includes(id));
    const all = (await service.api('GET', '/models', { key: top.keys.read })).body.data;
    assert.equal(enterprise.length, all.length, 'the top plan may use every model');
  });
});

describe('GET /setup-guide (spec 4.4)', () => {
  test('GET /setup-guide returns one preset per standard use case and the plan', async () => {
    const reply = await service.api('GET', '/setup-guide', { key: ws.keys.read });
    assert.equal(reply.status, 200);
    const presets = reply.body.data.presets;
    assert.deepEqual(presets.map((p: { useCase: string }) => p.useCase).sort(), ['docs', 'general', 'sales', 'support']);
    for (const preset of presets) {
      assert.equal(preset.testQuestions.length, 10);
      assert.ok(preset.instructions.length > 0 && preset.purpose.length > 0);
      assert.match(preset.welcomeMessage, /\[[^\]]+\]/, 'the welcome message leaves [bracketed] parts to fill in');
      assert.ok(preset.temperature >= 0 && preset.temperature <= 1);
      assert.ok(preset.retrieval.topK >= 1 && preset.retrieval.topK <= 10);
      for (const feature of ['booking', 'visitorFiles']) {
        assert.match(preset.features[feature].recommendation, /^(recommended|optional|not_needed)$/);
        assert.ok(preset.features[feature].reason.length > 0);
      }
      assert.ok(preset.sources.length > 0 && preset.checks.length > 0);
    }
    assert.deepEqual(reply.body.data.plan, {
      id: 'studio',
      agents: { count: 0, limit: 5, left: 5 },
      storagePerAgentBytes: 40 * 1024 * 1024,
      visitorFiles: true,
      brandingRemoval: false,
    });
  });

  test('plan.agents counts agents and what is left; the top plan has no limit (null)', async () => {
    const own = await service.seedWorkspace({ plan: 'studio' });
    await seedAgent(service, own);
    assert.deepEqual((await service.api('GET', '/setup-guide', { key: own.keys.read })).body.data.plan.agents, { count: 1, limit: 5, left: 4 });
    const top = await service.seedWorkspace({ plan: 'enterprise' });
    assert.deepEqual((await service.api('GET', '/setup-guide', { key: top.keys.read })).body.data.plan.agents, { count: 0, limit: null, left: null });
  });

  test('useCase=support returns only that preset', async () => {
    const reply = await service.api('GET', '/setup-guide?useCase=support', { key: ws.keys.read });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.presets.length, 1);
    assert.equal(reply.body.data.presets[0].useCase, 'support');
    assert.equal(reply.body.data.plan.id, 'studio');
  });

  test('a high-risk use case below the top plan is 403 high_risk_use_case', async () => {
    for (const useCase of ['hr_recruitment', 'credit_scoring', 'healthcare']) {
      assertError(await service.api('GET', `/setup-guide?useCase=${useCase}`, { key: ws.keys.read }), 403, 'high_risk_use_case');
    }
  });

  test('a high-risk use case on the top plan has no preset: 400 invalid_request', async () => {
    const top = await service.seedWorkspace({ plan: 'enterprise' });
    const reply = await service.api('GET', '/setup-guide?useCase=hr_recruitment', { key: top.keys.read });
    assertError(reply, 400, 'invalid_request');
    assert.equal(reply.body.error.details[0].field, 'useCase');
  });

  test('any other useCase is 400 invalid_request naming useCase', async () => {
    for (const useCase of ['nonsense', 'SUPPORT', '', 'support%20']) {
      const reply = await service.api('GET', `/setup-guide?useCase=${useCase}`, { key: ws.keys.read });
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, 'useCase');
    }
  });
});

describe('keys tied to one agent (spec 5, tied-key rule 2)', () => {
  let tied: { read: string; chat: string; manage: string };
  let agentId: string;
  before(async () => {
    const own = await service.seedWorkspace({ plan: 'studio' });
    agentId = await seedAgent(service, own);
    tied = {
      read: (await own.addKey('read', agentId)).key,
      chat: (await own.addKey('chat', agentId)).key,
      manage: (await own.addKey('manage', agentId)).key,
    };
  });

  test('GET /workspace gives a tied key only the key, with its agentId, and nothing about the workspace', async () => {
    for (const scope of ['read', 'manage'] as const) {
      const reply = await service.api('GET', '/workspace', { key: tied[scope] });
      assert.equal(reply.status, 200);
      assert.deepEqual(Object.keys(reply.body.data), ['key']);
      assert.equal(reply.body.data.key.agentId, agentId);
      assert.equal(reply.body.data.key.scope, scope);
      const text = JSON.stringify(reply.body);
      for (const word of ['plan', 'credits', 'studio']) assert.ok(!text.includes(word), `${word} in ${text}`);
    }
  });

  test('GET /models omits available for a tied key unless its scope is manage', async () => {
    const read = await service.api('GET', '/models', { key: tied.read });
    assert.equal(read.status, 200);
    for (const model of read.body.data) assert.ok(!('available' in model), JSON.stringify(model));
    const manage = await service.api('GET', '/models', { key: tied.manage });
    for (const model of manage.body.data) assert.equal(typeof model.available, 'boolean');
  });

  test('GET /setup-guide gives a tied key the presets only, without the plan', async () => {
    const all = await service.api('GET', '/setup-guide', { key: tied.manage });
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body.data), ['presets']);
    assert.equal(all.body.data.presets.length, 4);
    const one = await service.api('GET', '/setup-guide?useCase=sales', { key: tied.read });
    assert.deepEqual(Object.keys(one.body.data), ['presets']);
    assert.equal(one.body.data.presets[0].useCase, 'sales');
  });

  test('a tied chat key is refused the read routes like any chat key', async () => {
    for (const path of ['/workspace', '/models', '/setup-guide']) {
      assertError(await service.api('GET', path, { key: tied.chat }), 403, 'forbidden');
    }
  });

  test('a key cannot be tied to an agent of another workspace', async () => {
    const other = await service.seedWorkspace();
    const reply = await service.admin('POST', `/workspaces/${other.id}/keys`, { name: 'stolen', scope: 'read', agentId });
    assertError(reply, 400, 'invalid_request');
    assert.equal(reply.body.error.details[0].field, 'agentId');
  });
});
