/**
 * The shared security suite (architecture rule 8): every route of the public
 * API against every scope, a foreign workspace and a key tied to another agent.
 *
 * To extend it when an area adds routes: add the route to ROUTES with the scope
 * of spec 4.2 and, for routes with a body, a body that passes validation (so a
 * foreign key reaches the agent check instead of stopping at 400). Give
 * `fixtures()` a real id of the new kind when one can be made, so the foreign
 * check is tried on a real row. Routes that do not exist yet are skipped.
 * A visitor route that names a conversation goes in VISITOR_ROUTES, a
 * dashboard route (people, session cookie) in DASHBOARD_ROUTES. Every route of
 * ROUTES is also tried in its copy for people under /app/api/v1.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Reply, type SeededWorkspace, type Service } from './support/harness.ts';
import { seedAgent } from './support/seed-agent.ts';
import { startVisitorConversation, visitorRequest, type VisitorConversation } from '../src/modules/visitors/test-support.ts';
import { addPerson, appCall, ownOrigin, signIn, type SignedIn } from '../src/modules/people/test-support.ts';
import { SoftPasskey } from '../src/modules/people/test-authenticator.ts';
import { assertError } from './support/assertions.ts';
import { createContext } from '../src/context.ts';
import { buildApp } from '../src/app.ts';

type Scope = 'read' | 'chat' | 'manage';

interface RouteEntry {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As in spec 4.2; {id} is an agent, {webhookId} a webhook. */
  path: string;
  scope: Scope;
  /** A body that passes validation. */
  body?: unknown;
  /** The call removes the agent itself: it gets an agent of its own. */
  destroysAgent?: boolean;
}

