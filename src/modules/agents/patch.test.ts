import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';

describe('PATCH /agents/{id}', () => {
  let service: Service;
  let ws: SeededWorkspace;
  before(async () => {
    service = await startService();
    // No agent limit: every rule gets a fresh agent.
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(() => service.close());

  async function newAgent(workspace = ws): Promise<string> {
    const reply = await service.api('POST', '/agents', { key: workspace.keys.manage, body: { name: 'Agent', useCase: 'general' } });
    assert.equal(reply.status, 201);
    return reply.body.data.id;
  }
  const patch = (id: string, body: unknown) => service.api('PATCH', `/agents/${id}`, { key: ws.keys.manage, body });
  const read = async (id: string) => (await service.api('GET', `/agents/${id}`, { key: ws.keys.read })).body.data;
  function assertInvalid(reply: { status: number; body: any }, field?: string) {
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.equal(reply.body.error.code, 'invalid_request');
    if (field) assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === field), JSON.stringify(reply.body.error.details));
  }

  test('PATCH changes only what is sent, also inside nested objects', async () => {
    const id = await newAgent();
    const before = await read(id);
    service.ctx.testClock!.advance(5);
    const reply = await patch(id, {
      name: 'Renamed',
      temperature: 0.7,
      retrieval: { topK: 8 },
      branding: { color: '#112233' },
      proactive: { greeting: { enabled: true } },
      leadCapture: { intro: 'Leave your details' },
      tickets: { answerTime: 'within a day' },
    });
    assert.equal(reply.status, 200);
    const after = reply.body.data;
    assert.equal(after.name, 'Renamed');
    assert.equal(after.temperature, 0.7);
    assert.deepEqual(after.retrieval, { ...before.retrieval, topK: 8 });
    assert.deepEqual(after.branding, { ...before.branding, color: '#112233' });
    assert.deepEqual(after.proactive, { ...before.proactive, greeting: { ...before.proactive.greeting, enabled: true } });
    assert.deepEqual(after.leadCapture, { ...before.leadCapture, intro: 'Leave your details' });
    assert.deepEqual(after.tickets, { ...before.tickets, answerTime: 'within a day' });
    assert.equal(after.description, before.description);
    assert.equal(after.createdAt, before.createdAt);
    assert.notEqual(after.updatedAt, before.updatedAt);
    assert.deepEqual(await read(id), after);
  });

  test('PATCH replaces lists whole (proactive.paths, leadCapture.fields)', async () => {
    const id = await newAgent();
    await patch(id, { proactive: { paths: ['/a', '/b/*'] } });
    const reply = await patch(id, { proactive: { paths: ['/c'] }, leadCapture: { fields: [{ name: 'phone', required: true }] } });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.data.proactive.paths, ['/c']);
    assert.deepEqual(reply.body.data.leadCapture.fields, [{ name: 'phone', required: true }]);
  });

  test('PATCH refuses unknown fields at any depth with 400 naming the field', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { colour: 'red' }), 'colour');
    assertInvalid(await patch(id, { branding: { colour: 'red' } }), 'branding.colour');
    assertInvalid(await patch(id, { branding: { logoUrl: 'https://x.example/a.png' } }), 'branding.logoUrl');
    assertInvalid(await patch(id, { branding: { translations: { nl: { greeting: 'x' } } } }), 'branding.translations.nl.greeting');
    assertInvalid(await patch(id, { proactive: { greeting: { delay: 3 } } }), 'proactive.greeting.delay');
    assertInvalid(await patch(id, { retrieval: { k: 3 } }), 'retrieval.k');
    assertInvalid(await patch(id, { status: 'paused' }), 'status');
    assertInvalid(await patch(id, { id: 'ag_other' }), 'id');
  });

  test('PATCH refuses values outside the limits: temperature 0-1, topK 1-10, minSimilarity 0-1, name 1-80', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { temperature: 1.1 }), 'temperature');
    assertInvalid(await patch(id, { temperature: -0.1 }), 'temperature');
    assertInvalid(await patch(id, { retrieval: { topK: 0 } }), 'retrieval.topK');
    assertInvalid(await patch(id, { retrieval: { topK: 11 } }), 'retrieval.topK');
    assertInvalid(await patch(id, { retrieval: { topK: 2.5 } }), 'retrieval.topK');
    assertInvalid(await patch(id, { retrieval: { minSimilarity: 1.5 } }), 'retrieval.minSimilarity');
    assertInvalid(await patch(id, { name: '' }), 'name');
    assertInvalid(await patch(id, { name: 'x'.repeat(81) }), 'name');
    assertInvalid(await patch(id, { description: 'x'.repeat(301) }), 'description');
    assertInvalid(await patch(id, { instructions: 'x'.repeat(20_001) }), 'instructions');
    const ok = await patch(id, { temperature: 0, retrieval: { topK: 10, minSimilarity: 1 } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.data.retrieval, { topK: 10, minSimilarity: 1 });
  });

  test('PATCH branding.translations: an empty text removes that version and an empty language is dropped', async () => {
    const id = await newAgent();
    const set = await patch(id, {
      branding: { translations: { nl: { welcomeMessage: 'Hallo', launcherLabel: 'Vraag het' }, de: { messagePlaceholder: 'Frage' } } },
    });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.data.branding.translations, { nl: { welcomeMessage: 'Hallo', launcherLabel: 'Vraag het' }, de: { messagePlaceholder: 'Frage' } });
    const merged = await patch(id, { branding: { translations: { nl: { messagePlaceholder: 'Typ hier' } } } });
    assert.deepEqual(merged.body.data.branding.translations.nl, { welcomeMessage: 'Hallo', launcherLabel: 'Vraag het', messagePlaceholder: 'Typ hier' });
    const removed = await patch(id, { branding: { translations: { nl: { welcomeMessage: '' }, de: { messagePlaceholder: '' } } } });
    assert.deepEqual(removed.body.data.branding.translations, { nl: { launcherLabel: 'Vraag het', messagePlaceholder: 'Typ hier' } });
    const dropped = await patch(id, { branding: { translations: { nl: null } } });
    assert.deepEqual(dropped.body.data.branding.translations, {});
    assertInvalid(await patch(id, { branding: { translations: { it: { welcomeMessage: 'Ciao' } } } }));
  });

  test('PATCH languages replaces the list and keeps language first, also when language changes', async () => {
    const id = await newAgent();
    let reply = await patch(id, { languages: ['de', 'fr'] });
    assert.deepEqual(reply.body.data.languages, ['en', 'de', 'fr']);
    reply = await patch(id, { languages: ['fr', 'en', 'fr'] });
    assert.deepEqual(reply.body.data.languages, ['en', 'fr']);
    reply = await patch(id, { language: 'nl' });
    assert.equal(reply.body.data.language, 'nl');
    assert.deepEqual(reply.body.data.languages, ['nl', 'en', 'fr']);
    reply = await patch(id, { language: 'fr', languages: [] });
    assert.deepEqual(reply.body.data.languages, ['fr']);
    assertInvalid(await patch(id, { languages: ['it'] }), 'languages.0');
  });

  test('PATCH allowedOrigins replaces the list; an empty list opens the agent to every site', async () => {
    const id = await newAgent();
    let reply = await patch(id, { allowedOrigins: ['https://www.example.com', 'HTTPS://*.Example.org/', 'https://shop.example.com:8443'] });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.data.allowedOrigins, ['https://www.example.com', 'https://*.example.org', 'https://shop.example.com:8443']);
    reply = await patch(id, { allowedOrigins: ['https://*.example.co.uk'] });
    assert.deepEqual(reply.body.data.allowedOrigins, ['https://*.example.co.uk']);
    reply = await patch(id, { allowedOrigins: [] });
    assert.deepEqual(reply.body.data.allowedOrigins, []);
  });

  test('PATCH allowedOrigins refuses an entry over a public suffix or one that is not an origin', async () => {
    const id = await newAgent();
    for (const entry of ['https://*.com', 'https://*.co.uk', 'https://*.github.io', 'https://*.nl', 'https://*.localhost']) {
      assertInvalid(await patch(id, { allowedOrigins: ['https://www.example.com', entry] }), 'allowedOrigins.1');
    }
    for (const entry of ['www.example.com', 'https://www.example.com/page', 'ftp://example.com', 'https://*', 'https://a.*.example.com', 'https://example.com:99999']) {
      assertInvalid(await patch(id, { allowedOrigins: [entry] }), 'allowedOrigins.0');
    }
    assert.deepEqual((await read(id)).allowedOrigins, []);
  });

  test('PATCH with a model not in the catalogue gives 400, one outside the plan 402 model_not_allowed', async () => {
    const studio = await service.seedWorkspace({ plan: 'studio' });
    const id = await newAgent(studio);
    const studioPatch = (body: unknown) => service.api('PATCH', `/agents/${id}`, { key: studio.keys.manage, body });
    assertInvalid(await studioPatch({ model: 'no-such-model' }), 'model');
    const outside = await studioPatch({ model: 'gpt-4.1' });
    assert.equal(outside.status, 402);
    assert.equal(outside.body.error.code, 'model_not_allowed');
    const inside = await studioPatch({ model: 'gpt-4o' });
    assert.equal(inside.status, 200);
    assert.equal(inside.body.data.model, 'gpt-4o');
  });

  test('PATCH refuses leadCapture switched on without an https privacyUrl', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { leadCapture: { enabled: true } }), 'leadCapture.privacyUrl');
    assertInvalid(await patch(id, { leadCapture: { enabled: true, privacyUrl: 'http://example.com/privacy' } }), 'leadCapture.privacyUrl');
    assert.equal((await read(id)).leadCapture.enabled, false);
  });

  test('PATCH refuses leadCapture switched on without an email or phone field, judged on the merged result', async () => {
    const id = await newAgent();
    assertInvalid(
      await patch(id, { leadCapture: { enabled: true, privacyUrl: 'https://example.com/privacy', fields: [{ name: 'name', required: true }] } }),
      'leadCapture.fields',
    );
    const on = await patch(id, { leadCapture: { enabled: true, privacyUrl: 'https://example.com/privacy' } });
    assert.equal(on.status, 200, 'the default fields hold email');
    assert.equal(on.body.data.leadCapture.enabled, true);
    assertInvalid(await patch(id, { leadCapture: { fields: [{ name: 'company' }] } }), 'leadCapture.fields');
    assertInvalid(await patch(id, { leadCapture: { privacyUrl: null } }), 'leadCapture.privacyUrl');
    const phone = await patch(id, { leadCapture: { fields: [{ name: 'phone', required: true }] } });
    assert.equal(phone.status, 200);
    assertInvalid(await patch(id, { leadCapture: { fields: [{ name: 'email' }, { name: 'email' }] } }), 'leadCapture.fields');
  });

  test('PATCH refuses tickets switched on without an https privacyUrl', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { tickets: { enabled: true } }), 'tickets.privacyUrl');
    assertInvalid(await patch(id, { tickets: { enabled: true, privacyUrl: 'ftp://example.com' } }), 'tickets.privacyUrl');
    const ok = await patch(id, { tickets: { enabled: true, privacyUrl: 'https://example.com/privacy' } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.data.tickets, { enabled: true, answerTime: '', privacyUrl: 'https://example.com/privacy' });
  });

  test('PATCH actions replaces the list: kept ones by id, new ones get an id', async () => {
    const id = await newAgent();
    const first = await patch(id, {
      actions: [
        { name: 'Book a demo', url: 'https://example.com/demo', whenToUse: 'when asked for a demo' },
        { name: 'Mail us', url: 'mailto:hi@example.com', label: 'Mail' },
        { name: 'Call us', url: 'tel:+31201234567', enabled: false },
      ],
    });
    assert.equal(first.status, 200);
    const actions = first.body.data.actions;
    assert.equal(actions.length, 3);
    assert.deepEqual(
      actions.map((a: { kind: string }) => a.kind),
      ['link', 'email', 'phone'],
    );
    assert.deepEqual(actions[0], { id: actions[0].id, kind: 'link', enabled: true, name: 'Book a demo', whenToUse: 'when asked for a demo', label: 'Book a demo', url: 'https://example.com/demo' });
    assert.match(actions[0].id, /^act_/);

    const second = await patch(id, { actions: [{ id: actions[2].id, enabled: true }, { name: 'Docs', url: 'https://example.com/docs' }] });
    assert.equal(second.status, 200);
    const kept = second.body.data.actions;
    assert.equal(kept.length, 2);
    assert.deepEqual(kept[0], { ...actions[2], enabled: true });
    assert.notEqual(kept[1].id, actions[0].id);
  });

  test('PATCH actions with an unknown id or a url not https, mailto or tel gives 400', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { actions: [{ id: 'act_unknown', name: 'x', url: 'https://example.com' }] }), 'actions.0.id');
    assertInvalid(await patch(id, { actions: [{ name: 'x', url: 'http://example.com' }] }), 'actions.0.url');
    assertInvalid(await patch(id, { actions: [{ name: 'x', url: 'javascript:alert(1)' }] }), 'actions.0.url');
    assertInvalid(await patch(id, { actions: [{ name: 'x', url: 'https://example.com', colour: 'red' }] }), 'actions.0.colour');
    assert.deepEqual((await read(id)).actions, []);
  });

  test('PATCH calendlyUrl needs https and null clears it', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { calendlyUrl: 'http://calendly.com/x' }), 'calendlyUrl');
    assert.equal((await patch(id, { calendlyUrl: 'https://calendly.com/x' })).body.data.calendlyUrl, 'https://calendly.com/x');
    assert.equal((await patch(id, { calendlyUrl: null })).body.data.calendlyUrl, null);
  });

  test('PATCH branding.removeBranding needs a plan with branding removal', async () => {
    const studio = await service.seedWorkspace({ plan: 'studio' });
    const id = await newAgent(studio);
    assertInvalid(
      await service.api('PATCH', `/agents/${id}`, { key: studio.keys.manage, body: { branding: { removeBranding: true } } }),
      'branding.removeBranding',
    );
    const agency = await service.seedWorkspace({ plan: 'agency' });
    const agent = await service.api('POST', '/agents', { key: agency.keys.manage, body: { name: 'A', useCase: 'general' } });
    const ok = await service.api('PATCH', `/agents/${agent.body.data.id}`, { key: agency.keys.manage, body: { branding: { removeBranding: true } } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.branding.removeBranding, true);
  });

  test('PATCH emailChannel merges and switching it on needs an address', async () => {
    const id = await newAgent();
    assertInvalid(await patch(id, { emailChannel: { enabled: true } }), 'emailChannel.address');
    const ok = await patch(id, { emailChannel: { enabled: true, address: 'support@example.com' } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.data.emailChannel, { enabled: true, address: 'support@example.com', review: true });
  });

  test('PATCH leaves an audit entry with the key id', async () => {
    const id = await newAgent();
    const reply = await patch(id, { name: 'Audited' });
    assert.equal(reply.status, 200);
    const audit = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    const entry = audit.body.data.find((e: { action: string; target: string }) => e.action === 'agent.update' && e.target === id);
    assert.ok(entry, JSON.stringify(audit.body.data.slice(0, 3)));
    assert.equal(entry.keyId, ws.keyIds.manage);
    assert.equal(entry.requestId, reply.headers.get('x-request-id'));
    const refused = await patch(id, { temperature: 2 });
    assert.equal(refused.status, 400);
    const after = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    assert.equal(after.body.data.filter((e: { action: string; target: string }) => e.action === 'agent.update' && e.target === id).length, 1);
  });
});
