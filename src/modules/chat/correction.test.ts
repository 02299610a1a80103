import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { newId } from '../../platform/ids.ts';
import { waitForSource } from '../knowledge/test-support.ts';
import { insertConversation } from './conversation-seeds.ts';
import { seedTexts } from './test-support.ts';

const env = { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };

const KNOWLEDGE = [
  { title: 'Opening hours', content: 'Our shop in Utrecht is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00.' },
  { title: 'Shipping costs', content: 'Delivery is free for orders above 50 euros. Below that amount we charge a flat fee of 4.95 euros per parcel.' },
];

describe('corrections of answers', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'agency' });
    agent = await seedAgent(service, ws);
    await seedTexts(service, ws.keys.manage, agent, KNOWLEDGE);
  });
  after(async () => service?.close());

  const ask = (body: Record<string, unknown>, key = ws.keys.chat) => service.api('POST', `/agents/${agent}/chat`, { key, body });
  const correct = (messageId: string, body: unknown, key = ws.keys.manage, agentId = agent) =>
    service.api('POST', `/agents/${agentId}/messages/${messageId}/correction`, { key, body });
  const conversation = (id: string) => service.api('GET', `/agents/${agent}/conversations/${id}`, { key: ws.keys.read });

  test('a correction becomes a pending Q&A source that turns ready and is quoted by the next answer; the conversation is unchanged', async () => {
    const asked = await ask({ message: 'Do you repair espresso machines?' });
    assert.match(asked.body.data.answer, /don't have information/);
    const before = await conversation(asked.body.data.conversationId);

    const reply = await correct(asked.body.data.messageId, { question: 'Do you repair espresso machines?', answer: 'Yes: our workshop repairs espresso machines of every brand within five working days.' });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const source = reply.body.data;
    assert.match(source.id, /^src_/);
    assert.equal(source.type, 'qa');
    assert.equal(source.name, 'Do you repair espresso machines?');
    assert.equal(source.status, 'pending');
    assert.equal(source.url, null);
    assert.deepEqual(Object.keys(source).sort(), ['chunkCount', 'createdAt', 'error', 'id', 'name', 'processedAt', 'sizeBytes', 'status', 'turnedAway', 'type', 'url']);

    const ready = await waitForSource(service, ws.keys.read, agent, source.id);
    assert.equal(ready.status, 'ready');
    const again = await ask({ message: 'Do you repair espresso machines?' });
    assert.match(again.body.data.answer, /workshop repairs espresso machines of every brand within five working days/);
    assert.equal(again.body.data.sources[0].id, source.id);

    assert.deepEqual(await conversation(asked.body.data.conversationId), before);
  });

  test('a second correction of the same answer is 409 already_corrected, also when several arrive at once', async () => {
    const asked = await ask({ message: 'What does shipping cost?' });
    const body = { question: 'What does shipping cost?', answer: 'Shipping costs 4.95 euros, and nothing above 50 euros.' };
    const sourcesBefore = (await service.api('GET', `/agents/${agent}/sources?limit=100`, { key: ws.keys.read })).body.data.length;
    const atOnce = await Promise.all([1, 2, 3, 4].map(() => correct(asked.body.data.messageId, body)));
    assert.deepEqual(atOnce.map((r) => r.status).sort(), [201, 409, 409, 409]);
    for (const refused of atOnce.filter((r) => r.status === 409)) assertError(refused, 409, 'already_corrected');
    assertError(await correct(asked.body.data.messageId, body), 409, 'already_corrected');
    const sources = (await service.api('GET', `/agents/${agent}/sources?limit=100`, { key: ws.keys.read })).body.data;
    assert.equal(sources.length, sourcesBefore + 1, 'the correction that lost leaves no source behind');
    assert.equal(sources.filter((s: any) => s.type === 'qa' && s.name === body.question).length, 1);
  });

  test('an answer to a question that came with a file is 422 asked_with_file', async () => {
    const file = { id: 'file_1', fileName: 'invoice.pdf', kind: 'pdf', mediaType: 'application/pdf', sizeBytes: 1200, pages: 1, truncated: false, ocrPages: null };
    const seeded = await insertConversation(service, { workspaceId: ws.id, agentId: agent }, {
      at: service.ctx.clock.now(),
      channel: 'widget',
      messages: [{ role: 'user', content: 'What does this invoice say?', attachments: [file] }, { role: 'assistant', content: 'It is an invoice of 120 euros.' }],
    });
    assertError(await correct(seeded.messageIds[1]!, { question: 'What does this invoice say?', answer: 'Anything.' }), 422, 'asked_with_file');
    const read = await conversation(seeded.id);
    assert.equal(read.body.data.messages[0].attachments[0].fileName, 'invoice.pdf');
  });

  test('404 not_found: a question, an unknown id, another agent’s or workspace’s answer, a test conversation for a tied key', async () => {
    const asked = await ask({ message: 'When is the shop open on Saturday?' });
    const conv = await conversation(asked.body.data.conversationId);
    const questionId = conv.body.data.messages[0].id;
    const body = { question: 'When is the shop open on Saturday?', answer: 'From 10:00 to 16:00.' };
    assertError(await correct(questionId, body), 404, 'not_found');
    assertError(await correct(newId('msg'), body), 404, 'not_found');

    const otherAgent = await seedAgent(service, ws, 'Other agent');
    assertError(await correct(asked.body.data.messageId, body, ws.keys.manage, otherAgent), 404, 'not_found');
    const foreign = await service.seedWorkspace({ plan: 'studio' });
    assertError(await correct(asked.body.data.messageId, body, foreign.keys.manage), 404, 'not_found');
    const foreignAgent = await seedAgent(service, foreign);
    assertError(await correct(asked.body.data.messageId, body, foreign.keys.manage, foreignAgent), 404, 'not_found');

    const test = await ask({ message: 'When is the shop open on Saturday?', test: true }, ws.keys.manage);
    const tied = await ws.addKey('manage', agent);
    assertError(await correct(test.body.data.messageId, body, tied.key), 404, 'not_found');
    const tiedToOther = await ws.addKey('manage', otherAgent);
    assertError(await correct(asked.body.data.messageId, body, tiedToOther.key), 404, 'not_found');
    assert.equal((await correct(asked.body.data.messageId, body, tied.key)).status, 201, 'the tied key may correct a conversation it sees');
    assert.equal((await correct(test.body.data.messageId, body)).status, 201, 'an untied key may correct a test conversation');
  });

  test('the rules of any Q&A source apply: storage allowance (402), a paused agent (402); the answer stays correctable after a refusal', async () => {
    const asked = await ask({ message: 'Do you sell gift cards?' });
    const body = { question: 'Do you sell gift cards?', answer: 'Yes, gift cards of 10, 25 and 50 euros are sold in the shop.' };
    const filler = newId('src');
    await sql`insert into sources (id, workspace_id, agent_id, type, name, status, size_bytes, chunk_count, content, generation, queued_at, created_at)
      values (${filler}, ${ws.id}, ${agent}, 'text', 'Filler', 'failed', ${100 * 1024 * 1024}, 0, '', 0, ${service.ctx.clock.now()}, ${service.ctx.clock.now()})`.execute(service.ctx.db);
    assertError(await correct(asked.body.data.messageId, body), 402, 'storage_limit_reached');
    await service.api('DELETE', `/agents/${agent}/sources/${filler}`, { key: ws.keys.manage });

    await sql`update agents set status = 'paused' where id = ${agent}`.execute(service.ctx.db);
    try {
      assertError(await correct(asked.body.data.messageId, body), 402, 'agent_paused');
    } finally {
      await sql`update agents set status = 'active' where id = ${agent}`.execute(service.ctx.db);
    }
    assert.equal((await correct(asked.body.data.messageId, body)).status, 201);
  });

  test('scope manage, strict body, and the audit trail', async () => {
    const asked = await ask({ message: 'Where is the shop?' });
    const body = { question: 'Where is the shop?', answer: 'In Utrecht.' };
    assertError(await correct(asked.body.data.messageId, body, ws.keys.read), 403, 'forbidden');
    assertError(await correct(asked.body.data.messageId, body, ws.keys.chat), 403, 'forbidden');
    const unknownField = await correct(asked.body.data.messageId, { ...body, tone: 'friendly' });
    assertError(unknownField, 400, 'invalid_request');
    assertError(await correct(asked.body.data.messageId, { question: '  ', answer: 'In Utrecht.' }), 400, 'invalid_request');
    assertError(await correct(asked.body.data.messageId, { question: 'Where is the shop?' }), 400, 'invalid_request');

    const reply = await correct(asked.body.data.messageId, body);
    assert.equal(reply.status, 201);
    const audit = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    const entry = audit.body.data.find((e: any) => e.action === 'message.correct' && e.target?.includes(asked.body.data.messageId));
    assert.ok(entry, 'the correction is in the audit trail');
    assert.equal(entry.keyId, ws.keyIds.manage);
    assert.equal(entry.target, `${agent}/${asked.body.data.messageId}/${reply.body.data.id}`);
  });
});
