import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Reply, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { makeDocx, makePdf, makeTitledPdf } from '../knowledge/test-support.ts';
import { startVisitorConversation, visitorRequest } from '../visitors/test-support.ts';
import { MAX_FILE_BYTES, READ_CAPS } from './read.ts';
import { oneBitScanPdf, scannedPdf, textPng, TINY_PICTURES } from './test-support.ts';

const ATTACHMENT_FIELDS = ['fileName', 'id', 'kind', 'mediaType', 'ocrPages', 'pages', 'sizeBytes', 'truncated'];
const FILE_FIELDS = [...ATTACHMENT_FIELDS, 'conversationId', 'stored', 'text'].sort();
const DAY_SECONDS = 24 * 60 * 60;
const SITE = 'https://bikes.example.org';

interface SendOptions {
  token?: string;
  conversationId?: string;
  origin?: string;
  /** Extra form parts. */
  parts?: Record<string, string>;
  /** The file under another part name. */
  partName?: string;
}

describe('visitor files (spec 2.8, 2.9, 4.9)', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  let foreign: SeededWorkspace;

  before(async () => {
    service = await startService();
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    foreign = await service.seedWorkspace({ plan: 'enterprise' });
    agent = await filesAgent();
  });
  after(async () => service?.close());

  // ------------------------------------------------------------ helpers

  /** An agent of its own that takes files. */
  async function filesAgent(workspace = ws, settings: Record<string, unknown> = {}): Promise<string> {
    const id = await seedAgent(service, workspace, 'Bike shop');
    const patched = await service.api('PATCH', `/agents/${id}`, { key: workspace.keys.manage, body: { attachmentsEnabled: true, ...settings } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return id;
  }

  async function send(agentId: string, bytes: Uint8Array | undefined, fileName: string, options: SendOptions = {}): Promise<Reply> {
    const form = new FormData();
    if (options.conversationId !== undefined) form.append('conversationId', options.conversationId);
    if (bytes !== undefined) form.append(options.partName ?? 'file', new Blob([new Uint8Array(bytes)]), fileName);
    for (const [name, value] of Object.entries(options.parts ?? {})) form.append(name, value);
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers['x-visitor-token'] = options.token;
    if (options.origin !== undefined) headers.origin = options.origin;
    const response = await fetch(`${service.url}/visitor/v1/agents/${agentId}/files`, { method: 'POST', body: form, headers });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  async function sent(agentId: string, bytes: Uint8Array, fileName: string, options: SendOptions = {}): Promise<any> {
    const reply = await send(agentId, bytes, fileName, options);
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    return reply.body.data;
  }

  const chat = (agentId: string, body: Record<string, unknown>, token?: string) => visitorRequest(service, 'POST', `/agents/${agentId}/chat`, { body, token });
  const readFile = (agentId: string, fileId: string, key = ws.keys.read) => service.api('GET', `/agents/${agentId}/visitor-files/${fileId}`, { key });

  async function readText(agentId: string, fileId: string): Promise<string> {
    const reply = await readFile(agentId, fileId);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data.text;
  }

  // ------------------------------------------------------------ kinds and what is read

  test('a PDF with text: 201 with the attachment fields of 2.8, its pages read; GET gives the fields of 2.9 with the text', async () => {
    const pdf = await makePdf(['Our returns policy: bring the bike back within 30 days.', 'Second page: a receipt is needed.']);
    const data = await sent(agent, pdf, 'returns policy.pdf');
    assert.deepEqual(Object.keys(data).filter((k) => k !== 'visitorToken').sort(), ATTACHMENT_FIELDS);
    assert.match(data.id, /^file_[0-9A-Za-z]{20}$/);
    assert.deepEqual(
      { ...data, id: undefined, visitorToken: undefined },
      { id: undefined, visitorToken: undefined, fileName: 'returns policy.pdf', kind: 'pdf', mediaType: 'application/pdf', sizeBytes: pdf.length, pages: 2, truncated: false, ocrPages: null },
    );
    const file = (await readFile(agent, data.id)).body.data;
    assert.deepEqual(Object.keys(file).sort(), FILE_FIELDS);
    assert.equal(file.conversationId, null);
    assert.equal(file.stored, true);
    assert.match(file.text, /bring the bike back within 30 days\.[\s\S]*a receipt is needed/);
  });

  test('a PDF’s title set apart by space is a paragraph of its own in the text, as a knowledge source’s PDF reads', async () => {
    const pdf = await makeTitledPdf('Opening hours', ['Weekdays from nine to six.', 'Saturdays from ten to four.', 'Closed on Sundays.']);
    const file = (await readFile(agent, (await sent(agent, pdf, 'hours.pdf')).id)).body.data;
    assert.equal(file.text, 'Opening hours\n\nWeekdays from nine to six.\nSaturdays from ten to four.\nClosed on Sundays.');
  });

  test('a Word document, a text file and a Markdown file are read; kind and media type come from the bytes, never the name', async () => {
    const docx = await sent(agent, await makeDocx(['The frame is guaranteed for ten years.']), 'warranty.pdf');
    assert.deepEqual([docx.kind, docx.mediaType, docx.pages, docx.ocrPages, docx.truncated], ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', null, null, false]);
    assert.match(await readText(agent, docx.id), /guaranteed for ten years/);

    const text = await sent(agent, Buffer.from('Order 5521: two inner tubes, size 28 inch.\n'), 'order.docx');
    assert.deepEqual([text.kind, text.mediaType, text.pages], ['text', 'text/plain', null]);
    assert.equal(await readText(agent, text.id), 'Order 5521: two inner tubes, size 28 inch.');

    const markdown = await sent(agent, Buffer.from('# Service log\n\n- brakes adjusted\n- chain replaced\n'), 'log.md');
    assert.deepEqual([markdown.kind, markdown.mediaType], ['text', 'text/markdown']);
    assert.match(await readText(agent, markdown.id), /chain replaced/);
  });

  test('pictures (PNG, JPEG, WebP, GIF) are kept as pictures: kind image, their media type, text null', async () => {
    const pictures: Array<[string, Uint8Array, string]> = [
      ['screenshot.png', await textPng(['Error 42']), 'image/png'],
      ['photo.jpg', TINY_PICTURES.jpeg, 'image/jpeg'],
      ['photo.webp', TINY_PICTURES.webp, 'image/webp'],
      ['loop.gif', TINY_PICTURES.gif, 'image/gif'],
    ];
    for (const [name, bytes, mediaType] of pictures) {
      const data = await sent(agent, bytes, name);
      assert.deepEqual([data.kind, data.mediaType, data.sizeBytes, data.pages, data.truncated, data.ocrPages], ['image', mediaType, bytes.length, null, false, null], name);
      const file = (await readFile(agent, data.id)).body.data;
      assert.equal(file.text, null, name);
      assert.equal(file.stored, true, name);
    }
  });

  test('a scanned PDF (pages that are pictures) is read by text recognition: ocrPages counts them; a mixed one only its scanned page', async () => {
    const scan = await sent(agent, await scannedPdf([['Invoice 2041 from the bike shop', 'Frame welding costs 85 euros.'], ['Please pay within 14 days.']]), 'scan.pdf');
    assert.deepEqual([scan.kind, scan.pages, scan.ocrPages, scan.truncated], ['pdf', 2, 2, false]);
    const text = await readText(agent, scan.id);
    assert.match(text, /Invoice 2041 from the bike shop/);
    assert.match(text, /Frame welding costs 85 euros\./);
    assert.match(text, /Please pay within 14 days\./);

    const mixed = await sent(agent, await scannedPdf(['A typed page: the shop opens at nine on weekdays and closes at six.', ['A scanned page: tyres cost 30 euros.']]), 'mixed.pdf');
    assert.deepEqual([mixed.pages, mixed.ocrPages], [2, 1]);
    assert.match(await readText(agent, mixed.id), /opens at nine on weekdays[\s\S]*tyres cost 30 euros/);
  });

  test('one-bit scans, drawn as an image or as a stencil mask (as fax-like scanners write them), are recognised too', async () => {
    for (const as of ['image', 'mask'] as const) {
      const data = await sent(agent, await oneBitScanPdf(['Fax from the bike shop', 'Chain oil costs 7 euros.'], as), `fax-${as}.pdf`);
      assert.equal(data.ocrPages, 1, as);
      assert.match(await readText(agent, data.id), /Chain oil costs 7 euros\./, as);
    }
  });

  test('only the first part is read of a long file: truncated true, the text capped (characters, scanned pages)', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => `Line ${i} of the parts list.`).join('\n');
    const text = await sent(agent, Buffer.from(long), 'parts.txt');
    assert.equal(text.truncated, true);
    const read = await readText(agent, text.id);
    assert.ok(read.length <= READ_CAPS.maxChars && read.length > READ_CAPS.maxChars * 0.9, String(read.length));
    assert.ok(long.startsWith(read));

    const pages = Array.from({ length: READ_CAPS.maxOcrPages + 1 }, (_, i) => [`Page ${i + 1}`]);
    const scan = await sent(agent, await scannedPdf(pages), 'many pages.pdf');
    assert.deepEqual([scan.pages, scan.ocrPages, scan.truncated], [pages.length, READ_CAPS.maxOcrPages, true]);
    assert.doesNotMatch(await readText(agent, scan.id), new RegExp(`Page ${pages.length}`));
  });

  test('the file name is kept without a path, control characters or bidirectional overrides; a file without a name is "file"', async () => {
    assert.equal((await sent(agent, Buffer.from('notes'), 'C:\\Users\\ann\\Desktop\\notes\u0007.txt')).fileName, 'notes.txt');
    assert.equal((await sent(agent, Buffer.from('notes'), 'réparation.txt')).fileName, 'réparation.txt');
    // U+202E would show the owner "notes\u202Efdp.txt" as "notestxt.pdf".
    assert.equal((await sent(agent, Buffer.from('notes'), 'notes\u202Efdp\u202C.\u2066txt\u2069')).fileName, 'notesfdp.txt');
    assert.equal((await sent(agent, Buffer.from('notes'), '')).fileName, 'file');
  });

  // ------------------------------------------------------------ refusals

  test('kinds not accepted are 415 unsupported_file_type (HTML, a zip, binary); an empty file is 400 naming file', async () => {
    assertError(await send(agent, Buffer.from('<!doctype html><html><body>Hi</body></html>'), 'page.pdf'), 415, 'unsupported_file_type');
    assertError(await send(agent, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0, 1, 2, 3, 4]), 'archive.zip'), 415, 'unsupported_file_type');
    assertError(await send(agent, Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00]), 'program.exe'), 415, 'unsupported_file_type');
    const empty = await send(agent, Buffer.alloc(0), 'empty.txt');
    assertError(empty, 400, 'invalid_request');
    assert.equal(empty.body.error.details[0].field, 'file');
  });

  test(`a file over ${MAX_FILE_BYTES / 1024 / 1024} MB is 413 file_too_large; one of exactly that size is taken`, async () => {
    assertError(await send(agent, Buffer.alloc(MAX_FILE_BYTES + 1, 'a'), 'big.txt'), 413, 'file_too_large');
    const largest = await sent(agent, Buffer.alloc(MAX_FILE_BYTES, 'a'), 'largest.txt');
    assert.deepEqual([largest.sizeBytes, largest.truncated], [MAX_FILE_BYTES, true]);
  });

  test('a damaged PDF is 400 naming file', async () => {
    const broken = await send(agent, Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without pages'), 'broken.pdf');
    assertError(broken, 400, 'invalid_request');
    assert.equal(broken.body.error.details[0].field, 'file');
  });

  test('the form is strict: no file is 400 file required; an unknown part, a second file or a JSON body is 400 naming it', async () => {
    const missing = await send(agent, undefined, 'x', { parts: {} });
    assertError(missing, 400, 'invalid_request');
    assert.deepEqual(missing.body.error.details, [{ field: 'file', message: 'required' }]);

    const unknown = await send(agent, Buffer.from('hello'), 'a.txt', { parts: { caption: 'my file' } });
    assertError(unknown, 400, 'invalid_request');
    assert.equal(unknown.body.error.details[0].field, 'caption');

    const wrongName = await send(agent, Buffer.from('hello'), 'a.txt', { partName: 'upload' });
    assertError(wrongName, 400, 'invalid_request');
    assert.equal(wrongName.body.error.details[0].field, 'upload');

    const form = new FormData();
    form.append('file', new Blob(['one']), 'one.txt');
    form.append('file', new Blob(['two']), 'two.txt');
    const two = await fetch(`${service.url}/visitor/v1/agents/${agent}/files`, { method: 'POST', body: form });
    assert.equal(two.status, 400);
    assert.equal((await two.json()).error.details[0].field, 'file');

    const json = await visitorRequest(service, 'POST', `/agents/${agent}/files`, { body: { file: 'hello' } });
    assertError(json, 400, 'invalid_request');
    assert.equal(json.body.error.details[0].field, 'content-type');

    const emptyId = await send(agent, Buffer.from('hello'), 'a.txt', { conversationId: '' });
    assertError(emptyId, 400, 'invalid_request');
    assert.equal(emptyId.body.error.details[0].field, 'conversationId');
  });

  test('attachmentsEnabled off: 400 naming attachmentsEnabled, for files and for a question with attachments', async () => {
    const off = await seedAgent(service, ws, 'No files');
    const reply = await send(off, Buffer.from('hello'), 'a.txt');
    assertError(reply, 400, 'invalid_request');
    assert.equal(reply.body.error.details[0].field, 'attachmentsEnabled');
    const file = await sent(agent, Buffer.from('hello'), 'a.txt');
    const asked = await chat(off, { message: 'What is in it?', attachments: [file.id] });
    assertError(asked, 400, 'invalid_request');
    assert.equal(asked.body.error.details[0].field, 'attachmentsEnabled');
  });

  test('a plan without visitor files refuses them as PATCH does (400 naming attachmentsEnabled), also for an agent switched on earlier; files sent before stay readable', async () => {
    const moving = await service.seedWorkspace({ plan: 'studio' });
    const movingAgent = await filesAgent(moving);
    const before = await sent(movingAgent, Buffer.from('Sent while the plan had files.'), 'before.txt');
    assert.equal((await service.admin('PATCH', `/workspaces/${moving.id}`, { plan: 'starter' })).status, 200);
    const refused = await send(movingAgent, Buffer.from('hello'), 'a.txt');
    assertError(refused, 400, 'invalid_request');
    assert.equal(refused.body.error.details[0].field, 'attachmentsEnabled');
    const widget = await visitorRequest(service, 'GET', `/agents/${movingAgent}`);
    assert.equal(widget.body.data.attachmentsEnabled, false);
    assert.equal((await service.admin('PATCH', `/workspaces/${moving.id}`, { plan: 'studio' })).status, 200);
    const read = await service.api('GET', `/agents/${movingAgent}/visitor-files/${before.id}`, { key: moving.keys.read });
    assert.equal(read.body.data.text, 'Sent while the plan had files.');
    assert.equal((await send(movingAgent, Buffer.from('hello'), 'a.txt')).status, 201);
  });

  test('a site outside allowedOrigins cannot send a file (403 forbidden); a paused agent 402, a stopped workspace 403', async () => {
    const guarded = await filesAgent(ws, { allowedOrigins: [SITE] });
    assertError(await send(guarded, Buffer.from('hello'), 'a.txt', { origin: 'https://evil.example.net' }), 403, 'forbidden');
    assert.equal((await send(guarded, Buffer.from('hello'), 'a.txt', { origin: SITE })).status, 201);

    const stopping = await service.seedWorkspace({ plan: 'studio' });
    const stoppingAgent = await filesAgent(stopping);
    await service.admin('PATCH', `/workspaces/${stopping.id}`, { status: 'stopped' });
    assertError(await send(stoppingAgent, Buffer.from('hello'), 'a.txt'), 403, 'workspace_stopped');

    const pausing = await service.seedWorkspace({ plan: 'studio' });
    const pausedAgent = await filesAgent(pausing);
    await sql`update agents set status = 'paused' where id = ${pausedAgent}`.execute(service.ctx.db);
    assertError(await send(pausedAgent, Buffer.from('hello'), 'a.txt'), 402, 'agent_paused');
  });

  // ------------------------------------------------------------ tokens and the chat

  test('the agent answers with the text of a scanned file sent with the question; the question message shows the attachment', async () => {
    const scan = await sent(agent, await scannedPdf([['Invoice 3107', 'Frame welding costs 85 euros.', 'Wheel truing costs 20 euros.']]), 'invoice.pdf');
    assert.match(scan.visitorToken, /^vt_[0-9A-Za-z]{43}$/);
    const reply = await chat(agent, { message: 'How much does the frame welding cost?', attachments: [scan.id] }, scan.visitorToken);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.match(reply.body.data.answer, /Frame welding costs 85 euros\./);
    assert.match(reply.body.data.answer, /invoice\.pdf/);
    assert.deepEqual(reply.body.data.sources, [], 'a file is not one of the agent’s sources');

    const conversation = (await service.api('GET', `/agents/${agent}/conversations/${reply.body.data.conversationId}`, { key: ws.keys.read })).body.data;
    const question = conversation.messages[0];
    const { visitorToken: _token, ...attachment } = scan;
    assert.deepEqual(question.attachments, [attachment]);
    assert.deepEqual(conversation.messages[1].attachments, []);
    assert.equal((await readFile(agent, scan.id)).body.data.conversationId, reply.body.data.conversationId, 'the file now belongs to the conversation');

    // Erasing the file leaves the question's mention of it: the answer still came from a file.
    assert.equal((await service.api('DELETE', `/agents/${agent}/visitor-files/${scan.id}`, { key: ws.keys.manage })).status, 200);
    const after = (await service.api('GET', `/agents/${agent}/conversations/${reply.body.data.conversationId}`, { key: ws.keys.read })).body.data;
    assert.deepEqual(after.messages[0].attachments, [attachment]);
    const correction = await service.api('POST', `/agents/${agent}/messages/${reply.body.data.messageId}/correction`, {
      key: ws.keys.manage,
      body: { question: 'How much does the frame welding cost?', answer: 'Frame welding costs 85 euros.' },
    });
    assertError(correction, 422, 'asked_with_file');
  });

  test('a file sent in a conversation needs its token; the next question in it may carry the file', async () => {
    const visitor = await startVisitorConversation(service, agent);
    for (const token of [undefined, 'vt_wrong', (await startVisitorConversation(service, agent)).token]) {
      assertError(await send(agent, Buffer.from('hello'), 'a.txt', { conversationId: visitor.conversationId, token }), 404, 'not_found');
    }
    const file = await sent(agent, Buffer.from('My Gazelle Orange C7 was bought in 2019.'), 'bike.txt', { conversationId: visitor.conversationId, token: visitor.token });
    assert.equal(file.visitorToken, undefined, 'the conversation already has its token');
    assert.equal((await readFile(agent, file.id)).body.data.conversationId, visitor.conversationId);
    const reply = await chat(agent, { message: 'When was my Gazelle Orange bought?', conversationId: visitor.conversationId, attachments: [file.id] }, visitor.token);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.match(reply.body.data.answer, /2019/);
  });

  test('one visitor can never use another’s file: a file of another conversation, another token, another agent or unknown is 404', async () => {
    const mine = await startVisitorConversation(service, agent);
    const theirs = await startVisitorConversation(service, agent);
    const theirFile = await sent(agent, Buffer.from('Their secret order.'), 'theirs.txt', { conversationId: theirs.conversationId, token: theirs.token });
    const loose = await sent(agent, Buffer.from('A loose file.'), 'loose.txt');
    const otherAgent = await filesAgent();
    const otherAgentFile = await sent(otherAgent, Buffer.from('Another agent’s file.'), 'other.txt');

    const attempts: Array<[string, Record<string, unknown>, string | undefined]> = [
      ['a file of another conversation', { conversationId: mine.conversationId, attachments: [theirFile.id] }, mine.token],
      ['a loose file without its token', { attachments: [loose.id] }, undefined],
      ['a loose file with another token', { attachments: [loose.id] }, mine.token],
      ['a loose file named in a conversation with that conversation’s token', { conversationId: mine.conversationId, attachments: [loose.id] }, mine.token],
      ['a file of another agent', { attachments: [otherAgentFile.id] }, otherAgentFile.visitorToken],
      ['an unknown file', { attachments: ['file_unknown000000000000'] }, loose.visitorToken],
      ['their conversation with my token', { conversationId: theirs.conversationId, attachments: [theirFile.id] }, mine.token],
    ];
    for (const [what, body, token] of attempts) {
      const reply = await chat(agent, { message: 'What does it say?', ...body }, token);
      assertError(reply, 404, 'not_found');
      assert.doesNotMatch(JSON.stringify(reply.body), /secret order|loose file/, what);
    }
  });

  test('a file sent before the conversation belongs to it once asked with; it cannot then be carried into another', async () => {
    const loose = await sent(agent, Buffer.from('Delivery address: Canal Street 12.'), 'address.txt');
    const first = await chat(agent, { message: 'What is the delivery address?', attachments: [loose.id] }, loose.visitorToken);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.match(first.body.data.answer, /Canal Street 12/);
    const again = await chat(agent, { message: 'And again?', attachments: [loose.id] }, loose.visitorToken);
    assertError(again, 404, 'not_found');
    // In its own conversation it can be named again.
    const next = await chat(agent, { message: 'Repeat the delivery address', conversationId: first.body.data.conversationId, attachments: [loose.id] }, first.body.data.visitorToken);
    assert.equal(next.status, 200, JSON.stringify(next.body));
  });

  test('a file sent before the conversation with the visitor’s own token is bound to that token; a streamed question carries it too', async () => {
    const visitor = await startVisitorConversation(service, agent);
    const file = await sent(agent, Buffer.from('Service appointment on Thursday at 14:30.'), 'appointment.txt', { token: visitor.token });
    assert.equal(file.visitorToken, undefined);
    const response = await fetch(`${service.url}/visitor/v1/agents/${agent}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-visitor-token': visitor.token },
      body: JSON.stringify({ message: 'When is my appointment?', conversationId: visitor.conversationId, attachments: [file.id], stream: true }),
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Thursday at 14:30/);
    assert.equal((await readFile(agent, file.id)).body.data.conversationId, visitor.conversationId);
  });

  test('a question carries at most 3 files; the same file named twice counts once', async () => {
    const file = await sent(agent, Buffer.from('Bell: 5 euros.'), 'bell.txt');
    const tooMany = await chat(agent, { message: 'Prices?', attachments: ['file_a', 'file_b', 'file_c', 'file_d'] }, file.visitorToken);
    assertError(tooMany, 400, 'invalid_request');
    assert.equal(tooMany.body.error.details[0].field, 'attachments');
    const twice = await chat(agent, { message: 'How much is the bell?', attachments: [file.id, file.id] }, file.visitorToken);
    assert.equal(twice.status, 200, JSON.stringify(twice.body));
    const conversation = (await service.api('GET', `/agents/${agent}/conversations/${twice.body.data.conversationId}`, { key: ws.keys.read })).body.data;
    assert.equal(conversation.messages[0].attachments.length, 1);
  });

  // ------------------------------------------------------------ the team's API

  test('reading a file is recorded in the audit trail with the key; DELETE erases file and text, leaves the conversation, is audited; again is 404', async () => {
    const visitor = await startVisitorConversation(service, agent);
    const file = await sent(agent, Buffer.from('Passport number X1234567.'), 'id.txt', { conversationId: visitor.conversationId, token: visitor.token });
    assert.equal((await readFile(agent, file.id)).status, 200);
    const audit = async () => (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data as Array<{ action: string; target: string; keyId: string }>;
    const read = (await audit()).find((e) => e.action === 'visitor_file.read' && e.target === `${agent}/${file.id}`);
    assert.ok(read, 'the read is in the audit log');
    assert.equal(read.keyId, ws.keyIds.read);

    const erased = await service.api('DELETE', `/agents/${agent}/visitor-files/${file.id}`, { key: ws.keys.manage });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.deepEqual(erased.body.data, { id: file.id, deleted: true });
    assert.ok((await audit()).some((e) => e.action === 'visitor_file.delete' && e.target === `${agent}/${file.id}`));
    assertError(await readFile(agent, file.id), 404, 'not_found');
    assertError(await service.api('DELETE', `/agents/${agent}/visitor-files/${file.id}`, { key: ws.keys.manage }), 404, 'not_found');
    const left = await sql<{ n: number }>`select count(*)::int as n from visitor_files where id = ${file.id}`.execute(service.ctx.db);
    assert.equal(left.rows[0].n, 0, 'nothing of the file is kept');
    assert.equal((await service.api('GET', `/agents/${agent}/conversations/${visitor.conversationId}`, { key: ws.keys.read })).status, 200, 'the conversation stays');
  });

  test('isolation: another workspace, a key tied to another agent and another agent’s path see no file (404), and leak nothing', async () => {
    const file = await sent(agent, Buffer.from('Private repair note.'), 'note.txt');
    const otherAgent = await seedAgent(service, ws, 'Other');
    const tied = await ws.addKey('manage', otherAgent);
    const foreignAgent = await seedAgent(service, foreign, 'Foreign');
    const attempts: Array<[string, string]> = [
      [`/agents/${agent}/visitor-files/${file.id}`, foreign.keys.manage],
      [`/agents/${foreignAgent}/visitor-files/${file.id}`, foreign.keys.manage],
      [`/agents/${agent}/visitor-files/${file.id}`, tied.key],
      [`/agents/${otherAgent}/visitor-files/${file.id}`, ws.keys.manage],
    ];
    for (const [path, key] of attempts) {
      for (const method of ['GET', 'DELETE']) {
        const reply = await service.api(method, path, { key });
        assertError(reply, 404, 'not_found');
        assert.doesNotMatch(JSON.stringify(reply.body), /Private repair note/);
      }
    }
    assert.equal((await readFile(agent, file.id)).status, 200, 'the file is still there');
  });

  test('a file sent in a test conversation is 404 for a key tied to the agent, and seen by a workspace key', async () => {
    const visitor = await startVisitorConversation(service, agent);
    const file = await sent(agent, Buffer.from('Test file.'), 'test.txt', { conversationId: visitor.conversationId, token: visitor.token });
    await sql`update conversations set channel = 'playground' where id = ${visitor.conversationId}`.execute(service.ctx.db);
    const tied = await ws.addKey('manage', agent);
    assertError(await readFile(agent, file.id, tied.key), 404, 'not_found');
    assertError(await service.api('DELETE', `/agents/${agent}/visitor-files/${file.id}`, { key: tied.key }), 404, 'not_found');
    assert.equal((await readFile(agent, file.id)).status, 200);
    await sql`update conversations set channel = 'widget' where id = ${visitor.conversationId}`.execute(service.ctx.db);
    assert.equal((await readFile(agent, file.id, tied.key)).status, 200);
  });

  test('scopes: a chat key may not read files, a read key may not erase them (403 forbidden)', async () => {
    const file = await sent(agent, Buffer.from('Scoped.'), 'scoped.txt');
    assertError(await readFile(agent, file.id, ws.keys.chat), 403, 'forbidden');
    assertError(await service.api('DELETE', `/agents/${agent}/visitor-files/${file.id}`, { key: ws.keys.read }), 403, 'forbidden');
  });

  test('erasing a conversation erases its files; erasing the agent erases all of its files', async () => {
    const doomed = await filesAgent();
    const visitor = await startVisitorConversation(service, doomed);
    const inConversation = await sent(doomed, Buffer.from('In the conversation.'), 'a.txt', { conversationId: visitor.conversationId, token: visitor.token });
    const loose = await sent(doomed, Buffer.from('Loose.'), 'b.txt');
    assert.equal((await service.api('DELETE', `/agents/${doomed}/conversations/${visitor.conversationId}`, { key: ws.keys.manage })).status, 200);
    assertError(await readFile(doomed, inConversation.id), 404, 'not_found');
    assert.equal((await readFile(doomed, loose.id)).status, 200);
    assert.equal((await service.api('DELETE', `/agents/${doomed}`, { key: ws.keys.manage })).status, 200);
    const left = await sql<{ n: number }>`select count(*)::int as n from visitor_files where agent_id = ${doomed}`.execute(service.ctx.db);
    assert.equal(left.rows[0].n, 0);
  });

  // ------------------------------------------------------------ retention (moves the clock: last)

  test('after 30 days a job drops the text and the stored file (text null, stored false) and deletes a file never asked with', async () => {
    const visitor = await startVisitorConversation(service, agent);
    const kept = await sent(agent, Buffer.from('Kept for thirty days.'), 'kept.txt', { conversationId: visitor.conversationId, token: visitor.token });
    const loose = await sent(agent, Buffer.from('Never asked with.'), 'loose.txt');
    await service.admin('POST', '/clock', { advanceSeconds: 30 * DAY_SECONDS - 60 });
    assert.equal(await readText(agent, kept.id), 'Kept for thirty days.', 'a minute before its end it is all there');

    await service.admin('POST', '/clock', { advanceSeconds: 60 });
    const file = (await readFile(agent, kept.id)).body.data;
    assert.deepEqual([file.text, file.stored, file.kind, file.fileName, file.conversationId], [null, false, 'text', 'kept.txt', visitor.conversationId]);
    // The sweep runs as the clock moves: the database keeps neither text nor bytes.
    const until = Date.now() + 10_000;
    for (;;) {
      const row = await sql<{ gone: boolean; loose: number }>`
        select (text is null and bytes is null) as gone, (select count(*)::int from visitor_files where id = ${loose.id}) as loose
        from visitor_files where id = ${kept.id}`.execute(service.ctx.db);
      if (row.rows[0].gone && row.rows[0].loose === 0) break;
      assert.ok(Date.now() < until, 'the sweep dropped the file in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertError(await readFile(agent, loose.id), 404, 'not_found');
    const conversation = (await service.api('GET', `/agents/${agent}/conversations/${visitor.conversationId}`, { key: ws.keys.read })).body.data;
    assert.ok(conversation, 'the conversation stays');
  });
});

describe('visitor files are read within the isolated reader’s bounds', () => {
  let service: Service;

  before(async () => {
    service = await startService({ workers: false, env: { PARLEY_FILE_READ_TIMEOUT_MS: '100' } });
  });
  after(async () => service?.close());

  test('a file that takes longer to read than the reader may run is 413 file_too_large, and nothing is kept', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, ws, 'Slow reader');
    assert.equal((await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { attachmentsEnabled: true } })).status, 200);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await scannedPdf([['A scan that needs text recognition.']]))]), 'scan.pdf');
    const response = await fetch(`${service.url}/visitor/v1/agents/${agent}/files`, { method: 'POST', body: form });
    const body = await response.json();
    assert.equal(response.status, 413, JSON.stringify(body));
    assert.equal(body.error.code, 'file_too_large');
    const kept = await sql<{ n: number }>`select count(*)::int as n from visitor_files`.execute(service.ctx.db);
    assert.equal(kept.rows[0].n, 0);
  });
});
