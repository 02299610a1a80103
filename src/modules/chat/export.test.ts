import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { extractText } from 'unpdf';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { utcDay } from '../../platform/clock.ts';
import { insertConversation, insertManyConversations } from './conversation-seeds.ts';
import { seedTexts } from './test-support.ts';

const env = { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };
const DAY_MS = 86_400_000;

const MATERIAL = [
  { title: 'Levering', content: 'Wij bezorgen in België en Nederland binnen één tot twee werkdagen. Op zaterdag bezorgen wij niet.' },
  { title: 'Rückgabe', content: 'Die Rückgabe ist innerhalb von 30 Tagen möglich. Größere Geräte holen wir kostenlos bei Ihnen ab.' },
  { title: 'Envío', content: 'El envío a España cuesta cinco euros. Los pedidos hechos por la mañana salen el mismo día.' },
  { title: 'Livraison', content: 'La livraison en France coûte six euros. À Noël, nous expédions dès réception de la commande.' },
];

const QUESTIONS = [
  'Bezorgen jullie in België binnen één of twee werkdagen?',
  'Holen Sie größere Geräte für die Rückgabe ab?',
  '¿Cuánto cuesta el envío a España?',
  'Combien coûte la livraison en France pour un colis reçu ?',
];

/** Whitespace folded: the PDF breaks long lines where the text had spaces. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

describe('conversation export', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'agency' });
  });
  after(async () => service?.close());

  const exportLink = (agentId: string, key: string, query = '') => service.api('GET', `/agents/${agentId}/conversations/export${query}`, { key });
  /** The link as served by this test's server (the public address in config is not the random port). */
  const download = (url: string) => fetch(`${service.url}${new URL(url).pathname}`);
  const today = () => utcDay(service.ctx.clock.now());
  const dayOffset = (days: number) => utcDay(new Date(service.ctx.clock.now().getTime() + days * DAY_MS));

  async function downloadPdf(url: string): Promise<Uint8Array> {
    const response = await download(url);
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(Buffer.from(bytes.subarray(0, 5)).toString(), '%PDF-');
    return bytes;
  }

  /** The PDF's text, page by page, as a PDF text extractor reads it. */
  async function pdfPages(url: string): Promise<string[]> {
    const { text } = await extractText(await downloadPdf(url), { mergePages: false });
    return text.map(flat);
  }

  function assertNumbered(pages: string[]): void {
    pages.forEach((page, index) => assert.match(page, new RegExp(`Page ${index + 1}(?!\\d)`), `page ${index + 1} has its number`));
  }

  test('the link serves a PDF without a key: a cover, every conversation with its letters in the five languages, answers with confidence and grounding, page numbers', async () => {
    const agent = await seedAgent(service, ws, 'Atelier Zoë & Müller');
    await seedTexts(service, ws.keys.manage, agent, MATERIAL);
    const answers: string[] = [];
    for (const message of QUESTIONS) {
      const reply = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      answers.push(reply.body.data.answer);
    }
    const long = `Ein sehr langer Text über Öffnungszeiten. ${'Größere Geräte, Straße, Übergröße und ähnliche Wörter füllen diese Zeile. '.repeat(60)}Ende.`;
    await insertConversation(service, { workspaceId: ws.id, agentId: agent }, { at: service.ctx.clock.now(), channel: 'widget', userId: 'visitor-7', messages: [{ role: 'user', content: 'Eine lange Frage?' }, { role: 'assistant', content: long }] });

    const reply = await exportLink(agent, ws.keys.read);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(Object.keys(reply.body.data).sort(), ['expiresAt', 'url']);
    assert.ok(reply.body.data.url.startsWith(`${service.ctx.config.publicUrl}/api/v1/conversation-exports/`));

    const pages = await pdfPages(reply.body.data.url);
    const cover = pages[0]!;
    assert.match(cover, /Conversations Atelier Zoë & Müller/);
    assert.ok(cover.includes(`Period: ${dayOffset(-29)} to ${today()}`), cover);
    assert.match(cover, /Channel: all channels/);
    assert.match(cover, /Conversations: 5 /);
    assert.match(cover, /Questions: 5 /);
    assert.match(cover, /Test conversations: included/);
    const all = pages.join(' ');
    for (const text of [...QUESTIONS, ...answers]) assert.ok(all.includes(flat(text)), `the PDF holds: ${text}`);
    for (const letters of ['één', 'België', 'Größere', 'Rückgabe', 'España', '¿Cuánto', 'coûte', 'reçu']) assert.ok(all.includes(letters), letters);
    assert.ok(all.includes(flat(long)), 'the long answer wraps and reads back whole');
    assert.match(all, /Answer · \d\d:\d\d/);
    assert.match(all, /confidence \d+ · grounding supported · model parley-offline · sources: /);
    assert.match(all, /widget/);
    assert.match(all, /user visitor-7/);
    assert.ok(pages.length >= 3, `cover and at least two pages of conversations, got ${pages.length}`);
    assertNumbered(pages);
  });

  test('a key tied to the agent never gets test conversations in its export; an untied key does', async () => {
    const agent = await seedAgent(service, ws, 'Playground agent');
    await insertConversation(service, { workspaceId: ws.id, agentId: agent }, { at: service.ctx.clock.now(), channel: 'playground', messages: [{ role: 'user', content: 'Nur ein Test im Spielplatz?' }, { role: 'assistant', content: 'Testantwort.' }] });
    await insertConversation(service, { workspaceId: ws.id, agentId: agent }, { at: service.ctx.clock.now(), channel: 'api', messages: [{ role: 'user', content: 'A real question?' }, { role: 'assistant', content: 'A real answer.' }] });
    const tied = await ws.addKey('read', agent);

    const tiedPages = await pdfPages((await exportLink(agent, tied.key)).body.data.url);
    assert.match(tiedPages[0]!, /Conversations: 1 /);
    assert.match(tiedPages[0]!, /Test conversations: not included/);
    assert.ok(!tiedPages.join(' ').includes('Spielplatz'));
    assert.ok(tiedPages.join(' ').includes('A real question?'));
    const asked = await pdfPages((await exportLink(agent, tied.key, '?channel=playground')).body.data.url);
    assert.match(asked[0]!, /Conversations: 0 /);
    assert.ok(!asked.join(' ').includes('Spielplatz'));

    const untied = await pdfPages((await exportLink(agent, ws.keys.read)).body.data.url);
    assert.match(untied[0]!, /Conversations: 2 /);
    assert.ok(untied.join(' ').includes('Nur ein Test im Spielplatz?'));
    assert.ok(untied.join(' ').includes('channel playground') || untied.join(' ').includes('· playground'));

    const otherAgent = await seedAgent(service, ws, 'Another agent');
    assertError(await exportLink(otherAgent, tied.key), 404, 'not_found');
  });

  test('the period: the last 30 UTC days by default, from and to inclusive on the last message, the channel; a reversed or over-long period is 400', async () => {
    const agent = await seedAgent(service, ws, 'Period agent');
    const where = { workspaceId: ws.id, agentId: agent };
    const at = (days: number) => new Date(Date.parse(`${dayOffset(days)}T12:00:00.000Z`));
    await insertConversation(service, where, { at: at(0), channel: 'api', messages: [{ role: 'user', content: 'Asked today?' }] });
    await insertConversation(service, where, { at: at(-29), channel: 'widget', messages: [{ role: 'user', content: 'Asked 29 days ago?' }] });
    await insertConversation(service, where, { at: at(-30), channel: 'api', messages: [{ role: 'user', content: 'Asked 30 days ago?' }] });

    const byDefault = (await pdfPages((await exportLink(agent, ws.keys.read)).body.data.url)).join(' ');
    assert.ok(byDefault.includes('Asked today?') && byDefault.includes('Asked 29 days ago?'));
    assert.ok(!byDefault.includes('Asked 30 days ago?'));

    const oneDay = (await pdfPages((await exportLink(agent, ws.keys.read, `?from=${dayOffset(-30)}&to=${dayOffset(-30)}`)).body.data.url)).join(' ');
    assert.ok(oneDay.includes('Asked 30 days ago?') && !oneDay.includes('Asked today?') && !oneDay.includes('Asked 29 days ago?'));
    assert.ok(oneDay.includes(`Period: ${dayOffset(-30)} to ${dayOffset(-30)}`));

    const onlyTo = (await pdfPages((await exportLink(agent, ws.keys.read, `?to=${dayOffset(-1)}`)).body.data.url)).join(' ');
    assert.ok(onlyTo.includes(`Period: ${dayOffset(-30)} to ${dayOffset(-1)}`));
    assert.ok(onlyTo.includes('Asked 30 days ago?') && !onlyTo.includes('Asked today?'));

    const widget = (await pdfPages((await exportLink(agent, ws.keys.read, `?channel=widget&from=${dayOffset(-365)}`)).body.data.url)).join(' ');
    assert.ok(widget.includes('Channel: widget'));
    assert.ok(widget.includes('Asked 29 days ago?') && !widget.includes('Asked today?') && !widget.includes('Asked 30 days ago?'));

    const reversed = await exportLink(agent, ws.keys.read, `?from=${dayOffset(-1)}&to=${dayOffset(-2)}`);
    assertError(reversed, 400, 'invalid_request');
    assert.equal(reversed.body.error.details[0].field, 'from');
    assertError(await exportLink(agent, ws.keys.read, `?from=${dayOffset(1)}`), 400, 'invalid_request');
    assertError(await exportLink(agent, ws.keys.read, `?from=${dayOffset(-366)}&to=${today()}`), 400, 'invalid_request');
    assert.equal((await exportLink(agent, ws.keys.read, `?from=${dayOffset(-365)}&to=${today()}`)).status, 200);
    assertError(await exportLink(agent, ws.keys.read, '?from=2026-13-01'), 400, 'invalid_request');
    const earliest = await exportLink(agent, ws.keys.read, '?to=0001-01-10');
    assert.equal(earliest.status, 200, JSON.stringify(earliest.body));
    assert.ok((await pdfPages(earliest.body.data.url))[0]!.includes('Period: 0001-01-01 to 0001-01-10'));
    const latestDays = await exportLink(agent, ws.keys.read, '?from=9999-12-01&to=9999-12-31');
    assert.match((await pdfPages(latestDays.body.data.url))[0]!, /Conversations: 0 /);
    assertError(await exportLink(agent, ws.keys.read, '?channel=fax'), 400, 'invalid_request');
    assertError(await exportLink(agent, ws.keys.read, '?format=docx'), 400, 'invalid_request');
  });

  test('at most the 500 most recent conversations go in', async () => {
    const agent = await seedAgent(service, ws, 'Busy agent');
    await insertManyConversations(service, { workspaceId: ws.id, agentId: agent }, 501, service.ctx.clock.now());
    const reply = await exportLink(agent, ws.keys.read);
    const pdf = await downloadPdf(reply.body.data.url);
    const pages = (await extractText(pdf, { mergePages: false })).text.map(flat);
    assert.match(pages[0]!, /Conversations: 500 \(the most recent of 501\)/);
    assert.match(pages[0]!, /Questions: 500 /);
    const all = pages.join(' ');
    assert.ok(all.includes('Question number 1?') && all.includes('Question number 500?'));
    assert.ok(!all.includes('Question number 501?'), 'the oldest is left out');
    assert.ok(all.indexOf('Question number 1?') < all.indexOf('Question number 2?'), 'most recent first');
    assertNumbered(pages);
  });

  test('asking for the link and opening it are in the audit trail, with the key that asked', async () => {
    const agent = await seedAgent(service, ws, 'Audited agent');
    const key = await ws.addKey('read');
    const link = await exportLink(agent, key.key);
    await pdfPages(link.body.data.url);
    const audit = await service.admin('GET', `/workspaces/${ws.id}/audit`);
    const asked = audit.body.data.find((entry: any) => entry.action === 'conversation.export' && entry.keyId === key.id);
    assert.ok(asked, 'the export is recorded');
    assert.equal(asked.target, agent);
    const opened = audit.body.data.find((entry: any) => entry.action === 'conversation.export.open' && entry.keyId === key.id);
    assert.ok(opened, 'the opening is recorded');
    assert.ok(opened.target.startsWith(`${agent}/`));
    assert.match(opened.requestId, /^req_/);
  });

  test('revoking the key that asked stops its link at once; a stopped workspace’s links stop too', async () => {
    const agent = await seedAgent(service, ws, 'Revoked agent');
    const key = await ws.addKey('read');
    const revoked = (await exportLink(agent, key.key)).body.data.url;
    const kept = (await exportLink(agent, ws.keys.read)).body.data.url;
    assert.equal((await download(revoked)).status, 200);
    assert.equal((await service.admin('DELETE', `/workspaces/${ws.id}/keys/${key.id}`)).status, 200);
    const gone = await download(revoked);
    assertError({ status: gone.status, headers: gone.headers, body: await gone.json() }, 404, 'not_found');
    assert.equal((await download(kept)).status, 200);

    const other = await service.seedWorkspace({ plan: 'studio' });
    const otherAgent = await seedAgent(service, other);
    const link = (await exportLink(otherAgent, other.keys.read)).body.data.url;
    assert.equal((await service.admin('PATCH', `/workspaces/${other.id}`, { status: 'stopped' })).status, 200);
    assert.equal((await download(link)).status, 404);
  });

  test('an unknown or malformed link is 404 with the error body; the keyless route is not in the API document', async () => {
    for (const secret of ['x'.repeat(48), 'short', 'A'.repeat(100)]) {
      const response = await fetch(`${service.url}/api/v1/conversation-exports/${secret}`);
      assertError({ status: response.status, headers: response.headers, body: await response.json() }, 404, 'not_found');
    }
    const document = await fetch(`${service.url}/api/v1/openapi.json`).then((r) => r.json());
    assert.ok(document.paths['/agents/{id}/conversations/export']);
    assert.ok(!Object.keys(document.paths).some((p) => p.includes('conversation-exports')));
  });

  test('scopes and tenancy: a chat key may not export; another workspace’s agent is 404', async () => {
    const agent = await seedAgent(service, ws, 'Scoped agent');
    assertError(await exportLink(agent, ws.keys.chat), 403, 'forbidden');
    assert.equal((await exportLink(agent, ws.keys.manage)).status, 200);
    const foreign = await service.seedWorkspace({ plan: 'studio' });
    assertError(await exportLink(agent, foreign.keys.read), 404, 'not_found');
  });

  // Last: it moves the service's clock.
  test('the link works for 15 minutes by the clock, then is 404', async () => {
    const agent = await seedAgent(service, ws, 'Expiring agent');
    const link = await exportLink(agent, ws.keys.read);
    const now = Date.parse((await service.admin('GET', '/clock')).body.data.now);
    const expiresAt = Date.parse(link.body.data.expiresAt);
    assert.ok(Math.abs(expiresAt - now - 15 * 60_000) < 5_000, `expires ${link.body.data.expiresAt}`);
    await service.admin('POST', '/clock', { advanceSeconds: 14 * 60 });
    assert.equal((await download(link.body.data.url)).status, 200);
    await service.admin('POST', '/clock', { advanceSeconds: 61 });
    const expired = await download(link.body.data.url);
    assertError({ status: expired.status, headers: expired.headers, body: await expired.json() }, 404, 'not_found');
  });
});
