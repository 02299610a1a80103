import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import type { Context } from '../../context.ts';
import { utcMonth } from '../../platform/clock.ts';
import { makeReport } from '../clients/jobs.ts';
import { claimReport, findClient } from '../clients/store.ts';
import { monthBefore } from '../clients/report.ts';
import { seedTexts } from '../chat/test-support.ts';
import { enableTickets, openTicket, startConversation } from '../tickets/test-support.ts';
import { enableLeads, leaveLead } from '../webhooks/test-support.ts';
import { noteKeyUse } from '../workspace/key-use.ts';
import { addPerson, signIn, type SignedIn } from './test-support.ts';

let service: Service;
let ws: SeededWorkspace;
let owner: SignedIn;
let admin: SignedIn;
let member: SignedIn;
let agentId: string;
let counter = 0;
const ids: Record<string, string> = {};

interface OutboxMail {
  to: string;
  subject: string;
  text: string;
}

async function outbox(): Promise<OutboxMail[]> {
  return (await service.admin('GET', '/outbox')).body.data;
}

/** The mails in the outbox whose text mentions `marker` (an id), once at least `count` are there. */
async function mailsAbout(marker: string, count = 1): Promise<OutboxMail[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const found = (await outbox()).filter((mail) => mail.text.includes(marker) || mail.subject.includes(marker));
    if (found.length >= count) return found;
    if (Date.now() > until) throw new Error(`only ${found.length} mails about ${marker}`);
    await sleep(50);
  }
}

async function personId(email: string): Promise<string> {
  const people = await owner.call('GET', '/api/people');
  return people.body.data.find((p: { email: string }) => p.email === email).id;
}

before(async () => {
  service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ name: 'Agency', plan: 'agency' });
  owner = await signIn(service, ws.id, 'owner@example.com');
  admin = await addPerson(service, owner, 'admin@ops.example', 'admin');
  member = await addPerson(service, owner, 'member@ops.example', 'member');
  agentId = await seedAgent(service, ws, 'Desk');
  await enableTickets(service, ws, agentId);
  await enableLeads(service, ws, agentId);
  for (const email of ['owner@example.com', 'admin@ops.example', 'member@ops.example']) ids[email] = await personId(email);
});
after(async () => {
  await service.close();
});

