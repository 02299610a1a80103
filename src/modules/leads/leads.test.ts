import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { startService, type Reply, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { ingestWebsitePage } from '../knowledge/ingest.ts';
import { waitForSource } from '../knowledge/test-support.ts';
import { FORM_TEXTS } from './texts.ts';

const LEAD_FIELDS = [
  'company', 'companyDomain', 'conversationId', 'createdAt', 'email', 'expiresAt', 'id', 'language', 'marketing', 'moment', 'name', 'page', 'phone', 'shown',
];
const PRIVACY = 'https://bikes.example.org/privacy';

describe('leads (spec 2.10, 4.10)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    // Enterprise: no limit on agents, each test has its own.
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  // ------------------------------------------------------------ helpers

  async function visitor(method: string, path: string, options: { body?: unknown; token?: string; origin?: string } = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (options.origin) headers.origin = options.origin;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers['x-visitor-token'] = options.token;
    const response = await fetch(`${service.url}/visitor/v1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** An agent of its own with the lead form on; `leadCapture` is merged into the form's settings. */
  async function formAgent(leadCapture: Record<string, unknown> = {}, more: Record<string, unknown> = {}, workspace = ws): Promise<string> {
    const agent = await seedAgent(service, workspace);
    const patched = await service.api('PATCH', `/agents/${agent}`, {
      key: workspace.keys.manage,
      body: { leadCapture: { enabled: true, privacyUrl: PRIVACY, ...leadCapture }, ...more },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return agent;
  }

  /** A visitor's conversation with the agent and its token. */
  async function converse(agent: string): Promise<{ conversationId: string; token: string }> {
    const reply = await visitor('POST', `/agents/${agent}/chat`, { body: { message: 'Do you repair electric bikes?' } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return { conversationId: reply.body.data.conversationId, token: reply.body.data.visitorToken };
  }

  const leave = (agent: string, body: Record<string, unknown>, token?: string) => visitor('POST', `/agents/${agent}/leads`, { body: { moment: 'button', ...body }, token });

  async function leaveLead(agent: string, body: Record<string, unknown>, token?: string): Promise<string> {
    const reply = await leave(agent, body, token);
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body.data), ['id']);
    assert.match(reply.body.data.id, /^lead_[0-9A-Za-z]{20}$/);
    return reply.body.data.id;
  }

  async function readLead(agent: string, leadId: string, key = ws.keys.read): Promise<any> {
    const reply = await service.api('GET', `/agents/${agent}/leads/${leadId}`, { key });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data;
  }

  async function listIds(agent: string, query = '', key = ws.keys.read): Promise<string[]> {
    const reply = await service.api('GET', `/agents/${agent}/leads${query}`, { key });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return (reply.body.data as Array<{ id: string }>).map((lead) => lead.id);
  }

  async function leadRows(where: { agentId?: string; leadId?: string }): Promise<number> {
    const result = await sql<{ n: string }>`select count(*) as n from leads where agent_id = coalesce(${where.agentId ?? null}, agent_id) and id = coalesce(${where.leadId ?? null}, id)`.execute(service.ctx.db);
    return Number(result.rows[0].n);
  }

  async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  async function outbox(): Promise<Array<{ to: string; subject: string; text: string }>> {
    const reply = await service.admin('GET', '/outbox');
    assert.equal(reply.status, 200);
    return reply.body.data;
  }

  const plusMonths = (at: string, months: number) => {
    const end = new Date(at);
    end.setUTCMonth(end.getUTCMonth() + months);
    return end.toISOString();
  };

  // ------------------------------------------------------------ the lead's fields

  test('a lead records every field of 2.10: details, companyDomain, marketing, moment, page with its title, language, what was shown, expiry in 24 months', async () => {
    const agent = await formAgent(
      {
        fields: [{ name: 'name' }, { name: 'email', required: true }, { name: 'phone' }, { name: 'company' }],
        intro: 'Leave your number and our workshop calls you back.',
        marketing: { enabled: true, label: 'Send me the workshop newsletter' },
      },
      { languages: ['nl'] },
    );
    const page = 'https://bikes.example.org/repairs';
    const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_test', url: page, title: 'Repairs', text: 'We repair every bike.' });
    await waitForSource(service, ws.keys.read, agent, sourceId);
    const { conversationId, token } = await converse(agent);

    const leadId = await leaveLead(
      agent,
      {
        conversationId,
        name: '  Anna de Vries ',
        email: 'anna@Acme-Bikes.NL',
        phone: '+31 (0)20 123 4567',
        company: 'Acme Bikes',
        marketing: true,
        moment: 'questions',
        page: { url: `${page}?utm_source=mail#prices` },
        language: 'nl',
      },
      token,
    );
    const lead = await readLead(agent, leadId);
    assert.deepEqual(Object.keys(lead).sort(), LEAD_FIELDS);
    assert.deepEqual(
      { ...lead, createdAt: undefined, expiresAt: undefined },
      {
        id: leadId,
        conversationId,
        name: 'Anna de Vries',
        email: 'anna@Acme-Bikes.NL',
        phone: '+31 (0)20 123 4567',
        company: 'Acme Bikes',
        companyDomain: 'acme-bikes.nl',
        marketing: true,
        moment: 'questions',
        page: { url: page, title: 'Repairs' },
        language: 'nl',
        shown: { intro: 'Leave your number and our workshop calls you back.', consent: FORM_TEXTS.nl.consent, privacyUrl: PRIVACY, marketing: 'Send me the workshop newsletter' },
        createdAt: undefined,
        expiresAt: undefined,
      },
    );
    assert.match(lead.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(lead.createdAt) - Date.parse((await service.admin('GET', '/clock')).body.data.now)) < 60_000);
    assert.equal(lead.expiresAt, plusMonths(lead.createdAt, 24));
  });

  test('empty texts are shown as the standard sentences in the lead’s language; no box: shown.marketing null and marketing false', async () => {
    const agent = await formAgent({}, { languages: ['de', 'fr'] });
    const de = await readLead(agent, await leaveLead(agent, { email: 'jonas@example-werkstatt.de', language: 'de-AT' }));
    assert.deepEqual(de.shown, { intro: FORM_TEXTS.de.intro, consent: FORM_TEXTS.de.consent, privacyUrl: PRIVACY, marketing: null });
    assert.equal(de.language, 'de');
    assert.equal(de.marketing, false);
    const fr = await readLead(agent, await leaveLead(agent, { email: 'lea@atelier-velo.fr', language: 'fr' }));
    assert.equal(fr.shown.intro, FORM_TEXTS.fr.intro);
    // A language the agent does not speak: the widget spoke the agent's own.
    const es = await readLead(agent, await leaveLead(agent, { email: 'ana@taller.es', language: 'es' }));
    assert.equal(es.language, 'en');
    assert.equal(es.shown.consent, FORM_TEXTS.en.consent);
    const none = await readLead(agent, await leaveLead(agent, { email: 'sam@workshop.example.org' }));
    assert.equal(none.language, 'en');
  });

  test('a ticked box without a label records the standard label as shown', async () => {
    const agent = await formAgent({ marketing: { enabled: true } });
    const lead = await readLead(agent, await leaveLead(agent, { email: 'kim@bike-parts.example.net', marketing: true }));
    assert.equal(lead.shown.marketing, FORM_TEXTS.en.marketingLabel);
    assert.equal(lead.marketing, true);
    const unticked = await readLead(agent, await leaveLead(agent, { email: 'kim@bike-parts.example.net' }));
    assert.equal(unticked.marketing, false);
  });

  test('companyDomain is null for an address at a mailbox provider (also under one of its domains) and without an e-mail', async () => {
    const agent = await formAgent({ fields: [{ name: 'email' }, { name: 'phone' }] });
    for (const email of ['someone@gmail.com', 'someone@HOTMAIL.NL', 'someone@web.de', 'someone@eu.gmail.com']) {
      const lead = await readLead(agent, await leaveLead(agent, { email }));
      assert.equal(lead.companyDomain, null, email);
    }
    const phoneOnly = await readLead(agent, await leaveLead(agent, { phone: '020 123 4567' }));
    assert.equal(phoneOnly.email, null);
    assert.equal(phoneOnly.companyDomain, null);
    assert.equal((await readLead(agent, await leaveLead(agent, { email: 'ops@sales.acme-bikes.nl' }))).companyDomain, 'sales.acme-bikes.nl');
  });

  test('fields the form does not ask and fields left empty are null; without a conversation or page those are null; a page not known as a source has title null', async () => {
    const agent = await formAgent({ fields: [{ name: 'email', required: true }, { name: 'name' }] });
    const lead = await readLead(
      agent,
      await leaveLead(agent, { email: 'piet@fietsen.example.nl', name: '   ', company: 'Not asked BV', phone: '0612345678', moment: 'before' }),
    );
    assert.equal(lead.name, null);
    assert.equal(lead.company, null);
    assert.equal(lead.phone, null);
    assert.equal(lead.conversationId, null);
    assert.equal(lead.page, null);
    assert.equal(lead.moment, 'before');
    const nulls = await readLead(agent, await leaveLead(agent, { email: 'piet@fietsen.example.nl', name: null, page: { url: 'https://bikes.example.org/unknown?x=1' } }));
    assert.deepEqual(nulls.page, { url: 'https://bikes.example.org/unknown', title: null });
    const notWeb = await readLead(agent, await leaveLead(agent, { email: 'piet@fietsen.example.nl', page: { url: 'javascript:alert(1)' } }));
    assert.equal(notWeb.page, null);
  });

  test('every moment is recorded as sent', async () => {
    const agent = await formAgent();
    for (const moment of ['before', 'questions', 'weak_answer', 'button']) {
      assert.equal((await readLead(agent, await leaveLead(agent, { email: 'moment@acme-bikes.nl', moment }))).moment, moment);
    }
  });

  // ------------------------------------------------------------ bad input

  test('bad input is 400 invalid_request naming the field', async () => {
    const agent = await formAgent({ fields: [{ name: 'name', required: true }, { name: 'email', required: true }, { name: 'phone' }], marketing: { enabled: false } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'Anna', email: 'not-an-address' }, 'email'],
      [{ name: 'Anna', email: 'anna@' }, 'email'],
      [{ name: 'Anna' }, 'email'],
      [{ name: 'Anna', email: '   ' }, 'email'],
      [{ email: 'anna@acme-bikes.nl' }, 'name'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', phone: 'call me' }, 'phone'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', phone: '12+34567' }, 'phone'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', phone: '12 34' }, 'phone'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', marketing: true }, 'marketing'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', moment: 'later' }, 'moment'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', moment: undefined }, 'moment'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', source: 'widget' }, 'source'],
      [{ name: 'Anna', email: 'anna@acme-bikes.nl', page: { url: 'https://a.example', title: 'x' } }, 'page.title'],
      [{ name: 'A'.repeat(101), email: 'anna@acme-bikes.nl' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const reply = await leave(agent, body);
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0]?.field, field, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
    }
    assert.equal(await leadRows({ agentId: agent }), 0);
  });

  test('single-line fields never carry a line break (it would forge lines in the owner’s plain-text mail): 400 naming the field; bidirectional overrides are stripped from name and company', async () => {
    const agent = await formAgent({ fields: [{ name: 'name' }, { name: 'email', required: true }, { name: 'phone' }, { name: 'company' }], marketing: { enabled: false } });
    const forged = 'Anna\r\nE-mail: ceo@victim.example';
    for (const field of ['name', 'email', 'phone', 'company']) {
      for (const lineBreak of ['\r\n', '\n', '\r', '\u2028']) {
        const body = { name: 'Anna', email: 'anna@acme-bikes.nl', phone: '+31 20 123 4567', company: 'Acme', [field]: field === 'email' ? `anna@acme-bikes.nl${lineBreak}Bcc: x@example.org` : `Anna${lineBreak}Page: x` };
        const reply = await leave(agent, body);
        assertError(reply, 400, 'invalid_request');
        assert.equal(reply.body.error.details[0]?.field, field, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
      }
    }
    assertError(await leave(agent, { name: forged, email: 'anna@acme-bikes.nl' }), 400, 'invalid_request');
    assert.equal(await leadRows({ agentId: agent }), 0);

    const id = await leaveLead(agent, { name: 'Anna \u202Eseiv\u202C Smit', company: '\u2066Acme\u2069 \u202ABikes\u202D', email: 'anna@acme-bikes.nl' });
    const lead = await readLead(agent, id);
    assert.equal(lead.name, 'Anna seiv Smit');
    assert.equal(lead.company, 'Acme Bikes');
  });

  test('a lead of nothing but bidirectional controls is a field left empty', async () => {
    const agent = await formAgent({ fields: [{ name: 'name', required: true }, { name: 'email', required: true }], marketing: { enabled: false } });
    const cases: Array<[Record<string, unknown>, string]> = [[{ name: '\u202E\u202C', email: 'anna@acme-bikes.nl' }, 'name']];
    for (const [body, field] of cases) {
      const reply = await leave(agent, body);
      assertError(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0]?.field, field, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
    }
    assert.equal(await leadRows({ agentId: agent }), 0);
  });

  test('the phone the form requires is needed, and with two optional contact fields one of them', async () => {
    const phoneRequired = await formAgent({ fields: [{ name: 'phone', required: true }] });
    const missing = await leave(phoneRequired, { name: 'Anna' });
    assertError(missing, 400, 'invalid_request');
    assert.deepEqual(missing.body.error.details, [{ field: 'phone', message: 'required' }]);
    await leaveLead(phoneRequired, { phone: '+32 2 555 12 34' });

    const eitherOne = await formAgent({ fields: [{ name: 'name' }, { name: 'email' }, { name: 'phone' }] });
    const neither = await leave(eitherOne, { name: 'Anna' });
    assertError(neither, 400, 'invalid_request');
    assert.equal(neither.body.error.details[0].field, 'email');
    await leaveLead(eitherOne, { phone: '+32 2 555 12 34' });
  });

  test('a lead while the agent’s form is off is 400 invalid_request naming leadCapture.enabled', async () => {
    const agent = await seedAgent(service, ws);
    const reply = await leave(agent, { email: 'anna@acme-bikes.nl' });
    assertError(reply, 400, 'invalid_request');
    assert.equal(reply.body.error.details[0].field, 'leadCapture.enabled');

    const switchedOff = await formAgent();
    await leaveLead(switchedOff, { email: 'anna@acme-bikes.nl' });
    await service.api('PATCH', `/agents/${switchedOff}`, { key: ws.keys.manage, body: { leadCapture: { enabled: false } } });
    assertError(await leave(switchedOff, { email: 'anna@acme-bikes.nl' }), 400, 'invalid_request');
    assert.equal((await listIds(switchedOff)).length, 1, 'the lead left before stays readable');
  });

  // ------------------------------------------------------------ the visitor token

  test('a lead tied to a conversation needs that conversation’s token: missing, wrong or another agent’s is 404 not_found', async () => {
    const agent = await formAgent();
    const mine = await converse(agent);
    const theirs = await converse(agent);
    const elsewhere = await converse(await formAgent());
    const body = { email: 'anna@acme-bikes.nl', conversationId: mine.conversationId };
    assertError(await leave(agent, body), 404, 'not_found');
    assertError(await leave(agent, body, theirs.token), 404, 'not_found');
    assertError(await leave(agent, body, `${mine.token}x`), 404, 'not_found');
    assertError(await leave(agent, { ...body, conversationId: elsewhere.conversationId }, elsewhere.token), 404, 'not_found');
    assertError(await leave(agent, { ...body, conversationId: 'conv_unknown000000000000' }, mine.token), 404, 'not_found');
    assert.equal(await leadRows({ agentId: agent }), 0);
    const leadId = await leaveLead(agent, body, mine.token);
    assert.equal((await readLead(agent, leadId)).conversationId, mine.conversationId);
  });

  test('a keyed API conversation cannot be named by a visitor', async () => {
    const agent = await formAgent();
    const asked = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Do you sell helmets?' } });
    assert.equal(asked.status, 200);
    assertError(await leave(agent, { email: 'anna@acme-bikes.nl', conversationId: asked.body.data.conversationId }, 'guess'), 404, 'not_found');
  });

  test('a site outside the agent’s allowedOrigins cannot leave a lead (403 forbidden); an admitted one can', async () => {
    const agent = await formAgent({}, { allowedOrigins: ['https://bikes.example.org', 'https://*.bikes-shop.example.net'] });
    const body = { email: 'anna@acme-bikes.nl', moment: 'button' };
    assertError(await visitor('POST', `/agents/${agent}/leads`, { body, origin: 'https://elsewhere.example.com' }), 403, 'forbidden');
    assert.equal(await leadRows({ agentId: agent }), 0);
    for (const origin of ['https://bikes.example.org', 'https://www.bikes-shop.example.net']) {
      const reply = await visitor('POST', `/agents/${agent}/leads`, { body, origin });
      assert.equal(reply.status, 201, `${origin}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.headers.get('access-control-allow-origin'), origin);
    }
  });

  // ------------------------------------------------------------ the team's API

  test('GET leads: newest first in the list shape, limit and cursor page through them; a bad cursor or limit is 400', async () => {
    const agent = await formAgent();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(await leaveLead(agent, { email: `visitor${i}@acme-bikes.nl` }));
      await service.admin('POST', '/clock', { advanceSeconds: 1 });
    }
    const newestFirst = [...made].reverse();
    const all = await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read });
    assert.deepEqual(Object.keys(all.body).sort(), ['data', 'pagination']);
    assert.deepEqual(all.body.pagination, { nextCursor: null });
    assert.deepEqual(all.body.data.map((l: { id: string }) => l.id), newestFirst);
    for (const item of all.body.data) assert.deepEqual(Object.keys(item).sort(), LEAD_FIELDS);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await service.api('GET', `/agents/${agent}/leads${query}`, { key: ws.keys.read });
      assert.equal(page.status, 200);
      assert.ok(page.body.data.length <= 2);
      seen.push(...page.body.data.map((l: { id: string }) => l.id));
      cursor = page.body.pagination.nextCursor;
      // A lead arriving meanwhile does not disturb the pages already given.
      if (seen.length === 2) await leaveLead(agent, { email: 'late@acme-bikes.nl' });
    } while (cursor);
    assert.deepEqual(seen, newestFirst);

    for (const query of ['?cursor=abc', '?limit=0', '?limit=101', '?limit=x', '?order=asc']) {
      const reply = await service.api('GET', `/agents/${agent}/leads${query}`, { key: ws.keys.read });
      assertError(reply, 400, 'invalid_request');
    }
  });

  test('leads of one agent are not seen through another: list, read and erase are per agent', async () => {
    const agent = await formAgent();
    const other = await formAgent();
    const leadId = await leaveLead(agent, { email: 'anna@acme-bikes.nl' });
    assert.deepEqual(await listIds(other), []);
    assertError(await service.api('GET', `/agents/${other}/leads/${leadId}`, { key: ws.keys.read }), 404, 'not_found');
    assertError(await service.api('DELETE', `/agents/${other}/leads/${leadId}`, { key: ws.keys.manage }), 404, 'not_found');
    const tied = await ws.addKey('read', other);
    assertError(await service.api('GET', `/agents/${agent}/leads`, { key: tied.key }), 404, 'not_found');
    assertError(await service.api('GET', `/agents/${agent}/leads/${leadId}`, { key: tied.key }), 404, 'not_found');
    const tiedToAgent = await ws.addKey('read', agent);
    assert.deepEqual(await listIds(agent, '', tiedToAgent.key), [leadId]);
    assert.equal(await leadRows({ leadId }), 1);
  });

  test('another workspace sees none of the leads: 404 not_found for its keys, also through an agent of its own', async () => {
    const agent = await formAgent();
    const leadId = await leaveLead(agent, { email: 'anna@acme-bikes.nl' });
    const foreign = await service.seedWorkspace({ plan: 'enterprise', name: 'Foreign' });
    for (const [method, path] of [['GET', `/agents/${agent}/leads`], ['GET', `/agents/${agent}/leads/${leadId}`], ['DELETE', `/agents/${agent}/leads/${leadId}`]]) {
      const reply = await service.api(method, path, { key: foreign.keys.manage });
      assertError(reply, 404, 'not_found');
      assert.ok(!JSON.stringify(reply.body).includes('anna'));
    }
    const foreignAgent = await formAgent({}, {}, foreign);
    assertError(await service.api('GET', `/agents/${foreignAgent}/leads/${leadId}`, { key: foreign.keys.read }), 404, 'not_found');
    assert.equal(await leadRows({ leadId }), 1);
  });

  test('DELETE erases the lead and leaves its conversation; it is audited; a second DELETE is 404', async () => {
    const agent = await formAgent();
    const { conversationId, token } = await converse(agent);
    const leadId = await leaveLead(agent, { email: 'anna@acme-bikes.nl', conversationId }, token);
    assertError(await service.api('DELETE', `/agents/${agent}/leads/${leadId}`, { key: ws.keys.read }), 403, 'forbidden');
    const reply = await service.api('DELETE', `/agents/${agent}/leads/${leadId}`, { key: ws.keys.manage });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body, { data: { id: leadId, deleted: true } });
    assertError(await service.api('GET', `/agents/${agent}/leads/${leadId}`, { key: ws.keys.read }), 404, 'not_found');
    assert.deepEqual(await listIds(agent), []);
    assertError(await service.api('DELETE', `/agents/${agent}/leads/${leadId}`, { key: ws.keys.manage }), 404, 'not_found');
    assert.equal((await service.api('GET', `/agents/${agent}/conversations/${conversationId}`, { key: ws.keys.read })).status, 200, 'the conversation stays');
    const audit = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    const entry = audit.body.data.find((e: { action: string; target: string }) => e.action === 'lead.delete' && e.target === `${agent}/${leadId}`);
    assert.ok(entry, 'the deletion is in the audit log');
    assert.equal(entry.keyId, ws.keyIds.manage);
  });

  test('erasing the conversation erases its lead; erasing the agent erases all its leads', async () => {
    const agent = await formAgent();
    const first = await converse(agent);
    const second = await converse(agent);
    const tied = await leaveLead(agent, { email: 'anna@acme-bikes.nl', conversationId: first.conversationId }, first.token);
    const other = await leaveLead(agent, { email: 'bob@acme-bikes.nl', conversationId: second.conversationId }, second.token);
    const loose = await leaveLead(agent, { email: 'carla@acme-bikes.nl' });
    assert.equal((await service.api('DELETE', `/agents/${agent}/conversations/${first.conversationId}`, { key: ws.keys.manage })).status, 200);
    assertError(await service.api('GET', `/agents/${agent}/leads/${tied}`, { key: ws.keys.read }), 404, 'not_found');
    assert.equal(await leadRows({ leadId: tied }), 0);
    assert.deepEqual((await listIds(agent)).sort(), [other, loose].sort());

    assert.equal((await service.api('DELETE', `/agents/${agent}`, { key: ws.keys.manage })).status, 200);
    assert.equal(await leadRows({ agentId: agent }), 0);
  });

  test('leads stay readable after the form is switched off and across a move to a plan without the API and back; the widget takes leads on every plan', async () => {
    const workspace = await service.seedWorkspace({ plan: 'studio', name: 'Mover' });
    const agent = await formAgent({}, {}, workspace);
    const leadId = await leaveLead(agent, { email: 'anna@acme-bikes.nl' });
    assert.equal((await service.admin('PATCH', `/workspaces/${workspace.id}`, { plan: 'free' })).status, 200);
    assertError(await service.api('GET', `/agents/${agent}/leads`, { key: workspace.keys.read }), 402, 'api_not_in_plan');
    const onFree = await leaveLead(agent, { email: 'bob@acme-bikes.nl' });
    assert.equal((await service.admin('PATCH', `/workspaces/${workspace.id}`, { plan: 'studio' })).status, 200);
    assert.deepEqual(await listIds(agent, '', workspace.keys.read), [onFree, leadId]);
  });

  test('a paused agent takes no leads (402 agent_paused) but its leads stay readable; a stopped workspace takes none (403)', async () => {
    const workspace = await service.seedWorkspace({ plan: 'studio', name: 'Shrinking' });
    const older = await formAgent({}, {}, workspace);
    const newer = await formAgent({}, {}, workspace);
    const leadId = await leaveLead(newer, { email: 'anna@acme-bikes.nl' });
    assert.equal((await service.admin('PATCH', `/workspaces/${workspace.id}`, { plan: 'free' })).status, 200);
    assertError(await leave(newer, { email: 'bob@acme-bikes.nl' }), 402, 'agent_paused');
    assert.equal((await service.admin('PATCH', `/workspaces/${workspace.id}`, { plan: 'enterprise' })).status, 200);
    assert.deepEqual(await listIds(newer, '', workspace.keys.read), [leadId]);
    assert.equal((await service.admin('PATCH', `/workspaces/${workspace.id}`, { status: 'stopped' })).status, 200);
    assertError(await leave(older, { email: 'bob@acme-bikes.nl' }), 403, 'workspace_stopped');
  });

  // ------------------------------------------------------------ the owner's notice

  test('the workspace owner is mailed each new lead, in the workspace’s language; a workspace without an owner address mails no one', async () => {
    const created = await service.admin('POST', '/workspaces', { name: 'Fietsenmaker', plan: 'studio', language: 'nl', ownerEmail: 'eigenaar@fietsenmaker.example.nl' });
    assert.equal(created.status, 201);
    const workspaceId = created.body.data.id;
    const key = await service.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'manage', scope: 'manage' });
    const manage = key.body.data.key;
    const agentReply = await service.api('POST', '/agents', { key: manage, body: { name: 'Fietshulp', useCase: 'sales' } });
    assert.equal(agentReply.status, 201);
    const agent = agentReply.body.data.id;
    await service.api('PATCH', `/agents/${agent}`, { key: manage, body: { leadCapture: { enabled: true, privacyUrl: PRIVACY, fields: [{ name: 'name' }, { name: 'email', required: true }, { name: 'phone' }] } } });
    const leadId = await leaveLead(agent, { name: 'Anna', email: 'anna@acme-bikes.nl', phone: '020 123 4567', page: { url: 'https://bikes.example.org/prijzen' } });

    const mail = await eventually('the owner’s notice', async () => (await outbox()).find((m) => m.to === 'eigenaar@fietsenmaker.example.nl' && m.text.includes(leadId)));
    assert.equal(mail.subject, 'Nieuwe lead via Fietshulp: anna@acme-bikes.nl');
    assert.match(mail.text, /Een bezoeker heeft zijn gegevens achtergelaten bij Fietshulp\./);
    assert.match(mail.text, /Naam: Anna/);
    assert.match(mail.text, /E-mail: anna@acme-bikes\.nl/);
    assert.match(mail.text, /Telefoon: 020 123 4567/);
    assert.match(mail.text, /Pagina: https:\/\/bikes\.example\.org\/prijzen/);

    const silent = await service.admin('POST', '/workspaces', { name: 'No owner', plan: 'studio' });
    const silentKey = (await service.admin('POST', `/workspaces/${silent.body.data.id}/keys`, { name: 'manage', scope: 'manage' })).body.data.key;
    const silentAgent = (await service.api('POST', '/agents', { key: silentKey, body: { name: 'Quiet', useCase: 'sales' } })).body.data.id;
    await service.api('PATCH', `/agents/${silentAgent}`, { key: silentKey, body: { leadCapture: { enabled: true, privacyUrl: PRIVACY } } });
    const silentLead = await leaveLead(silentAgent, { email: 'quiet@acme-bikes.nl' });
    // The first notice above came through the same path; give a second one the same time to show.
    await sleep(1_500);
    assert.ok(!(await outbox()).some((m) => m.text.includes(silentLead)));
  });

  // ------------------------------------------------------------ retention (moves the clock: keep last)

  test('a lead is deleted when its 24 months are up: hidden at once and removed by the expiry job as the clock passes', async () => {
    const agent = await formAgent();
    const leadId = await leaveLead(agent, { email: 'anna@acme-bikes.nl' });
    const { expiresAt } = await readLead(agent, leadId);
    await service.admin('POST', '/clock', { now: new Date(Date.parse(expiresAt) - 60_000).toISOString() });
    await sleep(300);
    assert.equal((await readLead(agent, leadId)).id, leadId, 'still there a minute before');
    assert.equal(await leadRows({ leadId }), 1);
    await service.admin('POST', '/clock', { advanceSeconds: 61 });
    assertError(await service.api('GET', `/agents/${agent}/leads/${leadId}`, { key: ws.keys.read }), 404, 'not_found');
    assert.deepEqual(await listIds(agent), []);
    await eventually('the expiry job', async () => ((await leadRows({ leadId })) === 0 ? true : undefined));
  });
});
