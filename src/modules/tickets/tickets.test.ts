import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { enableTickets, openTicket, startConversation, visitorCall } from './test-support.ts';

const TICKET_FIELDS = ['conversationId', 'createdAt', 'email', 'expiresAt', 'helpdesk', 'id', 'language', 'lastActivityAt', 'name', 'number', 'page', 'question', 'signedIn', 'solvedAt', 'status'];
const ENTRY_FIELDS = ['body', 'createdAt', 'from', 'id', 'kind', 'mailError'];
const DAY = 86_400_000;

describe('tickets (spec 2.11, 3.3, 4.11)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  /** An agent of its own for each test, with tickets on. */
  async function ticketAgent(tickets: Record<string, unknown> = {}, workspace = ws): Promise<string> {
    const agent = await seedAgent(service, workspace, 'Support');
    await enableTickets(service, workspace, agent, tickets);
    return agent;
  }
  const read = (agent: string, ticketId: string, key = ws.keys.read) => service.api('GET', `/agents/${agent}/tickets/${ticketId}`, { key });
  const list = (agent: string, query = '', key = ws.keys.read) => service.api('GET', `/agents/${agent}/tickets${query}`, { key });
  const patch = (agent: string, ticketId: string, status: string, key = ws.keys.manage) => service.api('PATCH', `/agents/${agent}/tickets/${ticketId}`, { key, body: { status } });
  const note = (agent: string, ticketId: string, body: string, key = ws.keys.manage) => service.api('POST', `/agents/${agent}/tickets/${ticketId}/notes`, { key, body: { body } });
  const listedIds = async (agent: string, query = '') => {
    const reply = await list(agent, query);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return (reply.body.data as Array<{ id: string }>).map((t) => t.id);
  };
  const advance = async (seconds: number) => assert.equal((await service.admin('POST', '/clock', { advanceSeconds: seconds })).status, 200);

  describe('a visitor opens one', () => {
    test('201 { id, number }; the team reads it with every field of 2.11, open, without entries', async () => {
      const agent = await ticketAgent();
      const before = service.ctx.clock.now().getTime();
      const reply = await visitorCall(service, 'POST', `/agents/${agent}/tickets`, {
        body: { email: 'ana@example.org', name: 'Ana', question: 'Mi pedido no ha llegado.', page: { url: 'https://shop.example.com/orders?id=7#top' }, language: 'es' },
      });
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body.data).sort(), ['id', 'number']);
      assert.match(reply.body.data.id, /^tkt_[0-9A-Za-z]{20}$/);
      assert.equal(reply.body.data.number, 1);

      const ticket = (await read(agent, reply.body.data.id)).body.data;
      assert.deepEqual(Object.keys(ticket).sort(), [...TICKET_FIELDS, 'entries'].sort());
      assert.deepEqual(
        { ...ticket, createdAt: undefined, lastActivityAt: undefined },
        {
          id: reply.body.data.id,
          number: 1,
          status: 'open',
          email: 'ana@example.org',
          name: 'Ana',
          question: 'Mi pedido no ha llegado.',
          language: 'es',
          signedIn: false,
          page: { url: 'https://shop.example.com/orders' },
          conversationId: null,
          createdAt: undefined,
          lastActivityAt: undefined,
          solvedAt: null,
          expiresAt: null,
          helpdesk: null,
          entries: [],
        },
      );
      assert.equal(ticket.lastActivityAt, ticket.createdAt);
      assert.ok(Math.abs(Date.parse(ticket.createdAt) - before) < 10_000);
      assert.match(ticket.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    test("without them: the agent's language, no name (empty is none), no page (an address not http or https is dropped)", async () => {
      const agent = await seedAgent(service, ws, 'Franse winkel');
      assert.equal((await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { language: 'fr' } })).status, 200);
      await enableTickets(service, ws, agent);
      const { id } = await openTicket(service, agent, { name: '  ', page: { url: 'javascript:alert(1)' } });
      const ticket = (await read(agent, id)).body.data;
      assert.equal(ticket.language, 'fr');
      assert.equal(ticket.name, null);
      assert.equal(ticket.page, null);
    });

    test('an agent with tickets off takes none: 400 invalid_request naming tickets.enabled', async () => {
      const agent = await seedAgent(service, ws, 'No tickets');
      const reply = await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'Hello?' } });
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].field, 'tickets.enabled');
      await enableTickets(service, ws, agent);
      assert.equal((await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { tickets: { enabled: false } } })).status, 200);
      assertError(await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'Hello?' } }), 400, 'invalid_request');
      assert.deepEqual(await listedIds(agent), []);
    });

    test('bad input is 400 invalid_request naming the field', async () => {
      const agent = await ticketAgent();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ email: 'not an address', question: 'Hi' }, 'email'],
        [{ question: 'Hi' }, 'email'],
        [{ email: 'a@example.org' }, 'question'],
        [{ email: 'a@example.org', question: '   ' }, 'question'],
        [{ email: 'a@example.org', question: 'x'.repeat(4001) }, 'question'],
        [{ email: 'a@example.org', question: 'Hi', language: 'it' }, 'language'],
        [{ email: 'a@example.org', question: 'Hi', name: 'x'.repeat(101) }, 'name'],
        [{ email: 'a@example.org', question: 'Hi', name: 'Ana\r\nQuestion: forged' }, 'name'],
        [{ email: 'a@example.org', question: 'Hi', name: 'Ana\nE-mail: ceo@example.org' }, 'name'],
        [{ email: 'a@example.org', question: 'Hi', name: 'Ana\u2028x' }, 'name'],
        [{ email: 'a@example.org\r\nBcc: b@example.org', question: 'Hi' }, 'email'],
        [{ email: 'a@example.org', question: 'Hi', page: { url: 'https://a.example', title: 'x' } }, 'page.title'],
        [{ email: 'a@example.org', question: 'Hi', status: 'solved' }, 'status'],
        [{ email: 'a@example.org', question: 'Hi', identity: { email: 'a@example.org' } }, 'identity.hash'],
      ];
      for (const [body, field] of cases) {
        const reply = await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body });
        assertError(reply, 400, 'invalid_request');
        assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === field), `${JSON.stringify(body)}: ${JSON.stringify(reply.body.error.details)}`);
      }
      assert.equal((await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'x'.repeat(4000) } })).status, 201);
    });

    test('bidirectional overrides are stripped from the name; a name of nothing else is no name; the question keeps its lines', async () => {
      const agent = await ticketAgent();
      const named = await openTicket(service, agent, { name: 'Ana \u202Eaivlis\u202C \u2067Smit\u2069', question: 'Line one\nLine two' });
      const ticket = (await read(agent, named.id)).body.data;
      assert.equal(ticket.name, 'Ana aivlis Smit');
      assert.equal(ticket.question, 'Line one\nLine two');
      const unnamed = await openTicket(service, agent, { name: '\u202E\u202D' });
      assert.equal((await read(agent, unnamed.id)).body.data.name, null);
    });

    test('an unknown agent is 404 not_found', async () => {
      assertError(await visitorCall(service, 'POST', '/agents/ag_unknown00000000000000/tickets', { body: { email: 'a@example.org', question: 'Hi' } }), 404, 'not_found');
    });

    test('numbers count per agent: 20 tickets opened at once get 1 to 20, no gap and no repeat; another agent counts from 1', async () => {
      const agent = await ticketAgent();
      const other = await ticketAgent();
      const opened = await Promise.all(Array.from({ length: 20 }, (_, i) => openTicket(service, agent, { question: `Question ${i}` })));
      assert.deepEqual(
        opened.map((t) => t.number).sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.equal(new Set(opened.map((t) => t.id)).size, 20);
      assert.equal((await openTicket(service, other)).number, 1);
      assert.equal((await openTicket(service, agent)).number, 21);
    });

    test('a number is never given twice, also after its ticket is gone', async () => {
      const agent = await ticketAgent();
      const { conversationId, token } = await startConversation(service, agent);
      const first = await openTicket(service, agent, { conversationId }, token);
      assert.equal((await service.api('DELETE', `/agents/${agent}/conversations/${conversationId}`, { key: ws.keys.manage })).status, 200);
      assertError(await read(agent, first.id), 404, 'not_found');
      assert.equal((await openTicket(service, agent)).number, 2);
    });
  });

  describe('a ticket within a conversation needs its visitor token', () => {
    test('with the token the ticket names the conversation', async () => {
      const agent = await ticketAgent();
      const { conversationId, token } = await startConversation(service, agent);
      const { id } = await openTicket(service, agent, { conversationId }, token);
      assert.equal((await read(agent, id)).body.data.conversationId, conversationId);
    });

    test("without it, with a wrong one, or with another conversation's: 404 not_found and no ticket", async () => {
      const agent = await ticketAgent();
      const mine = await startConversation(service, agent);
      const theirs = await startConversation(service, agent, 'Do you ship abroad?');
      for (const token of [undefined, 'not-a-token', theirs.token, `${mine.token}x`]) {
        const reply = await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'Hi', conversationId: mine.conversationId }, token });
        assertError(reply, 404, 'not_found');
      }
      assert.deepEqual(await listedIds(agent), []);
    });

    test("another agent's conversation, even with its token, is 404 not_found", async () => {
      const agent = await ticketAgent();
      const other = await ticketAgent();
      const elsewhere = await startConversation(service, other);
      const reply = await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'Hi', conversationId: elsewhere.conversationId }, token: elsewhere.token });
      assertError(reply, 404, 'not_found');
    });

    test("a keyed API conversation has no visitor token: it cannot be named", async () => {
      const agent = await ticketAgent();
      const asked = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Hello?' } });
      assert.equal(asked.status, 200);
      const reply = await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'Hi', conversationId: asked.body.data.conversationId }, token: '' });
      assertError(reply, 404, 'not_found');
    });
  });

  describe('signed-in visitors: signedIn only when the identity verifies for the ticket\'s own address', () => {
    const hmac = (secret: string, email: string) => createHmac('sha256', secret).update(email, 'utf8').digest('hex');
    async function secretOf(agent: string): Promise<string> {
      const reply = await service.api('GET', `/agents/${agent}/identity-secret`, { key: ws.keys.manage });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return reply.body.data.secret;
    }
    const signedIn = async (agent: string, body: Record<string, unknown>) => (await read(agent, (await openTicket(service, agent, body)).id)).body.data.signedIn;

    test('the HMAC-SHA256 of the e-mail under the agent\'s identity secret signs the visitor in (the address compared without case)', async () => {
      const agent = await ticketAgent();
      const secret = await secretOf(agent);
      assert.equal(await signedIn(agent, { email: 'Ana@Example.org', identity: { email: 'ana@example.org', hash: hmac(secret, 'ana@example.org') } }), true);
      assert.equal(await signedIn(agent, { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: hmac(secret, 'ana@example.org').toUpperCase() } }), true);
    });

    test('a hash that does not verify opens the ticket, not signed in: a wrong hash, another address\'s hash, an address other than the ticket\'s, another agent\'s secret, a rotated secret', async () => {
      const agent = await ticketAgent();
      const other = await ticketAgent();
      const secret = await secretOf(agent);
      const otherSecret = await secretOf(other);
      const cases = [
        { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: 'f'.repeat(64) } },
        { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: hmac(secret, 'bob@example.org') } },
        { email: 'mallory@example.org', identity: { email: 'ana@example.org', hash: hmac(secret, 'ana@example.org') } },
        { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: hmac(otherSecret, 'ana@example.org') } },
        { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: '' } },
      ];
      for (const body of cases) assert.equal(await signedIn(agent, body), false, JSON.stringify(body));
      assert.equal((await service.api('POST', `/agents/${agent}/identity-secret/rotate`, { key: ws.keys.manage })).status, 200);
      assert.equal(await signedIn(agent, { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: hmac(secret, 'ana@example.org') } }), false, 'the old secret no longer signs in');
    });

    test('an agent whose secret was never made signs no one in', async () => {
      const agent = await ticketAgent();
      assert.equal(await signedIn(agent, { email: 'ana@example.org', identity: { email: 'ana@example.org', hash: hmac('', 'ana@example.org') } }), false);
    });
  });

  describe('the team reads them', () => {
    test('the list: most recent activity first, in the list shape with the fields of 2.11; a note moves a ticket to the top', async () => {
      const agent = await ticketAgent();
      const first = await openTicket(service, agent, { question: 'First' });
      await advance(1);
      const second = await openTicket(service, agent, { question: 'Second' });
      const reply = await list(agent);
      assert.deepEqual(Object.keys(reply.body).sort(), ['counts', 'data', 'pagination']);
      assert.deepEqual(reply.body.pagination, { nextCursor: null });
      assert.deepEqual(reply.body.counts, { open: 2, waiting: 0, solved: 0 });
      for (const item of reply.body.data) assert.deepEqual(Object.keys(item).sort(), TICKET_FIELDS);
      assert.deepEqual(await listedIds(agent), [second.id, first.id]);
      await advance(1);
      assert.equal((await note(agent, first.id, 'Called the courier.')).status, 201);
      assert.deepEqual(await listedIds(agent), [first.id, second.id]);
    });

    test('counts per status come beside every page, whatever status, limit and cursor ask for; an expired solved ticket is no longer counted', async () => {
      const agent = await ticketAgent();
      const opened = [];
      for (let i = 0; i < 6; i++) opened.push(await openTicket(service, agent, { question: `Question ${i}` }));
      await patch(agent, opened[0].id, 'waiting');
      await patch(agent, opened[1].id, 'waiting');
      await patch(agent, opened[2].id, 'solved');
      await openTicket(service, await ticketAgent(), { question: 'Another agent' });
      const want = { open: 3, waiting: 2, solved: 1 };
      const first = await list(agent, '?limit=2');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(first.body.counts, want);
      assert.equal(first.body.data.length, 2);
      const second = await list(agent, `?limit=2&cursor=${first.body.pagination.nextCursor}`);
      assert.deepEqual(second.body.counts, want);
      const waiting = await list(agent, '?status=waiting');
      assert.deepEqual(waiting.body.counts, want);
      assert.equal(waiting.body.data.length, 2);
      const empty = await ticketAgent();
      assert.deepEqual((await list(empty)).body.counts, { open: 0, waiting: 0, solved: 0 });
      // A solved ticket is kept 90 days (SOLVED_RETENTION_DAYS), then gone for reads and counts alike.
      await advance(91 * 86_400);
      const later = await list(agent);
      assert.deepEqual(later.body.counts, { open: 3, waiting: 2, solved: 0 });
      assert.equal(later.body.data.length, 5);
    });

    test('the OpenAPI document shows counts in the list reply', async () => {
      const doc = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as any;
      const reply = doc.paths['/agents/{id}/tickets'].get.responses['200'].content['application/json'].schema;
      assert.deepEqual(Object.keys(reply.properties).sort(), ['counts', 'data', 'pagination']);
      assert.deepEqual(Object.keys(reply.properties.counts.properties).sort(), ['open', 'solved', 'waiting']);
    });

    test('the status filter keeps one status; another value is 400 naming status', async () => {
      const agent = await ticketAgent();
      const open = await openTicket(service, agent);
      const waiting = await openTicket(service, agent);
      const solved = await openTicket(service, agent);
      await patch(agent, waiting.id, 'waiting');
      await patch(agent, solved.id, 'solved');
      assert.deepEqual(await listedIds(agent, '?status=open'), [open.id]);
      assert.deepEqual(await listedIds(agent, '?status=waiting'), [waiting.id]);
      assert.deepEqual(await listedIds(agent, '?status=solved'), [solved.id]);
      const bad = await list(agent, '?status=closed');
      assertError(bad, 400, 'invalid_request');
      assert.equal(bad.body.error.details[0].field, 'status');
    });

    test('limit and cursor walk every ticket once; a cursor the service never gave is 400', async () => {
      const agent = await ticketAgent();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.unshift((await openTicket(service, agent, { question: `Q${i}` })).id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const reply = await list(agent, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(reply.status, 200);
        assert.ok(reply.body.data.length <= 2);
        seen.push(...reply.body.data.map((t: { id: string }) => t.id));
        cursor = reply.body.pagination.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, made);
      assertError(await list(agent, '?cursor=bm90IGEgY3Vyc29y'), 400, 'invalid_request');
      assertError(await list(agent, '?limit=101'), 400, 'invalid_request');
    });

    test('one ticket with its entries oldest first; an unknown ticket is 404', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      await note(agent, id, 'First note');
      await advance(1);
      await note(agent, id, 'Second note');
      const ticket = (await read(agent, id)).body.data;
      assert.deepEqual(ticket.entries.map((e: { body: string }) => e.body), ['First note', 'Second note']);
      assertError(await read(agent, 'tkt_unknown0000000000000'), 404, 'not_found');
    });
  });

  describe('status (3.3)', () => {
    test('solved sets solvedAt and expiresAt 90 days on; solved again keeps them; reopening clears them; nothing is mailed', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      const mailsBefore = (await service.admin('GET', '/outbox')).body.data.length;
      const solved = await patch(agent, id, 'solved');
      assert.equal(solved.status, 200, JSON.stringify(solved.body));
      assert.deepEqual(Object.keys(solved.body.data).sort(), TICKET_FIELDS);
      assert.equal(solved.body.data.status, 'solved');
      const solvedAt = Date.parse(solved.body.data.solvedAt);
      assert.ok(Math.abs(solvedAt - service.ctx.clock.now().getTime()) < 10_000);
      assert.equal(Date.parse(solved.body.data.expiresAt) - solvedAt, 90 * DAY);

      await advance(60);
      const again = await patch(agent, id, 'solved');
      assert.equal(again.body.data.solvedAt, solved.body.data.solvedAt);
      assert.equal(again.body.data.expiresAt, solved.body.data.expiresAt);

      for (const status of ['waiting', 'open']) {
        const reopened = await patch(agent, id, status);
        assert.equal(reopened.body.data.status, status);
        assert.equal(reopened.body.data.solvedAt, null);
        assert.equal(reopened.body.data.expiresAt, null);
      }
      assert.equal((await service.admin('GET', '/outbox')).body.data.length, mailsBefore, 'nothing mailed');
      assert.equal((await read(agent, id)).body.data.lastActivityAt, solved.body.data.lastActivityAt, 'a status change is no entry');
    });

    test('a status outside open, waiting, solved and an unknown body field are 400; an unknown ticket is 404', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      assertError(await patch(agent, id, 'closed'), 400, 'invalid_request');
      assertError(await service.api('PATCH', `/agents/${agent}/tickets/${id}`, { key: ws.keys.manage, body: { status: 'open', note: 'x' } }), 400, 'invalid_request');
      assertError(await service.api('PATCH', `/agents/${agent}/tickets/${id}`, { key: ws.keys.manage, body: {} }), 400, 'invalid_request');
      assertError(await patch(agent, 'tkt_unknown0000000000000', 'solved'), 404, 'not_found');
    });

    test('a solved ticket is deleted at its expiresAt as the clock passes; tickets not solved stay', async () => {
      const agent = await ticketAgent();
      const solved = await openTicket(service, agent, { question: 'Solved one' });
      const open = await openTicket(service, agent, { question: 'Open one' });
      await note(agent, solved.id, 'Done.');
      await patch(agent, solved.id, 'solved');
      await advance(89 * 86_400);
      assert.equal((await read(agent, solved.id)).status, 200, 'still there a day before');
      await advance(86_400 + 1);
      assertError(await read(agent, solved.id), 404, 'not_found');
      assert.deepEqual(await listedIds(agent), [open.id]);
      assertError(await patch(agent, solved.id, 'open'), 404, 'not_found');
      assertError(await note(agent, solved.id, 'Too late'), 404, 'not_found');
      // the sweep deletes the row and its entries
      const deadline = Date.now() + 10_000;
      for (;;) {
        const rows = await sql`select 1 from tickets where id = ${solved.id} union all select 1 from ticket_entries where ticket_id = ${solved.id}`.execute(service.ctx.db);
        if (rows.rows.length === 0) break;
        assert.ok(Date.now() < deadline, 'the expired ticket was not deleted');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal((await read(agent, open.id)).status, 200);
    });

    test('changes are in the audit trail with the key that made them', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      const patched = await service.api('PATCH', `/agents/${agent}/tickets/${id}`, { key: ws.keys.manage, body: { status: 'waiting' } });
      const noted = await note(agent, id, 'Audited note');
      const entries = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data;
      const update = entries.find((e: { requestId: string }) => e.requestId === patched.headers.get('x-request-id'));
      assert.deepEqual({ action: update.action, keyId: update.keyId, target: update.target }, { action: 'ticket.update', keyId: ws.keyIds.manage, target: `${agent}/${id}` });
      const added = entries.find((e: { requestId: string }) => e.requestId === noted.headers.get('x-request-id'));
      assert.deepEqual({ action: added.action, target: added.target }, { action: 'ticket.note', target: `${agent}/${id}/${noted.body.data.id}` });
    });
  });

  describe('notes', () => {
    test('201 with the entry of kind note; lastActivityAt moves to it', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      await advance(120);
      const reply = await note(agent, id, 'Line one\nLine two');
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      const entry = reply.body.data;
      assert.deepEqual(Object.keys(entry).sort(), ENTRY_FIELDS);
      assert.match(entry.id, /^ent_/);
      assert.deepEqual({ kind: entry.kind, body: entry.body, from: entry.from, mailError: entry.mailError }, { kind: 'note', body: 'Line one\nLine two', from: null, mailError: null });
      const ticket = (await read(agent, id)).body.data;
      assert.equal(ticket.lastActivityAt, entry.createdAt);
      assert.ok(Date.parse(ticket.lastActivityAt) - Date.parse(ticket.createdAt) >= 120_000);
      assert.deepEqual(ticket.entries, [entry]);
    });

    test('up to 10,000 characters; longer, empty, blank or missing is 400 naming body; an unknown ticket is 404', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      assert.equal((await note(agent, id, 'x'.repeat(10_000))).status, 201);
      for (const body of ['x'.repeat(10_001), '', '  \n ']) {
        const reply = await note(agent, id, body);
        assertError(reply, 400, 'invalid_request');
        assert.equal(reply.body.error.details[0].field, 'body');
      }
      assertError(await service.api('POST', `/agents/${agent}/tickets/${id}/notes`, { key: ws.keys.manage, body: {} }), 400, 'invalid_request');
      assertError(await note(agent, 'tkt_unknown0000000000000', 'x'), 404, 'not_found');
    });
  });

  describe('deletion', () => {
    test("deleting a conversation deletes its ticket and leaves the visitor's other tickets", async () => {
      const agent = await ticketAgent();
      const { conversationId, token } = await startConversation(service, agent);
      const tied = await openTicket(service, agent, { conversationId }, token);
      await note(agent, tied.id, 'About the chat');
      const before = await openTicket(service, agent);
      assert.equal((await service.api('DELETE', `/agents/${agent}/conversations/${conversationId}`, { key: ws.keys.manage })).status, 200);
      assertError(await read(agent, tied.id), 404, 'not_found');
      assert.deepEqual(await listedIds(agent), [before.id]);
      const left = await sql`select 1 from ticket_entries where ticket_id = ${tied.id}`.execute(service.ctx.db);
      assert.equal(left.rows.length, 0);
    });

    test('deleting an agent deletes all its tickets, their entries and its numbering', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      await note(agent, id, 'x');
      await openTicket(service, agent);
      assert.equal((await service.api('DELETE', `/agents/${agent}`, { key: ws.keys.manage })).status, 200);
      const left = await sql`select (select count(*) from tickets where agent_id = ${agent}) + (select count(*) from ticket_entries where ticket_id = ${id})
        + (select count(*) from ticket_numbers where agent_id = ${agent}) as n`.execute(service.ctx.db);
      assert.equal(Number((left.rows[0] as { n: number }).n), 0);
    });
  });

  describe('isolation', () => {
    test("another workspace's keys and a key tied to another agent get 404 on every ticket route, and learn nothing", async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent, { email: 'secret@example.org', question: 'A private matter' });
      const foreign = await service.seedWorkspace({ plan: 'enterprise' });
      const tied = (await ws.addKey('manage', await seedAgent(service, ws, 'Other'))).key;
      const calls = (key: string) => [list(agent, '', key), read(agent, id, key), patch(agent, id, 'solved', key), note(agent, id, 'x', key)];
      const attempts = [...calls(foreign.keys.manage), ...calls(tied), list(agent, '', foreign.keys.read), read(agent, id, foreign.keys.read)];
      for (const reply of await Promise.all(attempts)) {
        assertError(reply, 404, 'not_found');
        assert.ok(!JSON.stringify(reply.body).includes('secret@'));
      }
      const ticket = (await read(agent, id)).body.data;
      assert.equal(ticket.status, 'open');
      assert.deepEqual(ticket.entries, []);
    });

    test("a ticket named under another agent of the same workspace is 404; a key tied to the ticket's agent reads it", async () => {
      const agent = await ticketAgent();
      const other = await ticketAgent();
      const { id } = await openTicket(service, agent);
      for (const reply of [await read(other, id), await patch(other, id, 'solved'), await note(other, id, 'x')]) assertError(reply, 404, 'not_found');
      assert.deepEqual(await listedIds(other), []);
      const tiedToAgent = (await ws.addKey('read', agent)).key;
      assert.equal((await read(agent, id, tiedToAgent)).status, 200);
    });

    test('a chat key may not read tickets and a read key may not change them (403 forbidden)', async () => {
      const agent = await ticketAgent();
      const { id } = await openTicket(service, agent);
      assertError(await list(agent, '', ws.keys.chat), 403, 'forbidden');
      assertError(await read(agent, id, ws.keys.chat), 403, 'forbidden');
      assertError(await patch(agent, id, 'solved', ws.keys.read), 403, 'forbidden');
      assertError(await note(agent, id, 'x', ws.keys.read), 403, 'forbidden');
    });

    test('a stopped workspace and a paused agent take no tickets, as the API refuses them', async () => {
      const stopped = await service.seedWorkspace({ plan: 'enterprise' });
      const agent = await ticketAgent({}, stopped);
      assert.equal((await service.admin('PATCH', `/workspaces/${stopped.id}`, { status: 'stopped' })).status, 200);
      assertError(await visitorCall(service, 'POST', `/agents/${agent}/tickets`, { body: { email: 'a@example.org', question: 'Hi' } }), 403, 'workspace_stopped');

      const small = await service.seedWorkspace({ plan: 'studio' });
      const kept = await ticketAgent({}, small);
      const extra = await ticketAgent({}, small);
      // a move to free (1 agent) pauses all but the first agent
      assert.equal((await service.admin('PATCH', `/workspaces/${small.id}`, { plan: 'free' })).status, 200);
      const paused = await visitorCall(service, 'POST', `/agents/${extra}/tickets`, { body: { email: 'a@example.org', question: 'Hi' } });
      assertError(paused, 402, 'agent_paused');
      assert.equal((await visitorCall(service, 'POST', `/agents/${kept}/tickets`, { body: { email: 'a@example.org', question: 'Hi' } })).status, 201, 'tickets are on every plan');
    });
  });
});
