import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { enableTickets, openTicket, startConversation } from '../tickets/test-support.ts';
import { addWebhook, enableLeads, leaveLead, startReceiver, type Receiver } from '../webhooks/test-support.ts';
import { addPerson, signIn, type SignedIn } from './test-support.ts';

let service: Service;
let receiver: Receiver;
let ws: SeededWorkspace;
let owner: SignedIn;
let agentId: string;
let counter = 0;

before(async () => {
  service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  receiver = await startReceiver(() => service.ctx.clock.now().getTime());
  ws = await service.seedWorkspace({ name: 'Inbox' });
  owner = await signIn(service, ws.id, 'owner@example.com');
  agentId = await seedAgent(service, ws, 'Desk');
  await enableTickets(service, ws, agentId);
});
after(async () => {
  await receiver.close();
  await service.close();
});

describe('deleting a ticket on its own (spec 1.5)', () => {
  test('a person deletes a ticket; its conversation stays', async () => {
    const conversation = await startConversation(service, agentId);
    const ticket = await openTicket(service, agentId, { conversationId: conversation.conversationId }, conversation.token);
    const deleted = await owner.call('DELETE', `/api/agents/${agentId}/tickets/${ticket.id}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assertError(await service.api('GET', `/agents/${agentId}/tickets/${ticket.id}`, { key: ws.keys.read }), 404, 'not_found');
    assert.equal((await service.api('GET', `/agents/${agentId}/conversations/${conversation.conversationId}`, { key: ws.keys.read })).status, 200);
    assertError(await owner.call('DELETE', `/api/agents/${agentId}/tickets/${ticket.id}`), 404, 'not_found');
  });

  test('a member may delete tickets, but only of the agents they are limited to', async () => {
    const other = await seedAgent(service, ws, 'Other desk');
    const member = await addPerson(service, owner, `inbox${++counter}@example.org`, 'member', [other]);
    const ticket = await openTicket(service, agentId);
    assertError(await member.call('DELETE', `/api/agents/${agentId}/tickets/${ticket.id}`), 404, 'not_found');
    assert.equal((await service.api('GET', `/agents/${agentId}/tickets/${ticket.id}`, { key: ws.keys.read })).status, 200);
    const free = await addPerson(service, owner, `inbox${++counter}@example.org`, 'member');
    assert.equal((await free.call('DELETE', `/api/agents/${agentId}/tickets/${ticket.id}`)).status, 200);
  });

  test("another workspace's ticket is 404 not_found and stays", async () => {
    const foreign = await service.seedWorkspace({ name: 'Foreign inbox' });
    const foreignAgent = await seedAgent(service, foreign, 'Foreign desk');
    await enableTickets(service, foreign, foreignAgent);
    const ticket = await openTicket(service, foreignAgent);
    assertError(await owner.call('DELETE', `/api/agents/${foreignAgent}/tickets/${ticket.id}`), 404, 'not_found');
    assertError(await owner.call('DELETE', `/api/agents/${agentId}/tickets/${ticket.id}`), 404, 'not_found');
    assert.equal((await service.api('GET', `/agents/${foreignAgent}/tickets/${ticket.id}`, { key: foreign.keys.read })).status, 200);
  });
});

describe('webhooks: switching one on again, and its recent deliveries with attempts (spec 1.5)', () => {
  test('the deliveries of a webhook are listed newest first with each attempt', async () => {
    await enableLeads(service, ws, agentId);
    const webhook = await addWebhook(service, ws, receiver, { events: ['lead.created'] });
    receiver.answer = 'fail';
    const before = receiver.received.length;
    await leaveLead(service.url, agentId);
    await receiver.waitFor(before + 1);
    receiver.answer = 'ok';
    await waitUntil(async () => (await owner.call('GET', `/api/webhooks/${webhook.id}/deliveries`)).body.data[0]?.attempts.length === 1);
    const listed = await owner.call('GET', `/api/webhooks/${webhook.id}/deliveries`);
    const [delivery] = listed.body.data;
    assert.equal(delivery.event, 'lead.created');
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.attempts[0].statusCode, 500);
    assert.equal(delivery.attempts[0].number, 1);
  });

  test('a switched-off webhook is switched on again by an admin; new events go out', async () => {
    await enableLeads(service, ws, agentId);
    const webhook = await addWebhook(service, ws, receiver, { events: ['lead.created'] });
    // Switched off as the delivery rules do after failing for days (docs/webhooks.md).
    await service.ctx.db.updateTable('webhooks').set({ active: false, disabled_at: service.ctx.clock.now() }).where('id', '=', webhook.id).execute();
    assert.equal((await service.api('GET', `/webhooks/${webhook.id}`, { key: ws.keys.read })).body.data.active, false);
    const enabled = await owner.call('POST', `/api/webhooks/${webhook.id}/enable`);
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    assert.equal((await service.api('GET', `/webhooks/${webhook.id}`, { key: ws.keys.read })).body.data.active, true);
    const before = receiver.received.length;
    await leaveLead(service.url, agentId);
    await receiver.waitFor(before + 1);
  });

  test('a member may not switch webhooks on nor read deliveries (403); another workspace’s webhook is 404', async () => {
    const webhook = await addWebhook(service, ws, receiver, { events: ['lead.created'] });
    const member = await addPerson(service, owner, `hooks${++counter}@example.org`, 'member');
    assertError(await member.call('POST', `/api/webhooks/${webhook.id}/enable`), 403, 'forbidden');
    assertError(await member.call('GET', `/api/webhooks/${webhook.id}/deliveries`), 403, 'forbidden');
    const foreign = await service.seedWorkspace({ name: 'Foreign hooks' });
    const foreignOwner = await signIn(service, foreign.id, 'owner@example.com');
    assertError(await foreignOwner.call('POST', `/api/webhooks/${webhook.id}/enable`), 404, 'not_found');
    assertError(await foreignOwner.call('GET', `/api/webhooks/${webhook.id}/deliveries`), 404, 'not_found');
  });

  test('below Studio it is 402 integrations_not_in_plan', async () => {
    const small = await service.admin('POST', '/workspaces', { name: 'Small', plan: 'starter', ownerEmail: `small${++counter}@example.org` });
    const person = await signIn(service, small.body.data.id);
    assertError(await person.call('POST', '/api/webhooks/wh_unknown000000000000/enable'), 402, 'integrations_not_in_plan');
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
