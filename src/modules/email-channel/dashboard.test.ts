import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { seedTexts } from '../chat/test-support.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { linkIn, signIn, signInWithToken, tokenOf, type SignedIn } from '../people/test-support.ts';
import { startMailInbound, type MailInbound } from './inbound.ts';
import { enableEmail, sendToInbound, testResolver } from './test-support.ts';

const QUESTION = 'When is the workshop open on Saturday?';

describe('held e-mail drafts handled from their ticket in the dashboard (spec 2.11 held)', () => {
  let smtp: SmtpCapture;
  let service: Service;
  let inbound: MailInbound;
  let ws: SeededWorkspace;
  let owner: SignedIn;
  let agent: string;
  let counter = 0;

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_PUBLIC_URL: 'https://parley.example.net' } });
    inbound = await startMailInbound(service.ctx, { port: 0, host: '127.0.0.1', resolver: testResolver({}) });
    ws = await service.seedWorkspace({ plan: 'studio' });
    owner = await signIn(service, ws.id, 'owner@example.com');
    agent = await seedAgent(service, ws, 'Bikes');
    await seedTexts(service, ws.keys.manage, agent, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    await enableEmail(service, ws, agent, { address: 'review@bikes.example', review: true });
  });
  after(async () => {
    await inbound?.close();
    await service?.close();
    await smtp?.close();
  });

  /** A visitor's mail whose answer is held: the ticket it made and its held draft. */
  async function heldDraft(): Promise<{ sender: string; ticketId: string; messageId: string; visitorMessageId: string }> {
    const sender = `visitor${++counter}@visitor.example`;
    const { messageId: visitorMessageId } = await sendToInbound(inbound.port, { from: sender, to: 'review@bikes.example', subject: 'Hours', text: QUESTION });
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data;
    const ticketId = tickets.find((t: { email: string }) => t.email === sender).id;
    const drafts = await owner.call('GET', `/api/agents/${agent}/tickets/${ticketId}/drafts`);
    assert.equal(drafts.status, 200, JSON.stringify(drafts.body));
    assert.equal(drafts.body.data.length, 1);
    assert.match(drafts.body.data[0].draft, /10:00/);
    return { sender, ticketId, messageId: drafts.body.data[0].id, visitorMessageId };
  }

  /** Invites a person and signs them in with the invitation mailed over SMTP. */
  async function addPerson(email: string, role: 'admin' | 'member', agentIds?: string[]): Promise<SignedIn> {
    const invited = await owner.call('POST', '/api/invitations', { email, role, ...(agentIds ? { agentIds } : {}) });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const mail = await smtp.waitFor((m) => m.to.includes(email));
    return signInWithToken(service, tokenOf(linkIn(mail.text)));
  }

  const entryKinds = async (ticketId: string) =>
    (await service.api('GET', `/agents/${agent}/tickets/${ticketId}`, { key: ws.keys.read })).body.data.entries.map((e: { kind: string }) => e.kind);

  test('the new ticket of a held draft is notified; sent as it is: mailed threaded to the visitor, a team entry on the ticket, no longer listed; sending again is 404', async () => {
    const held = await heldDraft();
    // The ticket the held draft opened is a new ticket: the people chosen for tickets (the owner, by default) are told.
    const notice = await smtp.waitFor((m) => m.to.includes('owner@example.com') && m.text.includes(held.ticketId));
    assert.match(notice.subject, /^New ticket #\d+ for Bikes$/);
    assert.ok(notice.text.includes(`https://parley.example.net/app/agents/${agent}/inbox/tickets/${held.ticketId}`), notice.text);
    const sent = await owner.call('POST', `/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/send`, {});
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(sent.body.data, { id: held.messageId, sent: true, edited: false });
    const mail = await smtp.waitFor((m) => m.to.includes(held.sender));
    assert.equal(mail.headers.get('in-reply-to'), `<${held.visitorMessageId}>`);
    assert.match(mail.text, /10:00/);
    assert.deepEqual(await entryKinds(held.ticketId), ['held', 'team']);
    assert.deepEqual((await owner.call('GET', `/api/agents/${agent}/tickets/${held.ticketId}/drafts`)).body.data, []);
    assertError(await owner.call('POST', `/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/send`, {}), 404, 'not_found');
  });

  test("edited and sent: the person's text goes out; the visitor's reply to it is a visitor entry and the people chosen for tickets are told, with a link to the ticket's page", async () => {
    const held = await heldDraft();
    const admin = await addPerson(`admin${++counter}@bikes.example`, 'admin');
    const adminId = (await owner.call('GET', '/api/people')).body.data.find((p: { role: string; email: string }) => p.email === `admin${counter}@bikes.example`).id;
    assert.equal((await owner.call('PUT', `/api/agents/${agent}/notifications`, { tickets: [adminId] })).status, 200);
    const sent = await admin.call('POST', `/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/send`, { text: 'Saturday 10 to 4. See you!' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const mail = await smtp.waitFor((m) => m.to.includes(held.sender));
    assert.match(mail.text, /Saturday 10 to 4\. See you!/);

    const teamMailId = mail.headers.get('message-id')!;
    await sendToInbound(inbound.port, { from: held.sender, to: 'review@bikes.example', subject: 'Re: Hours', inReplyTo: teamMailId, references: [`<${held.visitorMessageId}>`, teamMailId], text: 'Can I bring two bikes?' });
    assert.deepEqual(await entryKinds(held.ticketId), ['held', 'team', 'visitor']);
    const notice = await smtp.waitFor((m) => m.to.includes(`admin${counter}@bikes.example`) && m.subject.includes(held.sender));
    assert.match(notice.subject, /^Reply from visitor\d+@visitor\.example on ticket #\d+ for Bikes$/);
    assert.match(notice.text, /> Can I bring two bikes\?/);
    assert.ok(notice.text.includes(`https://parley.example.net/app/agents/${agent}/inbox/tickets/${held.ticketId}`), notice.text);
    assert.doesNotMatch(notice.text, /API/);
    assert.ok(!smtp.received.some((m) => m.to.includes('owner@example.com') && m.subject.includes(held.sender)), 'the owner, not chosen, is not told');
  });

  test('a discarded draft never comes back: a later draft of the conversation is listed alone, sending the discarded one is 404; discarding one keeps the other’s held entry', async () => {
    const a = await heldDraft();
    const reply = async () => {
      await sendToInbound(inbound.port, { from: a.sender, to: 'review@bikes.example', subject: 'Re: Hours', inReplyTo: `<${a.visitorMessageId}>`, references: [`<${a.visitorMessageId}>`], text: QUESTION });
      const drafts = (await owner.call('GET', `/api/agents/${agent}/tickets/${a.ticketId}/drafts`)).body.data as Array<{ id: string }>;
      return drafts.at(-1)!.id;
    };
    // A held, then B held while A waits; discarding A leaves B and B's held entry.
    const b = await reply();
    assert.notEqual(b, a.messageId);
    assert.deepEqual(await entryKinds(a.ticketId), ['held', 'held']);
    assert.equal((await owner.call('POST', `/api/agents/${agent}/tickets/${a.ticketId}/drafts/${a.messageId}/discard`)).status, 200);
    assert.deepEqual((await owner.call('GET', `/api/agents/${agent}/tickets/${a.ticketId}/drafts`)).body.data.map((d: { id: string }) => d.id), [b]);
    assert.deepEqual(await entryKinds(a.ticketId), ['held']);
    // C held after A was discarded: A does not come back, and cannot be sent nor discarded again.
    const c = await reply();
    assert.deepEqual((await owner.call('GET', `/api/agents/${agent}/tickets/${a.ticketId}/drafts`)).body.data.map((d: { id: string }) => d.id), [b, c]);
    assertError(await owner.call('POST', `/api/agents/${agent}/tickets/${a.ticketId}/drafts/${a.messageId}/send`, {}), 404, 'not_found');
    assertError(await owner.call('POST', `/api/agents/${agent}/tickets/${a.ticketId}/drafts/${a.messageId}/discard`), 404, 'not_found');
    assert.equal((await service.ctx.db.selectFrom('mails').select('id').where('recipient', '=', a.sender).execute()).length, 0, 'nothing mailed');
    // Sending B mails B only; C still waits.
    assert.equal((await owner.call('POST', `/api/agents/${agent}/tickets/${a.ticketId}/drafts/${b}/send`, {})).status, 200);
    await smtp.waitFor((m) => m.to.includes(a.sender));
    assert.deepEqual((await owner.call('GET', `/api/agents/${agent}/tickets/${a.ticketId}/drafts`)).body.data.map((d: { id: string }) => d.id), [c]);
  });

  test('discarded: never sent, its held entry leaves the ticket, no longer listed; a member limited to other agents sees 404; a key is 403', async () => {
    const held = await heldDraft();
    const other = await seedAgent(service, ws, 'Other');
    const limited = await addPerson(`limited${++counter}@bikes.example`, 'member', [other]);
    assertError(await limited.call('GET', `/api/agents/${agent}/tickets/${held.ticketId}/drafts`), 404, 'not_found');
    assertError(await limited.call('POST', `/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/discard`), 404, 'not_found');
    const keyed = await fetch(`${service.url}/app/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/discard`, { method: 'POST', headers: { authorization: `Bearer ${ws.keys.manage}` } });
    assert.equal(keyed.status, 403);

    const member = await addPerson(`member${++counter}@bikes.example`, 'member');
    const discarded = await member.call('POST', `/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/discard`);
    assert.equal(discarded.status, 200, JSON.stringify(discarded.body));
    assert.deepEqual(await entryKinds(held.ticketId), []);
    assert.deepEqual((await owner.call('GET', `/api/agents/${agent}/tickets/${held.ticketId}/drafts`)).body.data, []);
    assertError(await owner.call('POST', `/api/agents/${agent}/tickets/${held.ticketId}/drafts/${held.messageId}/send`, {}), 404, 'not_found');
    const rows = await service.ctx.db.selectFrom('mails').select('id').where('recipient', '=', held.sender).execute();
    assert.equal(rows.length, 0);
  });
});