/** Spec 4.2, in its order. */
const ROUTES: RouteEntry[] = [
  { method: 'GET', path: '/workspace', scope: 'read' },
  { method: 'GET', path: '/models', scope: 'read' },
  { method: 'GET', path: '/setup-guide', scope: 'read' },
  { method: 'GET', path: '/agents', scope: 'read' },
  { method: 'POST', path: '/agents', scope: 'manage', body: { name: 'Made by the security suite', useCase: 'general' } },
  { method: 'GET', path: '/agents/{id}', scope: 'read' },
  { method: 'PATCH', path: '/agents/{id}', scope: 'manage', body: { name: 'Renamed by the security suite' } },
  { method: 'DELETE', path: '/agents/{id}', scope: 'manage', destroysAgent: true },
  { method: 'PUT', path: '/agents/{id}/branding/logo', scope: 'manage', body: { url: 'https://example.com/logo.png' } },
  { method: 'DELETE', path: '/agents/{id}/branding/logo', scope: 'manage' },
  { method: 'PUT', path: '/agents/{id}/branding/icon', scope: 'manage', body: { url: 'https://example.com/icon.png' } },
  { method: 'DELETE', path: '/agents/{id}/branding/icon', scope: 'manage' },
  { method: 'GET', path: '/agents/{id}/embed', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/identity-secret', scope: 'manage' },
  { method: 'POST', path: '/agents/{id}/identity-secret/rotate', scope: 'manage' },
  { method: 'GET', path: '/agents/{id}/sources', scope: 'read' },
  { method: 'POST', path: '/agents/{id}/sources', scope: 'manage', body: { type: 'text', title: 'Hours', content: 'Open every day.' } },
  { method: 'GET', path: '/agents/{id}/sources/{sourceId}', scope: 'read' },
  { method: 'DELETE', path: '/agents/{id}/sources/{sourceId}', scope: 'manage' },
  { method: 'GET', path: '/agents/{id}/crawl', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/crawl/pages', scope: 'read' },
  { method: 'DELETE', path: '/agents/{id}/crawl', scope: 'manage' },
  { method: 'POST', path: '/agents/{id}/retrain', scope: 'manage' },
  { method: 'POST', path: '/agents/{id}/chat', scope: 'chat', body: { message: 'What are your opening hours?' } },
  { method: 'GET', path: '/agents/{id}/conversations', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/conversations/{conversationId}', scope: 'read' },
  { method: 'DELETE', path: '/agents/{id}/conversations/{conversationId}', scope: 'manage' },
  { method: 'GET', path: '/agents/{id}/conversations/export', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/visitor-files/{fileId}', scope: 'read' },
  { method: 'DELETE', path: '/agents/{id}/visitor-files/{fileId}', scope: 'manage' },
  { method: 'GET', path: '/agents/{id}/leads', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/leads.csv', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/leads/{leadId}', scope: 'read' },
  { method: 'DELETE', path: '/agents/{id}/leads/{leadId}', scope: 'manage' },
  { method: 'GET', path: '/agents/{id}/tickets', scope: 'read' },
  { method: 'GET', path: '/agents/{id}/tickets/{ticketId}', scope: 'read' },
  { method: 'PATCH', path: '/agents/{id}/tickets/{ticketId}', scope: 'manage', body: { status: 'solved' } },
  { method: 'POST', path: '/agents/{id}/tickets/{ticketId}/notes', scope: 'manage', body: { body: 'A note.' } },
  { method: 'GET', path: '/agents/{id}/client', scope: 'read' },
  { method: 'PUT', path: '/agents/{id}/client', scope: 'manage', body: { name: 'Client Co', email: 'client@example.com' } },
  { method: 'DELETE', path: '/agents/{id}/client', scope: 'manage' },
  { method: 'POST', path: '/agents/{id}/client/report-link', scope: 'manage' },
  { method: 'POST', path: '/agents/{id}/messages/{messageId}/correction', scope: 'manage', body: { question: 'Q?', answer: 'A.' } },
  { method: 'GET', path: '/agents/{id}/analytics', scope: 'read' },
  { method: 'GET', path: '/webhooks', scope: 'read' },
  { method: 'POST', path: '/webhooks', scope: 'manage', body: { url: 'https://hooks.example.com/parley', events: ['lead.created'] } },
  { method: 'GET', path: '/webhooks/{webhookId}', scope: 'read' },
  { method: 'DELETE', path: '/webhooks/{webhookId}', scope: 'manage' },
];

const SCOPES: Scope[] = ['read', 'chat', 'manage'];

let service: Service;
/** The workspace under attack, with two agents. */
let own: SeededWorkspace;
let foreign: SeededWorkspace;
let agentId: string;
/** A manage key of `own` tied to its other agent. */
let tiedToOtherAgent: string;
let otherAgentId: string;
let ids: Record<string, string>;

before(async () => {
  // Each key makes a request per route here: the per-minute limit is not what this suite checks.
  service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  own = await service.seedWorkspace({ plan: 'enterprise', name: 'Own' });
  foreign = await service.seedWorkspace({ plan: 'enterprise', name: 'Foreign' });
  agentId = await seedAgent(service, own, 'Attacked');
  otherAgentId = await seedAgent(service, own, 'Other');
  tiedToOtherAgent = (await own.addKey('manage', otherAgentId)).key;
  ids = await fixtures();
});
after(() => service.close());

/** Real rows of `own` where they can be made with the routes that exist; unknown ids otherwise. */
async function fixtures(): Promise<Record<string, string>> {
  const made: Record<string, string> = {
    sourceId: 'src_unknown0000000000000',
    conversationId: 'conv_unknown000000000000',
    fileId: 'file_unknown000000000000',
    leadId: 'lead_unknown000000000000',
    ticketId: 'tkt_unknown0000000000000',
    messageId: 'msg_unknown0000000000000',
    webhookId: 'wh_unknown00000000000000',
  };
  const source = await service.api('POST', `/agents/${agentId}/sources`, { key: own.keys.manage, body: { type: 'text', title: 'Prices', content: 'A haircut costs 20 euros.' } });
  if (source.status === 201 || source.status === 200) made.sourceId = source.body.data.id;
  else if (!isUnknownRoute(source)) throw new Error(`could not add a source: ${source.status} ${JSON.stringify(source.body)}`);
  const chat = await service.api('POST', `/agents/${agentId}/chat`, { key: own.keys.chat, body: { message: 'How much is a haircut?' } });
  if (chat.status === 200) {
    made.conversationId = chat.body.data.conversationId;
    made.messageId = chat.body.data.messageId;
  } else if (!isUnknownRoute(chat)) throw new Error(`could not ask a question: ${chat.status} ${JSON.stringify(chat.body)}`);
  const lead = await leaveLead(agentId);
  if (lead) made.leadId = lead;
  const ticket = await openTicket(agentId);
  if (ticket) made.ticketId = ticket;
  const webhook = await service.api('POST', '/webhooks', { key: own.keys.manage, body: { url: 'https://93.184.215.14/parley/secret-path', events: ['lead.created'], agentId } });
  if (webhook.status === 201) made.webhookId = webhook.body.data.id;
  else if (!isUnknownRoute(webhook)) throw new Error(`could not add a webhook: ${webhook.status} ${JSON.stringify(webhook.body)}`);
  const file = await sendFile(agentId);
  if (file) made.fileId = file;
  return made;
}

/** A file sent through the visitor API with the agent's attachments switched on; undefined while that route does not exist. */
async function sendFile(agent: string): Promise<string | undefined> {
  const patched = await service.api('PATCH', `/agents/${agent}`, { key: own.keys.manage, body: { attachmentsEnabled: true } });
  if (patched.status !== 200) return undefined;
  const form = new FormData();
  form.append('file', new Blob(['Haircut voucher code 7731.']), 'voucher.txt');
  const response = await fetch(`${service.url}/visitor/v1/agents/${agent}/files`, { method: 'POST', body: form });
  const body = await response.json().catch(() => undefined);
  if (response.status === 201) return body.data.id;
  if (response.status === 404 && /^No route/.test(body?.error?.message ?? '')) return undefined;
  throw new Error(`could not send a file: ${response.status} ${JSON.stringify(body)}`);
}

/** A ticket opened through the visitor API with the agent's tickets switched on; undefined while that route does not exist. */
async function openTicket(agent: string): Promise<string | undefined> {
  const patched = await service.api('PATCH', `/agents/${agent}`, { key: own.keys.manage, body: { tickets: { enabled: true, privacyUrl: 'https://example.com/privacy' } } });
  if (patched.status !== 200) return undefined;
  const response = await fetch(`${service.url}/visitor/v1/agents/${agent}/tickets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'tomas@salon.example.org', name: 'Tomas', question: 'Can I move my haircut appointment?' }),
  });
  const body = await response.json().catch(() => undefined);
  if (response.status === 201) return body.data.id;
  if (response.status === 404 && /^No route/.test(body?.error?.message ?? '')) return undefined;
  throw new Error(`could not open a ticket: ${response.status} ${JSON.stringify(body)}`);
}

/** A lead left through the visitor API with the agent's form switched on; undefined while that route does not exist. */
async function leaveLead(agent: string): Promise<string | undefined> {
  const form = { leadCapture: { enabled: true, privacyUrl: 'https://example.com/privacy' } };
  const patched = await service.api('PATCH', `/agents/${agent}`, { key: own.keys.manage, body: form });
  if (patched.status !== 200) return undefined;
  const response = await fetch(`${service.url}/visitor/v1/agents/${agent}/leads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Lena Haircut', email: 'lena@salon.example.org', moment: 'button' }),
  });
  const body = await response.json().catch(() => undefined);
  if (response.status === 201) return body.data.id;
  if (response.status === 404 && /^No route/.test(body?.error?.message ?? '')) return undefined;
  throw new Error(`could not leave a lead: ${response.status} ${JSON.stringify(body)}`);
}

function pathFor(entry: RouteEntry, agent: string): string {
  return entry.path.replace('{id}', agent).replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? `${name}_unknown`);
}

function isUnknownRoute(reply: Reply): boolean {
  return reply.status === 404 && /^No route/.test(reply.body?.error?.message ?? '');
}

async function skipIfMissing(t: TestContext, entry: RouteEntry, reply: Reply): Promise<boolean> {
  if (!isUnknownRoute(reply)) return false;
  t.skip(`${entry.method} ${entry.path} does not exist yet`);
  return true;
}

const name = (entry: RouteEntry) => `${entry.method} ${entry.path}`;
const agentRoutes = ROUTES.filter((r) => r.path.startsWith('/agents/{id}'));

describe('one workspace never sees another: a foreign key on an agent path is 404 not_found', () => {
  for (const entry of agentRoutes) {
    test(`${name(entry)} with a manage key of another workspace is 404 not_found`, async (t) => {
      const target = entry.destroysAgent ? await seedAgent(service, own, 'Doomed') : agentId;
      const reply = await service.api(entry.method, pathFor(entry, target), { key: foreign.keys.manage, body: entry.body });
      if (await skipIfMissing(t, entry, reply)) return;
      assert.equal(reply.status, 404, JSON.stringify(reply.body));
      assert.equal(reply.body.error.code, 'not_found');
      const stillThere = await sql`select 1 from agents where id = ${target}`.execute(service.ctx.db);
      assert.equal(stillThere.rows.length, 1, 'the agent is still there');
    });
  }

  test('GET /agents lists only the workspace’s own agents', async (t) => {
    const reply = await service.api('GET', '/agents', { key: foreign.keys.read });
    if (await skipIfMissing(t, ROUTES[3], reply)) return;
    assert.equal(reply.status, 200);
    assert.ok(!JSON.stringify(reply.body).includes(agentId));
  });

  test('a real source of another workspace is 404 to a foreign read key and leaks nothing', async (t) => {
    const reply = await service.api('GET', `/agents/${agentId}/sources/${ids.sourceId}`, { key: foreign.keys.read });
    if (await skipIfMissing(t, agentRoutes[0], reply)) return;
    assert.equal(reply.status, 404);
    assert.ok(!JSON.stringify(reply.body).includes('haircut'));
    const mine = await service.api('GET', `/agents/${agentId}/sources/${ids.sourceId}`, { key: own.keys.read });
    assert.equal(mine.status, 200, 'the source is real and visible to its own workspace');
  });

  test('a real conversation of another workspace is 404 to a foreign read key and leaks nothing', async (t) => {
    const reply = await service.api('GET', `/agents/${agentId}/conversations/${ids.conversationId}`, { key: foreign.keys.read });
    if (await skipIfMissing(t, agentRoutes[0], reply)) return;
    assert.equal(reply.status, 404);
    assert.ok(!JSON.stringify(reply.body).includes('haircut'));
    const listed = await service.api('GET', `/agents/${agentId}/conversations`, { key: foreign.keys.read });
    assert.equal(listed.status, 404);
    const mine = await service.api('GET', `/agents/${agentId}/conversations/${ids.conversationId}`, { key: own.keys.read });
    assert.equal(mine.status, 200, 'the conversation is real and visible to its own workspace');
  });

  test('a real lead of another workspace is 404 to a foreign read key and leaks nothing; a key tied to another agent sees none', async (t) => {
    if (ids.leadId.startsWith('lead_unknown')) return t.skip('the visitor API takes no leads yet');
    for (const key of [foreign.keys.read, tiedToOtherAgent]) {
      for (const path of [`/agents/${agentId}/leads/${ids.leadId}`, `/agents/${agentId}/leads`]) {
        const reply = await service.api('GET', path, { key });
        assert.equal(reply.status, 404, JSON.stringify(reply.body));
        assert.ok(!JSON.stringify(reply.body).includes('lena'));
      }
    }
    const mine = await service.api('GET', `/agents/${agentId}/leads/${ids.leadId}`, { key: own.keys.read });
    assert.equal(mine.status, 200, 'the lead is real and visible to its own workspace');
  });

  test('a real ticket of another workspace is 404 to a foreign key and leaks nothing; a key tied to another agent sees none', async (t) => {
    if (ids.ticketId.startsWith('tkt_unknown')) return t.skip('the visitor API takes no tickets yet');
    for (const key of [foreign.keys.read, foreign.keys.manage, tiedToOtherAgent]) {
      for (const path of [`/agents/${agentId}/tickets/${ids.ticketId}`, `/agents/${agentId}/tickets`]) {
        const reply = await service.api('GET', path, { key });
        assert.equal(reply.status, 404, JSON.stringify(reply.body));
        assert.ok(!JSON.stringify(reply.body).includes('tomas'));
      }
    }
    const mine = await service.api('GET', `/agents/${agentId}/tickets/${ids.ticketId}`, { key: own.keys.read });
    assert.equal(mine.status, 200, 'the ticket is real and visible to its own workspace');
    assert.equal(mine.body.data.email, 'tomas@salon.example.org');
  });
});

describe('webhooks are reached only in their own workspace, and by a tied key only for its agent', () => {
  test('a real webhook of another workspace is 404 to foreign keys and to a key tied to another agent, and is not listed', async (t) => {
    if (ids.webhookId.startsWith('wh_unknown')) return t.skip('there are no webhooks yet');
    for (const key of [foreign.keys.read, foreign.keys.manage, tiedToOtherAgent]) {
      for (const method of key === foreign.keys.read ? ['GET'] : ['GET', 'DELETE']) {
        const reply = await service.api(method, `/webhooks/${ids.webhookId}`, { key });
        assert.equal(reply.status, 404, JSON.stringify(reply.body));
        assert.equal(reply.body.error.code, 'not_found');
      }
      const listed = await service.api('GET', '/webhooks', { key });
      assert.equal(listed.status, 200);
      assert.ok(!JSON.stringify(listed.body).includes('secret-path'));
    }
    const mine = await service.api('GET', `/webhooks/${ids.webhookId}`, { key: own.keys.manage });
    assert.equal(mine.status, 200, 'the webhook is real and visible to its own workspace');
  });
});

describe('visitor files are the workspace’s own', () => {
  test('a real visitor file of another workspace is 404 to a foreign key and leaks nothing; a key tied to another agent sees none', async (t) => {
    if (ids.fileId.startsWith('file_unknown')) return t.skip('the visitor API takes no files yet');
    const attempts: Array<[string, string]> = [['GET', foreign.keys.read], ['GET', tiedToOtherAgent], ['DELETE', foreign.keys.manage], ['DELETE', tiedToOtherAgent]];
    for (const [method, key] of attempts) {
      const reply = await service.api(method, `/agents/${agentId}/visitor-files/${ids.fileId}`, { key });
      assert.equal(reply.status, 404, JSON.stringify(reply.body));
      assert.ok(!JSON.stringify(reply.body).includes('7731'));
    }
    const mine = await service.api('GET', `/agents/${agentId}/visitor-files/${ids.fileId}`, { key: own.keys.read });
    assert.equal(mine.status, 200, 'the file is real and visible to its own workspace');
    assert.match(mine.body.data.text, /7731/);
  });
});

describe('a key tied to one agent sees that agent only: another agent is 404 not_found (tied-key rule 1)', () => {
  for (const entry of agentRoutes) {
    test(`${name(entry)} with a key tied to another agent is 404 not_found`, async (t) => {
      const target = entry.destroysAgent ? await seedAgent(service, own, 'Doomed') : agentId;
      const reply = await service.api(entry.method, pathFor(entry, target), { key: tiedToOtherAgent, body: entry.body });
      if (await skipIfMissing(t, entry, reply)) return;
      assert.equal(reply.status, 404, JSON.stringify(reply.body));
      assert.equal(reply.body.error.code, 'not_found');
    });
  }

  test('GET /agents with a tied key lists only its agent', async (t) => {
    const reply = await service.api('GET', '/agents', { key: tiedToOtherAgent });
    if (await skipIfMissing(t, ROUTES[3], reply)) return;
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.length, 1);
    assert.notEqual(reply.body.data[0].id, agentId);
  });
});

describe('scopes (spec 5): 403 forbidden exactly where the scope table says', () => {
  for (const entry of ROUTES) {
    const refused = SCOPES.filter((s) => s !== 'manage' && s !== entry.scope);
    test(`${name(entry)} needs ${entry.scope}: ${refused.join(' and ')} ${refused.length === 1 ? 'is' : 'are'} refused`, async (t) => {
      const target = entry.destroysAgent ? await seedAgent(service, own, 'Doomed') : agentId;
      const path = pathFor(entry, target);
      // manage last: its call may change what the others would see. No body: the scope is checked before the body.
      for (const scope of SCOPES) {
        const reply = await service.api(entry.method, path, { key: own.keys[scope] });
        if (await skipIfMissing(t, entry, reply)) return;
        const shouldRefuse = refused.includes(scope);
        const isForbidden = reply.status === 403 && reply.body?.error?.code === 'forbidden';
        assert.equal(isForbidden, shouldRefuse, `${scope} key: ${reply.status} ${JSON.stringify(reply.body)}`);
        if (!shouldRefuse) assert.notEqual(reply.status, 401, `${scope} key`);
      }
    });
  }
});

describe('the security table is complete', () => {
  test('every operation in the OpenAPI document is in the security table', async () => {
    const doc = (await service.api('GET', '/openapi.json')).body;
    const table = new Set(ROUTES.map((r) => `${r.method} ${r.path.replace(/\{\w+\}/g, '{}')}`));
    const missing = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`)
        .filter((op) => !table.has(op) && !table.has(op.replace(/\/branding\/\{\}/, '/branding/logo'))),
    );
    assert.deepEqual(missing, []);
  });
});

/**
 * The keyless visitor API: a route that names a conversation (or an answer in
 * one) needs that conversation's x-visitor-token, on the agent it belongs to.
 */
const VISITOR_ROUTES: Array<{ path: string; body: (conversation: VisitorConversation) => Record<string, unknown> | FormData }> = [
  { path: '/chat', body: (c) => ({ message: 'Let me read on.', conversationId: c.conversationId }) },
  { path: '/feedback', body: (c) => ({ messageId: c.messageId, value: -1 }) },
  { path: '/leads', body: (c) => ({ conversationId: c.conversationId, email: 'mallory@attacker.example.org', moment: 'button' }) },
  { path: '/tickets', body: (c) => ({ conversationId: c.conversationId, email: 'mallory@attacker.example.org', question: 'Whose chat is this?' }) },
  {
    path: '/files',
    body: (c) => {
      const form = new FormData();
      form.append('conversationId', c.conversationId);
      form.append('file', new Blob(['Not yours.'], { type: 'text/plain' }), 'note.txt');
      return form;
    },
  },
];

describe('the visitor API: a conversation is reached only with its own token, on its own agent', () => {
  let victim: VisitorConversation;
  let attacker: VisitorConversation;
  let foreignAgent: string;

  before(async () => {
    victim = await startVisitorConversation(service, agentId, 'How much is a haircut?');
    attacker = await startVisitorConversation(service, agentId, 'Hello');
    foreignAgent = await seedAgent(service, foreign, 'Foreign visitor agent');
    // Everything on, so that a refusal there is about the conversation, not a switched-off feature.
    const features = {
      leadCapture: { enabled: true, privacyUrl: 'https://example.com/privacy' },
      tickets: { enabled: true, privacyUrl: 'https://example.com/privacy' },
      attachmentsEnabled: true,
    };
    for (const [key, agent] of [[own.keys.manage, agentId], [foreign.keys.manage, foreignAgent]]) {
      const patched = await service.api('PATCH', `/agents/${agent}`, { key, body: features });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    }
  });

  /** A visitor call with a JSON or multipart body and any headers. */
  async function send(agent: string, path: string, body: Record<string, unknown> | FormData, headers: Record<string, string>): Promise<Reply> {
    if (!(body instanceof FormData)) return visitorRequest(service, 'POST', `/agents/${agent}${path}`, { body, headers });
    const response = await fetch(`${service.url}/visitor/v1/agents/${agent}${path}`, { method: 'POST', body, headers });
    return { status: response.status, headers: response.headers, body: await response.json().catch(() => undefined) };
  }

  for (const route of VISITOR_ROUTES) {
    test(`POST /visitor/v1/agents/{agentId}${route.path}: no token, another visitor's token, an API key or another workspace's agent is 404 not_found`, async (t) => {
      const attempts: Array<[string, string, Record<string, string>]> = [
        ['no token', agentId, {}],
        ["another visitor's token", agentId, { 'x-visitor-token': attacker.token }],
        ['a manage key instead of the token', agentId, { authorization: `Bearer ${own.keys.manage}` }],
        ["the right token on another workspace's agent", foreignAgent, { 'x-visitor-token': victim.token }],
      ];
      for (const [what, agent, headers] of attempts) {
        const reply = await send(agent, route.path, route.body(victim), headers);
        if (isUnknownRoute(reply)) return t.skip(`${route.path} does not exist yet`);
        assert.equal(reply.status, 404, `${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
        assert.equal(reply.body.error.code, 'not_found');
        assert.ok(!JSON.stringify(reply.body).includes('haircut'), what);
      }
    });
  }

  test('nothing was added to the conversation by the attempts', async () => {
    const conversation = await service.api('GET', `/agents/${agentId}/conversations/${victim.conversationId}`, { key: own.keys.read });
    assert.equal(conversation.status, 200);
    assert.equal(conversation.body.data.messageCount, 2);
    assert.ok(conversation.body.data.messages.every((m: { feedback: unknown; attachments: unknown[] }) => m.feedback === null && m.attachments.length === 0));
  });
});

