import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { defaultReply, isGroundingCheck, readStream, seedTexts, startModelServer, streamChat, textOf, type ChatRequest, type ModelServer } from './test-support.ts';

const KNOWLEDGE = [
  { title: 'Opening hours', content: 'Our shop in Utrecht is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00. It is closed on Sundays and public holidays.' },
  { title: 'Shipping costs', content: 'Delivery is free for orders above 50 euros. Below that amount we charge a flat fee of 4.95 euros per parcel.' },
  { title: 'Verzending', content: 'Bestellingen die voor 14.00 uur binnenkomen, versturen we dezelfde werkdag. Levering binnen Nederland duurt één tot twee werkdagen.' },
];
const INSTRUCTIONS = 'Sign every answer with: the Utrecht shop team.';

describe('chat with a provider model (an OpenAI-compatible server)', () => {
  let model: ModelServer;
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;

  before(async () => {
    model = await startModelServer();
    service = await startService({ env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws);
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { model: 'gpt-4o-mini', instructions: INSTRUCTIONS, temperature: 0.3 } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await seedTexts(service, ws.keys.manage, agent, KNOWLEDGE);
  });
  after(async () => {
    await service?.close();
    await model?.close();
  });
  beforeEach(() => {
    model.reply = defaultReply;
    model.verdict = 'supported';
    model.failing = false;
    model.firstTokenDelayMs = 0;
    model.tokenDelayMs = 0;
  });

  const ask = (body: Record<string, unknown>) => service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body });
  const conversation = (id: string) => service.api('GET', `/agents/${agent}/conversations/${id}`, { key: ws.keys.read });
  const usedThisMonth = async () => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits.usedThisMonth as number;
  /** The answer calls (not grounding checks) made since `from`. */
  const answerCalls = (from: number) => model.requests.slice(from).filter((r) => !isGroundingCheck(r));

  test('the JSON answer is the provider model’s text, named by its model and costing its creditsPerAnswer', async () => {
    model.reply = () => 'We are open on Saturday from 10:00 to 16:00.';
    const before = await usedThisMonth();
    const reply = await ask({ message: 'When is the shop open on Saturday?' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.answer, 'We are open on Saturday from 10:00 to 16:00.');
    assert.equal(reply.body.data.model, 'gpt-4o-mini');
    assert.equal(reply.body.data.credits, 1);
    assert.equal(reply.body.data.sources[0].name, 'Opening hours');
    assert.equal(await usedThisMonth(), before + 1);
    const [answer] = (await conversation(reply.body.data.conversationId)).body.data.messages.slice(1);
    assert.equal(answer.model, 'gpt-4o-mini');
    assert.equal(answer.content, reply.body.data.answer);
  });

  test('the system prompt holds the agent’s instructions, the passages found, the answer’s language; the temperature is the agent’s', async () => {
    const from = model.requests.length;
    await ask({ message: 'When is the shop open on Saturday?' });
    const [english] = answerCalls(from);
    const system = systemOf(english);
    assert.ok(system.includes(INSTRUCTIONS), system);
    assert.ok(system.includes('Saturday from 10:00 to 16:00'), system);
    assert.ok(system.includes('Answer in English'), system);
    assert.equal(english.temperature, 0.3);
    assert.equal(english.model, 'gpt-4o-mini');

    const dutchFrom = model.requests.length;
    await ask({ message: 'Hoe snel versturen jullie mijn bestelling?' });
    assert.ok(systemOf(answerCalls(dutchFrom)[0]).includes('Answer in Dutch'));

    const forcedFrom = model.requests.length;
    await ask({ message: 'Hoe snel versturen jullie mijn bestelling?', language: 'de' });
    assert.ok(systemOf(answerCalls(forcedFrom)[0]).includes('Answer in German'));
  });

  test('memory: with 12 earlier messages only the last 10 go with the question', async () => {
    let conversationId: string | undefined;
    for (let turn = 1; turn <= 6; turn++) {
      model.reply = () => `Answer number ${turn}.`;
      const reply = await ask({ message: `Question number ${turn} about the opening hours?`, conversationId });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      conversationId = reply.body.data.conversationId;
    }
    const earlier = (await conversation(conversationId!)).body.data.messages;
    assert.equal(earlier.length, 12);
    const from = model.requests.length;
    await ask({ message: 'Question number 7 about the opening hours?', conversationId });
    const sent = answerCalls(from)[0].messages.filter((m) => m.role !== 'system');
    assert.equal(sent.length, 11, 'ten remembered messages and the question');
    assert.deepEqual(
      sent.slice(0, 10).map((m) => [m.role, m.content]),
      earlier.slice(2).map((m: any) => [m.role, m.content]),
    );
    assert.deepEqual([sent[10].role, sent[10].content], ['user', 'Question number 7 about the opening hours?']);
  });

  test('grounding is the second call’s verdict: partial caps the confidence at 60, unsupported at 20', async () => {
    const from = model.requests.length;
    model.verdict = 'partial';
    const partial = await ask({ message: 'What does shipping cost below 50 euros?' });
    assert.equal(partial.status, 200);
    assert.equal(partial.body.data.grounding, 'partial');
    assert.ok(partial.body.data.confidence <= 60, `confidence ${partial.body.data.confidence}`);
    const checks = model.requests.slice(from).filter(isGroundingCheck);
    assert.equal(checks.length, 1, 'one check per answer');
    assert.ok(JSON.stringify(checks[0].messages).includes(partial.body.data.answer), 'the check reads the answer');

    model.verdict = 'unsupported';
    const unsupported = await ask({ message: 'What does shipping cost below 50 euros?' });
    assert.equal(unsupported.body.data.grounding, 'unsupported');
    assert.ok(unsupported.body.data.confidence <= 20);

    model.verdict = 'supported';
    const supported = await ask({ message: 'What does shipping cost below 50 euros?' });
    assert.equal(supported.body.data.grounding, 'supported');
    assert.ok(supported.body.data.confidence > 60, `confidence ${supported.body.data.confidence}`);
  });

  test('a streamed provider answer, read with the AI SDK client, is the model’s text; the conversation holds it and its grounding once checked', async () => {
    model.reply = () => 'Delivery is free above 50 euros; below that it is 4.95 euros per parcel.';
    model.verdict = 'partial';
    const json = await ask({ message: 'What does shipping cost?' });
    const response = await streamChat(service, ws.keys.chat, agent, { message: 'What does shipping cost?' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    const message = await readStream(response);
    assert.equal(textOf(message), 'Delivery is free above 50 euros; below that it is 4.95 euros per parcel.');
    assert.equal(textOf(message), json.body.data.answer);
    const metadata = message.metadata as any;
    assert.equal(metadata.model, 'gpt-4o-mini');
    assert.equal(metadata.credits, 1);
    assert.equal(metadata.sources[0].name, 'Shipping costs');
    assert.ok(!('grounding' in metadata), 'grounding does not arrive in the stream');

    const answer = await checkedAnswer(metadata.conversationId);
    assert.equal(answer.content, textOf(message));
    assert.equal(answer.model, 'gpt-4o-mini');
    assert.equal(answer.grounding, 'partial');
    assert.ok(answer.confidence <= 60);
    const listed = await service.api('GET', `/agents/${agent}/conversations?limit=100`, { key: ws.keys.read });
    assert.equal(listed.body.data.find((c: any) => c.id === metadata.conversationId).lastConfidence, answer.confidence);
  });

  test('a provider that is down leaves the JSON answer to the offline model, charged as the offline model', async () => {
    model.failing = true;
    const before = await usedThisMonth();
    const reply = await ask({ message: 'When is the shop open on Saturday?' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.model, 'parley-offline');
    assert.equal(reply.body.data.credits, 1);
    assert.match(reply.body.data.answer, /Saturday from 10:00 to 16:00/);
    assert.equal(reply.body.data.grounding, 'supported');
    assert.equal(await usedThisMonth(), before + 1, 'the provider’s charge was given back');
  });

  test('a provider that is down leaves the streamed answer to the offline model; the finish names the model that answered', async () => {
    model.failing = true;
    const before = await usedThisMonth();
    const message = await readStream(await streamChat(service, ws.keys.chat, agent, { message: 'When is the shop open on Saturday?' }));
    assert.match(textOf(message), /Saturday from 10:00 to 16:00/);
    const metadata = message.metadata as any;
    assert.equal(metadata.model, 'parley-offline');
    assert.equal(metadata.credits, 1);
    const answer = (await conversation(metadata.conversationId)).body.data.messages[1];
    assert.equal(answer.content, textOf(message));
    assert.equal(answer.model, 'parley-offline');
    assert.equal(answer.grounding, 'supported');
    assert.equal(await usedThisMonth(), before + 1);
  });

  test('a client that goes away mid-stream still leaves the conversation with the question and the whole answer', async () => {
    const words = Array.from({ length: 20 }, (_, i) => `word${i + 1}`);
    model.reply = () => `${words.join(' ')}.`;
    model.tokenDelayMs = 25;
    const leaving = new AbortController();
    const response = await streamChat(service, ws.keys.chat, agent, { message: 'When is the shop open on Saturday?' }, leaving.signal);
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('"text-delta"')) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the stream ended before any text');
      received += new TextDecoder().decode(value);
    }
    leaving.abort();
    const conversationId = JSON.parse(received.split('\n').find((line) => line.includes('"start"'))!.slice('data: '.length)).messageMetadata.conversationId;
    assert.ok(!received.includes('word20'), 'the client left before the end');

    const answer = await checkedAnswer(conversationId);
    const read = (await conversation(conversationId)).body.data;
    assert.equal(read.messages[0].content, 'When is the shop open on Saturday?');
    assert.equal(answer.content, `${words.join(' ')}.`);
    assert.equal(read.messageCount, 2);
  });

  test('a provider model above the plan after a move to a smaller plan is 402 model_not_allowed, and the provider is not asked', async () => {
    const agency = await service.seedWorkspace({ plan: 'agency' });
    const pricey = await seedAgent(service, agency);
    assert.equal((await service.api('PATCH', `/agents/${pricey}`, { key: agency.keys.manage, body: { model: 'gpt-4.1' } })).status, 200);
    const allowed = await service.api('POST', `/agents/${pricey}/chat`, { key: agency.keys.chat, body: { message: 'Hello?' } });
    assert.equal(allowed.body.data.model, 'gpt-4.1');
    assert.equal(allowed.body.data.credits, 10);
    assert.equal((await service.admin('PATCH', `/workspaces/${agency.id}`, { plan: 'studio' })).status, 200);
    const from = model.requests.length;
    assertError(await service.api('POST', `/agents/${pricey}/chat`, { key: agency.keys.chat, body: { message: 'Hello?' } }), 402, 'model_not_allowed');
    assertError(await service.api('POST', `/agents/${pricey}/chat`, { key: agency.keys.chat, body: { message: 'Hello?', stream: true } }), 402, 'model_not_allowed');
    assert.equal(model.requests.length, from);
  });

  /** The conversation's answer once its grounding check is stored (polled a bounded number of times). */
  async function checkedAnswer(conversationId: string) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const read = await conversation(conversationId);
      const answer = read.body.data?.messages?.[1];
      if (answer?.grounding) return answer;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('the answer’s grounding was never stored');
  }
});

function systemOf(request: ChatRequest): string {
  return request.messages.find((m) => m.role === 'system')?.content ?? '';
}
