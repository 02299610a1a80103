import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { enableTickets, openTicket } from '../tickets/test-support.ts';
import { linkIn, signIn, signInWithToken, tokenOf, type SignedIn } from './test-support.ts';

let service: Service;
let smtp: SmtpCapture;
let ws: SeededWorkspace;
let owner: SignedIn;
let agentId: string;

before(async () => {
  smtp = await startSmtpCapture();
  service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_PUBLIC_URL: 'https://chat.example.com' } });
  ws = await service.seedWorkspace({ name: 'Replies' });
  owner = await signIn(service, ws.id, 'owner@example.com');
  agentId = await seedAgent(service, ws, 'Kapsalon Lena');
  await enableTickets(service, ws, agentId);
});
after(async () => {
  await service.close();
  await smtp.close();
});

async function ticketEntries(ticketId: string) {
  return (await service.api('GET', `/agents/${agentId}/tickets/${ticketId}`, { key: ws.keys.read })).body.data.entries;
}

describe("replying to a visitor's ticket (spec 1.5)", () => {
  test("the reply reaches the visitor's mail server from the agent, in the ticket's language, threaded with the ticket's earlier mails", async () => {
    const visitor = 'anna@bezoeker.example.org';
    const ticket = await openTicket(service, agentId, { email: visitor, question: 'Kan ik mijn afspraak verzetten?', language: 'nl' });
    const confirmation = await smtp.waitFor((mail) => mail.to.includes(visitor));
    const root = confirmation.headers.get('message-id')!;
    assert.equal(root, `<${ticket.id}@chat.example.com>`);

    const first = await owner.call('POST', `/api/agents/${agentId}/tickets/${ticket.id}/replies`, { body: 'Dat kan: welke dag past u?' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.kind, 'team');
    const firstMail = await smtp.waitFor((mail) => mail.to.includes(visitor) && mail.text.includes('welke dag'));
    assert.equal(firstMail.subject, `Re: je vraag aan Kapsalon Lena (ticket #${ticket.number})`);
    assert.match(firstMail.from, /^"?Kapsalon Lena"? <no-reply@chat\.example\.com>$/);
    assert.match(firstMail.html ?? '', /<html lang="nl"/);
    assert.equal(firstMail.headers.get('in-reply-to'), root);
    assert.equal(firstMail.headers.get('references'), root);
    const firstId = firstMail.headers.get('message-id')!;
    assert.equal(firstId, `<${first.body.data.id}@chat.example.com>`);

    await owner.call('POST', `/api/agents/${agentId}/tickets/${ticket.id}/replies`, { body: 'Dinsdag om tien uur staat voor u klaar.' });
    const secondMail = await smtp.waitFor((mail) => mail.to.includes(visitor) && mail.text.includes('Dinsdag'));
    assert.equal(secondMail.headers.get('in-reply-to'), firstId);
    assert.equal(secondMail.headers.get('references'), `${root} ${firstId}`);

    const entries = await ticketEntries(ticket.id);
    assert.deepEqual(entries.filter((e: { kind: string }) => e.kind === 'team').map((e: { mailError: unknown }) => e.mailError), [null, null]);
  });

  test("a reply whose mail is finally refused says so in the entry's mailError", async () => {
    const ticket = await openTicket(service, agentId, { email: 'gone@bezoeker.example.org' });
    await smtp.waitFor((mail) => mail.to.includes('gone@bezoeker.example.org'));
    // The owner's notice of the new ticket too: the refusal is for the reply.
    await smtp.waitFor((mail) => mail.to.includes('owner@example.com') && mail.text.includes('gone@bezoeker.example.org'));
    smtp.refuseNext(1, 550);
    const reply = await owner.call('POST', `/api/agents/${agentId}/tickets/${ticket.id}/replies`, { body: 'We have moved your appointment.' });
    assert.equal(reply.status, 201);
    await smtp.waitForRefusals(1);
    const until = Date.now() + 10_000;
    let team;
    do {
      team = (await ticketEntries(ticket.id)).find((e: { id: string }) => e.id === reply.body.data.id);
      if (team.mailError) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < until);
    assert.match(team.mailError ?? '', /550|unavailable/i);
  });

  test('a member limited to other agents, another workspace and an API key cannot reply', async () => {
    const ticket = await openTicket(service, agentId);
    const other = await seedAgent(service, ws, 'Other');
    await owner.call('POST', '/api/invitations', { email: 'limited-replier@example.org', role: 'member', agentIds: [other] });
    const invitation = await smtp.waitFor((mail) => mail.to.includes('limited-replier@example.org'));
    const member = await signInWithToken(service, tokenOf(linkIn(invitation.text)));
    assertError(await member.call('POST', `/api/agents/${agentId}/tickets/${ticket.id}/replies`, { body: 'Hi' }), 404, 'not_found');
    const foreign = await service.seedWorkspace({ name: 'Foreign replies' });
    const foreignOwner = await signIn(service, foreign.id, 'owner@example.com');
    assertError(await foreignOwner.call('POST', `/api/agents/${agentId}/tickets/${ticket.id}/replies`, { body: 'Hi' }), 404, 'not_found');
    const keyed = await fetch(`${service.url}/app/api/agents/${agentId}/tickets/${ticket.id}/replies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.keys.manage}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Hi' }),
    });
    assert.equal(keyed.status, 403);
    assert.equal((await ticketEntries(ticket.id)).filter((e: { kind: string }) => e.kind === 'team').length, 0);
  });
});
