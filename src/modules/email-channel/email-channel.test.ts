import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clockToStartOfNext, HOUR_MS, startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { seedTexts } from '../chat/test-support.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { MailCollector, MAX_MAIL_BYTES, startMailInbound, type MailInbound } from './inbound.ts';
import { addWebhook, startReceiver, type Receiver } from '../webhooks/test-support.ts';
import { discardHeldDraft, PER_SENDER_PER_MINUTE, sendHeldDraft } from './service.ts';
import { textOfHtml } from './reading.ts';
import { MAILS_PER_RECIPIENT_PER_HOUR } from '../../platform/mail.ts';
import { enableEmail, refusalOf, sendToInbound, testResolver } from './test-support.ts';

const AGENT_ADDRESS = 'help@bikes.example';
const STRONG_QUESTION = 'When is the workshop open on Saturday?';

describe('the e-mail channel, over real SMTP both ways', () => {
  let smtp: SmtpCapture;
  let service: Service;
  let inbound: MailInbound;
  let ws: SeededWorkspace;
  let agent: string;
  let receiver: Receiver;
  /** The agent with review on, and what its first held answer left. */
  let reviewed: string;
  const held = { sender: 'cy@visitor.example', conversationId: '', messageId: '', ticketId: '', visitorMessageId: '' };

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_PUBLIC_URL: 'https://parley.example.net', PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    receiver = await startReceiver(() => service.ctx.clock.now().getTime());
    inbound = await startMailInbound(service.ctx, {
      port: 0,
      host: '127.0.0.1',
      resolver: testResolver({
        'strict.example': 'v=spf1 -all',
        '_dmarc.strict.example': 'v=DMARC1; p=reject',
        'lax.example': 'v=spf1 -all',
        '_dmarc.lax.example': 'v=DMARC1; p=none',
      }),
    });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    agent = await seedAgent(service, ws, 'Bikes');
    const languages = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { languages: ['en', 'nl'] } });
    assert.equal(languages.status, 200, JSON.stringify(languages.body));
    await seedTexts(service, ws.keys.manage, agent, [
      { title: 'Opening hours', content: 'Our workshop is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00.' },
      { title: 'Warranty', content: 'Every frame carries a warranty of ten years.' },
      { title: 'Openingstijden', content: 'De werkplaats is op zaterdag open van 10:00 tot 16:00 uur; breng uw fiets gerust langs.' },
    ]);
    await enableEmail(service, ws, agent, { address: AGENT_ADDRESS });
  });
  after(async () => {
    await inbound?.close();
    await service?.close();
    await smtp?.close();
    await receiver?.close();
  });

  async function conversationsFrom(sender: string): Promise<Array<{ id: string; from: string; channel: string; openedBy: unknown }>> {
    const reply = await service.api('GET', `/agents/${agent}/conversations?channel=email`, { key: ws.keys.read });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data.filter((c: { from: string }) => c.from === sender);
  }

  async function messagesOf(conversationId: string): Promise<Array<{ role: string; content: string; held: boolean }>> {
    const reply = await service.api('GET', `/agents/${agent}/conversations/${conversationId}`, { key: ws.keys.read });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data.messages;
  }

  /** Mails the service recorded for this recipient (recorded before the inbound server says 250). */
  async function mailsTo(recipient: string): Promise<number> {
    const rows = await service.ctx.db.selectFrom('mails').select('id').where('recipient', '=', recipient).execute();
    return rows.length;
  }

  async function outcomeOf(messageId: string): Promise<string | undefined> {
    const row = await service.ctx.db.selectFrom('email_messages').select('outcome').where('message_id', '=', messageId).where('direction', '=', 'in').executeTakeFirst();
    return row?.outcome;
  }

  test('a question is answered from the agent’s address, threaded (Message-ID, In-Reply-To, References, "Re:"), in text and HTML, saying an assistant wrote it; the conversation is channel email from the sender', async () => {
    const sender = 'ana@visitor.example';
    const { messageId } = await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Saturday', text: `${STRONG_QUESTION}\n\n-- \nAna Lopez\nSent from my phone` });
    const reply = await smtp.waitFor((m) => m.to.includes(sender));
    assert.match(reply.from, /Bikes.*<help@bikes\.example>/);
    assert.equal(reply.subject, 'Re: Saturday');
    assert.equal(reply.headers.get('in-reply-to'), `<${messageId}>`);
    assert.equal(reply.headers.get('references'), `<${messageId}>`);
    assert.match(reply.headers.get('message-id') ?? '', /^<[^@>]+@bikes\.example>$/);
    assert.match(reply.text, /10:00/);
    assert.match(reply.text, /written by Bikes's assistant\. To reach a person, write to owner@example\.com\./);
    assert.match(reply.html ?? '', /10:00/);
    assert.equal(reply.headers.get('auto-submitted'), 'auto-replied', 'another robot does not answer an answer');
    assert.equal(reply.headers.get('x-auto-response-suppress'), 'All');

    const [conversation] = await conversationsFrom(sender);
    assert.ok(conversation, 'an e-mail conversation from the sender');
    assert.equal(conversation.channel, 'email');
    assert.equal(conversation.openedBy, null);
    const messages = await messagesOf(conversation.id);
    assert.equal(messages[0]!.content, STRONG_QUESTION, 'the signature is cut from the question');
    assert.equal(messages[1]!.held, false);
  });

  test('the same mail delivered twice (one Message-ID) is answered once: one question and answer, one mail out', async () => {
    const sender = 'twice@visitor.example';
    const mail = { from: sender, to: AGENT_ADDRESS, subject: 'Saturday', text: STRONG_QUESTION, messageId: '<sent-twice-1@visitor.example>' };
    await sendToInbound(inbound.port, mail);
    await sendToInbound(inbound.port, mail);
    await smtp.waitFor((m) => m.to.includes(sender));
    assert.equal(await mailsTo(sender), 1, 'one mail out');
    const conversations = await conversationsFrom(sender);
    assert.equal(conversations.length, 1);
    assert.equal((await messagesOf(conversations[0]!.id)).length, 2, 'one question, one answer');
  });

  test('a mail in Dutch is answered in Dutch, with the line about the assistant in Dutch', async () => {
    const sender = 'noor@visitor.example';
    await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Openingstijden', text: 'Wanneer is de werkplaats op zaterdag open?' });
    const reply = await smtp.waitFor((m) => m.to.includes(sender));
    assert.equal(reply.subject, 'Re: Openingstijden');
    assert.match(reply.text, /Dit antwoord is geschreven door de assistent van Bikes\. Wilt u een mens spreken\? Schrijf naar owner@example\.com\./);
    assert.match(reply.html ?? '', /<html lang="nl">/);
  });

  test('a reply in the same thread continues the conversation, with the quoted history cut', async () => {
    const sender = 'bo@visitor.example';
    const first = await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION });
    const answer = await smtp.waitFor((m) => m.to.includes(sender));
    const answerId = answer.headers.get('message-id')!.replace(/^<|>$/g, '');
    await sendToInbound(inbound.port, {
      from: sender,
      to: AGENT_ADDRESS,
      subject: 'Re: Hours',
      inReplyTo: `<${answerId}>`,
      references: [`<${first.messageId}>`, `<${answerId}>`],
      text: `How long is the warranty on a frame?\n\nOn Tue, 3 Mar 2026 at 10:00, Bikes <${AGENT_ADDRESS}> wrote:\n> Our workshop is open on Saturday.`,
    });
    const second = await smtp.waitFor((m) => m.to.includes(sender) && m !== answer);
    assert.equal(second.headers.get('in-reply-to')?.includes('@'), true);
    const conversations = await conversationsFrom(sender);
    assert.equal(conversations.length, 1, 'one conversation');
    const questions = (await messagesOf(conversations[0]!.id)).filter((m) => m.role === 'user');
    assert.deepEqual(questions.map((m) => m.content), [STRONG_QUESTION, 'How long is the warranty on a frame?']);
  });

  test('review on: the answer is held (stored held, a ticket with a held entry and its ticket.created) and nothing is sent', async () => {
    reviewed = await seedAgent(service, ws, 'Reviewed');
    await seedTexts(service, ws.keys.manage, reviewed, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    await enableEmail(service, ws, reviewed, { address: 'review@bikes.example', review: true });
    await addWebhook(service, ws, receiver, { events: ['ticket.created'], agentId: reviewed });
    const sender = held.sender;
    held.visitorMessageId = (await sendToInbound(inbound.port, { from: sender, to: 'Review@Bikes.example', subject: 'Hours', text: STRONG_QUESTION })).messageId;
    assert.equal(await mailsTo(sender), 0, 'nothing sent');
    const list = await service.api('GET', `/agents/${reviewed}/conversations?channel=email`, { key: ws.keys.read });
    const conversation = list.body.data[0];
    const messages = (await service.api('GET', `/agents/${reviewed}/conversations/${conversation.id}`, { key: ws.keys.read })).body.data.messages;
    assert.equal(messages[1].held, true);
    const tickets = (await service.api('GET', `/agents/${reviewed}/tickets`, { key: ws.keys.read })).body.data;
    assert.equal(tickets.length, 1);
    assert.equal(tickets[0].email, sender);
    assert.equal(tickets[0].conversationId, conversation.id);
    const ticket = (await service.api('GET', `/agents/${reviewed}/tickets/${tickets[0].id}`, { key: ws.keys.read })).body.data;
    const heldEntries = ticket.entries.filter((e: { kind: string }) => e.kind === 'held');
    assert.equal(heldEntries.length, 1);
    assert.equal(heldEntries[0].body, messages[1].content);
    await receiver.waitFor(1);
    const [delivery] = receiver.received;
    assert.equal(delivery!.body.type, 'ticket.created');
    assert.equal(delivery!.body.data.id, tickets[0].id);
    assert.equal(delivery!.body.data.entries[0].kind, 'held');
    Object.assign(held, { conversationId: conversation.id, messageId: messages[1].id, ticketId: tickets[0].id });
  });

  test('a held draft sent by a person (edited) goes out threaded, stops being held, and makes a team entry; the visitor’s reply to it becomes a visitor entry and reopens the ticket', async () => {
    await sendHeldDraft(service.ctx, reviewed, held.messageId, { text: 'We are open on Saturday from 10:00 to 16:00. See you then!' });
    const mail = await smtp.waitFor((m) => m.to.includes(held.sender));
    assert.match(mail.from, /<review@bikes\.example>/);
    assert.equal(mail.subject, 'Re: Hours');
    assert.equal(mail.headers.get('in-reply-to'), `<${held.visitorMessageId}>`);
    assert.match(mail.text, /See you then!/);
    const messages = (await service.api('GET', `/agents/${reviewed}/conversations/${held.conversationId}`, { key: ws.keys.read })).body.data.messages;
    assert.equal(messages[1].held, false);
    assert.equal(messages[1].content, 'We are open on Saturday from 10:00 to 16:00. See you then!');
    const ticket = (await service.api('GET', `/agents/${reviewed}/tickets/${held.ticketId}`, { key: ws.keys.read })).body.data;
    assert.deepEqual(ticket.entries.map((e: { kind: string }) => e.kind), ['held', 'team']);
    assert.doesNotMatch(mail.text, /assistant/, 'a person’s text is not signed as the assistant’s');
    await assert.rejects(sendHeldDraft(service.ctx, reviewed, held.messageId), /No message/, 'sent once');

    // The visitor answers the person: a visitor entry on the ticket, which opens again; the agent does not answer.
    const solved = await service.api('PATCH', `/agents/${reviewed}/tickets/${held.ticketId}`, { key: ws.keys.manage, body: { status: 'solved' } });
    assert.equal(solved.status, 200, JSON.stringify(solved.body));
    const teamMailId = mail.headers.get('message-id')!;
    await sendToInbound(inbound.port, { from: held.sender, to: 'review@bikes.example', subject: 'Re: Hours', inReplyTo: teamMailId, references: [`<${held.visitorMessageId}>`, teamMailId], text: 'Thanks! Can I bring two bikes?\n\n> See you then!' });
    const after = (await service.api('GET', `/agents/${reviewed}/tickets/${held.ticketId}`, { key: ws.keys.read })).body.data;
    assert.equal(after.status, 'open');
    assert.deepEqual(after.entries.map((e: { kind: string }) => e.kind), ['held', 'team', 'visitor']);
    assert.equal(after.entries[2].body, 'Thanks! Can I bring two bikes?');
    assert.equal(after.entries[2].from, held.sender);
    assert.equal(await mailsTo(held.sender), 1, 'only the person’s mail');
  });

  test('a held draft discarded is never sent and leaves the ticket', async () => {
    const sender = 'dee@visitor.example';
    await sendToInbound(inbound.port, { from: sender, to: 'review@bikes.example', subject: 'Hours', text: STRONG_QUESTION });
    const list = await service.api('GET', `/agents/${reviewed}/conversations?channel=email`, { key: ws.keys.read });
    const conversation = list.body.data.find((c: { from: string }) => c.from === sender);
    const messages = (await service.api('GET', `/agents/${reviewed}/conversations/${conversation.id}`, { key: ws.keys.read })).body.data.messages;
    await discardHeldDraft(service.ctx, reviewed, messages[1].id);
    const tickets = (await service.api('GET', `/agents/${reviewed}/tickets`, { key: ws.keys.read })).body.data;
    const ticket = (await service.api('GET', `/agents/${reviewed}/tickets/${tickets.find((t: { email: string }) => t.email === sender).id}`, { key: ws.keys.read })).body.data;
    assert.deepEqual(ticket.entries, []);
    assert.equal(await mailsTo(sender), 0);
  });

  test('a held answer costs the credits a sent answer costs (the same answering verb ran); sending it later costs nothing more, discarding it gives nothing back', async () => {
    const used = async () => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits.usedThisMonth as number;
    const creditsOf = async (agentId: string, sender: string) => {
      const list = await service.api('GET', `/agents/${agentId}/conversations?channel=email`, { key: ws.keys.read });
      const conversation = list.body.data.find((c: { from: string }) => c.from === sender);
      const messages = (await service.api('GET', `/agents/${agentId}/conversations/${conversation.id}`, { key: ws.keys.read })).body.data.messages;
      const row = await service.ctx.db.selectFrom('messages').select('credits').where('id', '=', messages[1].id).executeTakeFirstOrThrow();
      return { id: messages[1].id as string, credits: Number(row.credits), held: messages[1].held as boolean };
    };
    let before = await used();
    await sendToInbound(inbound.port, { from: 'sent-cost@visitor.example', to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION });
    const sentCost = (await used()) - before;
    const sent = await creditsOf(agent, 'sent-cost@visitor.example');
    assert.equal(sent.held, false);
    assert.ok(sentCost > 0);
    assert.equal(sent.credits, sentCost, 'the answer records what it cost');

    before = await used();
    await sendToInbound(inbound.port, { from: 'held-cost@visitor.example', to: 'review@bikes.example', subject: 'Hours', text: STRONG_QUESTION });
    const heldAnswer = await creditsOf(reviewed, 'held-cost@visitor.example');
    assert.equal(heldAnswer.held, true);
    assert.equal((await used()) - before, sentCost, 'held: the same cost');
    assert.equal(heldAnswer.credits, sentCost);
    before = await used();
    await sendHeldDraft(service.ctx, reviewed, heldAnswer.id);
    await smtp.waitFor((m) => m.to.includes('held-cost@visitor.example'));
    assert.equal(await used(), before, 'sending the draft costs nothing more');

    await sendToInbound(inbound.port, { from: 'dropped-cost@visitor.example', to: 'review@bikes.example', subject: 'Hours', text: STRONG_QUESTION });
    const dropped = await creditsOf(reviewed, 'dropped-cost@visitor.example');
    before = await used();
    await discardHeldDraft(service.ctx, reviewed, dropped.id);
    assert.equal(await used(), before, 'discarding gives nothing back: the answer was made');
  });

  test('a weak answer (nothing in the knowledge answers it) is held, not sent', async () => {
    const sender = 'di@visitor.example';
    await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Boats', text: 'Do you rent out submarines for weddings?' });
    assert.equal(await mailsTo(sender), 0, 'nothing sent');
    const [conversation] = await conversationsFrom(sender);
    const messages = await messagesOf(conversation!.id);
    assert.equal(messages[1]!.held, true);
  });

  test('an auto-reply, bulk mail and a mailer-daemon are never answered', async () => {
    const cases: Array<{ from: string; headers: Record<string, string> }> = [
      { from: 'eve@visitor.example', headers: { 'Auto-Submitted': 'auto-replied' } },
      { from: 'fay@visitor.example', headers: { Precedence: 'bulk' } },
      { from: 'gus@visitor.example', headers: { 'List-Id': '<news.visitor.example>' } },
      { from: 'no-reply@visitor.example', headers: {} },
    ];
    for (const mail of cases) {
      const { messageId } = await sendToInbound(inbound.port, { ...mail, to: AGENT_ADDRESS, subject: 'Out of office', text: STRONG_QUESTION });
      assert.equal(await outcomeOf(messageId), 'auto_reply', mail.from);
      assert.equal(await mailsTo(mail.from), 0, mail.from);
      assert.equal((await conversationsFrom(mail.from)).length, 0);
    }
  });

  test('a bounce is not answered and is recorded as mailError on the mail that bounced', async () => {
    const sender = 'hal@visitor.example';
    await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION });
    const answer = await smtp.waitFor((m) => m.to.includes(sender));
    const bouncedId = answer.headers.get('message-id')!.replace(/^<|>$/g, '');
    const raw = [
      'From: Mail Delivery System <MAILER-DAEMON@visitor.example>',
      `To: ${AGENT_ADDRESS}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Message-ID: <bounce-1@visitor.example>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'Your mail could not be delivered.',
      '--b1',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.visitor.example',
      '',
      'Final-Recipient: rfc822; hal@visitor.example',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
      '--b1',
      'Content-Type: text/rfc822-headers',
      '',
      `From: Bikes <${AGENT_ADDRESS}>`,
      `Message-ID: <${bouncedId}>`,
      '--b1--',
      '',
    ].join('\r\n');
    const before = await mailsTo('MAILER-DAEMON@visitor.example');
    await sendToInbound(inbound.port, { envelope: { from: false, to: [AGENT_ADDRESS] }, raw } as never);
    assert.equal(await outcomeOf('bounce-1@visitor.example'), 'bounce');
    assert.equal(await mailsTo('MAILER-DAEMON@visitor.example'), before);
    const bounced = await service.ctx.db.selectFrom('email_messages').select('mail_error').where('message_id', '=', bouncedId).executeTakeFirstOrThrow();
    assert.equal(bounced.mail_error, 'smtp; 550 5.1.1 User unknown');
  });

  test('mail from the agent’s own address is not answered', async () => {
    const { messageId } = await sendToInbound(inbound.port, { from: AGENT_ADDRESS, to: AGENT_ADDRESS, subject: 'Loop', text: STRONG_QUESTION });
    assert.equal(await outcomeOf(messageId), 'own_address');
    assert.equal(await mailsTo(AGENT_ADDRESS), 0);
  });

  test('mail from another agent’s address (of another workspace) is not answered: two agents never answer each other', async () => {
    const other = await service.seedWorkspace({ plan: 'enterprise' });
    const otherAgent = await seedAgent(service, other, 'Shop');
    await enableEmail(service, other, otherAgent, { address: 'desk@shop.example' });
    const { messageId } = await sendToInbound(inbound.port, { from: 'Desk@Shop.example', to: AGENT_ADDRESS, subject: 'Re: Hours', text: STRONG_QUESTION });
    assert.equal(await outcomeOf(messageId), 'own_address');
    assert.equal(await mailsTo('Desk@Shop.example'), 0);
    assert.equal(await mailsTo('desk@shop.example'), 0);
  });

  test('mail that fails DMARC under a reject policy is not answered, and the result is kept', async () => {
    const sender = 'mallory@strict.example';
    const { messageId } = await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION });
    assert.equal(await outcomeOf(messageId), 'dmarc');
    assert.equal(await mailsTo(sender), 0);
    const row = await service.ctx.db.selectFrom('email_messages').select('auth').where('message_id', '=', messageId).executeTakeFirstOrThrow();
    assert.equal(row.auth?.dmarc, 'fail');
    assert.equal(row.auth?.policy, 'reject');
    assert.equal(row.auth?.spf, 'fail');
  });

  test('mail that fails DMARC under policy none is held for a person, not sent: the From may not be the sender', async () => {
    const sender = 'spoofed@lax.example';
    const { messageId } = await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION });
    assert.equal(await outcomeOf(messageId), 'held');
    assert.equal(await mailsTo(sender), 0);
    const [conversation] = await conversationsFrom(sender);
    assert.equal((await messagesOf(conversation!.id))[1]!.held, true);
  });

  test(`an address is mailed at most ${MAILS_PER_RECIPIENT_PER_HOUR} answers an hour, by every agent together: the next answer is held`, async () => {
    const second = await seedAgent(service, ws, 'Second');
    await seedTexts(service, ws.keys.manage, second, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    await enableEmail(service, ws, second, { address: 'second@bikes.example' });
    const sender = 'many@visitor.example';
    await clockToStartOfNext(service, HOUR_MS);
    for (let i = 0; i < MAILS_PER_RECIPIENT_PER_HOUR; i++) await sendToInbound(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: `Hours ${i}`, text: STRONG_QUESTION });
    assert.equal(await mailsTo(sender), MAILS_PER_RECIPIENT_PER_HOUR);
    const { messageId } = await sendToInbound(inbound.port, { from: sender, to: 'second@bikes.example', subject: 'Hours again', text: STRONG_QUESTION });
    assert.equal(await outcomeOf(messageId), 'held');
    assert.equal(await mailsTo(sender), MAILS_PER_RECIPIENT_PER_HOUR, 'the sixth is not sent');
  });

  test(`a sender's mail beyond ${PER_SENDER_PER_MINUTE} a minute waits: 451, and the sending server tries again later`, async () => {
    const sender = 'max@visitor.example';
    for (let i = 0; i < PER_SENDER_PER_MINUTE; i++) {
      assert.equal(await refusalOf(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: `Question ${i}`, text: STRONG_QUESTION }), undefined, `mail ${i + 1}`);
    }
    assert.equal(await refusalOf(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'One more', text: STRONG_QUESTION }), 451);
    assert.equal(await refusalOf(inbound.port, { from: 'other@visitor.example', to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION }), undefined, 'another sender is not held up');
    await service.admin('POST', '/clock', { advanceSeconds: 61 });
    assert.equal(await refusalOf(inbound.port, { from: sender, to: AGENT_ADDRESS, subject: 'Later', text: STRONG_QUESTION }), undefined, 'taken in the next minute');
  });

  test('an unknown recipient is refused at RCPT with 550', async () => {
    assert.equal(await refusalOf(inbound.port, { from: 'ivy@visitor.example', to: 'nobody@bikes.example', subject: 'Hi', text: 'Hello' }), 550);
  });

  test(`a mail over ${MAX_MAIL_BYTES} bytes is refused with 552`, async () => {
    const big = 'x'.repeat(76) + '\r\n';
    const text = big.repeat(Math.ceil(MAX_MAIL_BYTES / big.length) + 10);
    assert.equal(await refusalOf(inbound.port, { from: 'jo@visitor.example', to: AGENT_ADDRESS, subject: 'Big', text }), 552);
  });

  test('attachments become visitor files the agent reads, when attachmentsEnabled is on', async () => {
    const reader = await seedAgent(service, ws, 'Reader');
    await seedTexts(service, ws.keys.manage, reader, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    await enableEmail(service, ws, reader, { address: 'files@bikes.example' });
    const patched = await service.api('PATCH', `/agents/${reader}`, { key: ws.keys.manage, body: { attachmentsEnabled: true } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const sender = 'lu@visitor.example';
    await sendToInbound(inbound.port, {
      from: sender,
      to: 'files@bikes.example',
      subject: 'My invoice',
      text: 'What is the total amount on the invoice I attached?',
      attachments: [{ filename: 'invoice.txt', content: 'Invoice 4411. The total amount on the invoice is 312 euros, due on 1 April.', contentType: 'text/plain' }],
    } as never);
    const list = await service.api('GET', `/agents/${reader}/conversations?channel=email`, { key: ws.keys.read });
    const messages = (await service.api('GET', `/agents/${reader}/conversations/${list.body.data[0].id}`, { key: ws.keys.read })).body.data.messages;
    assert.equal(messages[0].attachments.length, 1, JSON.stringify(messages[0]));
    assert.equal(messages[0].attachments[0].fileName, 'invoice.txt');
    assert.match(messages[1].content, /312 euros/);
  });

  test('mail forwarded to the service’s own host is routed by the agent’s address in To', async () => {
    const sender = 'kim@visitor.example';
    await sendToInbound(inbound.port, { envelope: { from: sender, to: ['bikes-forward@parley.example.net'] }, from: sender, to: AGENT_ADDRESS, subject: 'Hours', text: STRONG_QUESTION });
    const reply = await smtp.waitFor((m) => m.to.includes(sender));
    assert.equal(reply.subject, 'Re: Hours');
  });

  test('mail forwarded to the service’s own host that names no agent in To or Cc is refused with 550', async () => {
    const sender = 'lea@visitor.example';
    assert.equal(await refusalOf(inbound.port, { envelope: { from: sender, to: ['bikes-forward@parley.example.net'] }, from: sender, to: 'someone@else.example', subject: 'Hours', text: STRONG_QUESTION }), 550);
  });
});

describe('an over-size mail costs no more memory than the limit', () => {
  test('the bytes streamed past MAX_MAIL_BYTES (40 MB sent) are read and dropped, not kept until the 552', () => {
    const collected = new MailCollector(MAX_MAIL_BYTES);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let peak = 0;
    for (let sent = 0; sent < 40 * 1024 * 1024; sent += chunk.length) {
      collected.push(chunk);
      peak = Math.max(peak, collected.keptBytes);
    }
    assert.equal(collected.tooBig, true);
    assert.ok(peak <= MAX_MAIL_BYTES, `at most the limit held (${peak})`);
    assert.equal(collected.keptBytes, 0, 'nothing kept once it is known to be refused');
  });

  test('a mail within the limit is kept whole', () => {
    const collected = new MailCollector(10);
    collected.push(Buffer.from('hello '));
    collected.push(Buffer.from('you'));
    assert.equal(collected.tooBig, false);
    assert.equal(collected.bytes().toString(), 'hello you');
  });
});

describe('an HTML-only mail is read in time whatever its HTML', () => {
  test('200,000 unclosed "<style" tokens are turned into text in well under a second (no pattern rescans the rest from each)', () => {
    const started = performance.now();
    textOfHtml('<p>Hi</p>' + '<style'.repeat(200_000));
    textOfHtml('a<'.repeat(200_000));
    textOfHtml('<style></style>'.repeat(20_000) + 'text');
    assert.ok(performance.now() - started < 2000, `took ${Math.round(performance.now() - started)} ms`);
  });

  test('scripts and styles are dropped, blocks end lines, entities are decoded', () => {
    assert.equal(textOfHtml('<style>p{}</style><p>Open &amp; ready</p><script>x()</SCRIPT><div>Sat&nbsp;10:00</div>'), 'Open & ready\nSat 10:00\n');
    assert.equal(textOfHtml('<p>Question?</p><STYLE>never closed'), 'Question?\n');
  });
});