/**
 * The dashboard's routes (docs/people.md): people only, with a session cookie.
 * role: the least role that may call the route. {keyId} is a key of `own`,
 * {personId} a member of `own`, {invitedEmail} an address invited to nothing, {agentId}, {ticketId} and {webhookId} real rows
 * of `own`, {reportId} and {messageId} ids of no row, {sessionId} a session and {passkeyId} a passkey of `own`'s admin (a
 * person's own sessions are theirs in every workspace: `own` and `foreign`
 * share their owner).
 */
const DASHBOARD_ROUTES: Array<{ method: RouteEntry['method']; path: string; role: 'member' | 'admin' | 'owner'; body?: unknown }> = [
  { method: 'GET', path: '/api/me', role: 'member' },
  { method: 'PUT', path: '/api/me/password', role: 'member', body: { password: 'a long enough password' } },
  { method: 'PATCH', path: '/api/me', role: 'member', body: { name: 'Renamed by the security suite' } },
  { method: 'PUT', path: '/api/me/workspace', role: 'member', body: { workspaceId: '{workspaceId}' } },
  { method: 'POST', path: '/api/sign-out', role: 'member' },
  { method: 'GET', path: '/api/sessions', role: 'member' },
  { method: 'DELETE', path: '/api/sessions/{sessionId}', role: 'member' },
  { method: 'GET', path: '/api/keys', role: 'admin' },
  { method: 'POST', path: '/api/keys', role: 'admin', body: { name: 'Security suite', scope: 'read' } },
  { method: 'DELETE', path: '/api/keys/{keyId}', role: 'admin' },
  { method: 'GET', path: '/api/people', role: 'admin' },
  { method: 'GET', path: '/api/invitations', role: 'admin' },
  { method: 'POST', path: '/api/invitations', role: 'admin', body: { email: 'invited-by-suite@example.org', role: 'member' } },
  { method: 'DELETE', path: '/api/invitations/{invitedEmail}', role: 'admin' },
  { method: 'PATCH', path: '/api/people/{personId}', role: 'admin', body: { role: 'member' } },
  { method: 'DELETE', path: '/api/people/{personId}', role: 'admin' },
  { method: 'POST', path: '/api/ownership', role: 'owner', body: { personId: '{personId}' } },
  { method: 'POST', path: '/api/agents/{agentId}/tickets/{ticketId}/replies', role: 'member', body: { body: 'A reply from the security suite.' } },
  { method: 'DELETE', path: '/api/agents/{agentId}/tickets/{ticketId}', role: 'member' },
  { method: 'POST', path: '/api/webhooks/{webhookId}/enable', role: 'admin' },
  { method: 'GET', path: '/api/webhooks/{webhookId}/deliveries', role: 'admin' },
  { method: 'POST', path: '/api/agents/{agentId}/sources/upload', role: 'member' },
  { method: 'POST', path: '/api/agents/{agentId}/branding/logo', role: 'member' },
  { method: 'POST', path: '/api/agents/{agentId}/branding/icon/crop', role: 'member', body: { x: 0, y: 0, width: 1, height: 1 } },
  { method: 'GET', path: '/api/me/passkeys', role: 'member' },
  { method: 'POST', path: '/api/me/passkeys/options', role: 'member' },
  { method: 'POST', path: '/api/me/passkeys', role: 'member', body: { response: { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'x' } } } },
  { method: 'PATCH', path: '/api/me/passkeys/{passkeyId}', role: 'member', body: { name: 'Renamed by the security suite' } },
  { method: 'DELETE', path: '/api/me/passkeys/{passkeyId}', role: 'member' },
  { method: 'GET', path: '/api/agents/{agentId}/notifications', role: 'member' },
  { method: 'PUT', path: '/api/agents/{agentId}/notifications', role: 'admin', body: { leads: null } },
  { method: 'POST', path: '/api/agents/{agentId}/client/report', role: 'member' },
  { method: 'GET', path: '/api/agents/{agentId}/client/reports', role: 'member' },
  { method: 'GET', path: '/api/agents/{agentId}/client/reports/{reportId}/pdf', role: 'member' },
  { method: 'POST', path: '/api/agents/{agentId}/client/reports/{reportId}/release', role: 'member' },
  { method: 'POST', path: '/api/agents/{agentId}/client/reports/{reportId}/discard', role: 'member' },
  { method: 'GET', path: '/api/workspace', role: 'member' },
  { method: 'PATCH', path: '/api/workspace', role: 'admin', body: { name: 'Own' } },
  { method: 'GET', path: '/api/agents/{agentId}/tickets/{ticketId}/drafts', role: 'member' },
  { method: 'POST', path: '/api/agents/{agentId}/tickets/{ticketId}/drafts/{messageId}/send', role: 'member', body: {} },
  { method: 'POST', path: '/api/agents/{agentId}/tickets/{ticketId}/drafts/{messageId}/discard', role: 'member' },
  { method: 'GET', path: '/api/audit', role: 'admin' },
];

