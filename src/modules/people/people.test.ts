import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { addPerson, latestMailTo, linkIn, signIn, signInWithToken, tokenOf, type SignedIn } from './test-support.ts';

let service: Service;
before(async () => {
  service = await startService({ workers: false });
});
after(() => service.close());

let counter = 0;
async function ownedWorkspace(plan = 'studio'): Promise<{ id: string; owner: SignedIn }> {
  const created = await service.admin('POST', '/workspaces', { name: `Team ${++counter}`, plan, ownerEmail: `boss${counter}@example.org` });
  return { id: created.body.data.id, owner: await signIn(service, created.body.data.id) };
}

describe('API keys in the dashboard (spec 1.5)', () => {
  test('an owner creates a key (shown once), lists it without the secret, and it works on the API', async () => {
    const { owner } = await ownedWorkspace();
    const created = await owner.call('POST', '/api/keys', { name: 'CRM sync', scope: 'read' });
    assert.equal(created.status, 201);
    assert.match(created.body.data.key, /^cl_[0-9A-Za-z]{48}$/);
    const list = await owner.call('GET', '/api/keys');
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), ['agentId', 'createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scope']);
    assert.equal(list.body.data[0].prefix, created.body.data.key.slice(0, 8));
    assert.equal((await service.api('GET', '/workspace', { key: created.body.data.key })).status, 200);
  });

  test('a revoked key is refused at once on the API', async () => {
    const { owner } = await ownedWorkspace();
    const created = await owner.call('POST', '/api/keys', { name: 'Short-lived', scope: 'manage' });
    assert.equal((await service.api('GET', '/workspace', { key: created.body.data.key })).status, 200);
    assert.equal((await owner.call('DELETE', `/api/keys/${created.body.data.id}`)).status, 200);
    assertError(await service.api('GET', '/workspace', { key: created.body.data.key }), 401, 'unauthorized');
    assertError(await owner.call('DELETE', `/api/keys/${created.body.data.id}`), 404, 'not_found');
  });

  test('the 26th live key is 409 key_limit_reached', async () => {
    const { owner } = await ownedWorkspace();
    for (let i = 0; i < 25; i++) assert.equal((await owner.call('POST', '/api/keys', { name: `k${i}`, scope: 'read' })).status, 201);
    assertError(await owner.call('POST', '/api/keys', { name: 'one too many', scope: 'read' }), 409, 'key_limit_reached');
  });

  test('key creations at once cannot pass the 25 live keys: the extra ones are 409 key_limit_reached', async () => {
    const { owner } = await ownedWorkspace();
    for (let i = 0; i < 20; i++) assert.equal((await owner.call('POST', '/api/keys', { name: `k${i}`, scope: 'read' })).status, 201);
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => owner.call('POST', '/api/keys', { name: `at once ${i}`, scope: 'read' })));
    assert.equal(replies.filter((r) => r.status === 201).length, 5, JSON.stringify(replies.map((r) => r.status)));
    for (const reply of replies.filter((r) => r.status !== 201)) assertError(reply, 409, 'key_limit_reached');
    assert.equal((await owner.call('GET', '/api/keys')).body.data.length, 25);
  });

  test('below Studio a key is 402 api_not_in_plan, while the dashboard itself works', async () => {
    const { owner } = await ownedWorkspace('starter');
    assertError(await owner.call('POST', '/api/keys', { name: 'No API', scope: 'read' }), 402, 'api_not_in_plan');
    assert.equal((await owner.call('GET', '/api/keys')).status, 200);
  });

  test("another workspace's key cannot be revoked (404 not_found)", async () => {
    const a = await ownedWorkspace();
    const b = await ownedWorkspace();
    const key = (await b.owner.call('POST', '/api/keys', { name: 'B', scope: 'read' })).body.data;
    assertError(await a.owner.call('DELETE', `/api/keys/${key.id}`), 404, 'not_found');
    assert.equal((await service.api('GET', '/workspace', { key: key.key })).status, 200);
  });

  test('a member may not see or make keys (403 forbidden); an admin may', async () => {
    const { owner } = await ownedWorkspace();
    const member = await addPerson(service, owner, `member${counter}@example.org`, 'member');
    const admin = await addPerson(service, owner, `admin${counter}@example.org`, 'admin');
    assertError(await member.call('GET', '/api/keys'), 403, 'forbidden');
    assertError(await member.call('POST', '/api/keys', { name: 'x', scope: 'read' }), 403, 'forbidden');
    assert.equal((await admin.call('POST', '/api/keys', { name: 'Admin made', scope: 'chat' })).status, 201);
  });

  test('the audit log names the person who made the key', async () => {
    const { id, owner } = await ownedWorkspace();
    const key = (await owner.call('POST', '/api/keys', { name: 'Audited', scope: 'read' })).body.data;
    const me = (await owner.call('GET', '/api/me')).body.data;
    const entry = (await service.admin('GET', `/workspaces/${id}/audit`)).body.data.find((e: { action: string }) => e.action === 'key.create');
    assert.deepEqual({ target: entry.target, personId: entry.personId, keyId: entry.keyId }, { target: key.id, personId: me.person.id, keyId: null });
  });
});

