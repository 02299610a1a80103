import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { newId } from '../../platform/ids.ts';
import { PLANS } from '../../domain/plans.ts';
import { MAX_FILE_BYTES } from './fetch-file.ts';
import { makeDocx, makePdf, serve, startServer, waitForSource } from './test-support.ts';

let service: Service;
let ws: SeededWorkspace;
let agentId: string;
let files: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ plan: 'studio' });
  agentId = await seedAgent(service, ws);
  const html = '<!doctype html><html><head><title>x</title></head><body><p>Not a PDF at all.</p></body></html>';
  files = await startServer({
    '/docs/Return%20policy.pdf': serve(await makePdf(['Returns are accepted within 30 days of delivery.', 'Refunds go back to the card used.']), 'application/pdf'),
    '/docs/handbook.docx': serve(await makeDocx(['The espresso machine needs descaling every month.', 'Use the blue cleaning tablets.'])),
    '/docs/notes.md': serve('# Opening hours\n\nWe open at nine on weekdays.\n\n- Saturday: ten to four\n', 'text/markdown'),
    '/docs/plain.txt': serve('Parking is free behind the building after six in the evening.', 'text/plain'),
    '/docs/report.pdf': serve(html, 'application/pdf'),
    '/docs/picture.png': serve(Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5b00000000049454e44ae426082', 'hex'), 'image/png'),
    '/docs/corrupt.pdf': serve('%PDF-1.7\nthis is not really a pdf\n%%EOF', 'application/pdf'),
    '/docs/blank.pdf': serve(await makePdf(['']), 'application/pdf'),
    '/docs/huge.bin': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(MAX_FILE_BYTES + 1) });
      response.write('%PDF-1.4\n');
      // never finishes: the declared length is refused before any more is read
    },
    '/docs/slow.txt': (_request, response) => {
      const timer = setTimeout(() => response.writeHead(200).end('late text'), 3_000);
      response.on('close', () => clearTimeout(timer));
    },
  });
});

after(async () => {
  await files?.close();
  await service?.close();
});

const post = (body: unknown, agent = agentId, key = ws.keys.manage) => service.api('POST', `/agents/${agent}/sources`, { key, body });

test('POST /sources with type text replies 201 pending and the source becomes ready with chunkCount and content', async () => {
  const reply = await post({ type: 'text', title: 'Parking', content: 'Visitors park in the garage under the office.' });
  assert.equal(reply.status, 201);
  assert.equal(reply.body.data.status, 'pending');
  assert.equal(reply.body.data.type, 'text');
  assert.equal(reply.body.data.name, 'Parking');
  assert.equal(reply.body.data.content, undefined);
  assert.equal(reply.body.data.sizeBytes, Buffer.byteLength('Visitors park in the garage under the office.'));
  const ready = await waitForSource(service, ws.keys.read, agentId, reply.body.data.id);
  assert.equal(ready.status, 'ready');
  assert.equal(ready.chunkCount, 1);
  assert.ok(ready.processedAt);
  assert.equal(ready.content, 'Visitors park in the garage under the office.');
});

test('POST /sources with type qa names the source after the question', async () => {
  const reply = await post({ type: 'qa', question: 'Do you have parking?', answer: 'Yes, in the garage.' });
  assert.equal(reply.status, 201);
  assert.equal(reply.body.data.name, 'Do you have parking?');
  const ready = await waitForSource(service, ws.keys.read, agentId, reply.body.data.id);
  assert.equal(ready.status, 'ready');
  assert.match(ready.content, /Do you have parking\?\n\nYes, in the garage\./);
});

test('POST /sources refuses unknown fields, unknown types and missing fields with 400 invalid_request', async () => {
  for (const body of [
    { type: 'text', title: 'a', content: 'b', extra: 1 },
    { type: 'video', url: 'https://example.com' },
    { type: 'qa', question: 'only a question' },
    { type: 'file' },
  ]) {
    const reply = await post(body);
    assert.equal(reply.status, 400, JSON.stringify(body));
    assert.equal(reply.body.error.code, 'invalid_request');
  }
});

