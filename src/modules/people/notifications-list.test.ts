/**
 * GET /app/api/notifications (docs/people.md, "Who is e-mailed"): who is mailed about each agent
 * the person reaches, in one request (the People page's table), the same as the per-agent route.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { addPerson, signIn, type SignedIn } from './test-support.ts';

let service: Service;
let ws: SeededWorkspace;
let owner: SignedIn;
let member: SignedIn;
let limited: SignedIn;
let first: string;
let second: string;

before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ name: 'Listing', plan: 'agency' });
  owner = await signIn(service, ws.id);
  member = await addPerson(service, owner, 'member@list.example', 'member');
  first = await seedAgent(service, ws, 'First desk');
  second = await seedAgent(service, ws, 'Second desk');
  limited = await addPerson(service, owner, 'limited@list.example', 'member', [second]);
});
after(async () => {
  await service.close();
});

test('every agent the person reaches, oldest first, each as its own notifications route gives it; a member limited to some agents gets theirs', async () => {
  const memberId = (await owner.call('GET', '/api/people')).body.data.find((p: { email: string }) => p.email === 'member@list.example').id;
  assert.equal((await owner.call('PUT', `/api/agents/${second}/notifications`, { tickets: [memberId] })).status, 200);

  for (const person of [owner, member]) {
    const listed = await person.call('GET', '/api/notifications');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const each = await Promise.all([first, second].map(async (agent) => (await person.call('GET', `/api/agents/${agent}/notifications`)).body.data));
    assert.deepEqual(listed.body, { data: each, pagination: { nextCursor: null } });
  }
  assert.deepEqual((await owner.call('GET', '/api/notifications')).body.data[1].tickets.people.map((p: { email: string }) => p.email), ['member@list.example']);
  assert.deepEqual((await limited.call('GET', '/api/notifications')).body.data.map((row: { agentId: string }) => row.agentId), [second]);
});

test('only for people signed in (401 without a session, 403 with a key); no query parameters', async () => {
  assertError(await fetch(`${service.url}/app/api/notifications`).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() })), 401, 'unauthorized');
  const keyed = await fetch(`${service.url}/app/api/notifications`, { headers: { authorization: `Bearer ${ws.keys.manage}` } });
  assert.equal(keyed.status, 403);
  assertError(await owner.call('GET', '/api/notifications?agentId=x'), 400, 'invalid_request');
});
