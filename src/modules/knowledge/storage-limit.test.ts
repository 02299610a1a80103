/**
 * Spec 4.6 file rule 4 and 7.2: a file may be as large as the agent's storage allowance
 * left, at most 50 MB. Past the allowance: 402 storage_limit_reached; only past the 50 MB
 * cap: 413 file_too_large. The download stops as soon as either limit is passed. Text
 * and Q&A sources count toward the allowance too. The storage used is a running total kept
 * beside the sources (migrations/037_agent_storage.sql): it stays their sum through concurrent
 * POSTs, deletes, pages read again and retrains.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { newId } from '../../platform/ids.ts';
import { PLANS } from '../../domain/plans.ts';
import { ingestWebsitePage } from './ingest.ts';
import { storageUsed } from './store.ts';
import { startServer, waitForSource, type Route } from './test-support.ts';

const MB = 1024 * 1024;
const CAP = 50 * MB;

let service: Service;
let files: Awaited<ReturnType<typeof startServer>>;

/** Declares `declared` bytes, sends the start of a text file and then nothing: only the declared length can refuse it in time. */
function declaring(declared: number): Route {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(declared) });
    response.write('The start of a very long text file.\n');
  };
}

/** A text file of no declared length that never ends; what happened to it is in `stream`. */
function endless(chunkBytes: number, everyMs: number) {
  const stream = { sent: 0, closedAfter: null as number | null };
  const route: Route = (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(chunkBytes, 'All work and no play makes a dull file.\n');
    const timer = setInterval(() => {
      // Only as fast as the client reads: `sent` then tells how much it took before it hung up.
      if (response.destroyed || response.writableNeedDrain) return;
      response.write(chunk);
      stream.sent += chunk.length;
    }, everyMs);
    response.on('close', () => {
      clearInterval(timer);
      stream.closedAfter = stream.sent;
    });
  };
  return { route, stream };
}

/** Sizes of a text file's bytes, answered whole. */
function textOf(bytes: number): Route {
  return (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(bytes, 'abcdefgh'));
}

before(async () => {
  service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  files = await startServer({
    '/41mb.txt': declaring(41 * MB),
    '/over-cap.txt': declaring(CAP + 1),
    '/600.txt': textOf(600),
    '/1000.txt': textOf(1000),
  });
});

after(async () => {
  await files?.close();
  await service?.close();
});

interface Agent {
  id: string;
  ws: SeededWorkspace;
}

/** An agent of its own workspace (plans limit agents per workspace). */
async function newAgent(name: string, plan = 'studio'): Promise<Agent> {
  const ws = await service.seedWorkspace({ plan });
  return { id: await seedAgent(service, ws, name), ws };
}

const addSource = (agent: Agent, body: unknown) => service.api('POST', `/agents/${agent.id}/sources`, { key: agent.ws.keys.manage, body });
const addFile = (agent: Agent, path: string) => addSource(agent, { type: 'file', url: `${files.url}${path}` });

/** Stored bytes the agent already holds, as if earlier sources took them. */
async function fill(agent: Agent, bytes: number): Promise<void> {
  await sql`insert into sources (id, workspace_id, agent_id, type, name, status, size_bytes, content, created_at)
    values (${newId('src')}, ${agent.ws.id}, ${agent.id}, 'text', 'filler', 'ready', ${bytes}, '', ${service.ctx.clock.now()})`.execute(service.ctx.db);
}

test('a 41 MB file on the studio plan (40 MB per agent) is 402 storage_limit_reached, not 413', async () => {
  const agent = await newAgent('Forty-one');
  const started = Date.now();
  const reply = await addFile(agent, '/41mb.txt');
  assert.equal(reply.status, 402, JSON.stringify(reply.body));
  assert.equal(reply.body.error.code, 'storage_limit_reached');
  assert.ok(Date.now() - started < 5_000, 'refused by its declared length, without waiting for the rest');
});

test('only a file over the 50 MB cap is 413 file_too_large, on a plan with less storage and on one with more', async () => {
  assert.ok(PLANS.agency.storagePerAgentBytes > CAP);
  for (const plan of ['studio', 'agency']) {
    const agent = await newAgent('Cap', plan);
    const reply = await addFile(agent, '/over-cap.txt');
    assert.equal(reply.status, 413, `${plan}: ${JSON.stringify(reply.body)}`);
    assert.equal(reply.body.error.code, 'file_too_large');
  }
});