test('POST /sources needs a manage key: a read key gets 403', async () => {
  const reply = await post({ type: 'text', title: 'a', content: 'b' }, agentId, ws.keys.read);
  assert.equal(reply.status, 403);
});

test('file sources of each accepted kind (PDF, DOCX, Markdown, text) are read to ready, kind told from the bytes', async () => {
  const cases = [
    { path: '/docs/Return%20policy.pdf', name: 'Return policy.pdf', words: /Returns are accepted within 30 days[\s\S]*Refunds go back/ },
    { path: '/docs/handbook.docx', name: 'handbook.docx', words: /espresso machine needs descaling[\s\S]*blue cleaning tablets/ },
    { path: '/docs/notes.md', name: 'notes.md', words: /# Opening hours/ },
    { path: '/docs/plain.txt', name: 'plain.txt', words: /Parking is free/ },
  ];
  for (const item of cases) {
    const reply = await post({ type: 'file', url: `${files.url}${item.path}` });
    assert.equal(reply.status, 201, `${item.path}: ${JSON.stringify(reply.body)}`);
    assert.equal(reply.body.data.name, item.name);
    assert.ok(reply.body.data.sizeBytes > 0);
    const ready = await waitForSource(service, ws.keys.read, agentId, reply.body.data.id);
    assert.equal(ready.status, 'ready', `${item.path}: ${ready.error}`);
    assert.match(ready.content, item.words);
    assert.ok(ready.chunkCount >= 1);
  }
});

test('a file source takes the name it is given', async () => {
  const reply = await post({ type: 'file', url: `${files.url}/docs/plain.txt`, name: 'Parking rules' });
  assert.equal(reply.status, 201);
  assert.equal(reply.body.data.name, 'Parking rules');
});

test('a file that is not an accepted kind is refused with 415 unsupported_file_type (HTML named report.pdf, a PNG)', async () => {
  for (const path of ['/docs/report.pdf', '/docs/picture.png']) {
    const reply = await post({ type: 'file', url: `${files.url}${path}` });
    assert.equal(reply.status, 415, path);
    assert.equal(reply.body.error.code, 'unsupported_file_type');
  }
});

test('a file over the 50 MB cap is refused with 413 file_too_large', async () => {
  const reply = await post({ type: 'file', url: `${files.url}/docs/huge.bin` });
  assert.equal(reply.status, 413);
  assert.equal(reply.body.error.code, 'file_too_large');
});

test('a file address that answers 404 gives 422 fetch_failed saying what came back', async () => {
  const reply = await post({ type: 'file', url: `${files.url}/docs/missing.pdf` });
  assert.equal(reply.status, 422);
  assert.equal(reply.body.error.code, 'fetch_failed');
  assert.match(reply.body.error.message, /404 Not Found/);
});

test('a file that does not arrive within the fetch time gives 422 fetch_failed', async () => {
  const config = service.ctx.config;
  const timeoutMs = config.fileFetchTimeoutMs;
  config.fileFetchTimeoutMs = 300; // stands for the 20 s bound
  try {
    const reply = await post({ type: 'file', url: `${files.url}/docs/slow.txt` });
    assert.equal(reply.status, 422);
    assert.equal(reply.body.error.code, 'fetch_failed');
    assert.match(reply.body.error.message, /did not arrive within/);
  } finally {
    config.fileFetchTimeoutMs = timeoutMs;
  }
});

test('a file address that is not on the public internet gives 400 unsafe_url', async () => {
  const reply = await post({ type: 'file', url: 'http://169.254.169.254/latest/meta-data' });
  assert.equal(reply.status, 400);
  assert.equal(reply.body.error.code, 'unsafe_url');
});

test('a corrupt PDF fails with file_unreadable and a PDF without text with no_content', async () => {
  const corrupt = await post({ type: 'file', url: `${files.url}/docs/corrupt.pdf` });
  assert.equal(corrupt.status, 201);
  const blank = await post({ type: 'file', url: `${files.url}/docs/blank.pdf` });
  assert.equal(blank.status, 201);
  const failedCorrupt = await waitForSource(service, ws.keys.read, agentId, corrupt.body.data.id);
  assert.equal(failedCorrupt.status, 'failed');
  assert.equal(failedCorrupt.error, 'file_unreadable');
  const failedBlank = await waitForSource(service, ws.keys.read, agentId, blank.body.data.id);
  assert.equal(failedBlank.status, 'failed');
  assert.equal(failedBlank.error, 'no_content');
});

test('a file that takes longer to read than a source may use fails with file_too_complex, and the service keeps answering', async () => {
  const config = service.ctx.config as unknown as { fileReadTimeoutMs: number };
  const bound = config.fileReadTimeoutMs;
  config.fileReadTimeoutMs = 1; // stands for the 30 s bound
  try {
    const reply = await post({ type: 'file', url: `${files.url}/docs/Return%20policy.pdf` });
    assert.equal(reply.status, 201);
    const failed = await waitForSource(service, ws.keys.read, agentId, reply.body.data.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, 'file_too_complex');
  } finally {
    config.fileReadTimeoutMs = bound;
  }
  assert.equal((await service.api('GET', '/workspace', { key: ws.keys.read })).status, 200);
});

test('sources past the storage allowance are refused with 402 storage_limit_reached (text at once, file before fetching)', async () => {
  const other = await service.seedWorkspace({ plan: 'studio' });
  const agent = await seedAgent(service, other);
  const allowance = PLANS.studio.storagePerAgentBytes;
  await sql`insert into sources (id, workspace_id, agent_id, type, name, status, size_bytes, content, created_at)
    values (${newId('src')}, ${other.id}, ${agent}, 'text', 'filler', 'ready', ${allowance - 10}, '', ${service.ctx.clock.now()})`.execute(service.ctx.db);
  const fits = await post({ type: 'text', title: 'small', content: 'tiny' }, agent, other.keys.manage);
  assert.equal(fits.status, 201);
  const tooMuch = await post({ type: 'text', title: 'big', content: 'this is more than six bytes' }, agent, other.keys.manage);
  assert.equal(tooMuch.status, 402);
  assert.equal(tooMuch.body.error.code, 'storage_limit_reached');
  const file = await post({ type: 'file', url: `${files.url}/docs/plain.txt` }, agent, other.keys.manage);
  assert.equal(file.status, 402);
  assert.equal(file.body.error.code, 'storage_limit_reached');
});

test('GET /sources lists newest first without content, 50 a page, and the cursor pages through all', async () => {
  const other = await service.seedWorkspace({ plan: 'studio' });
  const agent = await seedAgent(service, other);
  const ids: string[] = [];
  for (let i = 0; i < 53; i++) {
    service.ctx.testClock!.advance(1);
    const reply = await post({ type: 'qa', question: `Question ${i}?`, answer: `Answer ${i}.` }, agent, other.keys.manage);
    assert.equal(reply.status, 201);
    ids.push(reply.body.data.id);
  }
  const first = await service.api('GET', `/agents/${agent}/sources`, { key: other.keys.read });
  assert.equal(first.status, 200);
  assert.equal(first.body.data.length, 50);
  assert.equal(first.body.data[0].id, ids[52]);
  assert.ok(first.body.data.every((s: any) => s.content === undefined));
  assert.equal(typeof first.body.pagination.nextCursor, 'string');
  const second = await service.api('GET', `/agents/${agent}/sources?cursor=${first.body.pagination.nextCursor}`, { key: other.keys.read });
  assert.deepEqual(second.body.data.map((s: any) => s.id), [ids[2], ids[1], ids[0]]);
  assert.equal(second.body.pagination.nextCursor, null);
  const small = await service.api('GET', `/agents/${agent}/sources?limit=5`, { key: other.keys.read });
  assert.equal(small.body.data.length, 5);
  assert.equal((await service.api('GET', `/agents/${agent}/sources?limit=101`, { key: other.keys.read })).status, 400);
  assert.equal((await service.api('GET', `/agents/${agent}/sources?cursor=nonsense`, { key: other.keys.read })).status, 400);
});

test('DELETE /sources removes the source, its passages and its term statistics at once', async () => {
  const reply = await post({ type: 'text', title: 'Zeppelins', content: 'Our zeppelin tours leave from the airfield at dawn.' });
  const source = await waitForSource(service, ws.keys.read, agentId, reply.body.data.id);
  assert.equal(source.status, 'ready');
  const termCount = async () =>
    Number((await sql<{ n: number }>`select count(*) as n from agent_term_stats where agent_id = ${agentId} and term = 'zeppelin'`.execute(service.ctx.db)).rows[0].n);
  assert.equal(await termCount(), 1);
  const passagesBefore = Number((await sql<{ n: number }>`select passage_count as n from agent_stats where agent_id = ${agentId}`.execute(service.ctx.db)).rows[0].n);
  const deleted = await service.api('DELETE', `/agents/${agentId}/sources/${source.id}`, { key: ws.keys.manage });
  assert.equal(deleted.status, 200);
  assert.deepEqual(deleted.body.data, { id: source.id, deleted: true });
  assert.equal((await service.api('GET', `/agents/${agentId}/sources/${source.id}`, { key: ws.keys.read })).status, 404);
  assert.equal(await termCount(), 0);
  const passages = await sql`select 1 from passages where source_id = ${source.id}`.execute(service.ctx.db);
  assert.equal(passages.rows.length, 0);
  const passagesAfter = Number((await sql<{ n: number }>`select passage_count as n from agent_stats where agent_id = ${agentId}`.execute(service.ctx.db)).rows[0].n);
  assert.equal(passagesAfter, passagesBefore - 1);
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${source.id}`, { key: ws.keys.manage })).status, 404);
});

test("a foreign workspace's sources are 404 on every route", async () => {
  const reply = await post({ type: 'text', title: 'Secret', content: 'Only for us.' });
  const sourceId = reply.body.data.id;
  const foreign = await service.seedWorkspace({ plan: 'studio' });
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/agents/${agentId}/sources`],
    ['GET', `/agents/${agentId}/sources/${sourceId}`],
    ['DELETE', `/agents/${agentId}/sources/${sourceId}`],
    ['POST', `/agents/${agentId}/sources`, { type: 'text', title: 'x', content: 'y' }],
    ['POST', `/agents/${agentId}/retrain`],
  ];
  for (const [method, path, body] of calls) {
    const answer = await service.api(method, path, { key: foreign.keys.manage, body });
    assert.equal(answer.status, 404, `${method} ${path}`);
    assert.equal(answer.body.error.code, 'not_found');
  }
  // Another agent of the same workspace does not reach this agent's source either.
  const otherAgent = await seedAgent(service, ws, 'Other');
  assert.equal((await service.api('GET', `/agents/${otherAgent}/sources/${sourceId}`, { key: ws.keys.read })).status, 404);
  // A key tied to another agent does not reach it.
  const tied = await ws.addKey('manage', otherAgent);
  assert.equal((await service.api('GET', `/agents/${agentId}/sources`, { key: tied.key })).status, 404);
});

test('POST /sources with type website starts a crawl and replies with the crawl object', async () => {
  const other = await service.seedWorkspace({ plan: 'studio' });
  const agent = await seedAgent(service, other);
  const reply = await post({ type: 'website', url: `${files.url}/docs/`, mode: 'single' }, agent, other.keys.manage);
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  assert.match(reply.body.data.id, /^crawl_/);
  assert.ok(['queued', 'running', 'completed', 'failed'].includes(reply.body.data.status));
  assert.equal(typeof reply.body.data.processed, 'number');
  const unsafe = await post({ type: 'website', url: 'http://169.254.169.254/' }, agent, other.keys.manage);
  assert.equal(unsafe.status, 400);
  assert.equal(unsafe.body.error.code, 'unsafe_url');
});