describe('who is e-mailed each new lead and ticket, per agent (spec 1.5)', () => {
  test('by default the owner is mailed each lead and ticket, with a link to its page in the dashboard and no API call', async () => {
    const agent = await seedAgent(service, ws, 'Default desk');
    await enableTickets(service, ws, agent);
    await enableLeads(service, ws, agent);
    const read = await member.call('GET', `/api/agents/${agent}/notifications`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    const owned = { chosen: false, people: [{ id: ids['owner@example.com'], email: 'owner@example.com', name: '' }] };
    assert.deepEqual(read.body.data, { agentId: agent, leads: owned, tickets: owned });

    const leadId = await leaveLead(service.url, agent);
    const [leadMail] = await mailsAbout(leadId);
    assert.equal(leadMail!.to, 'owner@example.com');
    assert.ok(leadMail!.text.includes(`${service.url}/app/agents/${agent}/inbox/leads/${leadId}`), leadMail!.text);
    assert.doesNotMatch(leadMail!.text, /\/api\/v1|API/);

    const ticket = await openTicket(service, agent, { email: 'asker@example.org' });
    const notices = (await mailsAbout(ticket.id)).filter((mail) => mail.to !== 'asker@example.org');
    assert.deepEqual(notices.map((mail) => mail.to), ['owner@example.com']);
    assert.ok(notices[0]!.text.includes(`${service.url}/app/agents/${agent}/inbox/tickets/${ticket.id}`), notices[0]!.text);
    assert.doesNotMatch(notices[0]!.text, /\/api\/v1|API/);
  });

  test('owners and admins choose the people; the chosen get the mails, the owner no more; null goes back to the owner, [] mails no one', async () => {
    const agent = await seedAgent(service, ws, 'Chosen desk');
    await enableTickets(service, ws, agent);
    await enableLeads(service, ws, agent);
    const chosen = await admin.call('PUT', `/api/agents/${agent}/notifications`, { leads: [ids['member@ops.example']], tickets: [ids['admin@ops.example'], ids['member@ops.example']] });
    assert.equal(chosen.status, 200, JSON.stringify(chosen.body));
    assert.deepEqual(chosen.body.data.leads.people.map((p: { email: string }) => p.email), ['member@ops.example']);
    assert.equal(chosen.body.data.tickets.chosen, true);

    const leadId = await leaveLead(service.url, agent);
    assert.deepEqual((await mailsAbout(leadId)).map((mail) => mail.to), ['member@ops.example']);
    const ticket = await openTicket(service, agent, { email: 'asker@example.org' });
    const notices = (await mailsAbout(ticket.id, 2)).filter((mail) => mail.to !== 'asker@example.org');
    assert.deepEqual(notices.map((mail) => mail.to).sort(), ['admin@ops.example', 'member@ops.example']);

    // Only the kind sent changes; null is the owner again.
    const back = await owner.call('PUT', `/api/agents/${agent}/notifications`, { leads: null });
    assert.equal(back.body.data.leads.chosen, false);
    assert.equal(back.body.data.tickets.people.length, 2);
    const again = await leaveLead(service.url, agent);
    assert.deepEqual((await mailsAbout(again)).map((mail) => mail.to), ['owner@example.com']);

    assert.equal((await owner.call('PUT', `/api/agents/${agent}/notifications`, { leads: [] })).status, 200);
    const silent = await leaveLead(service.url, agent);
    await sleep(500);
    assert.deepEqual((await outbox()).filter((mail) => mail.text.includes(silent)), []);
  });

  test('a chosen person who leaves the workspace is mailed no more; with no chosen person left, the owner is', async () => {
    const agent = await seedAgent(service, ws, 'Leaving desk');
    await enableLeads(service, ws, agent);
    const leaver = await addPerson(service, owner, `leaver${++counter}@ops.example`, 'member');
    const leaverId = await personId(`leaver${counter}@ops.example`);
    assert.equal((await owner.call('PUT', `/api/agents/${agent}/notifications`, { leads: [leaverId] })).status, 200);
    assert.equal((await owner.call('DELETE', `/api/people/${leaverId}`)).status, 200);
    assert.equal((await leaver.call('GET', '/api/me')).status, 401);
    const leadId = await leaveLead(service.url, agent);
    assert.deepEqual((await mailsAbout(leadId)).map((mail) => mail.to), ['owner@example.com']);
  });

  test('a member may read but not choose (403); people outside the workspace or limited to other agents cannot be chosen (400); a limited member sees other agents as 404', async () => {
    assertError(await member.call('PUT', `/api/agents/${agentId}/notifications`, { leads: [] }), 403, 'forbidden');
    assertError(await owner.call('PUT', `/api/agents/${agentId}/notifications`, { leads: ['psn_nobody'] }), 400, 'invalid_request');
    const other = await seedAgent(service, ws, 'Other desk');
    const limitedEmail = `limited${++counter}@ops.example`;
    const limited = await addPerson(service, owner, limitedEmail, 'member', [other]);
    assertError(await owner.call('PUT', `/api/agents/${agentId}/notifications`, { tickets: [await personId(limitedEmail)] }), 400, 'invalid_request');
    assertError(await limited.call('GET', `/api/agents/${agentId}/notifications`), 404, 'not_found');
    assert.equal((await limited.call('GET', `/api/agents/${other}/notifications`)).status, 200);
    assertError(await owner.call('PUT', `/api/agents/${agentId}/notifications`, { leads: [], extra: true }), 400, 'invalid_request');
    const foreign = await service.seedWorkspace({ name: 'Foreign' });
    const foreignAgent = await seedAgent(service, foreign, 'Foreign desk');
    assertError(await owner.call('GET', `/api/agents/${foreignAgent}/notifications`), 404, 'not_found');
    assertError(await owner.call('PUT', `/api/agents/${foreignAgent}/notifications`, { leads: [] }), 404, 'not_found');
  });
});

describe('workspace settings, usage and plan (spec 1.5)', () => {
  test('every person reads name, language, plan, credits with a per-day series, agents against the limit and storage per agent; a member limited to some agents only their agents’ storage', async () => {
    await startConversation(service, agentId, 'Are you open today?');
    const stored = await seedAgent(service, ws, 'Stored desk');
    await seedTexts(service, ws.keys.manage, stored, [{ title: 'Hours', content: 'We are open from nine to five on weekdays.' }]);
    const reply = await member.call('GET', '/api/workspace');
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const data = reply.body.data;
    assert.equal(data.id, ws.id);
    assert.equal(data.plan, 'agency');
    assert.deepEqual(Object.keys(data.credits).sort(), ['included', 'purchased', 'series', 'usedThisMonth']);
    assert.equal(data.credits.included, 40_000);
    const now = service.ctx.clock.now();
    assert.equal(data.credits.series.length, now.getUTCDate());
    assert.equal(data.credits.series[0].date, `${utcMonth(now)}-01`);
    assert.ok(data.credits.series.at(-1).credits >= 1, 'the answer just made counts today');
    assert.equal(data.credits.series.reduce((sum: number, day: { credits: number }) => sum + day.credits, 0) >= 1, true);
    assert.equal(data.agents.limit, 25);
    assert.ok(data.agents.count >= 1);
    assert.equal(data.storage.allowancePerAgentBytes, 100 * 1024 * 1024);
    const { size } = await service.ctx.db.selectFrom('sources').select((eb) => eb.fn.sum<number>('size_bytes').as('size')).where('agent_id', '=', stored).executeTakeFirstOrThrow();
    assert.ok(Number(size) > 0);
    const storedUse = data.storage.agents.find((a: { agentId: string }) => a.agentId === stored);
    assert.equal(storedUse?.usedBytes, Number(size), 'the agent uses what its sources take');
    // A member limited to some agents is told nothing about the workspace (as /app/api/v1/workspace tells them {}):
    // their agents' storage only, no name, plan, credits nor agent count.
    const limited = await addPerson(service, owner, `storage${++counter}@ops.example`, 'member', [stored]);
    const theirs = await limited.call('GET', '/api/workspace');
    assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
    assert.deepEqual(Object.keys(theirs.body.data), ['storage'], JSON.stringify(theirs.body.data));
    assert.deepEqual(theirs.body.data.storage.agents.map((a: { agentId: string }) => a.agentId), [stored], 'a limited member sees only their agents');
    assert.deepEqual((await limited.call('GET', '/api/v1/workspace')).body, { data: {} });
  });

  test('owners and admins change the name and default language (GET /workspace with a key follows); a member is 403; a name of two lines is 400', async () => {
    const changed = await admin.call('PATCH', '/api/workspace', { name: 'Agency Two', language: 'nl' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.data.name, 'Agency Two');
    assert.equal(changed.body.data.language, 'nl');
    const keyed = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(keyed.body.data.workspace.name, 'Agency Two');
    assertError(await member.call('PATCH', '/api/workspace', { name: 'Mine' }), 403, 'forbidden');
    assertError(await owner.call('PATCH', '/api/workspace', { name: 'Two\nlines' }), 400, 'invalid_request');
    assertError(await owner.call('PATCH', '/api/workspace', { plan: 'enterprise' }), 400, 'invalid_request');
    assert.equal((await owner.call('PATCH', '/api/workspace', { name: 'Agency', language: 'en' })).status, 200);
  });
});

describe('the audit log for owners and admins (spec 1.3)', () => {
  test('newest first, naming the person or the key; filtered by who, action and period; paged with a cursor; a member is 403', async () => {
    const from = service.ctx.clock.now().toISOString();
    await sleep(5);
    const created = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'Audited', useCase: 'general' } });
    assert.equal(created.status, 201);
    assert.equal((await admin.call('PATCH', '/api/workspace', { name: 'Agency' })).status, 200);

    const all = await owner.call('GET', `/api/audit?from=${encodeURIComponent(from)}`);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    const [newest, older] = all.body.data;
    assert.equal(newest.action, 'workspace.settings');
    assert.deepEqual(newest.by, { kind: 'person', id: ids['admin@ops.example'], name: '', email: 'admin@ops.example' });
    assert.equal(older.by.kind, 'key');
    assert.equal(older.by.id, ws.keyIds.manage);
    assert.equal(typeof older.by.prefix, 'string');

    const byKey = await owner.call('GET', `/api/audit?keyId=${ws.keyIds.manage}&from=${encodeURIComponent(from)}`);
    assert.deepEqual(byKey.body.data.map((e: { id: string }) => e.id), [older.id]);
    const byPerson = await owner.call('GET', `/api/audit?personId=${ids['admin@ops.example']}&action=workspace.settings`);
    assert.ok(byPerson.body.data.length >= 1 && byPerson.body.data.every((e: { action: string; by: { id: string } }) => e.action === 'workspace.settings' && e.by.id === ids['admin@ops.example']));
    const before = await owner.call('GET', `/api/audit?to=${encodeURIComponent(from)}&keyId=${ws.keyIds.manage}`);
    assert.ok(!before.body.data.some((e: { id: string }) => e.id === older.id), 'the period leaves later entries out');

    const first = await owner.call('GET', `/api/audit?limit=1&from=${encodeURIComponent(from)}`);
    assert.equal(first.body.data[0].id, newest.id);
    const second = await owner.call('GET', `/api/audit?limit=1&from=${encodeURIComponent(from)}&cursor=${first.body.pagination.nextCursor}`);
    assert.equal(second.body.data[0].id, older.id);
    assertError(await owner.call('GET', '/api/audit?cursor=bogus'), 400, 'invalid_request');
    // from and to within the years PostgreSQL stores, on days that exist: else 400, never a 500
    for (const bad of ['from=0000-01-01T00:00:00Z', 'to=0000-12-31T23:59:59Z', 'from=2020-02-30T00:00:00Z', 'to=2026-01-01T24:00:00Z', 'from=yesterday']) {
      const reply = await owner.call('GET', `/api/audit?${bad}`);
      assertError(reply, 400, 'invalid_request');
      assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === bad.split('=')[0]), JSON.stringify(reply.body.error));
    }
    assert.equal((await owner.call('GET', '/api/audit?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59.999999Z')).status, 200);
    assertError(await member.call('GET', '/api/audit'), 403, 'forbidden');
  });
});

