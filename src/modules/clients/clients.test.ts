import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';

const FIRST = { name: 'Bakkerij Jansen', email: 'info@jansen.example' };

describe('clients (spec 2.12, 4.12)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'agency' });
  });
  after(async () => service?.close());

  const put = (agent: string, body: unknown, key = ws.keys.manage) => service.api('PUT', `/agents/${agent}/client`, { key, body });
  const get = (agent: string, key = ws.keys.manage) => service.api('GET', `/agents/${agent}/client`, { key });

  test('an agent the workspace runs for itself has client null and the default report settings', async () => {
    const agent = await seedAgent(service, ws);
    const reply = await get(agent);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body.data, {
      client: null,
      report: { link: null, enabled: false, day: 1, transcripts: false, holdForReview: false, intro: '', signature: '' },
    });
  });

  test('a first client needs name and email: 400 naming the missing one', async () => {
    const agent = await seedAgent(service, ws);
    const noEmail = await put(agent, { name: 'Jansen' });
    assertError(noEmail, 400, 'invalid_request');
    assert.deepEqual(noEmail.body.error.details.map((d: { field: string }) => d.field), ['email']);
    const noName = await put(agent, { email: 'a@b.example' });
    assertError(noName, 400, 'invalid_request');
    assert.deepEqual(noName.body.error.details.map((d: { field: string }) => d.field), ['name']);
    const neither = await put(agent, { reportDay: 3 });
    assert.deepEqual(neither.body.error.details.map((d: { field: string }) => d.field), ['name', 'email']);
    assert.equal((await get(agent)).body.data.client, null);
  });

  test('a first client: reports off unless true is sent, fees for manage keys only, omitted fields stay', async () => {
    const agent = await seedAgent(service, ws);
    const now = (await service.admin('GET', '/clock')).body.data.now as string;
    const created = await put(agent, { ...FIRST, language: 'nl', serviceFeeEur: 149.5, setupFeeEur: 499, intro: 'Hallo!', signature: 'Team Web' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { client, report } = created.body.data;
    assert.deepEqual({ ...client, since: undefined }, { ...FIRST, language: 'nl', since: undefined, serviceFeeEur: 149.5, setupFeeEur: 499 });
    assert.ok(Date.parse(client.since) >= Date.parse(now) - 1000);
    assert.equal(report.enabled, false);
    assert.equal(report.day, 1);
    assert.match(report.link, new RegExp(`^${service.ctx.config.publicUrl}/reports/[0-9A-Za-z]{48}$`));
    assert.deepEqual({ ...report, link: undefined }, { link: undefined, enabled: false, day: 1, transcripts: false, holdForReview: false, intro: 'Hallo!', signature: 'Team Web' });

    const read = await get(agent, ws.keys.read);
    assert.equal(read.status, 200);
    assert.deepEqual(Object.keys(read.body.data.client).sort(), ['email', 'language', 'name', 'since']);
    assert.equal(read.body.data.report.link, report.link);
    assert.deepEqual((await get(agent)).body.data, created.body.data);

    const changed = await put(agent, { reportDay: 28, reportsEnabled: true, serviceFeeEur: null, transcripts: true });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.data.client, { ...client, serviceFeeEur: null });
    assert.deepEqual(changed.body.data.report, { ...report, day: 28, enabled: true, transcripts: true });
    assert.deepEqual((await get(agent)).body.data, changed.body.data);
  });

  test('PUT replies as GET does: fees without a value are there as null, first time and after', async () => {
    const agent = await seedAgent(service, ws);
    const sameAsGet = async (body: unknown) => {
      const written = await put(agent, body);
      assert.equal(written.status, 200, JSON.stringify(written.body));
      assert.deepEqual(written.body.data, (await get(agent)).body.data);
      assert.ok('serviceFeeEur' in written.body.data.client && 'setupFeeEur' in written.body.data.client, JSON.stringify(written.body.data.client));
      return written.body.data.client;
    };
    assert.deepEqual(pickFees(await sameAsGet(FIRST)), { serviceFeeEur: null, setupFeeEur: null });
    assert.deepEqual(pickFees(await sameAsGet({ reportDay: 5 })), { serviceFeeEur: null, setupFeeEur: null });
    assert.deepEqual(pickFees(await sameAsGet({ setupFeeEur: 250 })), { serviceFeeEur: null, setupFeeEur: 250 });
    assert.deepEqual(pickFees(await sameAsGet({ setupFeeEur: null, serviceFeeEur: null })), { serviceFeeEur: null, setupFeeEur: null });
    const raw = await fetch(`${service.url}/api/v1/agents/${agent}/client`, { method: 'PUT', headers: { authorization: `Bearer ${ws.keys.manage}`, 'content-type': 'application/json' }, body: JSON.stringify({ intro: 'Hoi' }) });
    assert.match(await raw.text(), /"serviceFeeEur":null,"setupFeeEur":null/);
  });

  test('a first client with reportsEnabled true has reports on; replies go to the owner', async () => {
    const agent = await seedAgent(service, ws);
    const created = await put(agent, { ...FIRST, reportsEnabled: true, holdForReview: true });
    assert.equal(created.body.data.report.enabled, true);
    assert.equal(created.body.data.report.holdForReview, true);
    const row = await service.ctx.db.selectFrom('clients').select(['reply_to', 'link_token', 'link_fingerprint']).where('agent_id', '=', agent).executeTakeFirstOrThrow();
    assert.equal(row.reply_to, 'owner@example.com');
    assert.notEqual(row.link_fingerprint, row.link_token);
  });

  test('the body is strict and checked: unknown fields, reportDay 1 to 28, languages, e-mail', async () => {
    const agent = await seedAgent(service, ws);
    for (const [body, field] of [
      [{ ...FIRST, colour: 'red' }, 'colour'],
      [{ ...FIRST, reportDay: 0 }, 'reportDay'],
      [{ ...FIRST, reportDay: 29 }, 'reportDay'],
      [{ ...FIRST, reportDay: 2.5 }, 'reportDay'],
      [{ ...FIRST, language: 'it' }, 'language'],
      [{ ...FIRST, email: 'not an address' }, 'email'],
      [{ ...FIRST, serviceFeeEur: -1 }, 'serviceFeeEur'],
      [{ ...FIRST, name: '  ' }, 'name'],
    ] as const) {
      const reply = await put(agent, body);
      assertError(reply, 400, 'invalid_request');
      assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === field), `${field}: ${JSON.stringify(reply.body)}`);
    }
    for (const day of [1, 28]) assert.equal((await put(agent, { ...FIRST, reportDay: day })).body.data.report.day, day);
  });

  test('DELETE takes the client off; the agent and its conversations stay; a second DELETE is 404', async () => {
    const agent = await seedAgent(service, ws);
    await put(agent, FIRST);
    const deleted = await service.api('DELETE', `/agents/${agent}/client`, { key: ws.keys.manage });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal(deleted.body.data.client, null);
    assert.equal((await get(agent)).body.data.client, null);
    assert.equal((await service.api('GET', `/agents/${agent}`, { key: ws.keys.manage })).status, 200);
    assertError(await service.api('DELETE', `/agents/${agent}/client`, { key: ws.keys.manage }), 404, 'not_found');
    assertError(await service.api('POST', `/agents/${agent}/client/report-link`, { key: ws.keys.manage }), 404, 'not_found');
  });

  test('POST report-link gives a new link; everything else stays', async () => {
    const agent = await seedAgent(service, ws);
    const before = (await put(agent, FIRST)).body.data;
    const rotated = await service.api('POST', `/agents/${agent}/client/report-link`, { key: ws.keys.manage });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.data.report.link, before.report.link);
    assert.deepEqual({ ...rotated.body.data.report, link: null }, { ...before.report, link: null });
    assert.deepEqual(rotated.body.data.client, before.client);
    assert.deepEqual((await get(agent)).body.data, rotated.body.data);
  });

  test('changes are audited', async () => {
    const agent = await seedAgent(service, ws);
    await put(agent, FIRST);
    await service.api('POST', `/agents/${agent}/client/report-link`, { key: ws.keys.manage });
    await service.api('DELETE', `/agents/${agent}/client`, { key: ws.keys.manage });
    const rows = await service.ctx.db.selectFrom('audit_log').select(['action', 'target']).where('target', 'like', `${agent}%`).where('action', 'like', 'client.%').orderBy('created_at').execute();
    assert.deepEqual(rows.map((r) => r.action), ['client.update', 'client.report_link', 'client.delete']);
  });

  test('below the agency plan all four routes are 402 clients_not_in_plan', async () => {
    const studio = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, studio);
    assertError(await get(agent, studio.keys.read), 402, 'clients_not_in_plan');
    assertError(await put(agent, FIRST, studio.keys.manage), 402, 'clients_not_in_plan');
    assertError(await service.api('DELETE', `/agents/${agent}/client`, { key: studio.keys.manage }), 402, 'clients_not_in_plan');
    assertError(await service.api('POST', `/agents/${agent}/client/report-link`, { key: studio.keys.manage }), 402, 'clients_not_in_plan');
    const enterprise = await service.seedWorkspace({ plan: 'enterprise' });
    const theirs = await seedAgent(service, enterprise);
    assert.equal((await put(theirs, FIRST, enterprise.keys.manage)).status, 200);
  });

  test('keys tied to one agent are refused all four with 403 forbidden, even for their own agent', async () => {
    const agent = await seedAgent(service, ws);
    await put(agent, FIRST);
    for (const scope of ['read', 'manage'] as const) {
      const tied = await ws.addKey(scope, agent);
      assertError(await get(agent, tied.key), 403, 'forbidden');
      assertError(await put(agent, { name: 'x' }, tied.key), 403, 'forbidden');
      assertError(await service.api('DELETE', `/agents/${agent}/client`, { key: tied.key }), 403, 'forbidden');
      assertError(await service.api('POST', `/agents/${agent}/client/report-link`, { key: tied.key }), 403, 'forbidden');
    }
    assert.equal((await get(agent)).body.data.client.name, FIRST.name);
  });

  test('a key tied to another agent gets 404 not_found on all four, as everywhere (tied-key rule 1)', async () => {
    const agent = await seedAgent(service, ws);
    await put(agent, FIRST);
    const tied = await ws.addKey('manage', await seedAgent(service, ws));
    assertError(await get(agent, tied.key), 404, 'not_found');
    assertError(await put(agent, { name: 'x' }, tied.key), 404, 'not_found');
    assertError(await service.api('DELETE', `/agents/${agent}/client`, { key: tied.key }), 404, 'not_found');
    assertError(await service.api('POST', `/agents/${agent}/client/report-link`, { key: tied.key }), 404, 'not_found');
    assert.equal((await get(agent)).body.data.client.name, FIRST.name);
  });

  test('scopes: read may only GET; chat may do nothing', async () => {
    const agent = await seedAgent(service, ws);
    assertError(await get(agent, ws.keys.chat), 403, 'forbidden');
    assertError(await put(agent, FIRST, ws.keys.read), 403, 'forbidden');
    assertError(await service.api('DELETE', `/agents/${agent}/client`, { key: ws.keys.read }), 403, 'forbidden');
    assertError(await service.api('POST', `/agents/${agent}/client/report-link`, { key: ws.keys.read }), 403, 'forbidden');
  });

  test("another workspace's agent is 404 on all four", async () => {
    const agent = await seedAgent(service, ws);
    await put(agent, FIRST);
    const other = await service.seedWorkspace({ plan: 'agency' });
    assertError(await get(agent, other.keys.manage), 404, 'not_found');
    assertError(await put(agent, { name: 'Stolen' }, other.keys.manage), 404, 'not_found');
    assertError(await service.api('DELETE', `/agents/${agent}/client`, { key: other.keys.manage }), 404, 'not_found');
    assertError(await service.api('POST', `/agents/${agent}/client/report-link`, { key: other.keys.manage }), 404, 'not_found');
    assert.equal((await get(agent)).body.data.client.name, FIRST.name);
  });
});

function pickFees(client: { serviceFeeEur?: unknown; setupFeeEur?: unknown }) {
  return { serviceFeeEur: client.serviceFeeEur, setupFeeEur: client.setupFeeEur };
}
