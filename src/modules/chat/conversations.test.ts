import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { ingestWebsitePage } from '../knowledge/ingest.ts';
import { waitForSource } from '../knowledge/test-support.ts';
import { seedTexts } from './test-support.ts';

const LIST_ITEM_FIELDS = ['channel', 'firstMessage', 'from', 'id', 'lastConfidence', 'lastMessageAt', 'messageCount', 'openedBy', 'startedAt', 'userId'];
const MESSAGE_FIELDS = ['attachments', 'confidence', 'content', 'createdAt', 'feedback', 'grounding', 'held', 'id', 'model', 'page', 'role', 'sources'];
const HOURS = { title: 'Opening hours', content: 'The shop is open on Saturday from 10:00 to 16:00. It is closed on Sundays.' };

describe('conversations: list, read, erase (spec 2.8, 4.8)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    // Enterprise: no limit on agents, each test has its own.
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  /** An agent of its own for each test, so lists hold only what the test made. */
  async function freshAgent(): Promise<string> {
    const agent = await seedAgent(service, ws);
    await seedTexts(service, ws.keys.manage, agent, [HOURS]);
    return agent;
  }
  async function ask(agent: string, body: Record<string, unknown>): Promise<{ conversationId: string; messageId: string; confidence: number }> {
    const reply = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'When is the shop open on Saturday?', ...body } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data;
  }
  const list = (agent: string, query = '', key = ws.keys.read) => service.api('GET', `/agents/${agent}/conversations${query}`, { key });
  const ids = async (agent: string, query = '') => {
    const reply = await list(agent, query);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return (reply.body.data as Array<{ id: string }>).map((c) => c.id);
  };
  const setClock = async (now: string) => assert.equal((await service.admin('POST', '/clock', { now })).status, 200);

  test('list items carry exactly the fields of 2.8, newest first, in the list shape', async () => {
    const agent = await freshAgent();
    const first = await ask(agent, { userId: 'visitor-7' });
    await ask(agent, { conversationId: first.conversationId, message: 'And on Sundays?' });
    const second = await ask(agent, { message: 'Is the shop open on Saturday?', test: true });
    const reply = await list(agent);
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body).sort(), ['data', 'pagination']);
    assert.deepEqual(reply.body.pagination, { nextCursor: null });
    const [newest, older] = reply.body.data;
    assert.deepEqual([newest.id, older.id], [second.conversationId, first.conversationId]);
    for (const item of reply.body.data) assert.deepEqual(Object.keys(item).sort(), LIST_ITEM_FIELDS);
    assert.equal(older.channel, 'api');
    assert.equal(older.userId, 'visitor-7');
    assert.equal(older.messageCount, 4);
    assert.equal(older.firstMessage, 'When is the shop open on Saturday?');
    assert.equal(typeof older.lastConfidence, 'number');
    assert.equal(older.openedBy, null);
    assert.equal(older.from, null);
    assert.ok(Date.parse(older.lastMessageAt) >= Date.parse(older.startedAt));
    assert.match(older.startedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(newest.channel, 'playground');
    assert.equal(newest.userId, null);
    assert.equal(newest.messageCount, 2);
    assert.equal(newest.lastConfidence, second.confidence);
  });

  test('the channel filter keeps one channel', async () => {
    const agent = await freshAgent();
    const api = await ask(agent, {});
    const playground = await ask(agent, { test: true });
    assert.deepEqual(await ids(agent, '?channel=api'), [api.conversationId]);
    assert.deepEqual(await ids(agent, '?channel=playground'), [playground.conversationId]);
    assert.deepEqual(await ids(agent, '?channel=widget'), []);
  });

  test('from and to are inclusive UTC days on the last message', async () => {
    const agent = await freshAgent();
    await setClock('2031-03-10T23:59:59.000Z');
    const a = await ask(agent, {});
    await setClock('2031-03-11T00:00:00.000Z');
    const b = await ask(agent, {});
    await setClock('2031-03-11T23:59:58.000Z');
    const c = await ask(agent, {});
    await setClock('2031-03-12T00:00:01.000Z');
    const d = await ask(agent, {});
    // a goes on on the 12th: it now counts on that day, not on the 10th.
    await ask(agent, { conversationId: a.conversationId, message: 'And on Sundays?' });

    assert.deepEqual(await ids(agent, '?from=2031-03-11&to=2031-03-11'), [c.conversationId, b.conversationId]);
    assert.deepEqual(await ids(agent, '?to=2031-03-10'), []);
    assert.deepEqual(await ids(agent, '?from=2031-03-12'), [d.conversationId, a.conversationId]);
    assert.deepEqual(await ids(agent, '?to=2031-03-11'), [c.conversationId, b.conversationId]);
    assert.deepEqual(await ids(agent, '?from=2031-03-10&to=2031-03-12'), [d.conversationId, c.conversationId, b.conversationId, a.conversationId]);
    assert.deepEqual(await ids(agent, '?from=2031-03-13'), []);
    assert.deepEqual(await ids(agent, '?from=2031-03-11&to=2031-03-11&channel=playground'), []);
    // The widest days PostgreSQL dates allow: the day after 9999-12-31 is still found.
    assert.equal((await ids(agent, '?from=0001-01-01&to=9999-12-31')).length, 4);
    assert.deepEqual(await ids(agent, '?from=9999-12-31'), []);
  });

  test('limit and cursor page through every conversation exactly once, also while conversations go on', async () => {
    const agent = await freshAgent();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.unshift((await ask(agent, { message: `Question ${i}: when is the shop open on Saturday?` })).conversationId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply = await list(agent, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.ok(reply.body.data.length <= 3);
      seen.push(...reply.body.data.map((c: { id: string }) => c.id));
      cursor = reply.body.pagination.nextCursor;
      pages++;
      if (pages === 1) {
        // Between pages: a listed conversation goes on and a new one starts; neither moves what is left to read.
        await ask(agent, { conversationId: made[0], message: 'And on Sundays?' });
        await ask(agent, { message: 'A conversation started while paging?' });
      }
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, made);
    assert.equal((await ids(agent, '?limit=100')).length, 8);
    assert.deepEqual((await list(agent, '?limit=8')).body.pagination, { nextCursor: null });
  });

  test('questions sent at once to one conversation are all kept with their answers, none lost to a position taken twice', async () => {
    const agent = await freshAgent();
    const first = await ask(agent, {});
    const asked = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { conversationId: first.conversationId, message: `Question ${i}: and on Sundays?`, stream: i % 2 === 1 } }),
      ),
    );
    assert.deepEqual(asked.map((r) => r.status), [200, 200, 200, 200, 200]);
    const read = (await service.api('GET', `/agents/${agent}/conversations/${first.conversationId}`, { key: ws.keys.read })).body.data;
    assert.equal(read.messageCount, 12);
    assert.equal(read.messages.length, 12);
    assert.equal(new Set(read.messages.map((m: { id: string }) => m.id)).size, 12);
    for (let i = 0; i < 5; i++) assert.ok(read.messages.some((m: { content: string }) => m.content === `Question ${i}: and on Sundays?`));
    assert.equal(read.messages.filter((m: { role: string }) => m.role === 'assistant').length, 6);
  });

  test('bad from, to, channel, limit, cursor or an unknown parameter are 400 invalid_request naming the field', async () => {
    const agent = await freshAgent();
    const cases: Array<[string, string]> = [
      ['?from=2031-13-01', 'from'],
      ['?from=yesterday', 'from'],
      ['?to=2031-02-30', 'to'],
      ['?from=2031-03-12&to=2031-03-11', 'from'],
      ['?channel=sms', 'channel'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?cursor=not-a-cursor', 'cursor'],
      [`?cursor=${Buffer.from(JSON.stringify(['2031-03-10T00:00:00.000Z', "x'; drop table conversations; --"])).toString('base64url')}`, 'cursor'],
      ['?sort=oldest', 'sort'],
    ];
    for (const [query, field] of cases) {
      const reply = await list(agent, query);
      assertError(reply, 400, 'invalid_request');
      assert.ok(
        reply.body.error.details.some((d: { field: string }) => d.field === field),
        `${query}: ${JSON.stringify(reply.body.error.details)}`,
      );
    }
  });

  test('GET one has the conversation’s fields and every message field of 2.8', async () => {
    const agent = await freshAgent();
    const page = 'https://shop.example/hours';
    const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_test', url: page, title: 'Our hours', text: 'The shop is open on Saturday from 10:00 to 16:00.' });
    await waitForSource(service, ws.keys.read, agent, sourceId);
    const asked = await ask(agent, { page: { url: `${page}?utm=1#now` }, userId: 'visitor-8' });
    const reply = await service.api('GET', `/agents/${agent}/conversations/${asked.conversationId}`, { key: ws.keys.read });
    assert.equal(reply.status, 200);
    const conversation = reply.body.data;
    assert.deepEqual(Object.keys(conversation).sort(), [...LIST_ITEM_FIELDS, 'messages'].sort());
    assert.equal(conversation.userId, 'visitor-8');
    const [question, answer] = conversation.messages;
    for (const message of conversation.messages) assert.deepEqual(Object.keys(message).sort(), MESSAGE_FIELDS);
    assert.deepEqual(
      { ...question, id: undefined, createdAt: undefined },
      {
        id: undefined,
        createdAt: undefined,
        role: 'user',
        content: 'When is the shop open on Saturday?',
        attachments: [],
        page: { url: page, title: 'Our hours' },
        confidence: null,
        grounding: null,
        sources: [],
        feedback: null,
        model: null,
        held: false,
      },
    );
    assert.match(question.id, /^msg_/);
    assert.equal(answer.id, asked.messageId);
    assert.equal(answer.role, 'assistant');
    assert.equal(answer.confidence, asked.confidence);
    assert.equal(answer.grounding, 'supported');
    assert.equal(answer.sources[0].id, sourceId);
    assert.deepEqual(Object.keys(answer.sources[0]).sort(), ['id', 'name', 'similarity', 'url']);
    assert.equal(answer.sources[0].url, page, 'a website source carries its address');
    assert.equal(answer.feedback, null);
    assert.equal(answer.model, 'parley-offline');
    assert.equal(answer.held, false);
    assert.equal(answer.page, null);
    assert.deepEqual(answer.attachments, []);
    assert.ok(Date.parse(answer.createdAt) >= Date.parse(question.createdAt));
    assert.equal(conversation.lastConfidence, answer.confidence);
  });

  test('DELETE erases the conversation with its messages; the month’s usage stays; the audit trail keeps conversation.delete', async () => {
    const agent = await freshAgent();
    const kept = await ask(agent, {});
    const asked = await ask(agent, {});
    await ask(agent, { conversationId: asked.conversationId, message: 'And on Sundays?' });
    const usage = async () => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits.usedThisMonth as number;
    const usedBefore = await usage();

    const erased = await service.api('DELETE', `/agents/${agent}/conversations/${asked.conversationId}`, { key: ws.keys.manage });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.deepEqual(erased.body, { data: { id: asked.conversationId, deleted: true } });
    assertError(await service.api('GET', `/agents/${agent}/conversations/${asked.conversationId}`, { key: ws.keys.read }), 404, 'not_found');
    assert.deepEqual(await ids(agent), [kept.conversationId]);
    const left = await sql<{ n: number }>`select count(*)::int as n from messages where conversation_id = ${asked.conversationId}`.execute(service.ctx.db);
    assert.equal(left.rows[0].n, 0, 'its messages are gone');
    assertError(await service.api('DELETE', `/agents/${agent}/conversations/${asked.conversationId}`, { key: ws.keys.manage }), 404, 'not_found');
    assertError(await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Hello?', conversationId: asked.conversationId } }), 404, 'not_found');
    assert.equal(await usage(), usedBefore);

    const audit = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    const entry = audit.body.data.find((e: { action: string; target: string }) => e.action === 'conversation.delete' && e.target.includes(asked.conversationId));
    assert.ok(entry, JSON.stringify(audit.body.data.slice(0, 5)));
    assert.equal(entry.keyId, ws.keyIds.manage);
    assert.equal(audit.body.data.filter((e: { action: string; target: string }) => e.action === 'conversation.delete' && e.target.includes(asked.conversationId)).length, 1, 'the refused second DELETE is not recorded');
  });

  test('another workspace’s or agent’s conversation is 404 for GET and DELETE, and stays', async () => {
    const agent = await freshAgent();
    const asked = await ask(agent, {});
    const otherAgent = await seedAgent(service, ws, 'Other');
    const foreign = await service.seedWorkspace({ plan: 'studio' });
    const foreignAgent = await seedAgent(service, foreign);
    const attempts: Array<[string, string]> = [
      [otherAgent, ws.keys.manage],
      [foreignAgent, foreign.keys.manage],
      [agent, foreign.keys.manage],
    ];
    for (const [target, key] of attempts) {
      assertError(await service.api('GET', `/agents/${target}/conversations/${asked.conversationId}`, { key }), 404, 'not_found');
      assertError(await service.api('DELETE', `/agents/${target}/conversations/${asked.conversationId}`, { key }), 404, 'not_found');
    }
    assert.deepEqual(await ids(otherAgent), []);
    assert.equal((await service.api('GET', `/agents/${agent}/conversations/${asked.conversationId}`, { key: ws.keys.read })).status, 200, 'still there');
  });

  test('only a manage key may erase: read and chat keys are 403 forbidden', async () => {
    const agent = await freshAgent();
    const asked = await ask(agent, {});
    for (const key of [ws.keys.read, ws.keys.chat]) {
      assertError(await service.api('DELETE', `/agents/${agent}/conversations/${asked.conversationId}`, { key }), 403, 'forbidden');
    }
    assert.equal((await service.api('GET', `/agents/${agent}/conversations/${asked.conversationId}`, { key: ws.keys.read })).status, 200);
  });
});
