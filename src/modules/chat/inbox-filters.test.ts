import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { extractText } from 'unpdf';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { insertConversation, type SeedMessage } from './conversation-seeds.ts';
import { newId } from '../../platform/ids.ts';
import { appendMessages, setAnswerFeedback, type Channel } from './store.ts';

const MINUTE = 60_000;

/**
 * The inbox's filters and search on GET /agents/{id}/conversations and its export
 * (docs/chat.md, "Filters and search"): confidence band, feedback, q, with the spec's
 * channel, from, to and cursor.
 */
describe('conversations: the inbox filters and search', () => {
  let service: Service;
  let ws: SeededWorkspace;
  /** Each conversation one minute after the one before, so the newest-first order is known. */
  let clock = Date.parse('2026-03-02T09:00:00.000Z');

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  async function conversation(agentId: string, messages: SeedMessage[], options: { channel?: Channel; feedback?: Array<1 | -1 | null> } = {}): Promise<string> {
    clock += MINUTE;
    const made = await insertConversation(service, { workspaceId: ws.id, agentId }, { at: new Date(clock), channel: options.channel, messages });
    const answerIds = made.messageIds.filter((_, i) => messages[i].role === 'assistant');
    for (const [i, value] of (options.feedback ?? []).entries()) if (value !== null) assert.ok(await setAnswerFeedback(service.ctx.db, agentId, answerIds[i], value));
    return made.id;
  }
  const qa = (question: string, answer: string, confidence: number | null = 77): SeedMessage[] => [
    { role: 'user', content: question },
    { role: 'assistant', content: answer, confidence },
  ];
  async function ids(agentId: string, query: string, key = ws.keys.read): Promise<string[]> {
    const reply = await service.api('GET', `/agents/${agentId}/conversations?${query}`, { key });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return (reply.body.data as Array<{ id: string }>).map((c) => c.id);
  }

  test('confidence=high|medium|low keeps conversations with an answer in that band of the analytics (80-100, 50-79, 0-49; bounds included)', async () => {
    const agent = await seedAgent(service, ws);
    const high = await conversation(agent, qa('Q?', 'A.', 80));
    const medium = await conversation(agent, [...qa('Q?', 'A.', 79), ...qa('Q2?', 'A2.', 50)]);
    const low = await conversation(agent, qa('Q?', 'A.', 49));
    const highAndLow = await conversation(agent, [...qa('Q?', 'A.', 100), ...qa('Q2?', 'A2.', 0)]);
    const unanswered = await conversation(agent, [{ role: 'user', content: 'Hello?' }]);
    const withoutConfidence = await conversation(agent, qa('Q?', 'A.', null));
    assert.deepEqual(await ids(agent, 'confidence=high'), [highAndLow, high]);
    assert.deepEqual(await ids(agent, 'confidence=medium'), [medium]);
    assert.deepEqual(await ids(agent, 'confidence=low'), [highAndLow, low]);
    assert.deepEqual(await ids(agent, ''), [withoutConfidence, unanswered, highAndLow, low, medium, high]);
    assertError(await service.api('GET', `/agents/${agent}/conversations?confidence=weak`, { key: ws.keys.read }), 400, 'invalid_request');
  });

  test('feedback=up|down|none: an answer rated 1, an answer rated -1, no answer rated (also none without answers)', async () => {
    const agent = await seedAgent(service, ws);
    const up = await conversation(agent, [...qa('Q?', 'A.'), ...qa('Q2?', 'A2.')], { feedback: [null, 1] });
    const down = await conversation(agent, qa('Q?', 'A.'), { feedback: [-1] });
    const both = await conversation(agent, [...qa('Q?', 'A.'), ...qa('Q2?', 'A2.')], { feedback: [1, -1] });
    const none = await conversation(agent, qa('Q?', 'A.'));
    const unanswered = await conversation(agent, [{ role: 'user', content: 'Hello?' }]);
    assert.deepEqual(await ids(agent, 'feedback=up'), [both, up]);
    assert.deepEqual(await ids(agent, 'feedback=down'), [both, down]);
    assert.deepEqual(await ids(agent, 'feedback=none'), [unanswered, none]);
    // Feedback taken back: the answer is no longer rated.
    const [answer] = (await service.api('GET', `/agents/${agent}/conversations/${down}`, { key: ws.keys.read })).body.data.messages.filter((m: { role: string }) => m.role === 'assistant');
    assert.ok(await setAnswerFeedback(service.ctx.db, agent, answer.id, null));
    assert.deepEqual(await ids(agent, 'feedback=down'), [both]);
    assert.deepEqual(await ids(agent, 'feedback=none'), [unanswered, none, down]);
    assert.deepEqual(await ids(agent, 'feedback=up&confidence=low'), []);
  });

  test('q finds every word in the questions and answers, in any order, whatever the case and accents, each word also as the start of a longer one', async () => {
    const agent = await seedAgent(service, ws);
    const delivery = await conversation(agent, qa('Livrez-vous à Noël ?', 'Oui, la LIVRAISON coûte six euros en France.'));
    const returns = await conversation(agent, qa('Kann ich größere Geräte zurückgeben?', 'Die Rückgabe ist innerhalb von 30 Tagen möglich.'));
    const spanish = await conversation(agent, qa('¿Cuánto cuesta el envío a España?', 'El envío cuesta cinco euros.'));
    const greek = await conversation(agent, qa('ΠΟΣΟ ΚΟΣΤΙΖΕΙ Η ΑΠΟΣΤΟΛΗ;', 'Η αποστολή κοστίζει πέντε ευρώ.'));
    await conversation(agent, qa('When are you open?', 'From nine to six.'));

    assert.deepEqual(await ids(agent, 'q=noel'), [delivery], 'accents in the text');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('NOËL')}`), [delivery], 'case and accents in the query');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('euros france livraison')}`), [delivery], 'words in any order, question and answer together');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('livr')}`), [delivery], 'the start of a word');
    assert.deepEqual(await ids(agent, 'q=euros'), [spanish, delivery]);
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('euros españa')}`), [spanish]);
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('GROSSERE gerate rückgabe')}`), [returns], 'ß as ss, umlauts off');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('αποστολη')}`), [greek], 'Greek capitals and tonos');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent('euros japon')}`), [], 'every word is needed');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent("livrez-vous l'été ?")}`), [], 'every word is needed (été)');
    assert.deepEqual(await ids(agent, `q=${encodeURIComponent("livrez-vous")}`), [delivery]);
    for (const odd of ["it's", 'back\\slash', "x'':*|&!(<->)", 'zz & yy | !xx']) {
      assert.deepEqual(await ids(agent, `q=${encodeURIComponent(odd)}`), [], `no error for ${odd}`);
    }
  });

  /** A follow-up question and its answer recorded in a statement of their own, as an answer records them. */
  async function followUp(agentId: string, conversationId: string, question: string, answer: string): Promise<void> {
    clock += MINUTE;
    const at = new Date(clock);
    const message = (role: 'user' | 'assistant', content: string) => ({
      id: newId('msg'), agent_id: agentId, role, content, created_at: at, attachments: [], page_url: null,
      confidence: role === 'assistant' ? 77 : null, grounding: null, sources: [], model: null, credits: 0,
    });
    await appendMessages(service.ctx.db, { id: conversationId }, [message('user', question), message('assistant', answer)]);
  }

  test('q finds the words of all of a conversation\'s recordings together (a question, then a follow-up), never two conversations\' words as one', async () => {
    const agent = await seedAgent(service, ws);
    const bicycles = await conversation(agent, qa('Do you ship bicycles?', 'Yes, by courier.'));
    const helmets = await conversation(agent, qa('Do you ship helmets?', 'Yes, by post.'));
    await followUp(agent, bicycles, 'And to Norway?', 'Norway takes five days.');
    await followUp(agent, bicycles, 'Is the courier insured?', 'Yes, the courier is insured.');
    assert.deepEqual(await ids(agent, 'q=norway'), [bicycles]);
    assert.deepEqual(await ids(agent, 'q=bicycles%20norway%20insured'), [bicycles], 'a word of each recording');
    assert.deepEqual(await ids(agent, 'q=courier'), [bicycles], 'a word in two recordings');
    assert.deepEqual(await ids(agent, 'q=ship'), [helmets, bicycles]);
    assert.deepEqual(await ids(agent, 'q=helmets%20norway'), [], 'the words of two conversations are not one');
    assert.deepEqual(await ids(agent, 'q=nor%20insur%20bicy'), [bicycles], 'each word also as the start of a longer one');
    // An edit after several recordings: the conversation's words as they stand.
    await sql`update messages set content = ${'Norway takes a week.'} where conversation_id = ${bicycles} and content = ${'Norway takes five days.'}`.execute(service.ctx.db);
    assert.deepEqual(await ids(agent, 'q=days'), []);
    assert.deepEqual(await ids(agent, 'q=week%20bicycles%20insured'), [bicycles]);
  });

  test('q without a letter or digit, or longer than 200 characters, is 400 invalid_request naming q', async () => {
    const agent = await seedAgent(service, ws);
    for (const q of ['%20%20', encodeURIComponent('?!'), 'x'.repeat(201), '']) {
      const reply = await service.api('GET', `/agents/${agent}/conversations?q=${q}`, { key: ws.keys.read });
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, 'q');
    }
  });

  test('a new answer and an edited held draft are searched as they stand; an erased conversation is gone', async () => {
    const agent = await seedAgent(service, ws);
    const id = await conversation(agent, qa('Do you ship to Iceland?', 'Draft: we might.'));
    assert.deepEqual(await ids(agent, 'q=might'), [id]);
    // The e-mail channel sends a held draft after it was edited: the message's content changes.
    await sql`update messages set content = ${'Yes, to Reykjavik in five days.'} where conversation_id = ${id} and role = 'assistant'`.execute(service.ctx.db);
    assert.deepEqual(await ids(agent, 'q=might'), []);
    assert.deepEqual(await ids(agent, 'q=reykjavik'), [id]);
    assert.deepEqual(await ids(agent, 'q=iceland'), [id]);
    assert.equal((await service.api('DELETE', `/agents/${agent}/conversations/${id}`, { key: ws.keys.manage })).status, 200);
    assert.deepEqual(await ids(agent, 'q=iceland'), []);
  });

  test('the cursor pages through the filtered set: every match once, newest first, nothing else', async () => {
    const agent = await seedAgent(service, ws);
    const matching: string[] = [];
    for (let i = 0; i < 11; i++) {
      const hit = i % 3 !== 1;
      const id = await conversation(agent, qa(hit ? `Parcel number ${i}?` : `Opening hours ${i}?`, 'Answer.', 20));
      if (hit) matching.unshift(id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply: { status: number; body: any } = await service.api('GET', `/agents/${agent}/conversations?q=parcel&confidence=low&limit=3${cursor ? `&cursor=${cursor}` : ''}`, { key: ws.keys.read });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      seen.push(...reply.body.data.map((c: { id: string }) => c.id));
      cursor = reply.body.pagination.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    assert.equal(matching.length, 7);
    assert.deepEqual(seen, matching);
    assert.equal(pages, 3);
  });

  test('the filters combine with channel, from and to; a key tied to one agent still never sees test conversations', async () => {
    const agent = await seedAgent(service, ws);
    const widget = await conversation(agent, qa('Refund please', 'Refunds take a week.', 30), { channel: 'widget' });
    const api = await conversation(agent, qa('Refund please', 'Refunds take a week.', 30), { channel: 'api' });
    const test = await conversation(agent, qa('Refund please', 'Refunds take a week.', 30), { channel: 'playground' });
    assert.deepEqual(await ids(agent, 'q=refund&confidence=low'), [test, api, widget]);
    assert.deepEqual(await ids(agent, 'q=refund&confidence=low&channel=widget'), [widget]);
    const day = new Date(clock).toISOString().slice(0, 10);
    assert.deepEqual(await ids(agent, `q=refund&from=${day}&to=${day}`), [test, api, widget]);
    assert.deepEqual(await ids(agent, `q=refund&to=2000-01-01`), []);
    const tied = await ws.addKey('read', agent);
    assert.deepEqual(await ids(agent, 'q=refund&confidence=low', tied.key), [api, widget]);
    assert.deepEqual(await ids(agent, 'q=refund&channel=playground', tied.key), []);
  });

  test('the export takes the same filters: the PDF holds the filtered set and says which filters made it', async () => {
    const agent = await seedAgent(service, ws);
    const now = service.ctx.clock.now().getTime();
    const at = (minutes: number) => new Date(now - minutes * MINUTE);
    await insertConversation(service, { workspaceId: ws.id, agentId: agent }, { at: at(3), messages: qa('Wann liefern Sie nach Österreich?', 'Zweimal pro Woche.', 30) });
    await insertConversation(service, { workspaceId: ws.id, agentId: agent }, { at: at(2), messages: qa('Liefern Sie nach Österreich?', 'Ja, gerne.', 95) });
    await insertConversation(service, { workspaceId: ws.id, agentId: agent }, { at: at(1), messages: qa('Opening hours?', 'Nine to six.', 30) });
    const reply = await service.api('GET', `/agents/${agent}/conversations/export?q=${encodeURIComponent('osterreich')}&confidence=low`, { key: ws.keys.read });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const response = await fetch(`${service.url}${new URL(reply.body.data.url).pathname}`);
    assert.equal(response.status, 200);
    const { text } = await extractText(new Uint8Array(await response.arrayBuffer()), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    assert.match(flat, /Wann liefern Sie nach Österreich\?/);
    assert.doesNotMatch(flat, /Ja, gerne/);
    assert.doesNotMatch(flat, /Opening hours/);
    assert.match(flat, /Filter: only conversations with an answer of low confidence; the words "osterreich"/);
    assert.match(flat, /Conversations: 1/);
    assertError(await service.api('GET', `/agents/${agent}/conversations/export?feedback=sideways`, { key: ws.keys.read }), 400, 'invalid_request');
  });

  test('the OpenAPI document shows the new query parameters of the list and the export', async () => {
    const doc = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as any;
    for (const path of ['/agents/{id}/conversations', '/agents/{id}/conversations/export']) {
      const names = doc.paths[path].get.parameters.map((p: { name: string }) => p.name);
      for (const name of ['confidence', 'feedback', 'q']) assert.ok(names.includes(name), `${path} has ${name}`);
    }
    const band = doc.paths['/agents/{id}/conversations'].get.parameters.find((p: { name: string }) => p.name === 'confidence');
    assert.deepEqual(band.schema.enum, ['high', 'medium', 'low']);
  });
});