describe('the dashboard: people only, with their session, CSRF token and role', () => {
  let owner: SignedIn;
  let admin: SignedIn;
  let member: SignedIn;
  let ofForeign: SignedIn;
  let dashboardIds: Record<string, string>;

  before(async () => {
    owner = await signIn(service, own.id, 'owner@example.com');
    admin = await addPerson(service, owner, 'suite-admin@example.org', 'admin');
    member = await addPerson(service, owner, 'suite-member@example.org', 'member');
    // The same owner address owns `foreign` too: their session there is a session of another workspace.
    ofForeign = await signIn(service, foreign.id, 'owner@example.com');
    dashboardIds = {
      keyId: own.keyIds.read,
      workspaceId: own.id,
      invitedEmail: 'withdrawn-by-suite@example.org',
      agentId,
      ticketId: ids.ticketId,
      webhookId: ids.webhookId,
      // No report nor held draft is made here: the refusals come before the row is looked for (a foreign session's is 404 either way).
      reportId: 'rep_security00000000000',
      messageId: 'msg_security00000000000',
      personId: (await member.call('GET', '/api/me')).body.data.person.id,
      sessionId: (await admin.call('GET', '/api/sessions')).body.data.find((s: { current: boolean }) => s.current).id,
      passkeyId: await registerPasskey(admin),
    };
  });

  const dashboardPath = (path: string) => path.replace(/\{(\w+)\}/g, (_, id: string) => dashboardIds[id]!);
  const dashboardBody = (body: unknown) => (body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace(/\{(\w+)\}/g, (_, id: string) => dashboardIds[id]!)));
  const label = (entry: (typeof DASHBOARD_ROUTES)[number]) => `${entry.method} /app${entry.path}`;

  for (const entry of DASHBOARD_ROUTES) {
    test(`${label(entry)} without a session is 401 unauthorized; with an API key of any scope 403 forbidden`, async () => {
      const headers = { origin: ownOrigin(service) };
      assertError(await appCall(service, entry.method, dashboardPath(entry.path), { body: dashboardBody(entry.body), headers }), 401, 'unauthorized');
      for (const scope of SCOPES) {
        const keyed = await appCall(service, entry.method, dashboardPath(entry.path), { body: dashboardBody(entry.body), headers: { ...headers, authorization: `Bearer ${own.keys[scope]}` } });
        assertError(keyed, 403, 'forbidden');
      }
    });

    if (entry.method !== 'GET') {
      test(`${label(entry)} with a missing or wrong CSRF token, or a foreign Origin, is 403 forbidden`, async () => {
        for (const options of [{ csrf: null }, { csrf: 'f'.repeat(64) }, { csrf: ofForeign.csrfToken }, { origin: 'https://evil.example' }, { origin: null }]) {
          assertError(await owner.call(entry.method, dashboardPath(entry.path), dashboardBody(entry.body), options), 403, 'forbidden');
        }
        assert.equal((await owner.call('GET', '/api/me')).status, 200, 'the session is still there');
      });
    }

    if (entry.role !== 'member') {
      test(`${label(entry)} needs ${entry.role}: a member${entry.role === 'owner' ? ' and an admin are' : ' is'} 403 forbidden`, async () => {
        const refused = entry.role === 'owner' ? [member, admin] : [member];
        for (const person of refused) assertError(await person.call(entry.method, dashboardPath(entry.path), dashboardBody(entry.body)), 403, 'forbidden');
      });
    }
  }

  test("a session of another workspace reaches none of this workspace's keys, people or sessions (404 not_found) and lists none", async () => {
    // Moving a session between workspaces is the person's (who belongs to both here), not the workspace's: sign-in.test.ts tries a stranger's.
    const aboutThisWorkspace = DASHBOARD_ROUTES.filter((e) => /\{\w+\}/.test(e.path + JSON.stringify(e.body ?? '')) && e.path !== '/api/me/workspace');
    for (const entry of aboutThisWorkspace) {
      assertError(await ofForeign.call(entry.method, dashboardPath(entry.path), dashboardBody(entry.body)), 404, 'not_found');
    }
    assert.equal((await admin.call('GET', '/api/me')).status, 200);
    const keys = await ofForeign.call('GET', '/api/keys');
    assert.equal(keys.status, 200, JSON.stringify(keys.body));
    assert.ok(!JSON.stringify(keys.body).includes(own.keyIds.read));
    const people = await ofForeign.call('GET', '/api/people');
    assert.equal(people.status, 200, JSON.stringify(people.body));
    assert.ok(people.body.data.length > 0, 'the foreign workspace lists its own people');
    assert.ok(!JSON.stringify(people.body).includes('suite-member'));
    assert.equal((await service.api('GET', '/workspace', { key: own.keys.read })).status, 200, "own's key was not revoked");
  });

  test('an ended session is refused on every route (401 unauthorized)', async () => {
    const doomed = await signIn(service, own.id, 'owner@example.com');
    const doomedId = (await doomed.call('GET', '/api/sessions')).body.data.find((s: { current: boolean }) => s.current).id;
    assert.equal((await owner.call('DELETE', `/api/sessions/${doomedId}`)).status, 200);
    for (const entry of DASHBOARD_ROUTES) {
      assertError(await doomed.call(entry.method, dashboardPath(entry.path), dashboardBody(entry.body)), 401, 'unauthorized');
    }
  });

  test('a session ended in one process is refused at once by another on the same database', async (t) => {
    if (!service.ctx.config.databaseUrl) return t.skip('one process only on the embedded store');
    const other = await startServiceOn(service.ctx.config.databaseUrl);
    try {
      const person = await signIn(service, own.id, 'owner@example.com');
      const otherCall = () => appCall({ ...service, url: other.url } as Service, 'GET', '/api/me', { headers: { cookie: person.cookie } });
      assert.equal((await otherCall()).status, 200);
      assert.equal((await person.call('POST', '/api/sign-out')).status, 200);
      assertError(await otherCall(), 401, 'unauthorized');
    } finally {
      await other.close();
    }
  });
});

