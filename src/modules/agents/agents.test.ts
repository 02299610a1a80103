import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../../../test/support/harness.ts';

describe('agents: create, read, list, delete', () => {
  let service: Service;
  before(async () => {
    service = await startService();
  });
  after(() => service.close());

  test('POST /agents replies 201 with the agent and every default filled in', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'Help desk', useCase: 'support' } });
    assert.equal(reply.status, 201);
    const agent = reply.body.data;
    assert.match(agent.id, /^ag_/);
    assert.equal(agent.name, 'Help desk');
    assert.equal(agent.useCase, 'support');
    assert.equal(agent.description, '');
    assert.equal(agent.instructions, '');
    assert.equal(agent.welcomeMessage, '');
    assert.equal(agent.language, 'en');
    assert.deepEqual(agent.languages, ['en']);
    assert.equal(agent.model, service.ctx.models.defaultModel);
    assert.equal(agent.temperature, 0.2, "the support preset's");
    assert.deepEqual(agent.retrieval, { topK: 6, minSimilarity: 0.5 }, "the support preset's");
    assert.deepEqual(agent.allowedOrigins, []);
    assert.equal(agent.calendlyUrl, null);
    assert.equal(agent.attachmentsEnabled, false);
    assert.deepEqual(agent.branding, {
      color: '#2563eb',
      textColor: '#ffffff',
      position: 'right',
      title: '',
      messagePlaceholder: '',
      launcherLabel: '',
      logoUrl: null,
      iconUrl: null,
      removeBranding: false,
      translations: {},
    });
    assert.deepEqual(agent.proactive, {
      greeting: { enabled: false, text: '', delaySeconds: 5 },
      nudge: { enabled: false, text: '', afterSeconds: 30 },
      pages: 'all',
      paths: [],
      mobile: false,
    });
    assert.equal(agent.leadCapture.enabled, false);
    assert.deepEqual(agent.leadCapture.fields, [
      { name: 'name', required: false },
      { name: 'email', required: true },
    ]);
    for (const member of ['timing', 'skippable', 'afterQuestions', 'afterWeakAnswer', 'button', 'intro', 'thanks', 'privacyUrl', 'marketing']) {
      assert.ok(member in agent.leadCapture, `leadCapture.${member}`);
    }
    assert.deepEqual(agent.tickets, { enabled: false, answerTime: '', privacyUrl: null });
    assert.deepEqual(agent.emailChannel, { enabled: false, address: null, review: true });
    assert.deepEqual(agent.actions, []);
    assert.equal(agent.status, 'active');
    assert.equal(agent.lastTrainedAt, null);
    assert.equal(agent.createdAt, agent.updatedAt);
    assert.ok(Math.abs(Date.parse(agent.createdAt) - service.ctx.clock.now().getTime()) < 5_000);
  });

  test('POST /agents keeps the texts sent and the language given', async () => {
    const ws = await service.seedWorkspace();
    const body = { name: 'Verkoop', useCase: 'sales', description: 'd', instructions: 'i'.repeat(20_000), welcomeMessage: 'Hallo!', language: 'nl' };
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body });
    assert.equal(reply.status, 201);
    assert.equal(reply.body.data.language, 'nl');
    assert.deepEqual(reply.body.data.languages, ['nl']);
    assert.equal(reply.body.data.instructions.length, 20_000);
    assert.equal(reply.body.data.welcomeMessage, 'Hallo!');
  });

  test("POST /agents takes the temperature and retrieval of its use case's setup-guide preset, none of the preset's bracketed texts", async () => {
    const ws = await service.seedWorkspace();
    const presets = (await service.api('GET', '/setup-guide', { key: ws.keys.read })).body.data.presets;
    assert.equal(presets.length, 4);
    for (const preset of presets) {
      const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: preset.useCase, useCase: preset.useCase } });
      assert.equal(reply.status, 201);
      const agent = reply.body.data;
      assert.equal(agent.temperature, preset.temperature, preset.useCase);
      assert.deepEqual(agent.retrieval, preset.retrieval, preset.useCase);
      assert.equal(agent.instructions, '');
      assert.equal(agent.welcomeMessage, '');
      assert.deepEqual(textsOf(agent).filter((text) => /\[[^\]]+\]/.test(text)), [], 'no [bracketed] placeholder reaches the agent');
      assert.deepEqual((await service.api('GET', `/agents/${agent.id}`, { key: ws.keys.read })).body.data.retrieval, preset.retrieval, 'stored, not only replied');
    }
    const sent = await service.api('POST', '/agents', {
      key: ws.keys.manage,
      body: { name: 'Own texts', useCase: 'docs', instructions: 'Answer from the manual.', welcomeMessage: 'Ask away.' },
    });
    assert.deepEqual([sent.body.data.instructions, sent.body.data.welcomeMessage], ['Answer from the manual.', 'Ask away.']);
  });

  test('POST /agents with a high-risk use case, which has no preset, gets the general defaults', async () => {
    const ws = await service.seedWorkspace({ plan: 'enterprise' });
    const agent = (await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'A', useCase: 'credit_scoring' } })).body.data;
    assert.equal(agent.temperature, 0.3);
    assert.deepEqual(agent.retrieval, { topK: 5, minSimilarity: 0.3 });
  });

  test("POST /agents defaults the language to the workspace's language", async () => {
    const created = await service.admin('POST', '/workspaces', { name: 'Duits', plan: 'studio', language: 'de' });
    const key = await service.admin('POST', `/workspaces/${created.body.data.id}/keys`, { name: 'k', scope: 'manage' });
    const reply = await service.api('POST', '/agents', { key: key.body.data.key, body: { name: 'A', useCase: 'general' } });
    assert.equal(reply.status, 201);
    assert.equal(reply.body.data.language, 'de');
    assert.deepEqual(reply.body.data.languages, ['de']);
  });

  test('POST /agents refuses a wrong or missing field with 400 invalid_request naming it', async () => {
    const ws = await service.seedWorkspace();
    const cases: Array<[unknown, string]> = [
      [{ useCase: 'general' }, 'name'],
      [{ name: '', useCase: 'general' }, 'name'],
      [{ name: 'x'.repeat(81), useCase: 'general' }, 'name'],
      [{ name: 'A' }, 'useCase'],
      [{ name: 'A', useCase: 'legal' }, 'useCase'],
      [{ name: 'A', useCase: 'general', description: 'x'.repeat(301) }, 'description'],
      [{ name: 'A', useCase: 'general', welcomeMessage: 'x'.repeat(301) }, 'welcomeMessage'],
      [{ name: 'A', useCase: 'general', instructions: 'x'.repeat(20_001) }, 'instructions'],
      [{ name: 'A', useCase: 'general', language: 'it' }, 'language'],
      [{ name: 'A', useCase: 'general', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body });
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(reply.body.error.code, 'invalid_request');
      assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === field), `${field}: ${JSON.stringify(reply.body.error.details)}`);
    }
    const list = await service.api('GET', '/agents', { key: ws.keys.read });
    assert.equal(list.body.data.length, 0);
  });

  test('POST /agents refuses a high-risk use case with 403 high_risk_use_case below the top plan', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    for (const useCase of ['hr_recruitment', 'credit_scoring', 'healthcare']) {
      const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'A', useCase } });
      assert.equal(reply.status, 403);
      assert.equal(reply.body.error.code, 'high_risk_use_case');
    }
  });

  test('POST /agents accepts a high-risk use case on the enterprise plan', async () => {
    const ws = await service.seedWorkspace({ plan: 'enterprise' });
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'A', useCase: 'healthcare' } });
    assert.equal(reply.status, 201);
    assert.equal(reply.body.data.useCase, 'healthcare');
  });

  test('POST /agents beyond the plan agent limit gives 402 agent_limit_reached', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    for (let i = 0; i < 5; i++) {
      const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: `A${i}`, useCase: 'general' } });
      assert.equal(reply.status, 201);
    }
    const sixth = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'A6', useCase: 'general' } });
    assert.equal(sixth.status, 402);
    assert.equal(sixth.body.error.code, 'agent_limit_reached');
    const workspace = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.deepEqual(workspace.body.data.workspace.agents, { count: 5, limit: 5 });
  });

  test('POST /agents at the same moment never goes past the plan agent limit', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => service.api('POST', '/agents', { key: ws.keys.manage, body: { name: `A${i}`, useCase: 'general' } })),
    );
    assert.equal(replies.filter((r) => r.status === 201).length, 5);
    assert.equal(replies.filter((r) => r.status === 402).length, 3);
  });

  test('POST /agents with a website the crawl refuses still creates the agent and reports crawlError', async () => {
    const ws = await service.seedWorkspace();
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'A', useCase: 'docs', website: 'http://127.0.0.1:9/' } });
    assert.equal(reply.status, 201);
    assert.equal(reply.body.data.crawl, undefined);
    assert.equal(reply.body.data.crawlError.code, 'unsafe_url');
    assert.equal(typeof reply.body.data.crawlError.message, 'string');
    const read = await service.api('GET', `/agents/${reply.body.data.id}`, { key: ws.keys.read });
    assert.equal(read.status, 200);
  });

  test('GET /agents returns every agent oldest first with nextCursor null', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    const ids: string[] = [];
    for (const name of ['first', 'second', 'third']) {
      const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'general' } });
      ids.push(reply.body.data.id);
      service.ctx.testClock!.advance(1);
    }
    const list = await service.api('GET', '/agents', { key: ws.keys.read });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((a: { id: string }) => a.id), ids);
    assert.deepEqual(list.body.pagination, { nextCursor: null });
    const one = await service.api('GET', `/agents/${ids[1]}`, { key: ws.keys.read });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, list.body.data[1]);
  });

  test('GET /agents with a key tied to one agent lists only that agent', async () => {
    const ws = await service.seedWorkspace();
    const a = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'a', useCase: 'general' } });
    await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'b', useCase: 'general' } });
    const tied = await ws.addKey('read', a.body.data.id);
    const list = await service.api('GET', '/agents', { key: tied.key });
    assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [a.body.data.id]);
    assert.equal(list.body.pagination.nextCursor, null);
  });

  test('GET /agents/{id} of an unknown agent gives 404 not_found', async () => {
    const ws = await service.seedWorkspace();
    const reply = await service.api('GET', '/agents/ag_doesnotexist', { key: ws.keys.read });
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error.code, 'not_found');
  });

  test('DELETE /agents/{id} removes the agent, its images and the keys tied to it, irreversibly', async () => {
    const ws = await service.seedWorkspace();
    const a = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'a', useCase: 'general' } });
    const id = a.body.data.id as string;
    const tied = await ws.addKey('manage', id);
    assert.equal((await service.api('GET', `/agents/${id}`, { key: tied.key })).status, 200);
    await service.ctx.db
      .insertInto('agent_images')
      .values({ agent_id: id, kind: 'logo', media_type: 'image/png', bytes: new Uint8Array([1]), version: 'v', created_at: new Date() })
      .execute();

    const deleted = await service.api('DELETE', `/agents/${id}`, { key: ws.keys.manage });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body.data, { id, deleted: true });

    assert.equal((await service.api('GET', `/agents/${id}`, { key: ws.keys.read })).status, 404);
    assert.equal((await service.api('DELETE', `/agents/${id}`, { key: ws.keys.manage })).status, 404);
    const tiedAfter = await service.api('GET', '/agents', { key: tied.key });
    assert.equal(tiedAfter.status, 401, 'a key tied to a deleted agent stops working');
    const images = await service.ctx.db.selectFrom('agent_images').select('agent_id').where('agent_id', '=', id).execute();
    assert.equal(images.length, 0);
    const keys = await service.ctx.db.selectFrom('api_keys').select('id').where('agent_id', '=', id).execute();
    assert.equal(keys.length, 0);
  });

  test('GET /agents/{id}/embed gives the script and iframe snippets and allowedOrigins', async () => {
    const ws = await service.seedWorkspace();
    const a = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'a', useCase: 'general' } });
    const id = a.body.data.id;
    await service.api('PATCH', `/agents/${id}`, { key: ws.keys.manage, body: { allowedOrigins: ['https://www.example.com'] } });
    const reply = await service.api('GET', `/agents/${id}/embed`, { key: ws.keys.read });
    assert.equal(reply.status, 200);
    const base = service.ctx.config.publicUrl;
    assert.equal(reply.body.data.script, `<script src="${base}/widget.js" data-agent="${id}" defer></script>`);
    assert.match(reply.body.data.iframe, new RegExp(`^<iframe src="${base}/chat/${id}" [^>]*></iframe>$`));
    assert.deepEqual(reply.body.data.allowedOrigins, ['https://www.example.com']);
  });

  test('the OpenAPI document describes the Agent schema and the agent routes', async () => {
    const ws = await service.seedWorkspace();
    const reply = await service.api('GET', '/openapi.json', { key: ws.keys.read });
    assert.equal(reply.status, 200);
    const agent = reply.body.components.schemas.Agent;
    assert.ok(agent, 'components.schemas.Agent');
    for (const member of ['branding', 'proactive', 'leadCapture', 'tickets', 'emailChannel', 'actions', 'retrieval', 'languages']) {
      assert.ok(agent.properties[member], member);
    }
    for (const path of ['/agents', '/agents/{id}', '/agents/{id}/embed', '/agents/{id}/branding/{image}']) assert.ok(reply.body.paths[path], path);
    assert.equal(reply.body.paths['/assets/agents/{id}/{image}'], undefined);
  });
});

/** Every string inside a value, at any depth. */
function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(textsOf);
  return [];
}
