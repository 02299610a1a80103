import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { enableTickets, openTicket } from '../tickets/test-support.ts';
import { addWebhook, enableLeads, leaveLead, startReceiver, type Receiver } from './test-support.ts';
import { RETRY_DELAYS_SECONDS } from './delivery.ts';
import { webhooksWorker } from './jobs.ts';

/** Long enough for a sweep that is not coming to have come (it runs at once when the clock moves). */
const QUIET_MS = 400;

async function advance(service: Service, seconds: number): Promise<void> {
  const reply = await service.admin('POST', '/clock', { advanceSeconds: seconds });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
}

describe('the webhook resource (spec 2.13, 4.14)', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agentId: string;
  let otherAgentId: string;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agentId = await seedAgent(service, ws, 'Shop');
    otherAgentId = await seedAgent(service, ws, 'Salon');
  });
  after(() => service.close());

  const add = (body: Record<string, unknown>, key = ws.keys.manage) => service.api('POST', '/webhooks', { key, body: { events: ['lead.created'], ...body } });
  const deleteAll = async () => {
    for (const hook of (await service.api('GET', '/webhooks', { key: ws.keys.manage })).body.data) await service.api('DELETE', `/webhooks/${hook.id}`, { key: ws.keys.manage });
  };

  test('a key of a workspace below studio gets 402 api_not_in_plan on every webhook route: the key\'s rule comes first (spec 5.5)', async () => {
    // Keys are made on studio; the workspace then goes down to starter.
    const starter = await service.seedWorkspace({ plan: 'studio' });
    const hook = (await service.api('POST', '/webhooks', { key: starter.keys.manage, body: { url: 'https://93.184.215.14/hook', events: ['lead.created'] } })).body.data;
    assert.equal((await service.admin('PATCH', `/workspaces/${starter.id}`, { plan: 'starter' })).status, 200);
    for (const [method, path, key] of [
      ['GET', '/webhooks', starter.keys.read],
      ['POST', '/webhooks', starter.keys.manage],
      ['GET', `/webhooks/${hook.id}`, starter.keys.read],
      ['GET', '/webhooks/wh_unknown', starter.keys.read],
      ['DELETE', `/webhooks/${hook.id}`, starter.keys.manage],
      ['DELETE', '/webhooks/wh_unknown', starter.keys.manage],
    ] as const) {
      const reply = await service.api(method, path, { key, body: method === 'POST' ? { url: 'https://93.184.215.14/hook2', events: ['lead.created'] } : undefined });
      assert.equal(reply.status, 402, `${method} ${path}`);
      assert.equal(reply.body.error.code, 'api_not_in_plan', `${method} ${path}`);
    }
    assert.equal((await service.admin('PATCH', `/workspaces/${starter.id}`, { plan: 'studio' })).status, 200);
    assert.equal((await service.api('GET', `/webhooks/${hook.id}`, { key: starter.keys.read })).status, 200, 'works again back on studio');
  });

  test('POST /webhooks replies 201 with the webhook and its secret, shown in that reply only', async () => {
    const reply = await add({ url: 'https://93.184.215.14/hooks/parley?token=abc', events: ['lead.created', 'ticket.created'] });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const hook = reply.body.data;
    assert.match(hook.id, /^wh_/);
    assert.match(hook.secret, /^whsec_\w{32}$/);
    assert.deepEqual(
      { url: hook.url, events: hook.events, agentId: hook.agentId, active: hook.active, disabledAt: hook.disabledAt },
      { url: 'https://93.184.215.14/hooks/parley?token=abc', events: ['lead.created', 'ticket.created'], agentId: null, active: true, disabledAt: null },
    );
    const read = await service.api('GET', `/webhooks/${hook.id}`, { key: ws.keys.manage });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.secret, undefined);
    assert.equal(read.body.data.createdAt, hook.createdAt);
    await deleteAll();
  });

  test('a read key gets the url cut after the host (a path can carry a token)', async () => {
    const made = (await add({ url: 'https://93.184.215.14/hooks/parley?token=abc' })).body.data;
    const one = await service.api('GET', `/webhooks/${made.id}`, { key: ws.keys.read });
    assert.equal(one.body.data.url, 'https://93.184.215.14');
    const listed = await service.api('GET', '/webhooks', { key: ws.keys.read });
    assert.deepEqual(listed.body.data.map((h: { url: string }) => h.url), ['https://93.184.215.14']);
    await deleteAll();
  });

  test('an address must be https://, without a port, user name or password, at most 2,000 characters: 400 invalid_request', async () => {
    for (const url of ['http://93.184.215.14/hook', 'https://93.184.215.14:8443/hook', 'https://user:pw@93.184.215.14/hook', 'https://me@93.184.215.14/hook', 'not an address', `https://93.184.215.14/${'a'.repeat(2000)}`]) {
      const reply = await add({ url });
      assert.equal(reply.status, 400, url);
      assert.equal(reply.body.error.code, 'invalid_request', url);
    }
  });

  test('an address not on the public internet is 400 unsafe_url: loopback, private, link-local, CGNAT, multicast, IPv4-mapped IPv6 and the rest', async () => {
    const unsafe = [
      'https://127.0.0.1/hook', 'https://localhost/hook', 'https://10.0.0.1/hook', 'https://172.16.5.4/hook', 'https://192.168.1.1/hook',
      'https://169.254.169.254/latest', 'https://100.64.0.1/hook', 'https://224.0.0.1/hook', 'https://0.0.0.0/hook', 'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook', 'https://[::ffff:8.8.8.8]/hook', 'https://[fd00::1]/hook', 'https://[fe80::1]/hook', 'https://255.255.255.255/hook',
      'https://198.18.0.1/hook', 'https://192.0.2.1/hook', 'https://240.0.0.1/hook', 'https://[::7f00:1]/hook', 'https://[::a00:1]/hook',
      'https://[64:ff9b::a00:1]/hook', 'https://[2002:a00:1::]/hook', 'https://[2001:db8::1]/hook', 'https://[ff02::1]/hook',
    ];
    for (const url of unsafe) {
      const reply = await add({ url });
      assert.equal(reply.status, 400, `${url}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.error.code, 'unsafe_url', url);
    }
  });

  test('a name that resolves to a private address is 400 unsafe_url', async (t) => {
    t.mock.method(dns.promises, 'lookup', async () => [{ address: '10.1.2.3', family: 4 }]);
    const reply = await add({ url: 'https://hooks.intranet.example.com/hook' });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'unsafe_url');
  });

  test('a workspace holds at most 10 webhooks: the 11th is 400 invalid_request', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await add({ url: `https://93.184.215.14/hook/${i}` })).status, 201);
    const eleventh = await add({ url: 'https://93.184.215.14/hook/10' });
    assert.equal(eleventh.status, 400);
    assert.equal(eleventh.body.error.code, 'invalid_request');
    const again = await add({ url: 'https://93.184.215.14/hook/3', events: ['ticket.created'] });
    assert.equal(again.status, 201, 'the same address replaces: no place is taken');
    await deleteAll();
  });

  test('the same address replaces the webhook for the same agents and is 400 invalid_request for other agents', async () => {
    const first = (await add({ url: 'https://93.184.215.14/zap', agentId })).body.data;
    const second = await add({ url: 'https://93.184.215.14/zap', agentId, events: ['ticket.created'] });
    assert.equal(second.status, 201);
    assert.notEqual(second.body.data.secret, first.secret);
    const listed = (await service.api('GET', '/webhooks', { key: ws.keys.manage })).body.data;
    assert.deepEqual(listed.map((h: { id: string; events: string[] }) => [h.id, h.events]), [[second.body.data.id, ['ticket.created']]]);
    for (const other of [{ agentId: otherAgentId }, {}]) {
      const refused = await add({ url: 'https://93.184.215.14/zap', ...other });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'invalid_request');
    }
    await deleteAll();
  });

  test('GET /webhooks lists oldest first on one page', async () => {
    const ids = [];
    for (const n of [1, 2, 3]) {
      ids.push((await add({ url: `https://93.184.215.14/order/${n}` })).body.data.id);
      await advance(service, 1);
    }
    const listed = await service.api('GET', '/webhooks', { key: ws.keys.read });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((h: { id: string }) => h.id), ids);
    assert.deepEqual(listed.body.pagination, { nextCursor: null });
    await deleteAll();
  });

  test('a key tied to one agent sees, adds and deletes only its agent’s webhooks; what it adds is for its agent', async () => {
    const tied = (await ws.addKey('manage', agentId)).key;
    const forAll = (await add({ url: 'https://93.184.215.14/all' })).body.data;
    const forOther = (await add({ url: 'https://93.184.215.14/other', agentId: otherAgentId })).body.data;
    const mine = await add({ url: 'https://93.184.215.14/mine' }, tied);
    assert.equal(mine.status, 201);
    assert.equal(mine.body.data.agentId, agentId);
    assert.equal((await add({ url: 'https://93.184.215.14/elsewhere', agentId: otherAgentId }, tied)).status, 404);
    const listed = await service.api('GET', '/webhooks', { key: tied });
    assert.deepEqual(listed.body.data.map((h: { id: string }) => h.id), [mine.body.data.id]);
    for (const hidden of [forAll.id, forOther.id]) {
      assert.equal((await service.api('GET', `/webhooks/${hidden}`, { key: tied })).status, 404);
      assert.equal((await service.api('DELETE', `/webhooks/${hidden}`, { key: tied })).status, 404);
    }
    assert.equal((await service.api('DELETE', `/webhooks/${mine.body.data.id}`, { key: tied })).status, 200);
    assert.equal((await service.api('GET', '/webhooks', { key: ws.keys.manage })).body.data.length, 2, 'the others are still there');
    await deleteAll();
  });

  test('one workspace’s webhooks are invisible to another: not listed, 404 to read and delete', async () => {
    const made = (await add({ url: 'https://93.184.215.14/private/token' })).body.data;
    const foreign = await service.seedWorkspace({ plan: 'enterprise', name: 'Foreign' });
    assert.deepEqual((await service.api('GET', '/webhooks', { key: foreign.keys.read })).body.data, []);
    for (const method of ['GET', 'DELETE']) {
      const reply = await service.api(method, `/webhooks/${made.id}`, { key: foreign.keys.manage });
      assert.equal(reply.status, 404);
      assert.equal(reply.body.error.code, 'not_found');
      assert.ok(!JSON.stringify(reply.body).includes('private'));
    }
    assert.equal((await service.api('GET', `/webhooks/${made.id}`, { key: ws.keys.read })).status, 200);
    await deleteAll();
  });
});