/**
 * The API's copy for people under /app/api/v1 (docs/people.md): every route of
 * ROUTES without a session, with a key of each scope, with a forged change, with
 * a session of another workspace, as a member limited to another agent, and
 * (webhooks) as a member. One test per rule, each over the whole table.
 */
describe('the REST API for people under /app/api/v1: every route', () => {
  let owner: SignedIn;
  let limited: SignedIn;
  let ofForeign: SignedIn;
  const copyPath = (entry: RouteEntry, agent = agentId) => `/api/v1${pathFor(entry, agent)}`;
  const label = (entry: RouteEntry) => `${entry.method} /app/api/v1${entry.path}`;
  const refusals = (replies: Array<[RouteEntry, Reply]>, status: number, code: string) =>
    replies.filter(([, reply]) => reply.status !== status || reply.body?.error?.code !== code).map(([entry, reply]) => `${label(entry)}: ${reply.status} ${reply.body?.error?.code}`);

  before(async () => {
    owner = await signIn(service, own.id, 'owner@example.com');
    limited = await addPerson(service, owner, 'suite-limited@example.org', 'member', [otherAgentId]);
    ofForeign = await signIn(service, foreign.id, 'owner@example.com');
  });

  test('without a session every route is 401 unauthorized; with an API key of any scope 403 forbidden', async () => {
    const anonymous: Array<[RouteEntry, Reply]> = [];
    const keyed: Array<[RouteEntry, Reply]> = [];
    for (const entry of ROUTES) {
      const headers = { origin: ownOrigin(service) };
      anonymous.push([entry, await appCall(service, entry.method, copyPath(entry), { body: entry.body, headers })]);
      for (const scope of SCOPES) keyed.push([entry, await appCall(service, entry.method, copyPath(entry), { body: entry.body, headers: { ...headers, authorization: `Bearer ${own.keys[scope]}` } })]);
    }
    assert.deepEqual(refusals(anonymous, 401, 'unauthorized'), []);
    assert.deepEqual(refusals(keyed, 403, 'forbidden'), []);
  });

  test('every change with a missing or wrong CSRF token, or a foreign Origin, is 403 forbidden', async () => {
    const replies: Array<[RouteEntry, Reply]> = [];
    for (const entry of ROUTES.filter((e) => e.method !== 'GET')) {
      for (const options of [{ csrf: null }, { csrf: ofForeign.csrfToken }, { origin: 'https://evil.example' }]) {
        replies.push([entry, await owner.call(entry.method, copyPath(entry), entry.body, options)]);
      }
    }
    assert.deepEqual(refusals(replies, 403, 'forbidden'), []);
    assert.equal((await service.api('GET', `/agents/${agentId}`, { key: own.keys.read })).status, 200, 'the agent is still there');
  });

  test("a session of another workspace finds none of this workspace's agents or webhooks (404 not_found)", async () => {
    const replies: Array<[RouteEntry, Reply]> = [];
    for (const entry of ROUTES.filter((e) => /\{(id|webhookId)\}/.test(e.path))) replies.push([entry, await ofForeign.call(entry.method, copyPath(entry), entry.body)]);
    assert.deepEqual(refusals(replies, 404, 'not_found'), []);
  });

  test('a member limited to another agent finds this one missing on every agent route (404); the routes a member may not use at all (webhooks, changing a client) are 403', async () => {
    const forMembers = (entry: RouteEntry) => !entry.path.startsWith('/webhooks') && !(entry.path.startsWith('/agents/{id}/client') && entry.method !== 'GET');
    const open: Array<[RouteEntry, Reply]> = [];
    const closed: Array<[RouteEntry, Reply]> = [];
    for (const entry of ROUTES.filter((e) => e.path.startsWith('/agents/{id}') || e.path.startsWith('/webhooks'))) {
      (forMembers(entry) ? open : closed).push([entry, await limited.call(entry.method, copyPath(entry), entry.body)]);
    }
    assert.deepEqual(refusals(open, 404, 'not_found'), []);
    assert.deepEqual(refusals(closed, 403, 'forbidden'), []);
    assert.equal((await service.api('GET', `/agents/${agentId}`, { key: own.keys.read })).status, 200, 'the agent is still there');
  });
});

/** A passkey of the person's (a software authenticator's), by id. */
async function registerPasskey(person: SignedIn): Promise<string> {
  const options = await person.call('POST', '/api/me/passkeys/options');
  const registered = await person.call('POST', '/api/me/passkeys', { response: new SoftPasskey().register(options.body.data, person.origin) });
  if (registered.status !== 201) throw new Error(`passkey failed: ${registered.status} ${JSON.stringify(registered.body)}`);
  return registered.body.data.id as string;
}

/** A second API process on the same PostgreSQL (and Redis, when the run has one). */
async function startServiceOn(databaseUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const config = { ...service.ctx.config, databaseUrl };
  const ctx = await createContext(config);
  const app = await buildApp(ctx, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url, close: async () => (await app.close(), await ctx.close()) };
}
