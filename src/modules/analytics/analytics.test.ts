import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { ingestWebsitePage } from '../knowledge/ingest.ts';
import { waitForSource } from '../knowledge/test-support.ts';
import { seedTexts } from '../chat/test-support.ts';
import { visitorRequest } from '../visitors/test-support.ts';
import { WEAK_CONFIDENCE } from './rules.ts';
import { periodFigures } from './service.ts';

const HOURS = { title: 'Opening hours', content: 'The shop is open on Saturday from 10:00 to 16:00. It is closed on Sundays.' };
const PAGE = 'https://shop.example.com/hours';
const PRIVACY = 'https://shop.example.com/privacy';
const FIGURE_FIELDS = [
  'answers', 'averageConfidence', 'bands', 'conversations', 'from', 'helpful', 'notHelpful', 'questions', 'series', 'to', 'topQuestions', 'weakShare', 'weakest', 'widget',
];

interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  confidence: number | null;
  sources: unknown[];
  feedback: number | null;
}

describe('analytics (spec 2.14, 4.13)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_VISITOR_LIMIT_FACTOR: '1000' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  const setClock = async (now: string) => assert.equal((await service.admin('POST', '/clock', { now })).status, 200);
  const analytics = (agent: string, query = '', key = ws.keys.read) => service.api('GET', `/agents/${agent}/analytics${query}`, { key });
  async function figures(agent: string, query = '', key = ws.keys.read) {
    const reply = await analytics(agent, query, key);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data;
  }

  function assertInvalid(reply: Awaited<ReturnType<typeof analytics>>, field: string): void {
    assertError(reply, 400, 'invalid_request');
    assert.deepEqual(reply.body.error.details.map((d: { field: string }) => d.field), [field]);
  }

  async function freshAgent(): Promise<string> {
    const agent = await seedAgent(service, ws);
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { leadCapture: { enabled: true, privacyUrl: PRIVACY } } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await seedTexts(service, ws.keys.manage, agent, [HOURS]);
    const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_test', url: PAGE, title: 'Our hours', text: 'Repairs take two days.' });
    await waitForSource(service, ws.keys.read, agent, sourceId);
    return agent;
  }
  async function ask(agent: string, body: Record<string, unknown>): Promise<{ conversationId: string; messageId: string }> {
    const reply = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data;
  }
  async function visitorAsk(agent: string, body: Record<string, unknown>, token?: string) {
    const reply = await visitorRequest(service, 'POST', `/agents/${agent}/chat`, { body, token });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return { conversationId: reply.body.data.conversationId as string, messageId: reply.body.data.messageId as string, token: (reply.body.data.visitorToken ?? token) as string };
  }
  async function visitorPost(agent: string, path: string, body: unknown, token?: string, status = 200) {
    const reply = await visitorRequest(service, 'POST', `/agents/${agent}${path}`, { body, token });
    assert.equal(reply.status, status, JSON.stringify(reply.body));
  }
  async function messagesOf(agent: string, conversationId: string): Promise<Message[]> {
    const reply = await service.api('GET', `/agents/${agent}/conversations/${conversationId}`, { key: ws.keys.read });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data.messages;
  }

  /** The figures worked out here from the conversations' own messages, as the docs define them. */
  function expected(messages: Message[], conversationDays: string[], days: string[]) {
    const answers = messages.filter((m) => m.role === 'assistant');
    const rated = answers.filter((m) => m.confidence !== null);
    const weak = (m: Message) => (m.confidence !== null && m.confidence < WEAK_CONFIDENCE) || m.sources.length === 0;
    const mean = (list: Message[]) => (list.length === 0 ? null : Math.round((list.reduce((s, m) => s + m.confidence!, 0) / list.length) * 10) / 10);
    const groups = new Map<string, number>();
    for (const m of messages.filter((m) => m.role === 'user')) {
      const key = m.content.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).sort().join(' ');
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    return {
      conversations: conversationDays.length,
      questions: messages.filter((m) => m.role === 'user').length,
      answers: answers.length,
      helpful: answers.filter((m) => m.feedback === 1).length,
      notHelpful: answers.filter((m) => m.feedback === -1).length,
      averageConfidence: mean(rated),
      weakShare: answers.length === 0 ? null : Math.round((answers.filter(weak).length / answers.length) * 10_000) / 10_000,
      bands: {
        high: rated.filter((m) => m.confidence! >= 80).length,
        medium: rated.filter((m) => m.confidence! >= 50 && m.confidence! < 80).length,
        low: rated.filter((m) => m.confidence! < 50).length,
      },
      groupCounts: [...groups.values()].sort((a, b) => b - a),
      weakestConfidences: rated.map((m) => m.confidence!).sort((a, b) => a - b).slice(0, 10),
      perDay: days.map((day) => ({
        date: day,
        conversations: conversationDays.filter((d) => d === day).length,
        questions: messages.filter((m) => m.role === 'user' && m.createdAt.startsWith(day)).length,
        averageConfidence: mean(rated.filter((m) => m.createdAt.startsWith(day))),
      })),
    };
  }

  test('the figures match those worked out from the conversations made through the chat and visitor APIs', async () => {
    const agent = await freshAgent();
    await setClock('2026-03-09T10:00:00.000Z');
    const conversations: Array<{ id: string; day: string }> = [];
    const a = await ask(agent, { message: 'When is the shop open on Saturday?' });
    await ask(agent, { message: 'And is it closed on Sundays?', conversationId: a.conversationId });
    conversations.push({ id: a.conversationId, day: '2026-03-09' });
    const b = await ask(agent, { message: 'On SATURDAY: when is the shop open??' });
    conversations.push({ id: b.conversationId, day: '2026-03-09' });
    await ask(agent, { message: 'When is the shop open on Saturday?', test: true });
    const v1 = await visitorAsk(agent, { message: 'Open on Saturday, when is the shop?', openedBy: 'launcher', page: { url: `${PAGE}?ref=ad` } });
    conversations.push({ id: v1.conversationId, day: '2026-03-09' });
    await visitorPost(agent, '/feedback', { messageId: v1.messageId, value: 1 }, v1.token);
    await visitorPost(agent, '/events', { type: 'opened', openedBy: 'launcher', page: { url: PAGE } }, undefined, 202);
    await visitorPost(agent, '/events', { type: 'opened', openedBy: 'greeting' }, undefined, 202);
    await visitorPost(agent, '/events', { type: 'lead_form_declined' }, undefined, 202);
    await visitorPost(agent, '/leads', { moment: 'button', email: 'ann@example.org', conversationId: v1.conversationId }, v1.token, 201);

    await setClock('2026-03-11T09:00:00.000Z');
    const v2 = await visitorAsk(agent, { message: 'What is the capital of Peru?', openedBy: 'nudge', page: { url: PAGE } });
    conversations.push({ id: v2.conversationId, day: '2026-03-11' });
    const v2b = await visitorAsk(agent, { message: 'Do you sell bicycles in blue?', conversationId: v2.conversationId }, v2.token);
    await visitorPost(agent, '/feedback', { messageId: v2b.messageId, value: -1 }, v2.token);
    const v3 = await visitorAsk(agent, { message: 'Is the shop open on Saturday?', openedBy: 'greeting', page: { url: 'https://shop.example.com/' } });
    conversations.push({ id: v3.conversationId, day: '2026-03-11' });
    await visitorPost(agent, '/events', { type: 'opened', openedBy: 'nudge' }, undefined, 202);
    await setClock('2026-03-12T12:00:00.000Z');

    const messages = (await Promise.all(conversations.map((c) => messagesOf(agent, c.id)))).flat();
    const days = ['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12'];
    const want = expected(messages, conversations.map((c) => c.day), days);
    const got = await figures(agent, '?from=2026-03-09&to=2026-03-12');
    assert.deepEqual(Object.keys(got).sort(), [...FIGURE_FIELDS, 'testConversations'].sort());
    assert.equal(got.testConversations, 1);
    for (const field of ['conversations', 'questions', 'answers', 'helpful', 'notHelpful', 'averageConfidence', 'weakShare'] as const) {
      assert.equal(got[field], want[field], field);
    }
    assert.equal(got.helpful, 1);
    assert.equal(got.notHelpful, 1);
    assert.ok(want.weakShare! > 0 && want.weakShare! < 1, 'some answers weak, some not');
    assert.deepEqual(
      { high: got.bands.high.answers, medium: got.bands.medium.answers, low: got.bands.low.answers },
      want.bands,
    );
    assert.deepEqual(got.bands.high, { min: 80, max: 100, answers: want.bands.high });
    assert.deepEqual(got.series.map((d: any) => d.date), days);
    assert.deepEqual(got.series.map((d: any) => ({ date: d.date, conversations: d.conversations, questions: d.questions, averageConfidence: d.averageConfidence })), want.perDay);
    assert.deepEqual(got.series.map((d: any) => d.leads), [1, 0, 0, 0]);
    assert.deepEqual(got.series.map((d: any) => d.opened), [2, 0, 1, 0]);
    // Three ways of asking when the shop opens on Saturday are one question.
    assert.deepEqual(got.topQuestions.map((q: any) => q.count), want.groupCounts);
    assert.equal(got.topQuestions[0].count, 3);
    assert.match(got.topQuestions[0].text, /saturday/i);
    assert.deepEqual(got.weakest.map((w: any) => w.confidence), want.weakestConfidences);
    const lowest = got.weakest[0];
    const lowestAnswer = messages.find((m) => m.id === lowest.messageId)!;
    assert.equal(lowest.answer, lowestAnswer.content.slice(0, 200));
    const question = messages[messages.findIndex((m) => m.id === lowest.messageId) - 1];
    assert.equal(lowest.question, question.content);
    assert.ok(conversations.some((c) => c.id === lowest.conversationId));
    assert.deepEqual(got.widget, {
      opened: 3,
      conversations: 3,
      openedBy: { launcher: 1, greeting: 1, nudge: 1 },
      conversationsBy: { launcher: 1, greeting: 1, nudge: 1 },
      leads: 1,
      leadFormsDeclined: 1,
      startPages: [
        { url: PAGE, title: 'Our hours', conversations: 2 },
        { url: 'https://shop.example.com/', title: null, conversations: 1 },
      ],
    });

    // A period of one day: only that day's figures.
    const second = await figures(agent, '?from=2026-03-11&to=2026-03-11');
    assert.equal(second.conversations, 2);
    assert.equal(second.widget.leads, 0);
    assert.equal(second.testConversations, 0);
    assert.equal(second.series.length, 1);

    // Deleting a conversation takes it out of every figure.
    const erased = await service.api('DELETE', `/agents/${agent}/conversations/${v1.conversationId}`, { key: ws.keys.manage });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    const left = conversations.filter((c) => c.id !== v1.conversationId);
    const leftMessages = (await Promise.all(left.map((c) => messagesOf(agent, c.id)))).flat();
    const wantAfter = expected(leftMessages, left.map((c) => c.day), days);
    const afterDelete = await figures(agent, '?from=2026-03-09&to=2026-03-12');
    for (const field of ['conversations', 'questions', 'answers', 'helpful', 'notHelpful', 'averageConfidence', 'weakShare'] as const) {
      assert.equal(afterDelete[field], wantAfter[field], field);
    }
    assert.equal(afterDelete.helpful, 0);
    assert.deepEqual(afterDelete.topQuestions.map((q: any) => q.count), wantAfter.groupCounts);
    assert.ok(!JSON.stringify(afterDelete).includes('Open on Saturday, when is the shop?'), 'the erased question is nowhere');
    assert.equal(afterDelete.widget.leads, 0, 'the lead went with its conversation');
    assert.equal(afterDelete.widget.conversations, 2);
    assert.deepEqual(afterDelete.widget.startPages.map((p: any) => p.conversations), [1, 1]);
    assert.ok(!afterDelete.weakest.some((w: any) => w.conversationId === v1.conversationId));

    // Feedback cleared no longer counts; a corrected answer leaves weakest.
    await visitorPost(agent, '/feedback', { messageId: v2b.messageId, value: null }, v2.token);
    const weakestBefore = afterDelete.weakest[0];
    const corrected = await service.api('POST', `/agents/${agent}/messages/${weakestBefore.messageId}/correction`, {
      key: ws.keys.manage,
      body: { question: 'What is the capital of Peru?', answer: 'We only know about our shop.' },
    });
    assert.equal(corrected.status, 201, JSON.stringify(corrected.body));
    const afterChanges = await figures(agent, '?from=2026-03-09&to=2026-03-12');
    assert.equal(afterChanges.notHelpful, 0);
    assert.equal(afterChanges.answers, afterDelete.answers);
    assert.ok(!afterChanges.weakest.some((w: any) => w.messageId === weakestBefore.messageId));
    assert.deepEqual(afterChanges.weakest.map((w: any) => w.messageId), afterDelete.weakest.slice(1).map((w: any) => w.messageId));

    // The report builder's verb gives the same object without testConversations, and only in the agent's workspace.
    const { testConversations, ...withoutTests } = afterChanges;
    assert.equal(testConversations, 1);
    assert.deepEqual(await periodFigures(service.ctx, ws.id, agent, { from: '2026-03-09', to: '2026-03-12' }), withoutTests);
    const stranger = await service.seedWorkspace({ plan: 'enterprise' });
    await assert.rejects(periodFigures(service.ctx, stranger.id, agent, { from: '2026-03-09', to: '2026-03-12' }), { code: 'not_found' });
  });

  test('a top question reads as the phrasing its busiest day of the period kept, the latest of equally busy days', async () => {
    const agent = await seedAgent(service, ws);
    // One group (the same words), phrased differently each day; a day keeps its first phrasing.
    const phrasings = ['When do you open on Saturday?', 'On Saturday, when do you open?', 'Do you open on Saturday, when?'];
    for (const [day, text, times] of [['2026-08-01', phrasings[0], 2], ['2026-08-02', phrasings[1], 2], ['2026-08-03', phrasings[2], 1]] as const) {
      await setClock(`${day}T10:00:00.000Z`);
      for (let i = 0; i < times; i++) await ask(agent, { message: text });
    }
    const topOf = async (from: string, to: string) => (await figures(agent, `?from=${from}&to=${to}`)).topQuestions;
    assert.deepEqual(await topOf('2026-08-01', '2026-08-03'), [{ text: phrasings[1], count: 5 }]);
    assert.deepEqual(await topOf('2026-08-01', '2026-08-01'), [{ text: phrasings[0], count: 2 }]);
    assert.deepEqual(await topOf('2026-08-03', '2026-08-03'), [{ text: phrasings[2], count: 1 }]);
  });

  test('the period: the last 30 days by default, at most 366 days, from not after to, days written YYYY-MM-DD', async () => {
    const agent = await seedAgent(service, ws);
    await setClock('2026-05-20T23:30:00.000Z');
    const standard = await figures(agent);
    assert.equal(standard.from, '2026-04-21');
    assert.equal(standard.to, '2026-05-20');
    assert.equal(standard.series.length, 30);
    assert.ok(standard.series.every((d: any) => d.conversations === 0 && d.averageConfidence === null));
    assert.equal(standard.averageConfidence, null);
    assert.equal(standard.weakShare, null);
    assert.deepEqual([standard.topQuestions, standard.weakest, standard.widget.startPages], [[], [], []]);
    const onlyTo = await figures(agent, '?to=2026-01-31');
    assert.deepEqual([onlyTo.from, onlyTo.to], ['2026-01-02', '2026-01-31']);
    const onlyFrom = await figures(agent, '?from=2026-05-01');
    assert.deepEqual([onlyFrom.from, onlyFrom.to], ['2026-05-01', '2026-05-20']);
    const leapYear = await figures(agent, '?from=2024-01-01&to=2024-12-31');
    assert.equal(leapYear.series.length, 366);
    assertInvalid(await analytics(agent, '?from=2024-01-01&to=2025-01-01'), 'to');
    assertInvalid(await analytics(agent, '?from=2025-05-19'), 'from');
    assertInvalid(await analytics(agent, '?from=2026-03-02&to=2026-03-01'), 'to');
    assertInvalid(await analytics(agent, '?from=2026-3-1'), 'from');
    assertInvalid(await analytics(agent, '?to=2026-02-30'), 'to');
    assertError(await analytics(agent, '?days=7'), 400, 'invalid_request');
  });

  test('keys: read and manage see the figures, chat is forbidden; a tied key gets no testConversations and 404 for another agent; another workspace 404', async () => {
    const agent = await seedAgent(service, ws);
    const other = await seedAgent(service, ws);
    await setClock('2026-06-01T08:00:00.000Z');
    assert.equal((await analytics(agent, '', ws.keys.manage)).status, 200);
    assertError(await analytics(agent, '', ws.keys.chat), 403, 'forbidden');
    const tied = await ws.addKey('read', agent);
    const seen = await figures(agent, '', tied.key);
    assert.deepEqual(Object.keys(seen).sort(), FIGURE_FIELDS);
    assertError(await analytics(other, '', tied.key), 404, 'not_found');
    const stranger = await service.seedWorkspace({ plan: 'enterprise' });
    assertError(await analytics(agent, '', stranger.keys.read), 404, 'not_found');
    assertError(await analytics('ag_doesnotexist', ''), 404, 'not_found');
  });
});