test('a file of no declared length is cut off as soon as it passes the allowance left: 402, and the server sees the connection closed early', async () => {
  const agent = await newAgent('Endless');
  const left = 64 * 1024;
  await fill(agent, PLANS.studio.storagePerAgentBytes - left);
  const { route, stream } = endless(16 * 1024, 10);
  files.routes['/endless.txt'] = route;
  const started = Date.now();
  const reply = await addFile(agent, '/endless.txt');
  assert.equal(reply.status, 402, JSON.stringify(reply.body));
  assert.equal(reply.body.error.code, 'storage_limit_reached');
  assert.ok(Date.now() - started < 5_000, `refused in ${Date.now() - started} ms`);
  const deadline = Date.now() + 2_000;
  while (stream.closedAfter === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.notEqual(stream.closedAfter, null, 'the download was stopped, not read to its end');
  assert.ok(stream.closedAfter! < left + 4 * MB, `closed after ${stream.closedAfter} bytes`);
});

test('on a plan with more than 50 MB per agent, a file of no declared length is cut off at 50 MB with 413 file_too_large', async () => {
  const agent = await newAgent('Endless cap', 'agency');
  const { route, stream } = endless(MB, 1);
  files.routes['/endless-cap.txt'] = route;
  const reply = await addFile(agent, '/endless-cap.txt');
  assert.equal(reply.status, 413, JSON.stringify(reply.body));
  assert.equal(reply.body.error.code, 'file_too_large');
  const deadline = Date.now() + 2_000;
  while (stream.closedAfter === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(stream.closedAfter !== null && stream.closedAfter < CAP + 8 * MB, `closed after ${stream.closedAfter} bytes`);
});

test('a file that exactly fills the allowance left is accepted; then a Q&A pair or text of one byte more is 402', async () => {
  const agent = await newAgent('Exact');
  await fill(agent, PLANS.studio.storagePerAgentBytes - 1000);
  const exact = await addFile(agent, '/1000.txt');
  assert.equal(exact.status, 201, JSON.stringify(exact.body));
  assert.equal(exact.body.data.sizeBytes, 1000);
  for (const body of [
    { type: 'qa', question: 'Q?', answer: 'A.' },
    { type: 'text', title: 'One', content: 'x' },
  ]) {
    const reply = await addSource(agent, body);
    assert.equal(reply.status, 402, body.type);
    assert.equal(reply.body.error.code, 'storage_limit_reached');
  }
  assert.equal((await addFile(agent, '/600.txt')).status, 402, 'nothing left: refused before fetching');
});

test('text and Q&A sources count toward the allowance a file may use', async () => {
  const agent = await newAgent('Counted');
  await fill(agent, PLANS.studio.storagePerAgentBytes - 1100);
  const text = await addSource(agent, { type: 'text', title: 'Fifty', content: 'f'.repeat(50) });
  assert.equal(text.status, 201);
  const qa = await addSource(agent, { type: 'qa', question: 'Why?', answer: 'a'.repeat(44) });
  assert.equal(qa.status, 201);
  assert.equal(qa.body.data.sizeBytes, 50); // "Why?\n\n" and the answer
  // 1,000 bytes left: a 1,000-byte file fits; with one more Q&A byte it would not have.
  const reply = await addFile(agent, '/1000.txt');
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  await waitForSource(service, agent.ws.keys.read, agent.id, reply.body.data.id);
  const list = await service.api('GET', `/agents/${agent.id}/sources`, { key: agent.ws.keys.read });
  const stored = list.body.data.reduce((sum: number, source: { sizeBytes: number }) => sum + source.sizeBytes, 0);
  assert.equal(stored, PLANS.studio.storagePerAgentBytes);
});

test('two files fetched side by side that each fit but not both: one is stored, the other is 402 storage_limit_reached', async () => {
  const agent = await newAgent('Side by side');
  await fill(agent, PLANS.studio.storagePerAgentBytes - 1000);
  // Both requests are in before either file is sent, so each passed the check made before fetching.
  const waiting: http.ServerResponse[] = [];
  const sendBoth = () => {
    for (const response of waiting.splice(0)) response.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(600, 'twin file '));
  };
  files.routes['/twin.txt'] = (_request, response) => {
    waiting.push(response);
    if (waiting.length === 2) sendBoth();
  };
  const replies = await Promise.all([addFile(agent, '/twin.txt'), addFile(agent, '/twin.txt')]);
  assert.deepEqual(replies.map((reply) => reply.status).sort(), [201, 402], JSON.stringify(replies.map((reply) => reply.body)));
  assert.equal(replies.find((reply) => reply.status === 402)!.body.error.code, 'storage_limit_reached');
});

/** The running total the allowance is checked against, and the sum it must equal. */
async function storageOf(agent: Agent): Promise<{ total: number; sum: number }> {
  const sum = await sql<{ n: number }>`select coalesce(sum(size_bytes), 0)::bigint as n from sources where agent_id = ${agent.id}`.execute(service.ctx.db);
  return { total: await storageUsed(service.ctx.db, agent.id), sum: Number(sum.rows[0]!.n) };
}

async function untilReady(agent: Agent, ids: string[]): Promise<void> {
  for (const id of ids) await waitForSource(service, agent.ws.keys.read, agent.id, id, 120_000);
}

test('the running total of an agent’s storage is the sum of its sources’ sizes after concurrent POSTs, deletes, a page read again and a retrain', async () => {
  const agent = await newAgent('Running total');
  const bodies = Array.from({ length: 24 }, (_, n) =>
    n % 2 === 0 ? { type: 'qa', question: `Question ${n}?`, answer: 'a'.repeat(10 + n) } : { type: 'text', title: `Text ${n}`, content: 't'.repeat(100 + n * 7) },
  );
  const replies = await Promise.all(bodies.map((body) => addSource(agent, body)));
  assert.deepEqual(replies.map((reply) => reply.status), bodies.map(() => 201), JSON.stringify(replies.find((reply) => reply.status !== 201)?.body));
  const sizes = replies.map((reply) => reply.body.data.sizeBytes as number);
  assert.deepEqual(await storageOf(agent), { total: sizes.reduce((a, b) => a + b, 0), sum: sizes.reduce((a, b) => a + b, 0) });

  const ids = replies.map((reply) => reply.body.data.id as string);
  await untilReady(agent, ids);
  for (const id of ids.slice(0, 5)) assert.equal((await service.api('DELETE', `/agents/${agent.id}/sources/${id}`, { key: agent.ws.keys.manage })).status, 200);
  const kept = sizes.slice(5).reduce((a, b) => a + b, 0);
  assert.deepEqual(await storageOf(agent), { total: kept, sum: kept }, 'deletes take their sizes off');

  // A crawled page read again with a longer text replaces its size (an update of size_bytes, not a new source).
  const page = { workspaceId: agent.ws.id, agentId: agent.id, crawlId: 'crawl_total', url: 'https://example.com/page', title: 'Page' };
  await ingestWebsitePage(service.ctx, { ...page, text: 'p'.repeat(300) });
  await ingestWebsitePage(service.ctx, { ...page, text: 'p'.repeat(1200) });
  assert.deepEqual(await storageOf(agent), { total: kept + 1200, sum: kept + 1200 }, 'a page read again counts once, at its new size');

  const retrain = await service.api('POST', `/agents/${agent.id}/retrain`, { key: agent.ws.keys.manage });
  assert.equal(retrain.status, 202, JSON.stringify(retrain.body));
  await untilReady(agent, ids.slice(5));
  assert.deepEqual(await storageOf(agent), { total: kept + 1200, sum: kept + 1200 }, 'a retrain changes no size');
});

test('concurrent POSTs that each fit but not all together: exactly as many are stored as fit, and the total stays the sum', async () => {
  const agent = await newAgent('Concurrent');
  await fill(agent, PLANS.studio.storagePerAgentBytes - 1000);
  const replies = await Promise.all(Array.from({ length: 10 }, (_, n) => addSource(agent, { type: 'text', title: `Three hundred ${n}`, content: 'c'.repeat(300) })));
  assert.deepEqual(
    replies.map((reply) => reply.status).sort(),
    [201, 201, 201, 402, 402, 402, 402, 402, 402, 402],
    JSON.stringify(replies.map((reply) => reply.body.error?.code ?? reply.status)),
  );
  assert.deepEqual(await storageOf(agent), { total: PLANS.studio.storagePerAgentBytes - 100, sum: PLANS.studio.storagePerAgentBytes - 100 });
});

test('an agent has its storage row from its creation, at 0 bytes, and its first source is counted on it', async () => {
  const agent = await newAgent('New');
  const rows = await sql<{ used_bytes: number }>`select used_bytes from agent_storage where agent_id = ${agent.id}`.execute(service.ctx.db);
  assert.deepEqual(rows.rows.map((row) => Number(row.used_bytes)), [0], 'the row is there before any source');
  assert.equal((await addSource(agent, { type: 'text', title: 'First', content: 'f'.repeat(700) })).status, 201);
  assert.deepEqual(await storageOf(agent), { total: 700, sum: 700 });
});

test('deleting an agent takes its running total with it', async () => {
  const agent = await newAgent('Deleted');
  assert.equal((await addSource(agent, { type: 'text', title: 'Gone', content: 'g'.repeat(500) })).status, 201);
  assert.equal((await storageOf(agent)).total, 500);
  assert.equal((await service.api('DELETE', `/agents/${agent.id}`, { key: agent.ws.keys.manage })).status, 200);
  const rows = await sql<{ n: number }>`select count(*)::int as n from agent_storage where agent_id = ${agent.id}`.execute(service.ctx.db);
  assert.equal(rows.rows[0]!.n, 0);
});
