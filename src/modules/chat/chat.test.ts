import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { ingestWebsitePage } from '../knowledge/ingest.ts';
import { serve, startServer, waitForSource } from '../knowledge/test-support.ts';
import { readStream, seedTexts } from './test-support.ts';

const env = { PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_ALLOW_PRIVATE_URLS: '1' };

const KNOWLEDGE = [
  { title: 'Opening hours', content: 'Our shop in Utrecht is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00. It is closed on Sundays and public holidays.' },
  { title: 'Shipping costs', content: 'Delivery is free for orders above 50 euros. Below that amount we charge a flat fee of 4.95 euros per parcel.' },
  { title: 'Returns', content: 'You may send a product back within 30 days of receiving it. Print the return label from your account and drop the parcel at any post office.' },
  { title: 'Verzending', content: 'Bestellingen die voor 14.00 uur binnenkomen, versturen we dezelfde werkdag. Levering binnen Nederland duurt één tot twee werkdagen.' },
];

describe('chat with the offline model', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws);
    await seedTexts(service, ws.keys.manage, agent, KNOWLEDGE);
  });
  after(async () => service?.close());

  const ask = (body: Record<string, unknown>, key = ws.keys.chat, agentId = agent) => service.api('POST', `/agents/${agentId}/chat`, { key, body });

  test('an answer quotes the passage that answers the question and names its source', async () => {
    const reply = await ask({ message: 'When is the shop open on Saturday?' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const data = reply.body.data;
    assert.match(data.conversationId, /^conv_/);
    assert.match(data.messageId, /^msg_/);
    assert.match(data.answer, /Saturday from 10:00 to 16:00/);
    assert.match(data.answer, /Source: Opening hours/);
    assert.equal(data.model, 'parley-offline');
    assert.equal(data.credits, 1);
    assert.equal(data.grounding, 'supported');
    assert.ok(data.confidence >= 50, `confidence ${data.confidence}`);
    assert.equal(data.sources[0].name, 'Opening hours');
    assert.equal(data.sources[0].url, null, 'a text source has no address');
  });

  test('a change to the agent is used by the very next answer, though the process keeps the agent\'s row', async () => {
    const changing = await seedAgent(service, ws, 'Changing');
    await seedTexts(service, ws.keys.manage, changing, KNOWLEDGE.slice(0, 1));
    const setMinSimilarity = async (minSimilarity: number) => {
      const patched = await service.api('PATCH', `/agents/${changing}`, { key: ws.keys.manage, body: { retrieval: { minSimilarity } } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    };
    // A word the passage lacks keeps its similarity between 0 and 1; the answer uses the passage, so lists its source.
    const question = { message: 'When is the shop open on Saturday evenings?' };
    await setMinSimilarity(0);
    assert.equal((await ask(question, ws.keys.chat, changing)).body.data.sources.length, 1);
    await setMinSimilarity(1);
    assert.deepEqual((await ask(question, ws.keys.chat, changing)).body.data.sources, []);
  });

  test('a question the material does not cover is declined, with low confidence', async () => {
    const reply = await ask({ message: 'Do you repair espresso machines?' });
    assert.equal(reply.status, 200);
    assert.match(reply.body.data.answer, /don't have information/);
    assert.equal(reply.body.data.grounding, 'unsupported');
    assert.ok(reply.body.data.confidence <= 20);
  });

  test('a follow-up is searched together with the question it follows', async () => {
    const first = await ask({ message: 'When is the shop open on Saturday?' });
    const second = await ask({ message: 'and on Sundays?', conversationId: first.body.data.conversationId });
    assert.equal(second.status, 200);
    assert.match(second.body.data.answer, /closed on Sundays/);
  });

  test('the stream, read with the AI SDK client, gives the same text as the JSON reply, with metadata before the text', async () => {
    const json = await ask({ message: 'What does shipping cost?' });
    const response = await fetch(`${service.url}/api/v1/agents/${agent}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.keys.chat}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What does shipping cost?', stream: true }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    assert.ok(response.headers.get('x-request-id'));
    assert.ok(response.headers.get('x-ratelimit-limit'));
    const message = await readStream(response);
    const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    assert.equal(text, json.body.data.answer);
    const metadata = message.metadata as any;
    assert.match(metadata.conversationId, /^conv_/);
    assert.equal(metadata.sources[0].name, 'Shipping costs');
    assert.deepEqual(metadata.sources, json.body.data.sources, 'the stream names the sources as the JSON reply does, url included');
    assert.equal(typeof metadata.confidence, 'number');
    const conversation = await service.api('GET', `/agents/${agent}/conversations/${metadata.conversationId}`, { key: ws.keys.read });
    assert.equal(conversation.status, 200);
    assert.equal(conversation.body.data.messages.length, 2);
    assert.equal(conversation.body.data.messages[1].content, text);
    assert.equal(conversation.body.data.messages[1].grounding, 'supported');
  });

  test('language: asked for, else the question’s own, else the agent’s', async () => {
    const dutch = await ask({ message: 'Verkopen jullie koffiemachines?' });
    assert.match(dutch.body.data.answer, /^Sorry, daarover/);
    const forced = await ask({ message: 'Verkopen jullie koffiemachines?', language: 'de' });
    assert.match(forced.body.data.answer, /^Entschuldigung/);
    const other = await ask({ message: 'Do you sell coffee machines?', language: 'it' });
    assert.match(other.body.data.answer, /^I'm sorry/);
    const none = await ask({ message: '???' });
    assert.match(none.body.data.answer, /^I'm sorry/);
  });

  test('a file source is named without its address, which can carry a credential, in the answer and in the model\'s material', async () => {
    const files = await startServer({ '/price-list.md': serve('# Price list\n\nA tandem bicycle rents for forty euros a day, helmets included.', 'text/markdown') });
    try {
      const added = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: `${files.url}/price-list.md?token=s3cret` } });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      await waitForSource(service, ws.keys.read, agent, added.body.data.id);
      const reply = await ask({ message: 'How much does a tandem bicycle cost to rent per day?' });
      assert.equal(reply.status, 200);
      const source = reply.body.data.sources.find((s: { id: string }) => s.id === added.body.data.id);
      assert.ok(source, JSON.stringify(reply.body.data.sources));
      assert.equal(source.url, null);
      assert.doesNotMatch(JSON.stringify(reply.body.data), /s3cret/);
    } finally {
      await files.close();
    }
  });

  test('with page, the passages of that page come first; its query and fragment are not read', async () => {
    const page = 'https://shop.example/help/returns';
    const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_test', url: page, title: 'Returns help', text: 'Parcels sent back are refunded within five working days after they reach our warehouse.' });
    await waitForSource(service, ws.keys.read, agent, sourceId);
    const reply = await ask({ message: 'How long do refunds take after I send a parcel back?', page: { url: `${page}?token=secret#top` } });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.sources[0].name, 'Returns help');
    assert.equal(reply.body.data.sources[0].url, page, 'a website source carries its address');
    const conversation = await service.api('GET', `/agents/${agent}/conversations/${reply.body.data.conversationId}`, { key: ws.keys.read });
    assert.deepEqual(conversation.body.data.messages[0].page, { url: page, title: 'Returns help' });
    assert.deepEqual(conversation.body.data.messages[1].sources, reply.body.data.sources);
    const ignored = await ask({ message: 'How long do refunds take?', page: { url: 'javascript:alert(1)' } });
    const read = await service.api('GET', `/agents/${agent}/conversations/${ignored.body.data.conversationId}`, { key: ws.keys.read });
    assert.equal(read.body.data.messages[0].page, null);
  });

  test('bad input: blank or long message, e-mail as userId, unknown field, unknown conversation', async () => {
    assertError(await ask({ message: '' }), 400, 'invalid_request');
    assertError(await ask({ message: '   ' }), 400, 'invalid_request');
    assertError(await ask({ message: 'x'.repeat(4001) }), 400, 'invalid_request');
    assert.equal((await ask({ message: 'x'.repeat(4000) })).status, 200);
    const email = await ask({ message: 'Hello', userId: 'ann@example.com' });
    assertError(email, 400, 'invalid_request');
    assert.equal(email.body.error.details[0].field, 'userId');
    assertError(await ask({ message: 'Hello', userId: 'a'.repeat(65) }), 400, 'invalid_request');
    assert.equal((await ask({ message: 'Hello', userId: 'user-42' })).status, 200);
    assertError(await ask({ message: 'Hello', mood: 'happy' }), 400, 'invalid_request');
    assertError(await ask({ message: 'Hello', conversationId: 'conv_doesnotexist' }), 404, 'not_found');
    const emptyId = await ask({ message: 'Hello', conversationId: '' });
    assertError(emptyId, 400, 'invalid_request');
    assert.equal(emptyId.body.error.details[0].field, 'conversationId');
  });

  test('a conversation of another agent or workspace is 404', async () => {
    const mine = await ask({ message: 'Hello' });
    const otherAgent = await seedAgent(service, ws, 'Other');
    assertError(await ask({ message: 'Hi', conversationId: mine.body.data.conversationId }, ws.keys.chat, otherAgent), 404, 'not_found');
    const foreign = await service.seedWorkspace({ plan: 'studio' });
    const foreignAgent = await seedAgent(service, foreign);
    assertError(await ask({ message: 'Hi', conversationId: mine.body.data.conversationId }, foreign.keys.chat, foreignAgent), 404, 'not_found');
    assertError(await service.api('GET', `/agents/${agent}/conversations/${mine.body.data.conversationId}`, { key: foreign.keys.read }), 404, 'not_found');
  });

  test('scopes: read may not ask; chat may not read conversations', async () => {
    assertError(await ask({ message: 'Hello' }, ws.keys.read), 403, 'forbidden');
    assertError(await service.api('GET', `/agents/${agent}/conversations`, { key: ws.keys.chat }), 403, 'forbidden');
  });
});