describe('client reports from the dashboard (spec 1.5)', () => {
  let clientAgent: string;
  const clientEmail = 'boss@client.example';

  before(async () => {
    clientAgent = await seedAgent(service, ws, 'Client desk');
    const put = await service.api('PUT', `/agents/${clientAgent}/client`, { key: ws.keys.manage, body: { name: 'Bakery Jansen', email: clientEmail, holdForReview: true } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
  });

  /** A report of `month` made by the report job, held for review. */
  async function heldReport(month: string): Promise<string> {
    const client = (await findClient(service.ctx.db, ws.id, clientAgent))!;
    const reportId = `rep_test${month.replace('-', '')}${++counter}`;
    const now = service.ctx.clock.now();
    await claimReport(service.ctx.db, { id: reportId, client_id: client.id, workspace_id: ws.id, agent_id: clientAgent, month, language: 'en', created_at: now }, new Date(now.getTime() + 60_000));
    await makeReport(service.ctx, reportId);
    return reportId;
  }

  test('"send now" mails the report of the latest complete month to the client at once, held for review or not', async () => {
    const sent = await member.call('POST', `/api/agents/${clientAgent}/client/report`);
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    const month = monthBefore(utcMonth(service.ctx.clock.now()));
    assert.equal(sent.body.data.month, month);
    assert.equal(sent.body.data.status, 'sent');
    const mails = await (async () => {
      const until = Date.now() + 10_000;
      for (;;) {
        const found = (await outbox()).filter((mail) => mail.to === clientEmail);
        if (found.length > 0 || Date.now() > until) return found;
        await sleep(50);
      }
    })();
    assert.equal(mails.length, 1);
    const listed = await owner.call('GET', `/api/agents/${clientAgent}/client/reports`);
    assert.deepEqual(listed.body.data.map((r: { month: string; status: string }) => [r.month, r.status]), [[month, 'sent']]);
  });

  test('a held report: listed, previewed as its PDF, released (mailed once) or discarded (never mailed); the people chosen are told with a link to the client page', async () => {
    assert.equal((await owner.call('PUT', `/api/agents/${clientAgent}/notifications`, { leads: [ids['admin@ops.example']], tickets: [ids['admin@ops.example'], ids['member@ops.example']] })).status, 200);
    const released = await heldReport('2025-01');
    const notices = await mailsAbout('Bakery Jansen waits');
    await sleep(300);
    // The people chosen for the agent who may release it: the member chosen for tickets is not told.
    assert.deepEqual((await mailsAbout('Bakery Jansen waits')).map((mail) => mail.to), ['admin@ops.example']);
    const notice = notices[0];
    assert.ok(notice!.text.includes(`${service.url}/app/agents/${clientAgent}/client`), notice!.text);
    const discarded = await heldReport('2025-02');

    const held = await owner.call('GET', `/api/agents/${clientAgent}/client/reports?status=held`);
    assert.deepEqual(held.body.data.map((r: { id: string }) => r.id).sort(), [released, discarded].sort());
    const pdf = await fetch(`${service.url}/app/api/agents/${clientAgent}/client/reports/${released}/pdf`, { headers: { cookie: owner.cookie } });
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');

    const before = (await outbox()).filter((mail) => mail.to === clientEmail).length;
    const release = await owner.call('POST', `/api/agents/${clientAgent}/client/reports/${released}/release`);
    assert.equal(release.status, 200, JSON.stringify(release.body));
    assert.equal(release.body.data.status, 'sent');
    assertError(await owner.call('POST', `/api/agents/${clientAgent}/client/reports/${released}/release`), 404, 'not_found');
    const discard = await admin.call('POST', `/api/agents/${clientAgent}/client/reports/${discarded}/discard`);
    assert.equal(discard.status, 200, JSON.stringify(discard.body));
    assert.equal(discard.body.data.status, 'discarded');
    assertError(await admin.call('POST', `/api/agents/${clientAgent}/client/reports/${discarded}/release`), 404, 'not_found');
    await sleep(300);
    const toClient = (await outbox()).filter((mail) => mail.to === clientEmail);
    assert.equal(toClient.length, before + 1, 'the released report only');
    assert.match(toClient[0]!.subject, /January 2025/);
  });

  test('below the agency plan 402 clients_not_in_plan; a member limited to other agents sees 404, to their own 403 (as on the client routes); no client is 404', async () => {
    const studio = await service.seedWorkspace({ name: 'Studio', plan: 'studio' });
    const studioOwner = await signIn(service, studio.id, 'owner@example.com');
    const studioAgent = await seedAgent(service, studio, 'Studio desk');
    assertError(await studioOwner.call('POST', `/api/agents/${studioAgent}/client/report`), 402, 'clients_not_in_plan');
    assertError(await studioOwner.call('GET', `/api/agents/${studioAgent}/client/reports`), 402, 'clients_not_in_plan');
    const limited = await addPerson(service, owner, `reports${++counter}@ops.example`, 'member', [agentId]);
    assertError(await limited.call('POST', `/api/agents/${clientAgent}/client/report`), 404, 'not_found');
    assertError(await limited.call('GET', `/api/agents/${clientAgent}/client/reports`), 404, 'not_found');
    // As on the client routes: a limited member may not see clients, not even of their own agents.
    const ownLimited = await addPerson(service, owner, `reports${++counter}@ops.example`, 'member', [clientAgent]);
    assertError(await ownLimited.call('GET', `/api/agents/${clientAgent}/client/reports`), 403, 'forbidden');
    assertError(await owner.call('POST', `/api/agents/${agentId}/client/report`), 404, 'not_found');
  });
});

describe("keys' lastUsedAt (spec 1.5 list keys)", () => {
  async function lastUsedAt(keyId: string): Promise<string | null> {
    const keys = await owner.call('GET', '/api/keys');
    return keys.body.data.find((k: { id: string }) => k.id === keyId).lastUsedAt;
  }
  async function eventuallyUsed(keyId: string, other: string | null): Promise<string> {
    const until = Date.now() + 10_000;
    for (;;) {
      const at = await lastUsedAt(keyId);
      if (at !== null && at !== other) return at;
      if (Date.now() > until) throw new Error(`lastUsedAt of ${keyId} stayed ${at}`);
      await sleep(50);
    }
  }

  test('recorded when the key is used, at most once a minute per key (also from another process), in the dashboard, operator and CLI lists', async () => {
    const key = await ws.addKey('read');
    assert.equal(await lastUsedAt(key.id), null);
    assert.equal((await service.api('GET', '/workspace', { key: key.key })).status, 200);
    const first = await eventuallyUsed(key.id, null);
    const operator = await service.admin('GET', `/workspaces/${ws.id}/keys`);
    assert.equal(operator.body.data.find((k: { id: string }) => k.id === key.id).lastUsedAt, first);

    // Within the minute: neither this process nor another (a context of its own) writes again.
    await service.admin('POST', '/clock', { advanceSeconds: 30 });
    assert.equal((await service.api('GET', '/workspace', { key: key.key })).status, 200);
    noteKeyUse({ ...service.ctx } as Context, key.id);
    await sleep(500);
    assert.equal(await lastUsedAt(key.id), first);

    await service.admin('POST', '/clock', { advanceSeconds: 31 });
    assert.equal((await service.api('GET', '/workspace', { key: key.key })).status, 200);
    const later = await eventuallyUsed(key.id, first);
    assert.ok(Date.parse(later) - Date.parse(first) >= 60_000, `${first} → ${later}`);
  });
});
