import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { readStream, seedTexts, streamChat } from './test-support.ts';

describe('test conversations (channel playground) and keys tied to one agent', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  /** Keys of `ws` tied to `agent`. */
  let tied: { chat: string; read: string; manage: string };

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws);
    await seedTexts(service, ws.keys.manage, agent, [{ title: 'Opening hours', content: 'The shop is open on Saturday from 10:00 to 16:00.' }]);
    tied = { chat: (await ws.addKey('chat', agent)).key, read: (await ws.addKey('read', agent)).key, manage: (await ws.addKey('manage', agent)).key };
  });
  after(async () => service?.close());

  const ask = (key: string, body: Record<string, unknown>) => service.api('POST', `/agents/${agent}/chat`, { key, body: { message: 'When is the shop open on Saturday?', ...body } });
  const read = (key: string, conversationId: string) => service.api('GET', `/agents/${agent}/conversations/${conversationId}`, { key });
  const listed = async (key: string, query = '') => {
    const reply = await service.api('GET', `/agents/${agent}/conversations?limit=100${query}`, { key });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return (reply.body.data as Array<{ id: string; channel: string }>).map((c) => c.id);
  };

  test('test true files the question in channel playground; without it the channel is api', async () => {
    const test = await ask(ws.keys.chat, { test: true });
    assert.equal(test.status, 200);
    assert.equal((await read(ws.keys.read, test.body.data.conversationId)).body.data.channel, 'playground');
    const plain = await ask(ws.keys.chat, {});
    assert.equal((await read(ws.keys.read, plain.body.data.conversationId)).body.data.channel, 'api');
    assert.deepEqual(await listed(ws.keys.read, '&channel=playground'), [test.body.data.conversationId]);
    assert.ok((await listed(ws.keys.read, '&channel=api')).includes(plain.body.data.conversationId));
  });

  test('a tied key that asks with test true gets its answer, then never sees that conversation: 404 by id, absent from lists, cannot continue it', async () => {
    const asked = await ask(tied.chat, { test: true });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    const conversationId = asked.body.data.conversationId;
    assert.match(asked.body.data.answer, /10:00 to 16:00/);

    assertError(await read(tied.read, conversationId), 404, 'not_found');
    assertError(await read(tied.manage, conversationId), 404, 'not_found');
    assert.ok(!(await listed(tied.read)).includes(conversationId));
    assert.deepEqual(await listed(tied.read, '&channel=playground'), []);
    assertError(await ask(tied.chat, { conversationId, message: 'And on Sunday?' }), 404, 'not_found');
    assertError(await ask(tied.chat, { conversationId, message: 'And on Sunday?', test: true }), 404, 'not_found');
    const streamed = await streamChat(service, tied.chat, agent, { conversationId, message: 'And on Sunday?' });
    assert.equal(streamed.status, 404);
    assertError(await service.api('DELETE', `/agents/${agent}/conversations/${conversationId}`, { key: tied.manage }), 404, 'not_found');

    // A key of the whole workspace sees it, unchanged by the refused attempts.
    const seen = await read(ws.keys.read, conversationId);
    assert.equal(seen.status, 200);
    assert.equal(seen.body.data.channel, 'playground');
    assert.equal(seen.body.data.messageCount, 2);
    assert.ok((await listed(ws.keys.read)).includes(conversationId));
    assert.ok((await listed(ws.keys.read, '&channel=playground')).includes(conversationId));
  });

  test('a test conversation a streamed question started is hidden from tied keys too', async () => {
    const message = await readStream(await streamChat(service, tied.chat, agent, { message: 'When is the shop open on Saturday?', test: true }));
    const conversationId = (message.metadata as { conversationId: string }).conversationId;
    assertError(await read(tied.read, conversationId), 404, 'not_found');
    assert.equal((await read(ws.keys.read, conversationId)).body.data.channel, 'playground');
  });

  test('a test conversation a workspace key started is hidden from tied keys, while the workspace key may continue it', async () => {
    const asked = await ask(ws.keys.chat, { test: true });
    const conversationId = asked.body.data.conversationId;
    assertError(await read(tied.read, conversationId), 404, 'not_found');
    assertError(await ask(tied.chat, { conversationId, message: 'And on Sunday?' }), 404, 'not_found');
    const continued = await ask(ws.keys.chat, { conversationId, message: 'And on Sunday?' });
    assert.equal(continued.status, 200);
    assert.equal(continued.body.data.conversationId, conversationId);
    const seen = await read(ws.keys.read, conversationId);
    assert.equal(seen.body.data.messageCount, 4);
    assert.equal(seen.body.data.channel, 'playground', 'a test conversation stays one');
  });

  test('a tied key’s ordinary conversation stays visible to it and can be continued', async () => {
    const asked = await ask(tied.chat, {});
    const conversationId = asked.body.data.conversationId;
    assert.equal((await read(tied.read, conversationId)).status, 200);
    assert.ok((await listed(tied.read)).includes(conversationId));
    assert.equal((await ask(tied.chat, { conversationId, message: 'And on Sunday?' })).status, 200);
    assert.equal((await read(tied.read, conversationId)).body.data.messageCount, 4);
  });

  test('a test answer costs credits like any other', async () => {
    const used = async () => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits.usedThisMonth as number;
    const before = await used();
    const asked = await ask(tied.chat, { test: true });
    assert.equal(asked.body.data.credits, 1);
    assert.equal(await used(), before + 1);
  });
});