describe('deliveries (spec 6, 3.4)', () => {
  let service: Service;
  let smtp: SmtpCapture;
  let receiver: Receiver;

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    receiver = await startReceiver(() => service.ctx.clock.now().getTime());
  });
  after(async () => {
    await receiver.close();
    await service.close();
    await smtp.close();
  });

  let previous: { ws: SeededWorkspace; hook: any } | undefined;

  /** A workspace with a lead-taking agent and a webhook to the receiver; the previous test's webhook is deleted, so its retries do not arrive here. */
  async function setUp(body: Record<string, unknown> = {}): Promise<{ ws: SeededWorkspace; agentId: string; hook: any }> {
    if (previous) await service.api('DELETE', `/webhooks/${previous.hook.id}`, { key: previous.ws.keys.manage });
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agentId = await seedAgent(service, ws, 'Shop');
    await enableLeads(service, ws, agentId);
    const hook = await addWebhook(service, ws, receiver, body);
    receiver.received.length = 0;
    receiver.answer = 'ok';
    previous = { ws, hook };
    return { ws, agentId, hook };
  }

  async function attemptsOf(deliveryId: string): Promise<Array<{ number: number; status_code: number | null; error: string | null }>> {
    return (await sql<any>`select number, status_code, error from webhook_attempts where delivery_id = ${deliveryId} order by number`.execute(service.ctx.db)).rows;
  }

  test('a new lead arrives signed (stripe accepts it), with the body of 6.1 and the headers of 6.2; data is the lead exactly as GET returns it', async () => {
    const { ws, agentId } = await setUp();
    const leadId = await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    const [delivery] = receiver.received;
    assert.ok(delivery!.verified, 'stripe.webhooks.constructEvent accepts the delivery');
    assert.equal(delivery!.headers['content-type'], 'application/json');
    assert.equal(delivery!.headers['service-event'], 'lead.created');
    assert.match(String(delivery!.headers['service-delivery']), /^dlv_/);
    assert.match(String(delivery!.headers['service-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.equal(delivery!.headers['user-agent'], 'Service-Webhooks/1.0');
    const body = delivery!.body;
    assert.deepEqual(Object.keys(body), ['id', 'type', 'createdAt', 'agentId', 'data']);
    assert.match(body.id, /^evt_/);
    assert.equal(body.type, 'lead.created');
    assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(body.agentId, agentId);
    const lead = await service.api('GET', `/agents/${agentId}/leads/${leadId}`, { key: ws.keys.read });
    assert.deepEqual(body.data, lead.body.data);
    assert.equal(body.createdAt, lead.body.data.createdAt);
  });

  test('a new ticket arrives as ticket.created with the ticket exactly as GET returns it, entries included', async () => {
    const { ws, agentId } = await setUp();
    await enableTickets(service, ws, agentId);
    const ticket = await openTicket(service, agentId, { name: 'Tomas' });
    await receiver.waitFor(1);
    const [delivery] = receiver.received;
    assert.ok(delivery!.verified);
    assert.equal(delivery!.headers['service-event'], 'ticket.created');
    assert.equal(delivery!.body.type, 'ticket.created');
    const read = await service.api('GET', `/agents/${agentId}/tickets/${ticket.id}`, { key: ws.keys.read });
    assert.deepEqual(delivery!.body.data, read.body.data);
  });

  test('a webhook gets only the event types it subscribed to, and only its agent’s when it names one', async () => {
    const { ws, agentId } = await setUp({ events: ['ticket.created'] });
    const other = await seedAgent(service, ws, 'Other');
    await enableLeads(service, ws, other);
    await enableTickets(service, ws, agentId);
    await enableTickets(service, ws, other);
    await service.api('DELETE', `/webhooks/${(await service.api('GET', '/webhooks', { key: ws.keys.manage })).body.data[0].id}`, { key: ws.keys.manage });
    previous = { ws, hook: await addWebhook(service, ws, receiver, { events: ['ticket.created'], agentId }) };
    await leaveLead(service.url, agentId);
    await openTicket(service, other);
    const wanted = await openTicket(service, agentId);
    await receiver.waitFor(1);
    await sleep(QUIET_MS);
    assert.deepEqual(receiver.received.map((r) => [r.body.type, r.body.data.id]), [['ticket.created', wanted.id]]);
  });

  test('a failed delivery is retried after 5 min, 15 min, 1 h, 3 h, 6 h and 12 h with the same service-delivery; the 7th failure switches the webhook off and mails the owner; nothing more is sent', async () => {
    const { ws, agentId, hook } = await setUp();
    receiver.answer = 'fail';
    await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    for (const [i, delay] of RETRY_DELAYS_SECONDS.entries()) {
      await advance(service, delay - 30);
      await sleep(QUIET_MS);
      assert.equal(receiver.received.length, i + 1, `no retry before ${delay} s`);
      await advance(service, 30 + Math.ceil(delay * 0.01) + 1);
      await receiver.waitFor(i + 2);
    }
    assert.equal(receiver.received.length, 7);
    assert.equal(new Set(receiver.received.map((r) => r.headers['service-delivery'])).size, 1, 'the same delivery id on every attempt');
    assert.ok(receiver.received.every((r) => r.verified), 'each attempt signed at its own time');
    const mail = await smtp.waitFor((m) => m.subject.includes('Webhook switched off'));
    assert.deepEqual(mail.to, ['owner@example.com']);
    assert.match(mail.text, new RegExp(hook.id));
    const read = (await service.api('GET', `/webhooks/${hook.id}`, { key: ws.keys.read })).body.data;
    assert.equal(read.active, false);
    assert.ok(read.disabledAt);
    const attempts = await attemptsOf(String(receiver.received[0]!.headers['service-delivery']));
    assert.deepEqual(attempts.map((a) => [a.number, a.status_code]), [1, 2, 3, 4, 5, 6, 7].map((n) => [n, 500]));
    // That day's leads are not sent later, nor new ones.
    receiver.answer = 'ok';
    await leaveLead(service.url, agentId);
    await advance(service, 13 * 3600);
    await sleep(QUIET_MS);
    assert.equal(receiver.received.length, 7);
  });

  test('a lead of the failing day still waiting when the webhook is switched off is given up: it is not sent later', async () => {
    const { hook, agentId } = await setUp();
    receiver.answer = 'fail';
    await leaveLead(service.url, agentId, 'First');
    await receiver.waitFor(1);
    // The first lead's schedule up to its sixth failure; then a second lead arrives (and fails).
    for (const [i, delay] of RETRY_DELAYS_SECONDS.slice(0, -1).entries()) {
      await advance(service, delay + Math.ceil(delay * 0.01) + 1);
      await receiver.waitFor(i + 2);
    }
    const second = await leaveLead(service.url, agentId, 'Second');
    await receiver.waitFor(7);
    // The first lead's seventh failure switches the webhook off while the second's retries wait.
    await advance(service, 12 * 3600 + Math.ceil(12 * 36) + 1);
    await smtp.waitFor((m) => m.subject.includes('Webhook switched off') && m.text.includes(hook.id));
    await sleep(QUIET_MS);
    const arrived = receiver.received.length;
    const secondDelivery = String(receiver.received.find((r) => r.body.data.id === second)!.headers['service-delivery']);
    receiver.answer = 'ok';
    for (const step of [3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400]) await advance(service, step);
    await sleep(QUIET_MS);
    assert.equal(receiver.received.length, arrived, 'nothing arrives after the switch-off');
    assert.ok(receiver.received.every((r) => r.answeredWith === 'fail'), 'the receiver never got a lead through');
    const [row] = (await sql<{ status: string; attempts: number }>`select status, attempts from webhook_deliveries where id = ${secondDelivery}`.execute(service.ctx.db)).rows;
    assert.equal(row!.status, 'failed', 'the second lead is given up');
    assert.ok(row!.attempts < 7, `given up after ${row!.attempts} attempts, before its own schedule ran out`);
  });

  test('a redirect is not followed and counts as a failure', async () => {
    const { agentId } = await setUp();
    receiver.answer = 'redirect';
    await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    await sleep(QUIET_MS);
    assert.deepEqual(receiver.received.map((r) => r.path), ['/hooks/main'], 'the new location is not asked');
    const attempts = await attemptsOf(String(receiver.received[0]!.headers['service-delivery']));
    assert.deepEqual(attempts.map((a) => a.status_code), [302]);
    receiver.answer = 'ok';
    await advance(service, 5 * 60 + 10);
    await receiver.waitFor(2);
    assert.equal(receiver.received[1]!.headers['service-delivery'], receiver.received[0]!.headers['service-delivery']);
  });

  test('an answer later than 5 seconds fails and is retried', async () => {
    const { agentId } = await setUp();
    receiver.answer = 'late';
    await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    const deliveryId = String(receiver.received[0]!.headers['service-delivery']);
    for (let i = 0; i < 40 && (await attemptsOf(deliveryId)).length === 0; i++) await sleep(250);
    const [first] = await attemptsOf(deliveryId);
    assert.equal(first!.status_code, null);
    assert.match(first!.error ?? '', /timeout/);
    receiver.answer = 'ok';
    await advance(service, 5 * 60 + 10);
    await receiver.waitFor(2);
  });

  test('410 deletes the webhook at once, without retries', async () => {
    const { ws, agentId, hook } = await setUp();
    receiver.answer = 'gone';
    await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    for (let i = 0; i < 40 && (await service.api('GET', `/webhooks/${hook.id}`, { key: ws.keys.read })).status === 200; i++) await sleep(100);
    assert.equal((await service.api('GET', `/webhooks/${hook.id}`, { key: ws.keys.read })).status, 404);
    receiver.answer = 'ok';
    await advance(service, 3600);
    await sleep(QUIET_MS);
    assert.equal(receiver.received.length, 1);
  });

  test('DELETE /webhooks/{id} removes the webhook and every delivery still waiting: nothing more is sent', async () => {
    const { ws, agentId, hook } = await setUp();
    receiver.answer = 'fail';
    await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    const deleted = await service.api('DELETE', `/webhooks/${hook.id}`, { key: ws.keys.manage });
    assert.deepEqual(deleted.body.data, { id: hook.id, deleted: true });
    const waiting = await sql`select 1 from webhook_deliveries where webhook_id = ${hook.id}`.execute(service.ctx.db);
    assert.equal(waiting.rows.length, 0);
    receiver.answer = 'ok';
    await advance(service, 3600);
    await sleep(QUIET_MS);
    assert.equal(receiver.received.length, 1);
  });

  test('PARLEY_ALLOW_PRIVATE_URLS relaxes https and the port only for a loopback or private host; a public name keeps the rules', async (t) => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const add = (url: string) => service.api('POST', '/webhooks', { key: ws.keys.manage, body: { url, events: ['lead.created'] } });
    const answers: Record<string, string[]> = { localhost: ['127.0.0.1'], 'hooks.example.com': ['93.184.215.14'], 'hooks.lan.example': ['192.168.1.20'], 'mixed.example.com': ['192.168.1.20', '93.184.215.14'] };
    t.mock.method(dns.promises, 'lookup', async (name: string) => (answers[name] ?? []).map((address) => ({ address, family: 4 })));
    for (const url of ['http://hooks.example.com/plain', 'https://hooks.example.com:8443/port', 'http://93.184.215.14/plain', 'https://93.184.215.14:8443/port', 'http://mixed.example.com:8080/hook']) {
      const reply = await add(url);
      assert.equal(reply.status, 400, `${url}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.error.code, 'invalid_request', url);
      assert.equal(reply.body.error.details[0].field, 'url', url);
    }
    assert.equal((await add('https://hooks.example.com/fine')).status, 201);
    for (const url of ['http://127.0.0.1:9999/hook', 'http://localhost:9999/hook', 'https://10.0.0.5:8443/hook', 'http://[::1]:9999/hook', 'http://hooks.lan.example:8080/hook']) {
      const reply = await add(url);
      assert.equal(reply.status, 201, `${url}: ${JSON.stringify(reply.body)}`);
    }
    assert.equal((await add('http://169.254.169.254:80/latest')).body.error.code, 'invalid_request', 'link-local stays closed');
  });

  test('the name is looked up again on every attempt: a private answer is refused and the attempt fails', async (t) => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agentId = await seedAgent(service, ws, 'Rebinding');
    await enableLeads(service, ws, agentId);
    const port = new URL(receiver.url()).port;
    let answer = '127.0.0.1';
    t.mock.method(dns.promises, 'lookup', async () => [{ address: answer, family: 4 }]);
    const hook = (await service.api('POST', '/webhooks', { key: ws.keys.manage, body: { url: `http://receiver.example.net:${port}/hooks/rebinding`, events: ['lead.created'] } })).body.data;
    assert.equal(hook.active, true);
    receiver.received.length = 0;
    answer = '169.254.169.254';
    await leaveLead(service.url, agentId);
    let attempts: Array<{ error: string | null }> = [];
    for (let i = 0; i < 40 && attempts.length === 0; i++) {
      await sleep(100);
      attempts = (await sql<any>`select a.error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.webhook_id = ${hook.id}`.execute(service.ctx.db)).rows;
    }
    assert.match(attempts[0]?.error ?? '', /unsafe_url/);
    assert.equal(receiver.received.length, 0);
  });

  test('delivery records are deleted 7 days after they were made, once delivered or given up', async () => {
    const { agentId, hook } = await setUp();
    await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    const count = async () => Number((await sql<{ n: string }>`select count(*) as n from webhook_deliveries where webhook_id = ${hook.id}`.execute(service.ctx.db)).rows[0]!.n);
    await advance(service, 6 * 86400);
    await sleep(QUIET_MS);
    assert.equal(await count(), 1, 'kept for 7 days');
    await advance(service, 86400 + 60);
    for (let i = 0; i < 40 && (await count()) > 0; i++) await sleep(100);
    assert.equal(await count(), 0);
  });

  test('a slow receiver does not delay another workspace’s deliveries', async () => {
    const slow = await startReceiver(() => service.ctx.clock.now().getTime());
    try {
      slow.answer = 'late';
      const slowWs = await service.seedWorkspace({ plan: 'studio' });
      const slowAgent = await seedAgent(service, slowWs, 'Slow');
      await enableLeads(service, slowWs, slowAgent);
      await addWebhook(service, slowWs, slow);
      const { agentId } = await setUp();
      for (let i = 0; i < 30; i++) await leaveLead(service.url, slowAgent, `Slow ${i}`);
      await slow.waitFor(1);
      const started = Date.now();
      await leaveLead(service.url, agentId);
      await receiver.waitFor(1, 3000);
      assert.ok(Date.now() - started < 2000, `delivered in ${Date.now() - started} ms while the slow receiver holds its deliveries`);
    } finally {
      await slow.close();
    }
  });
});

describe('a recorded event wakes the deliveries (docs/webhooks.md, How it works inside)', () => {
  let service: Service;
  let receiver: Receiver;

  before(async () => {
    service = await startService({ workers: false, env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    // The sweep's first run happens now; the next would come in an hour.
    await webhooksWorker(service.ctx, { sweepEveryMs: 3_600_000 });
    receiver = await startReceiver(() => service.ctx.clock.now().getTime());
  });
  after(async () => {
    await receiver.close();
    await service.close();
  });

  test('a lead is delivered at once, not at the next periodic sweep: its notification at the commit wakes the worker', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agentId = await seedAgent(service, ws, 'Shop');
    await enableLeads(service, ws, agentId);
    await addWebhook(service, ws, receiver);
    const leadId = await leaveLead(service.url, agentId);
    await receiver.waitFor(1);
    assert.equal(receiver.received[0].body.type, 'lead.created');
    assert.equal(receiver.received[0].body.data.id, leadId);
  });
});
