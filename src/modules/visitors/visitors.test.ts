import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { PHRASES } from '../chat/language.ts';
import { seedTexts } from '../chat/test-support.ts';
import { identityHash, verifyIdentity } from './identity.ts';
import { networkOf } from './limits.ts';
import { startVisitorConversation, visitorRequest, type VisitorRequest } from './test-support.ts';

const SITE = 'https://shop.example.com';

describe('the visitor API', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  let otherAgent: string;
  let foreign: SeededWorkspace;
  let foreignAgent: string;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws, 'Bike shop');
    otherAgent = await seedAgent(service, ws, 'Second agent');
    foreign = await service.seedWorkspace({ plan: 'studio' });
    foreignAgent = await seedAgent(service, foreign, 'Foreign agent');
    await seedTexts(service, ws.keys.manage, agent, [
      { title: 'Opening hours', content: 'Our workshop is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00.' },
    ]);
  });
  after(async () => service?.close());

  const call = (method: string, path: string, options?: VisitorRequest) => visitorRequest(service, method, path, options);
  const chat = (agentId: string, body: Record<string, unknown>, options: VisitorRequest = {}) => call('POST', `/agents/${agentId}/chat`, { ...options, body });
  const conversationOf = async (agentId: string, conversationId: string, owner = ws) =>
    service.api('GET', `/agents/${agentId}/conversations/${conversationId}`, { key: owner.keys.read });

  // ------------------------------------------------------------ the agent's public settings

  test('GET agents/{id} gives the public widget settings without a key, and never instructions, sources, origins or the model', async () => {
    await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { instructions: 'Secret internal instructions', welcomeMessage: 'Hi! Ask me about repairs.' } });
    const reply = await call('GET', `/agents/${agent}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const data = reply.body.data;
    assert.deepEqual(Object.keys(data).sort(), [
      'actions', 'attachmentsEnabled', 'branding', 'calendlyUrl', 'id', 'language', 'languages', 'leadCapture', 'name', 'proactive', 'proofOfWork', 'tickets', 'welcomeMessage',
    ]);
    assert.equal(data.id, agent);
    assert.equal(data.name, 'Bike shop');
    assert.equal(data.welcomeMessage, 'Hi! Ask me about repairs.');
    assert.ok(data.branding.translations);
    assert.doesNotMatch(JSON.stringify(data), /Secret internal instructions|allowedOrigins|instructions|"model"/);
  });

  test('an agent that does not exist, or an unknown path, is 404 not_found in the error body', async () => {
    assertError(await call('GET', '/agents/ag_doesnotexist00000000'), 404, 'not_found');
    assertError(await chat('ag_doesnotexist00000000', { message: 'Hello?' }), 404, 'not_found');
    assertError(await call('GET', '/nothing-here'), 404, 'not_found');
    for (const id of ['ag%00nul', `ag_${'x'.repeat(150)}`]) {
      assertError(await call('GET', `/agents/${id}`), 404, 'not_found');
      assertError(await chat(id, { message: 'Hello?' }), 404, 'not_found');
    }
    assertError(await call('GET', `/agents/${agent}/nothing-here`), 404, 'not_found');
  });

  // ------------------------------------------------------------ chat and the visitor token

  test('a new conversation answers as POST /chat does, with a visitor token, channel widget, openedBy and the page kept', async () => {
    const reply = await chat(agent, { message: 'When are you open on Saturday?', openedBy: 'greeting', page: { url: 'https://shop.example.com/repairs?x=1' }, language: 'en' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const data = reply.body.data;
    assert.match(data.conversationId, /^conv_/);
    assert.match(data.messageId, /^msg_/);
    assert.match(data.answer, /10:00 to 16:00/);
    assert.equal(data.model, 'parley-offline');
    assert.equal(data.credits, 1);
    assert.match(data.visitorToken, /^vt_[0-9A-Za-z]{43}$/);
    const conversation = (await conversationOf(agent, data.conversationId)).body.data;
    assert.equal(conversation.channel, 'widget');
    assert.equal(conversation.openedBy, 'greeting');
    assert.equal(conversation.messages[0].page.url, 'https://shop.example.com/repairs');
    assert.equal(conversation.messages[1].id, data.messageId);
  });

  test('channel iframe is kept; a conversation opened without openedBy has none', async () => {
    const reply = await chat(agent, { message: 'Hello', channel: 'iframe' });
    assert.equal(reply.status, 200);
    const conversation = (await conversationOf(agent, reply.body.data.conversationId)).body.data;
    assert.equal(conversation.channel, 'iframe');
    assert.equal(conversation.openedBy, null);
  });

  test('a decline in the widget names neither the forms nor the booking link (the widget shows them itself), where a decline to a key names them', async () => {
    const declining = await seedAgent(service, ws, 'Declining agent');
    const patched = await service.api('PATCH', `/agents/${declining}`, {
      key: ws.keys.manage,
      body: { calendlyUrl: 'https://calendly.com/bike-shop/repair', tickets: { enabled: true, privacyUrl: `${SITE}/privacy` }, leadCapture: { enabled: true, privacyUrl: `${SITE}/privacy` } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const question = { message: 'Do you rent out submarines for weddings?', language: 'en' };
    const byKey = await service.api('POST', `/agents/${declining}/chat`, { key: ws.keys.chat, body: question });
    assert.equal(byKey.body.data.answer, `${PHRASES.en.decline}\n\n${PHRASES.en.ticket} ${PHRASES.en.booking.replace('{url}', 'https://calendly.com/bike-shop/repair')}`);
    for (const channel of ['widget', 'iframe']) {
      const reply = await chat(declining, { ...question, channel });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      // The agent's material holds no contact details: the decline alone.
      assert.equal(reply.body.data.answer, PHRASES.en.decline, channel);
      assert.deepEqual(reply.body.data.sources, [], channel);
    }
  });

  test('the token continues its own conversation; the reply carries no new token', async () => {
    const started = await startVisitorConversation(service, agent, 'When are you open?');
    const reply = await chat(agent, { message: 'And on Saturday?', conversationId: started.conversationId }, { token: started.token });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.conversationId, started.conversationId);
    assert.equal(reply.body.data.visitorToken, undefined);
    assert.equal((await conversationOf(agent, started.conversationId)).body.data.messageCount, 4);
  });

  test('one visitor can never extend another’s conversation: a missing or wrong token is 404, and nothing is added', async () => {
    const mine = await startVisitorConversation(service, agent);
    const theirs = await startVisitorConversation(service, agent);
    assertError(await chat(agent, { message: 'Let me in', conversationId: theirs.conversationId }), 404, 'not_found');
    assertError(await chat(agent, { message: 'Let me in', conversationId: theirs.conversationId }, { token: mine.token }), 404, 'not_found');
    assertError(await chat(agent, { message: 'Let me in', conversationId: theirs.conversationId }, { token: `${theirs.token}x` }), 404, 'not_found');
    assertError(await chat(agent, { message: 'Let me in', conversationId: theirs.conversationId }, { token: '' }), 404, 'not_found');
    assert.equal((await conversationOf(agent, theirs.conversationId)).body.data.messageCount, 2);
  });

  test('a conversation of the keyed API, or a test conversation, cannot be named by a visitor', async () => {
    const mine = await startVisitorConversation(service, agent);
    for (const test of [false, true]) {
      const keyed = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Hello', test } });
      assert.equal(keyed.status, 200);
      assertError(await chat(agent, { message: 'Mine now', conversationId: keyed.body.data.conversationId }, { token: mine.token }), 404, 'not_found');
    }
  });

  test('cross-agent and cross-workspace: a conversation and its token reach only the agent it was started with', async () => {
    const started = await startVisitorConversation(service, agent);
    for (const other of [otherAgent, foreignAgent]) {
      assertError(await chat(other, { message: 'Hi', conversationId: started.conversationId }, { token: started.token }), 404, 'not_found');
      assertError(await call('POST', `/agents/${other}/feedback`, { body: { messageId: started.messageId, value: 1 }, token: started.token }), 404, 'not_found');
    }
    // Another workspace's agent answers its own visitors, in its own workspace.
    const theirs = await startVisitorConversation(service, foreignAgent);
    assert.equal((await conversationOf(foreignAgent, theirs.conversationId, foreign)).status, 200);
    assertError(await conversationOf(foreignAgent, theirs.conversationId, ws), 404, 'not_found');
  });

  test('a conversation erased by the team can no longer be continued', async () => {
    const started = await startVisitorConversation(service, agent);
    assert.equal((await service.api('DELETE', `/agents/${agent}/conversations/${started.conversationId}`, { key: ws.keys.manage })).status, 200);
    assertError(await chat(agent, { message: 'Still there?', conversationId: started.conversationId }, { token: started.token }), 404, 'not_found');
  });

  test('a streamed new conversation carries its token in x-visitor-token, exposed to the admitted page; the stream continues with it', async () => {
    const reply = await chat(agent, { message: 'When are you open on Saturday?', stream: true }, { origin: SITE });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/event-stream/);
    const token = reply.headers.get('x-visitor-token');
    assert.match(token ?? '', /^vt_/);
    assert.equal(reply.headers.get('access-control-allow-origin'), SITE);
    assert.match(reply.headers.get('access-control-expose-headers') ?? '', /x-visitor-token/);
    assert.match(String(reply.body), /10:00 to 16:00/);
    const conversationId = /"conversationId":"(conv_\w+)"/.exec(String(reply.body))?.[1];
    assert.ok(conversationId);
    const next = await chat(agent, { message: 'And on Friday?', stream: true, conversationId }, { token: token! });
    assert.equal(next.status, 200);
    assert.equal(next.headers.get('x-visitor-token'), null, 'no new token for a conversation that goes on');
    assertError(await chat(agent, { message: 'Hijack', stream: true, conversationId }), 404, 'not_found');
  });

  test('credits are charged exactly as through the keyed API', async () => {
    const used = async () => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits.usedThisMonth as number;
    const before = await used();
    const keyed = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'When are you open?' } });
    const afterKeyed = await used();
    const visitor = await chat(agent, { message: 'When are you open?' });
    const afterVisitor = await used();
    assert.equal(afterKeyed - before, keyed.body.data.credits);
    assert.equal(afterVisitor - afterKeyed, visitor.body.data.credits);
    assert.equal(visitor.body.data.credits, keyed.body.data.credits);
  });

  test('bad chat input is 400 invalid_request naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'message'],
      [{ message: '' }, 'message'],
      [{ message: 'x'.repeat(4001) }, 'message'],
      [{ message: 'Hi', channel: 'api' }, 'channel'],
      [{ message: 'Hi', channel: 'playground' }, 'channel'],
      [{ message: 'Hi', openedBy: 'robot' }, 'openedBy'],
      [{ message: 'Hi', test: true }, 'test'],
      [{ message: 'Hi', userId: 'abc' }, 'userId'],
      [{ message: 'Hi', page: 'https://x' }, 'page'],
    ];
    for (const [body, field] of cases) {
      const reply = await chat(agent, body);
      assertError(reply, 400, 'invalid_request');
      assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === field), `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
    }
  });

  // ------------------------------------------------------------ feedback

  test('feedback on an answer shows as the message’s feedback: 1, -1, then cleared with null', async () => {
    const started = await startVisitorConversation(service, agent);
    const feedbackOf = async () => (await conversationOf(agent, started.conversationId)).body.data.messages.find((m: { id: string }) => m.id === started.messageId).feedback;
    for (const value of [1, -1, null]) {
      const reply = await call('POST', `/agents/${agent}/feedback`, { body: { messageId: started.messageId, value }, token: started.token });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body.data, { messageId: started.messageId, feedback: value });
      assert.equal(await feedbackOf(), value);
    }
  });

  test('feedback needs the token of the answer’s conversation: missing, wrong or another conversation’s is 404 and changes nothing', async () => {
    const mine = await startVisitorConversation(service, agent);
    const theirs = await startVisitorConversation(service, agent);
    const rate = (messageId: string, token?: string) => call('POST', `/agents/${agent}/feedback`, { body: { messageId, value: -1 }, token });
    assertError(await rate(theirs.messageId), 404, 'not_found');
    assertError(await rate(theirs.messageId, mine.token), 404, 'not_found');
    assertError(await rate('msg_doesnotexist000000', mine.token), 404, 'not_found');
    const keyed = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Hello' } });
    assertError(await rate(keyed.body.data.messageId, mine.token), 404, 'not_found');
    const messages = (await conversationOf(agent, theirs.conversationId)).body.data.messages;
    assert.ok(messages.every((m: { feedback: unknown }) => m.feedback === null));
  });

  test('feedback is on answers: a question is 400 naming messageId; a value other than 1, -1 or null is 400 naming value', async () => {
    const started = await startVisitorConversation(service, agent);
    const question = (await conversationOf(agent, started.conversationId)).body.data.messages[0];
    assert.equal(question.role, 'user');
    const onQuestion = await call('POST', `/agents/${agent}/feedback`, { body: { messageId: question.id, value: 1 }, token: started.token });
    assertError(onQuestion, 400, 'invalid_request');
    assert.equal(onQuestion.body.error.details[0].field, 'messageId');
    for (const body of [{ messageId: started.messageId, value: 2 }, { messageId: started.messageId, value: 0 }, { messageId: started.messageId }]) {
      const reply = await call('POST', `/agents/${agent}/feedback`, { body, token: started.token });
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, 'value');
    }
  });

  // ------------------------------------------------------------ events

  test('events are 202 and stored for the analytics with the agent, type, openedBy, page and time', async () => {
    const opened = await call('POST', `/agents/${otherAgent}/events`, { body: { type: 'opened', openedBy: 'nudge', page: { url: 'https://shop.example.com/prices#top' } } });
    assert.equal(opened.status, 202, JSON.stringify(opened.body));
    assert.deepEqual(opened.body, { data: { accepted: true } });
    assert.equal((await call('POST', `/agents/${otherAgent}/events`, { body: { type: 'lead_form_declined' } })).status, 202);
    const rows = await service.ctx.db.selectFrom('visitor_events').selectAll().where('agent_id', '=', otherAgent).orderBy('created_at').orderBy('type', 'desc').execute();
    assert.deepEqual(
      rows.map((r) => ({ workspace: r.workspace_id, type: r.type, openedBy: r.opened_by, page: r.page_url })),
      [
        { workspace: ws.id, type: 'opened', openedBy: 'nudge', page: 'https://shop.example.com/prices' },
        { workspace: ws.id, type: 'lead_form_declined', openedBy: null, page: null },
      ],
    );
    assert.ok(rows.every((r) => Math.abs(r.created_at.getTime() - service.ctx.clock.now().getTime()) < 60_000));
  });

  test('a bad event is 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'type'],
      [{ type: 'clicked' }, 'type'],
      [{ type: 'opened', openedBy: 'robot' }, 'openedBy'],
      [{ type: 'lead_form_declined', openedBy: 'launcher' }, 'openedBy'],
      [{ type: 'opened', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const reply = await call('POST', `/agents/${agent}/events`, { body });
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, field, JSON.stringify(reply.body));
    }
  });

  // ------------------------------------------------------------ origins and CORS

  describe('origins', () => {
    let guarded: string;
    before(async () => {
      guarded = await seedAgent(service, ws, 'Guarded agent');
      const patched = await service.api('PATCH', `/agents/${guarded}`, { key: ws.keys.manage, body: { allowedOrigins: [SITE, 'https://*.example.org', 'http://localhost:3000'] } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    });

    test('an admitted origin gets the reply with CORS headers for it alone', async () => {
      for (const origin of [SITE, 'https://shop.example.com:443', 'https://www.example.org', 'https://a.b.example.org', 'http://localhost:3000']) {
        const reply = await call('GET', `/agents/${guarded}`, { origin });
        assert.equal(reply.status, 200, origin);
        assert.equal(reply.headers.get('access-control-allow-origin'), origin);
        assert.match(reply.headers.get('vary') ?? '', /Origin/i);
        assert.equal(reply.headers.get('access-control-allow-credentials'), null);
      }
    });

    test('an origin outside allowedOrigins is 403 forbidden without CORS headers: other hosts, schemes, ports, the bare domain of a wildcard, null', async () => {
      for (const origin of ['https://evil.com', 'http://shop.example.com', 'https://shop.example.com:8443', 'https://example.org', 'https://shop.example.com.evil.com', 'https://evilexample.org', 'null', 'http://localhost:3001']) {
        for (const reply of [await call('GET', `/agents/${guarded}`, { origin }), await chat(guarded, { message: 'Hello' }, { origin })]) {
          assertError(reply, 403, 'forbidden');
          assert.equal(reply.headers.get('access-control-allow-origin'), null, origin);
        }
      }
    });

    test('a wildcard needs a real subdomain: empty labels (https://.example.org, https://shop..example.org, a trailing dot) are 403', async () => {
      for (const origin of ['https://.example.org', 'https://shop..example.org', 'https://shop.example.org.', 'https://..example.org']) {
        assertError(await call('GET', `/agents/${guarded}`, { origin }), 403, 'forbidden');
      }
    });

    test('the service’s own origin is PARLEY_PUBLIC_URL’s: a page whose Origin merely equals the Host header (DNS rebinding) is a site like any other', async () => {
      assert.equal(new URL(service.ctx.config.publicUrl).origin, service.url);
      const own = await call('GET', `/agents/${guarded}`, { origin: service.url });
      assert.equal(own.status, 200);
      const rebound = 'http://rebound.example.net:8080';
      const reply = await call('GET', `/agents/${guarded}`, { origin: rebound, headers: { host: 'rebound.example.net:8080' } });
      assertError(reply, 403, 'forbidden');
      assert.equal(reply.headers.get('access-control-allow-origin'), null);
    });

    test('a request without Origin (a server) is admitted, without CORS headers', async () => {
      const reply = await chat(guarded, { message: 'Hello' });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('access-control-allow-origin'), null);
    });

    test('an empty allowedOrigins admits every site', async () => {
      const reply = await call('GET', `/agents/${agent}`, { origin: 'https://anyone.example.net' });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('access-control-allow-origin'), 'https://anyone.example.net');
    });

    test('a change of allowedOrigins applies to the very next visitor request (the agent kept per process is read again)', async () => {
      const changing = await seedAgent(service, ws, 'Changing origins');
      for (let i = 0; i < 2; i++) assert.equal((await call('GET', `/agents/${changing}`, { origin: 'https://anyone.example.net' })).status, 200);
      assert.equal((await service.api('PATCH', `/agents/${changing}`, { key: ws.keys.manage, body: { allowedOrigins: [SITE] } })).status, 200);
      assertError(await call('GET', `/agents/${changing}`, { origin: 'https://anyone.example.net' }), 403, 'forbidden');
      assert.equal((await call('GET', `/agents/${changing}`, { origin: SITE })).status, 200);
      assert.equal((await service.api('DELETE', `/agents/${changing}`, { key: ws.keys.manage })).status, 200);
      assertError(await call('GET', `/agents/${changing}`, { origin: SITE }), 404, 'not_found');
    });

    test('a preflight from an admitted origin is 204 with the methods and headers; from another origin 403 without CORS headers', async () => {
      const preflight = (origin: string, path = '/chat') =>
        call('OPTIONS', `/agents/${guarded}${path}`, { origin, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-visitor-token' } });
      for (const path of ['/chat', '/feedback', '/leads', '']) {
        const admitted = await preflight(SITE, path);
        assert.equal(admitted.status, 204, path);
        assert.equal(admitted.headers.get('access-control-allow-origin'), SITE);
        assert.match(admitted.headers.get('access-control-allow-methods') ?? '', /POST/);
        assert.match(admitted.headers.get('access-control-allow-headers') ?? '', /content-type/);
        assert.match(admitted.headers.get('access-control-allow-headers') ?? '', /x-visitor-token/);
        assert.ok(Number(admitted.headers.get('access-control-max-age')) > 0);
      }
      const refused = await preflight('https://evil.com');
      assertError(refused, 403, 'forbidden');
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
    });
  });

  // ------------------------------------------------------------ paused agents and stopped workspaces

  describe('an agent that may not answer', () => {
    let limited: SeededWorkspace;
    let first: string;
    let paused: string;
    let conversation: { conversationId: string; token: string; messageId: string };

    before(async () => {
      limited = await service.seedWorkspace({ plan: 'studio' });
      first = await seedAgent(service, limited, 'First');
      paused = await seedAgent(service, limited, 'Second');
      conversation = await startVisitorConversation(service, paused);
      // Free has room for one agent: the newer one is paused.
      assert.equal((await service.admin('PATCH', `/workspaces/${limited.id}`, { plan: 'free' })).status, 200);
    });

    test('the widget is on every plan: the free plan’s agent answers visitors (no api_not_in_plan)', async () => {
      const reply = await chat(first, { message: 'Hello' });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal((await call('GET', `/agents/${first}`)).status, 200);
    });

    test('a paused agent is 402 agent_paused on every route, readable by the admitted page', async () => {
      const replies = [
        await call('GET', `/agents/${paused}`, { origin: SITE }),
        await chat(paused, { message: 'Hello' }, { origin: SITE }),
        await chat(paused, { message: 'Hello', conversationId: conversation.conversationId }, { origin: SITE, token: conversation.token }),
        await call('POST', `/agents/${paused}/feedback`, { body: { messageId: conversation.messageId, value: 1 }, token: conversation.token, origin: SITE }),
        await call('POST', `/agents/${paused}/events`, { body: { type: 'opened' }, origin: SITE }),
      ];
      for (const reply of replies) {
        assertError(reply, 402, 'agent_paused');
        assert.equal(reply.headers.get('access-control-allow-origin'), SITE);
      }
      // The preflight is answered, so that the page can read the refusal itself.
      assert.equal((await call('OPTIONS', `/agents/${paused}/chat`, { origin: SITE })).status, 204);
    });

    test('a stopped workspace is 403 workspace_stopped, also for its paused agent; started again it answers', async () => {
      assert.equal((await service.admin('PATCH', `/workspaces/${limited.id}`, { status: 'stopped' })).status, 200);
      for (const agentId of [first, paused]) {
        assertError(await call('GET', `/agents/${agentId}`), 403, 'workspace_stopped');
        assertError(await chat(agentId, { message: 'Hello' }), 403, 'workspace_stopped');
        assertError(await call('POST', `/agents/${agentId}/events`, { body: { type: 'opened' } }), 403, 'workspace_stopped');
      }
      assert.equal((await service.admin('PATCH', `/workspaces/${limited.id}`, { status: 'active' })).status, 200);
      assert.equal((await chat(first, { message: 'Hello' })).status, 200);
    });

    test('what the plan leaves out is off in the public settings: visitor files and branding removal', async () => {
      const rich = await service.seedWorkspace({ plan: 'agency' });
      const agentId = await seedAgent(service, rich, 'Rich');
      const patched = await service.api('PATCH', `/agents/${agentId}`, { key: rich.keys.manage, body: { attachmentsEnabled: true, branding: { removeBranding: true } } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      let data = (await call('GET', `/agents/${agentId}`)).body.data;
      assert.equal(data.attachmentsEnabled, true);
      assert.equal(data.branding.removeBranding, true);
      assert.equal((await service.admin('PATCH', `/workspaces/${rich.id}`, { plan: 'starter' })).status, 200);
      data = (await call('GET', `/agents/${agentId}`)).body.data;
      assert.equal(data.attachmentsEnabled, false);
      assert.equal(data.branding.removeBranding, false);
    });
  });

  test('a deleted agent is 404 to its visitors', async () => {
    const doomed = await seedAgent(service, ws, 'Doomed');
    const started = await startVisitorConversation(service, doomed);
    assert.equal((await call('POST', `/agents/${doomed}/events`, { body: { type: 'opened' } })).status, 202);
    assert.equal((await service.api('DELETE', `/agents/${doomed}`, { key: ws.keys.manage })).status, 200);
    assertError(await call('GET', `/agents/${doomed}`), 404, 'not_found');
    assertError(await chat(doomed, { message: 'Hello', conversationId: started.conversationId }, { token: started.token }), 404, 'not_found');
    const events = await service.ctx.db.selectFrom('visitor_events').select('id').where('agent_id', '=', doomed).execute();
    assert.equal(events.length, 0);
  });

  // ------------------------------------------------------------ identity verification

  describe('identity secrets', () => {
    test('a manage key reads the agent’s identity secret (made on first read, the same after), and the read is audited', async () => {
      const first = await service.api('GET', `/agents/${agent}/identity-secret`, { key: ws.keys.manage });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.match(first.body.data.secret, /^is_[0-9A-Za-z]{48}$/);
      assert.ok(Date.parse(first.body.data.createdAt));
      const again = await service.api('GET', `/agents/${agent}/identity-secret`, { key: ws.keys.manage });
      assert.deepEqual(again.body.data, first.body.data);
      const audit = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data;
      assert.ok(audit.some((e: { action: string; target: string }) => e.action === 'agent.identity_secret.read' && e.target === agent));
    });

    test('each agent has its own secret; rotating replaces it, audited', async () => {
      const mine = (await service.api('GET', `/agents/${agent}/identity-secret`, { key: ws.keys.manage })).body.data.secret;
      const other = (await service.api('GET', `/agents/${otherAgent}/identity-secret`, { key: ws.keys.manage })).body.data.secret;
      assert.notEqual(mine, other);
      const rotated = await service.api('POST', `/agents/${otherAgent}/identity-secret/rotate`, { key: ws.keys.manage });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.data.secret, other);
      assert.equal((await service.api('GET', `/agents/${otherAgent}/identity-secret`, { key: ws.keys.manage })).body.data.secret, rotated.body.data.secret);
      const audit = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data;
      assert.ok(audit.some((e: { action: string; target: string }) => e.action === 'agent.identity_secret.rotate' && e.target === otherAgent));
    });

    test('only a manage key of the agent’s workspace (and, tied, of that agent) reaches the secret', async () => {
      for (const path of [`/agents/${agent}/identity-secret`, `/agents/${agent}/identity-secret/rotate`]) {
        const method = path.endsWith('rotate') ? 'POST' : 'GET';
        assertError(await service.api(method, path, { key: ws.keys.read }), 403, 'forbidden');
        assertError(await service.api(method, path, { key: ws.keys.chat }), 403, 'forbidden');
        assertError(await service.api(method, path, { key: foreign.keys.manage }), 404, 'not_found');
        const tiedElsewhere = await ws.addKey('manage', otherAgent);
        assertError(await service.api(method, path, { key: tiedElsewhere.key }), 404, 'not_found');
        assertError(await service.api(method, path), 401, 'unauthorized');
      }
      const tied = await ws.addKey('manage', agent);
      assert.equal((await service.api('GET', `/agents/${agent}/identity-secret`, { key: tied.key })).status, 200);
    });

    test('verifyIdentity: HMAC-SHA256 of the e-mail under the agent’s secret in hex; a wrong hash, another agent’s secret or a rotated one is false', async () => {
      const target = { id: foreignAgent, workspaceId: foreign.id, status: 'active' as const };
      const email = 'anna@example.com';
      assert.equal(await verifyIdentity(service.ctx, target, { email, hash: 'a'.repeat(64) }), false, 'no secret yet: nobody is signed in');
      const secret = (await service.api('GET', `/agents/${foreignAgent}/identity-secret`, { key: foreign.keys.manage })).body.data.secret;
      const hash = identityHash(secret, email);
      assert.match(hash, /^[0-9a-f]{64}$/);
      assert.equal(await verifyIdentity(service.ctx, target, { email, hash }), true);
      assert.equal(await verifyIdentity(service.ctx, target, { email, hash: hash.toUpperCase() }), true);
      assert.equal(await verifyIdentity(service.ctx, target, { email: 'bob@example.com', hash }), false);
      assert.equal(await verifyIdentity(service.ctx, target, { email, hash: hash.slice(0, -1) }), false);
      assert.equal(await verifyIdentity(service.ctx, { id: agent, workspaceId: ws.id, status: 'active' }, { email, hash }), false);
      await service.api('POST', `/agents/${foreignAgent}/identity-secret/rotate`, { key: foreign.keys.manage });
      assert.equal(await verifyIdentity(service.ctx, target, { email, hash }), false);
    });
  });
});

// ---------------------------------------------------------------- rate limits

/**
 * The start of a minute no other test uses: on the PostgreSQL pass every test
 * file counts in the same Redis, and the windows are named by the service's clock.
 */
function lonelyMinute(): string {
  const minute = Math.floor(Date.UTC(2150, 0, 1) / 60_000) + Math.floor(Math.random() * 40_000_000);
  return new Date(minute * 60_000 + 500).toISOString();
}

describe('visitor rate limits (the real figures)', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  let otherAgent: string;

  before(async () => {
    service = await startService({ workers: false, env: { PARLEY_VISITOR_LIMIT_FACTOR: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws, 'Busy agent');
    otherAgent = await seedAgent(service, ws, 'Quiet agent');
    const leadForm = { leadCapture: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } };
    assert.equal((await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: leadForm })).status, 200);
  });
  after(async () => service?.close());

  const startLonelyMinute = async () => assert.equal((await service.admin('POST', '/clock', { now: lonelyMinute() })).status, 200);
  const nextMinute = async () => assert.equal((await service.admin('POST', '/clock', { advanceSeconds: 60 })).status, 200);
  const chat = (agentId: string, body: Record<string, unknown>, options: VisitorRequest = {}) => visitorRequest(service, 'POST', `/agents/${agentId}/chat`, { ...options, body });

  test('one address gets 30 questions a minute: the 31st is 429 rate_limited with Retry-After, readable by the page; other addresses and lighter requests go on; the next minute it answers again', async () => {
    await startLonelyMinute();
    const from = '127.0.0.1';
    for (let i = 0; i < 30; i++) {
      const reply = await chat(agent, { message: `Question ${i}` }, { from });
      assert.equal(reply.status, 200, `question ${i}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.headers.get('x-ratelimit-limit'), '30');
      assert.equal(reply.headers.get('x-ratelimit-remaining'), String(29 - i));
    }
    const refused = await chat(agent, { message: 'One too many' }, { from, origin: SITE });
    assertError(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(refused.headers.get('access-control-allow-origin'), SITE);
    assert.match(refused.headers.get('access-control-expose-headers') ?? '', /retry-after/);
    // Every agent counts against the address: the limit is the visitor's.
    assertError(await chat(otherAgent, { message: 'Elsewhere' }, { from }), 429, 'rate_limited');
    assert.equal((await chat(agent, { message: 'Another visitor' }, { from: '127.0.0.2' })).status, 200);
    assert.equal((await visitorRequest(service, 'GET', `/agents/${agent}`, { from })).status, 200);
    assert.equal((await visitorRequest(service, 'POST', `/agents/${agent}/events`, { from, body: { type: 'opened' } })).status, 202);
    await nextMinute();
    assert.equal((await chat(agent, { message: 'A minute later' }, { from })).status, 200);
  });

  test('what sends mail or reads files (leads, tickets, files) is 10 a minute per address', async () => {
    await startLonelyMinute();
    const from = '127.0.0.3';
    const lead = (sender: string) => visitorRequest(service, 'POST', `/agents/${agent}/leads`, { from: sender, body: { email: 'ann@example.com', moment: 'button' } });
    for (let i = 0; i < 10; i++) assert.equal((await lead(from)).status, 201, `request ${i}`);
    assertError(await lead(from), 429, 'rate_limited');
    assertError(await visitorRequest(service, 'POST', `/agents/${agent}/tickets`, { from, body: {} }), 429, 'rate_limited');
    assert.equal((await lead('127.0.0.4')).status, 201);
    await nextMinute();
    assert.equal((await lead(from)).status, 201);
  });

  /** Sends `count` requests from each address at once (each address in turn); the statuses in order. */
  const burst = async (addresses: string[], count: number, send: (from: string, i: number) => Promise<{ status: number }>) =>
    (await Promise.all(addresses.map(async (from) => {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) statuses.push((await send(from, i)).status);
      return statuses;
    }))).flat();
  /** `perNetwork` addresses in each of `networks` /24 networks starting at 127.<first>.0.0. */
  const addressesIn = (first: number, networks: number, perNetwork: number) =>
    Array.from({ length: networks * perNetwork }, (_, i) => `127.${first}.${Math.floor(i / perNetwork)}.${(i % perNetwork) + 1}`);

  test('all visitors of one agent together get 600 questions a minute; other agents are not held up; the next minute it answers again', async () => {
    await startLonelyMinute();
    // 20 addresses in 5 networks, each network within its share (120).
    const statuses = await burst(addressesIn(20, 5, 4), 30, (from, i) => chat(agent, { message: `Question ${i}` }, { from, origin: SITE }));
    assert.deepEqual([...new Set(statuses)], [200]);
    const fresh = '127.0.2.1';
    assertError(await chat(agent, { message: 'Hello' }, { from: fresh, origin: SITE }), 429, 'rate_limited');
    assert.equal((await chat(otherAgent, { message: 'Hello' }, { from: fresh, origin: SITE })).status, 200);
    assert.equal((await visitorRequest(service, 'GET', `/agents/${agent}`, { from: fresh })).status, 200);
    await nextMinute();
    assert.equal((await chat(agent, { message: 'Hello again' }, { from: fresh, origin: SITE })).status, 200);
  });

  test('invalid requests use no budget: 610 empty questions and 400 empty leads from 21 addresses leave a real visitor answered', async () => {
    await startLonelyMinute();
    const attackers = addressesIn(30, 21, 1);
    const questions = await burst(attackers, 29, (from) => chat(agent, { message: '' }, { from, origin: SITE }));
    assert.equal(questions.length, 609);
    assert.deepEqual([...new Set(questions)], [400]);
    assert.equal((await chat(agent, { message: '' }, { from: attackers[0]!, origin: SITE })).status, 400);
    const leads = await burst(attackers, 19, (from) => visitorRequest(service, 'POST', `/agents/${agent}/leads`, { from, origin: SITE, body: { moment: 'button' } }));
    assert.deepEqual([...new Set(leads)], [400]);
    const visitor = '127.0.3.1';
    const answered = await chat(agent, { message: 'When are you open?' }, { from: visitor, origin: SITE });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.equal(answered.headers.get('x-ratelimit-remaining'), '29', 'the visitor’s own budget is whole');
    const lead = await visitorRequest(service, 'POST', `/agents/${agent}/leads`, { from: visitor, origin: SITE, body: { email: 'ann@example.com', moment: 'button' } });
    assert.equal(lead.status, 201, JSON.stringify(lead.body));
    // An attacker's own budget is whole too: its noise did not count.
    assert.equal((await chat(agent, { message: 'A real question' }, { from: attackers[1]!, origin: SITE })).headers.get('x-ratelimit-remaining'), '29');
  });

  test('a conversation the visitor does not hold uses no budget: 600 questions naming made-up conversations from 5 networks leave a real visitor answered', async () => {
    await startLonelyMinute();
    const attackers = addressesIn(60, 5, 4);
    const made = (i: number) => ({ message: 'Hello', conversationId: `conv_madeUp${i}` });
    const statuses = await burst(attackers, 30, (from, i) => chat(agent, made(i), { from, origin: SITE, ...(i % 2 === 0 ? { token: `vt_guess${i}` } : {}) }));
    assert.equal(statuses.length, 600);
    assert.deepEqual([...new Set(statuses)], [404]);
    const answered = await chat(agent, { message: 'When are you open?' }, { from: '127.0.5.1', origin: SITE });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.equal(answered.headers.get('x-ratelimit-remaining'), '29', 'the visitor’s own budget is whole');
  });

  test('a damaged file was read, so it counts: the 11th damaged file in a minute from one address is 429, not another 400', async () => {
    await startLonelyMinute();
    const filesAgent = await seedAgent(service, ws, 'Files agent');
    assert.equal((await service.api('PATCH', `/agents/${filesAgent}`, { key: ws.keys.manage, body: { attachmentsEnabled: true } })).status, 200);
    const sendDamaged = async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without pages')]), 'broken.pdf');
      const response = await fetch(`${service.url}/visitor/v1/agents/${filesAgent}/files`, { method: 'POST', body: form });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    };
    for (let i = 0; i < 10; i++) assertError(await sendDamaged(), 400, 'invalid_request');
    assertError(await sendDamaged(), 429, 'rate_limited');
  });

  test('noise has a bound of its own: an address past 60 invalid requests in a minute is refused altogether until the next minute', async () => {
    await startLonelyMinute();
    const from = '127.0.4.1';
    for (let i = 0; i < 61; i++) assert.equal((await chat(agent, { message: '' }, { from })).status, 400, `request ${i}`);
    assertError(await chat(agent, { message: 'Now a real one' }, { from }), 429, 'rate_limited');
    assert.equal((await chat(agent, { message: 'Another address' }, { from: '127.0.4.2' })).status, 200);
    await nextMinute();
    assert.equal((await chat(agent, { message: 'A minute later' }, { from })).status, 200);
  });

  test('in Redis: the address’s noise bound is read by the one command that counts the address, not by a read of its own before it', async (t) => {
    const redis = service.ctx.redis;
    if (!redis) return t.skip('the embedded store counts in memory');
    const from = '127.0.9.1';
    const touching: Array<{ name: string; noise: boolean; address: boolean }> = [];
    const send = redis.client.sendCommand.bind(redis.client);
    redis.client.sendCommand = (command, ...rest) => {
      const args = command.args.map(String);
      const noise = args.some((arg) => arg.includes(`visitor:noise:ip:${from}:`));
      const address = args.some((arg) => arg.includes(`visitor:chat:ip:${from}:`));
      if (noise || address) touching.push({ name: command.name, noise, address });
      return send(command, ...rest);
    };
    try {
      assert.equal((await chat(agent, { message: 'When are you open?' }, { from, origin: SITE })).status, 200);
    } finally {
      redis.client.sendCommand = send;
    }
    assert.equal(touching.length, 1, JSON.stringify(touching));
    assert.deepEqual(touching.map(({ noise, address }) => ({ noise, address })), [{ noise: true, address: true }]);
  });

  test('one network gets a fifth of the agent’s questions (120 a minute): its many addresses cannot drain the agent; other networks go on', async () => {
    await startLonelyMinute();
    const statuses = await burst(addressesIn(40, 1, 6), 25, (from, i) => chat(agent, { message: `Drain ${i}` }, { from, origin: SITE }));
    assert.equal(statuses.filter((s) => s === 200).length, 120);
    assert.deepEqual([...new Set(statuses.filter((s) => s !== 200))], [429]);
    assertError(await chat(agent, { message: 'Same network' }, { from: '127.40.0.200', origin: SITE }), 429, 'rate_limited');
    assert.equal((await chat(agent, { message: 'Another network' }, { from: '127.41.0.1', origin: SITE })).status, 200);
    assert.equal((await chat(otherAgent, { message: 'Another agent' }, { from: '127.40.0.200', origin: SITE })).status, 200);
  });

  test('requests without an Origin have a bucket of their own (60 questions a minute per agent): servers keep working, and scripts cannot hold up browsers', async () => {
    await startLonelyMinute();
    const statuses = await burst(addressesIn(50, 3, 1), 25, (from, i) => chat(agent, { message: `Script ${i}` }, { from }));
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.deepEqual([...new Set(statuses.filter((s) => s !== 200))], [429]);
    assertError(await chat(agent, { message: 'Server' }, { from: '127.51.9.9' }), 429, 'rate_limited');
    assert.equal((await chat(agent, { message: 'A browser' }, { from: '127.51.9.9', origin: SITE })).status, 200);
    await nextMinute();
    assert.equal((await chat(agent, { message: 'Server, a minute later' }, { from: '127.51.9.9' })).status, 200);
  });
});

test('networkOf: a /24 of IPv4 (also mapped into IPv6), a /64 of IPv6', () => {
  assert.equal(networkOf('203.0.113.77'), '203.0.113.0/24');
  assert.equal(networkOf('::ffff:203.0.113.77'), '203.0.113.0/24');
  assert.equal(networkOf('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(networkOf('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(networkOf('2001:0db8:0000:0002::9'), networkOf('2001:db8:0:2:ffff::1'));
  assert.notEqual(networkOf('2001:db8:0:2::1'), networkOf('2001:db8:0:3::1'));
});

