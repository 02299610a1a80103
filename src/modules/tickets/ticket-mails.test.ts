import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { MAILS_PER_RECIPIENT_PER_HOUR } from '../../platform/mail.ts';
import { clockToStartOfNext, HOUR_MS, startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { enableTickets, openTicket, PRIVACY_URL, startConversation } from './test-support.ts';

/** What each language's confirmation must say, word for word (number 7 stands for the ticket's number). */
const CONFIRMATION = {
  en: {
    subject: 'We have received your question (ticket #7)',
    greeting: 'Hello Ana,',
    anonymous: 'Hello,',
    received: 'Thank you for your question. We have received it as ticket #7.',
    standard: 'We will reply to this e-mail address as soon as we can.',
    yourQuestion: 'Your question:',
    closing: 'Kind regards,',
    privacy: 'How we handle your details:',
  },
  nl: {
    subject: 'We hebben uw vraag ontvangen (ticket #7)',
    greeting: 'Beste Ana,',
    anonymous: 'Hallo,',
    received: 'Bedankt voor uw vraag. We hebben die ontvangen als ticket #7.',
    standard: 'We antwoorden zo snel mogelijk op dit e-mailadres.',
    yourQuestion: 'Uw vraag:',
    closing: 'Met vriendelijke groet,',
    privacy: 'Zo gaan we met uw gegevens om:',
  },
  fr: {
    subject: 'Nous avons bien reçu votre question (ticket n° 7)',
    greeting: 'Bonjour Ana,',
    anonymous: 'Bonjour,',
    received: 'Merci pour votre question. Nous l’avons bien reçue sous le numéro de ticket 7.',
    standard: 'Nous vous répondrons à cette adresse e-mail dans les meilleurs délais.',
    yourQuestion: 'Votre question\u00a0:',
    closing: 'Cordialement,',
    privacy: 'Comment nous traitons vos données\u00a0:',
  },
  de: {
    subject: 'Wir haben Ihre Frage erhalten (Ticket Nr. 7)',
    greeting: 'Guten Tag Ana,',
    anonymous: 'Guten Tag,',
    received: 'vielen Dank für Ihre Frage. Wir haben sie als Ticket Nr. 7 erhalten.',
    standard: 'Wir antworten Ihnen so bald wie möglich an diese E-Mail-Adresse.',
    yourQuestion: 'Ihre Frage:',
    closing: 'Mit freundlichen Grüßen',
    privacy: 'So gehen wir mit Ihren Daten um:',
  },
  es: {
    subject: 'Hemos recibido su pregunta (ticket n.º 7)',
    greeting: 'Hola, Ana:',
    anonymous: 'Hola:',
    received: 'Gracias por su pregunta. La hemos recibido con el número de ticket 7.',
    standard: 'Le responderemos a esta dirección de correo electrónico lo antes posible.',
    yourQuestion: 'Su pregunta:',
    closing: 'Un cordial saludo,',
    privacy: 'Cómo tratamos sus datos:',
  },
} as const;

const QUESTIONS = {
  en: 'My order has not arrived.',
  nl: 'Mijn bestelling is niet aangekomen.',
  fr: 'Ma commande n’est pas arrivée.',
  de: 'Meine Bestellung ist nicht angekommen.',
  es: 'Mi pedido no ha llegado.',
} as const;

type Language = keyof typeof CONFIRMATION;
const LANGUAGES = Object.keys(CONFIRMATION) as Language[];

function withNumber(text: string, number: number): string {
  return text.replace('7', String(number));
}

describe('ticket mails in the right language, received by a real SMTP server', () => {
  let smtp: SmtpCapture;
  let service: Service;
  /** Owner mails in English (the workspace's default language). */
  let ws: SeededWorkspace;

  before(async () => {
    smtp = await startSmtpCapture();
    service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_PUBLIC_URL: 'https://parley.example.net' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => {
    await service?.close();
    await smtp?.close();
  });

  /** A workspace whose owner reads the given language. */
  async function workspaceIn(language: string, ownerEmail: string | undefined): Promise<SeededWorkspace> {
    const created = await service.admin('POST', '/workspaces', { name: `Owner in ${language}`, plan: 'enterprise', language, ...(ownerEmail ? { ownerEmail } : {}) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id as string;
    const manage = await service.admin('POST', `/workspaces/${id}/keys`, { name: 'manage', scope: 'manage' });
    const key = manage.body.data.key as string;
    return { id, keys: { read: key, chat: key, manage: key }, keyIds: { read: '', chat: '', manage: manage.body.data.id }, addKey: async () => ({ id: '', key }) };
  }

  async function ticketAgent(workspace: SeededWorkspace, name: string, tickets: Record<string, unknown> = {}): Promise<string> {
    const agent = await seedAgent(service, workspace, name);
    await enableTickets(service, workspace, agent, tickets);
    return agent;
  }

  const hmac = (secret: string, email: string) => createHmac('sha256', secret).update(email, 'utf8').digest('hex');
  /** The identity of a visitor the agent's site has signed in: their address is the site's word. */
  async function signedInAs(workspace: SeededWorkspace, agent: string, email: string) {
    const reply = await service.api('GET', `/agents/${agent}/identity-secret`, { key: workspace.keys.manage });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return { email, identity: { email, hash: hmac(reply.body.data.secret, email) } };
  }

  for (const language of LANGUAGES) {
    test(`${language}: a signed-in visitor's confirmation greets them, gives the number and the standard sentence, quotes the question, signs with the agent's name and links the privacy notice, in text and HTML`, async () => {
      const agentName = `Fietsenmaker ${language}`;
      const agent = await ticketAgent(ws, agentName);
      const to = `ana-${language}@example.org`;
      const { number } = await openTicket(service, agent, { ...(await signedInAs(ws, agent, to)), name: 'Ana', question: QUESTIONS[language], language });
      const mail = await smtp.waitFor((m) => m.to.includes(to));
      const t = CONFIRMATION[language];
      assert.equal(mail.subject, withNumber(t.subject, number));
      assert.match(mail.from, new RegExp(`${agentName}.*<no-reply@parley\\.example\\.net>`));
      assert.equal(
        mail.text,
        [
          t.greeting,
          `${withNumber(t.received, number)} ${t.standard}`,
          t.yourQuestion,
          `> ${QUESTIONS[language]}`,
          `${t.closing}\n${agentName}`,
          `${t.privacy} ${PRIVACY_URL}`,
        ].join('\n\n') + '\n',
      );
      assert.ok(mail.html);
      assert.match(mail.html, new RegExp(`<html lang="${language}">`));
      for (const part of [t.greeting, withNumber(t.received, number), t.standard, QUESTIONS[language], agentName]) {
        assert.ok(mail.html.includes(part), `the HTML part says ${part}`);
      }
      assert.ok(mail.html.includes(`<a href="${PRIVACY_URL}"`));
    });
  }

  describe('no relay: anyone can type any address into the form', () => {
    const LURE = 'Your account is locked, verify at https://evil.example/login';

    for (const language of LANGUAGES) {
      test(`${language}: the confirmation to an address nobody vouched for says only that ticket #n was received: no name, no question, no address the visitor typed`, async () => {
        const agentName = `Relay ${language}`;
        const agent = await ticketAgent(ws, agentName);
        const victim = `victim-${language}@example.org`;
        const { number } = await openTicket(service, agent, { email: victim, name: 'Security team https://evil.example', question: LURE, language, page: { url: 'https://evil.example/page' } });
        const mail = await smtp.waitFor((m) => m.to.includes(victim));
        const t = CONFIRMATION[language];
        assert.equal(mail.subject, withNumber(t.subject, number));
        assert.equal(
          mail.text,
          [t.anonymous, `${withNumber(t.received, number)} ${t.standard}`, `${t.closing}\n${agentName}`, `${t.privacy} ${PRIVACY_URL}`].join('\n\n') + '\n',
        );
        for (const part of [mail.text, mail.html!, mail.subject]) {
          assert.ok(!part.includes('evil.example'), `nothing the visitor typed: ${part}`);
          assert.ok(!part.includes('locked'));
          assert.ok(!part.includes('Security team'));
        }
        // The team still reads the question, and the owner's notice quotes it.
        const notice = await smtp.waitFor((m) => m.to.includes('owner@example.com') && m.subject === `New ticket #${number} for ${agentName}`);
        assert.ok(notice.text.includes(`> ${LURE}`));
      });
    }

    test('a signed-in visitor whose site vouched for another address is not quoted either', async () => {
      const agent = await ticketAgent(ws, 'Vouched');
      const { identity } = await signedInAs(ws, agent, 'ana@example.org');
      await openTicket(service, agent, { email: 'mallory-target@example.org', identity, question: LURE });
      const mail = await smtp.waitFor((m) => m.to.includes('mallory-target@example.org'));
      assert.ok(!mail.text.includes('evil.example'));
    });

    test(`an address gets at most ${MAILS_PER_RECIPIENT_PER_HOUR} confirmations an hour from the whole service; further tickets are opened and the owner told, the address not mailed; the next hour it is mailed again`, async () => {
      const victim = 'flooded@example.org';
      const other = await workspaceIn('en', 'other-owner@example.org');
      const agents = [await ticketAgent(ws, 'Flood one'), await ticketAgent(other, 'Flood two')];
      const mailedTo = async (address: string) => Number((await service.ctx.db.selectFrom('mails').select((eb) => eb.fn.countAll().as('n')).where('recipient', '=', address).executeTakeFirstOrThrow()).n);
      await clockToStartOfNext(service, HOUR_MS);
      const opened = await Promise.all(Array.from({ length: MAILS_PER_RECIPIENT_PER_HOUR + 3 }, (_, i) => openTicket(service, agents[i % 2]!, { email: i % 3 === 0 ? 'Flooded@Example.org' : victim, question: `Question ${i}` })));
      assert.equal(opened.length, MAILS_PER_RECIPIENT_PER_HOUR + 3, 'every ticket is opened');
      const recorded = await service.ctx.db.selectFrom('mails').select('recipient').where('recipient', 'in', [victim, 'Flooded@Example.org']).execute();
      assert.equal(recorded.length, MAILS_PER_RECIPIENT_PER_HOUR, 'the address (in any case) is mailed no more than the allowance');
      assert.equal((await mailedTo('owner@example.com')) > 0 && (await mailedTo('other-owner@example.org')) > 0, true, 'the owners are told of every ticket');
      const notices = await service.ctx.db.selectFrom('mails').select('id').where('subject', 'like', 'New ticket #% for Flood %').execute();
      assert.equal(notices.length, MAILS_PER_RECIPIENT_PER_HOUR + 3);
      // Another address is not held back by this one's count.
      await openTicket(service, agents[0]!, { email: 'bystander@example.org', question: 'Hi' });
      assert.equal(await mailedTo('bystander@example.org'), 1);

      assert.equal((await service.admin('POST', '/clock', { advanceSeconds: 3600 })).status, 200);
      await openTicket(service, agents[1]!, { email: victim, question: 'A new hour' });
      assert.equal(await mailedTo(victim) + (await mailedTo('Flooded@Example.org')), MAILS_PER_RECIPIENT_PER_HOUR + 1);
    });
  });

  test("the agent's tickets.answerTime takes the standard sentence's place; without a name the greeting has none", async () => {
    const agent = await ticketAgent(ws, 'Radhaus', { answerTime: 'Wir antworten innerhalb eines Werktages.' });
    const { number } = await openTicket(service, agent, { email: 'anonym@example.de', question: QUESTIONS.de, language: 'de' });
    const mail = await smtp.waitFor((m) => m.to.includes('anonym@example.de'));
    assert.ok(mail.text.startsWith(`Guten Tag,\n\nvielen Dank für Ihre Frage. Wir haben sie als Ticket Nr. ${number} erhalten. Wir antworten innerhalb eines Werktages.\n\n`), mail.text);
    assert.ok(!mail.text.includes(CONFIRMATION.de.standard));
  });

  test("the ticket's language is the agent's when the visitor gives none", async () => {
    const agent = await seedAgent(service, ws, 'Boutique');
    assert.equal((await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { language: 'fr' } })).status, 200);
    await enableTickets(service, ws, agent);
    const { number } = await openTicket(service, agent, { email: 'client@example.fr', question: QUESTIONS.fr });
    const mail = await smtp.waitFor((m) => m.to.includes('client@example.fr'));
    assert.equal(mail.subject, withNumber(CONFIRMATION.fr.subject, number));
  });

  test("the owner's notice is in the workspace's language with the question and the visitor's details", async () => {
    const dutch = await workspaceIn('nl', 'eigenaar@example.nl');
    const agent = await ticketAgent(dutch, 'Winkelhulp');
    const { conversationId, token } = await startConversation(service, agent);
    const { id, number } = await openTicket(service, agent, { email: 'klant@example.org', name: 'Joris', question: 'Wanneer komt mijn <pakket>?', language: 'de', page: { url: 'https://shop.example.nl/bestelling' }, conversationId }, token);
    const notice = await smtp.waitFor((m) => m.to.includes('eigenaar@example.nl'));
    assert.equal(notice.subject, `Nieuw ticket #${number} voor Winkelhulp`);
    assert.equal(
      notice.text,
      [
        `Joris heeft ticket #${number} geopend bij Winkelhulp.`,
        '> Wanneer komt mijn <pakket>?',
        ['E-mailadres: klant@example.org', 'Naam: Joris', 'Taal: de', 'Ingelogd: nee', 'Pagina: https://shop.example.nl/bestelling', `Gesprek: ${conversationId}`].join('\n'),
        `Open het in het dashboard: https://parley.example.net/app/agents/${agent}/inbox/tickets/${id}`,
      ].join('\n\n') + '\n',
    );
    assert.ok(notice.html?.includes('Wanneer komt mijn &lt;pakket&gt;?'), 'the question is escaped in the HTML part');
    assert.ok(!notice.html?.includes('<pakket>'));
    // the visitor's confirmation is in the ticket's language, not the owner's
    const confirmation = await smtp.waitFor((m) => m.to.includes('klant@example.org'));
    assert.equal(confirmation.subject, withNumber(CONFIRMATION.de.subject, number));
  });

  test("the owner's notice in English, by the workspace's default language; a workspace without an owner address sends only the confirmation", async () => {
    const agent = await ticketAgent(ws, 'Helpdesk');
    const { number } = await openTicket(service, agent, { email: 'someone@example.org', question: 'Where is it?' });
    const notice = await smtp.waitFor((m) => m.to.includes('owner@example.com') && m.subject.includes(`#${number} for Helpdesk`));
    assert.equal(notice.subject, `New ticket #${number} for Helpdesk`);
    assert.ok(notice.text.startsWith(`someone@example.org opened ticket #${number} with Helpdesk.`));

    const ownerless = await workspaceIn('en', undefined);
    const lone = await ticketAgent(ownerless, 'Lonely');
    await openTicket(service, lone, { email: 'lone@example.org', question: 'Anyone?' });
    await smtp.waitFor((m) => m.to.includes('lone@example.org'));
    const recorded = await service.ctx.db.selectFrom('mails').select('recipient').where('subject', 'like', '%Lonely%').execute();
    assert.deepEqual(recorded, [], 'no notice was recorded');
  });

  test('a mail server that is down does not hold up or fail the ticket; both mails arrive once it is back, on the retry', async () => {
    const agent = await ticketAgent(ws, 'Patient');
    smtp.refuseNext(2, 421);
    const refusedBefore = smtp.refused;
    const opened = await openTicket(service, agent, { email: 'later@example.org', question: 'Still there?' });
    assert.equal(typeof opened.number, 'number');
    await smtp.waitForRefusals(refusedBefore + 2);
    assert.ok(!smtp.received.some((m) => m.to.includes('later@example.org')));
    // the failures are recorded before the clock moves on
    const deadline = Date.now() + 10_000;
    while ((await service.ctx.db.selectFrom('mails').select('id').where('status', '=', 'pending').where('last_error', 'is not', null).execute()).length < 2) {
      assert.ok(Date.now() < deadline, 'the failed attempts were not recorded');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal((await service.admin('POST', '/clock', { advanceSeconds: 61 })).status, 200);
    const confirmation = await smtp.waitFor((m) => m.to.includes('later@example.org'));
    assert.equal(confirmation.subject, withNumber(CONFIRMATION.en.subject, opened.number));
    await smtp.waitFor((m) => m.to.includes('owner@example.com') && m.subject === `New ticket #${opened.number} for Patient`);
  });

  test('changing a status and adding a note mail nobody', async () => {
    const agent = await ticketAgent(ws, 'Quiet');
    const { id } = await openTicket(service, agent, { email: 'quiet@example.org', question: 'Hello?' });
    await smtp.waitFor((m) => m.to.includes('quiet@example.org'));
    const recorded = async () => (await service.ctx.db.selectFrom('mails').select('id').execute()).length;
    const before = await recorded();
    for (const status of ['waiting', 'solved', 'open']) {
      assert.equal((await service.api('PATCH', `/agents/${agent}/tickets/${id}`, { key: ws.keys.manage, body: { status } })).status, 200);
    }
    assert.equal((await service.api('POST', `/agents/${agent}/tickets/${id}/notes`, { key: ws.keys.manage, body: { body: 'Internal.' } })).status, 201);
    assert.equal(await recorded(), before);
  });
});