function signInByLink(token: string): Promise<Response> {
  return fetch(`${service.url}/app/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }), redirect: 'manual' });
}

describe('people: invite, accept, roles, removal, ownership', () => {
  test('an invitation is mailed with a link valid 7 days; opening it and clicking accepts it with the role given', async () => {
    const { owner } = await ownedWorkspace();
    const email = `new${counter}@example.org`;
    assert.equal((await owner.call('POST', '/api/invitations', { email, role: 'member' })).status, 201);
    const mail = await latestMailTo(service, email);
    assert.match(mail.subject, /invites you to Team/);
    const person = await signInWithToken(service, tokenOf(linkIn(mail.text)));
    assert.equal((await person.call('GET', '/api/me')).body.data.role, 'member');
    const people = (await owner.call('GET', '/api/people')).body.data;
    assert.deepEqual(people.map((p: { role: string }) => p.role), ['owner', 'member']);
  });

  test('an invitation expires after 7 days', async () => {
    const { owner } = await ownedWorkspace();
    const email = `late${counter}@example.org`;
    await owner.call('POST', '/api/invitations', { email, role: 'admin' });
    const token = tokenOf(linkIn((await latestMailTo(service, email)).text));
    await service.admin('POST', '/clock', { advanceSeconds: 7 * 86400 + 1 });
    const reply = await fetch(`${service.url}/app/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }), redirect: 'manual' });
    assert.equal(reply.status, 401);
  });

  test('only the newest invitation to an address works; a withdrawn one works no more, and withdrawing none is 404 not_found', async () => {
    const { owner } = await ownedWorkspace();
    const email = `twice${counter}@example.org`;
    await owner.call('POST', '/api/invitations', { email, role: 'admin' });
    const first = tokenOf(linkIn((await latestMailTo(service, email)).text));
    await owner.call('POST', '/api/invitations', { email, role: 'member' });
    const second = tokenOf(linkIn((await latestMailTo(service, email)).text));
    assert.notEqual(first, second);
    assert.equal((await signInByLink(first)).status, 401);
    assert.equal((await owner.call('DELETE', `/api/invitations/${email.toUpperCase()}`)).status, 200);
    assert.equal((await signInByLink(second)).status, 401);
    assertError(await owner.call('DELETE', `/api/invitations/${email}`), 404, 'not_found');
    assert.deepEqual((await owner.call('GET', '/api/people')).body.data.map((p: { role: string }) => p.role), ['owner']);
  });

  test('the open invitations are listed for owners and admins: the newest to each address, none accepted or withdrawn; a member is 403', async () => {
    const { owner } = await ownedWorkspace();
    const pending = `pending${counter}@example.org`;
    const accepting = `accepting${counter}@example.org`;
    await owner.call('POST', '/api/invitations', { email: pending, role: 'admin' });
    await owner.call('POST', '/api/invitations', { email: pending, role: 'member' });
    const member = await addPerson(service, owner, accepting, 'member');
    const listed = await owner.call('GET', '/api/invitations');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.data.map((i: { email: string; role: string; agentIds: unknown }) => [i.email, i.role, i.agentIds]), [[pending, 'member', null]]);
    assert.ok(Date.parse(listed.body.data[0].expiresAt) > Date.parse(listed.body.data[0].createdAt));
    assertError(await member.call('GET', '/api/invitations'), 403, 'forbidden');
    assert.equal((await owner.call('DELETE', `/api/invitations/${pending}`)).status, 200);
    assert.deepEqual((await owner.call('GET', '/api/invitations')).body.data, []);
  });

  test('a member limited to some agents gets only those; an agent of another workspace is 400 invalid_request', async () => {
    const ws = await service.seedWorkspace();
    const owner = await signIn(service, ws.id, 'owner@example.com');
    const agent = await seedAgent(service, ws, 'Limited');
    const foreign = await seedAgent(service, await service.seedWorkspace(), 'Foreign');
    assertError(await owner.call('POST', '/api/invitations', { email: `x${++counter}@example.org`, role: 'member', agentIds: [foreign] }), 400, 'invalid_request');
    const member = await addPerson(service, owner, `limited${counter}@example.org`, 'member', [agent]);
    assert.deepEqual((await member.call('GET', '/api/me')).body.data.agentIds, [agent]);
  });

  test('an admin changes a role; the person holds the new role at once', async () => {
    const { owner } = await ownedWorkspace();
    const person = await addPerson(service, owner, `promote${counter}@example.org`, 'member');
    const id = (await person.call('GET', '/api/me')).body.data.person.id;
    assert.equal((await owner.call('PATCH', `/api/people/${id}`, { role: 'admin' })).status, 200);
    assert.equal((await person.call('GET', '/api/keys')).status, 200);
    await owner.call('PATCH', `/api/people/${id}`, { role: 'member' });
    assertError(await person.call('GET', '/api/keys'), 403, 'forbidden');
  });

  test("a removed person's sessions end at once", async () => {
    const { owner } = await ownedWorkspace();
    const person = await addPerson(service, owner, `leaving${counter}@example.org`, 'admin');
    const id = (await person.call('GET', '/api/me')).body.data.person.id;
    assert.equal((await owner.call('DELETE', `/api/people/${id}`)).status, 200);
    assertError(await person.call('GET', '/api/me'), 401, 'unauthorized');
    assertError(await owner.call('DELETE', `/api/people/${id}`), 404, 'not_found');
  });

  test('the owner cannot be removed or demoted; ownership is handed over by the owner only', async () => {
    const { id: workspaceId, owner } = await ownedWorkspace();
    const admin = await addPerson(service, owner, `heir${counter}@example.org`, 'admin');
    const ownerId = (await owner.call('GET', '/api/me')).body.data.person.id;
    const adminId = (await admin.call('GET', '/api/me')).body.data.person.id;
    assertError(await admin.call('DELETE', `/api/people/${ownerId}`), 403, 'forbidden');
    assertError(await admin.call('PATCH', `/api/people/${ownerId}`, { role: 'member' }), 403, 'forbidden');
    assertError(await admin.call('POST', '/api/ownership', { personId: adminId }), 403, 'forbidden');
    assert.equal((await owner.call('POST', '/api/ownership', { personId: adminId })).status, 200);
    assert.equal((await admin.call('GET', '/api/me')).body.data.role, 'owner');
    assert.equal((await owner.call('GET', '/api/me')).body.data.role, 'admin');
    assert.equal((await service.admin('GET', `/workspaces/${workspaceId}`)).body.data.ownerEmail, `heir${counter}@example.org`);
  });

  test('a handover at the same time as a change or removal of the heir leaves exactly one owner, never demoted or removed', async () => {
    const { owner } = await ownedWorkspace();
    const heir = await addPerson(service, owner, `racer${counter}@example.org`, 'admin');
    const other = await addPerson(service, owner, `bystander${counter}@example.org`, 'admin');
    const heirId = (await heir.call('GET', '/api/me')).body.data.person.id;
    const [handover, demotion, removal] = await Promise.all([
      owner.call('POST', '/api/ownership', { personId: heirId }),
      other.call('PATCH', `/api/people/${heirId}`, { role: 'member' }),
      other.call('DELETE', `/api/people/${heirId}`),
    ]);
    for (const reply of [handover, demotion, removal]) assert.ok([200, 403, 404].includes(reply.status), JSON.stringify(reply.body));
    const people = (await other.call('GET', '/api/people')).body.data as Array<{ id: string; role: string }>;
    assert.equal(people.filter((p) => p.role === 'owner').length, 1);
    if (handover.status === 200) assert.equal(people.find((p) => p.id === heirId)?.role, 'owner');
    // The guarded writes themselves: the owner's row is refused whatever the check before said.
    const ownerId = people.find((p) => p.role === 'owner')!.id;
    const admin = handover.status === 200 ? owner : other;
    assertError(await admin.call('PATCH', `/api/people/${ownerId}`, { role: 'member' }), 403, 'forbidden');
    assertError(await admin.call('DELETE', `/api/people/${ownerId}`), 403, 'forbidden');
    assertError(await admin.call('POST', '/api/ownership', { personId: 'prs_gone' }), 403, 'forbidden');
  });

  test('a member may not manage people (403 forbidden)', async () => {
    const { owner } = await ownedWorkspace();
    const member = await addPerson(service, owner, `plain${counter}@example.org`, 'member');
    assertError(await member.call('GET', '/api/people'), 403, 'forbidden');
    assertError(await member.call('POST', '/api/invitations', { email: 'z@example.org', role: 'admin' }), 403, 'forbidden');
  });
});
