import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { startWorkers } from '../../workers.ts';
import { ingestWebsitePage } from './ingest.ts';
import { queueReads, recoverUnfinishedReads } from './reading.ts';
import { serve, startEmbeddingServer, startServer, waitForSource } from './test-support.ts';

const env = { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };

describe('retrain (workers running)', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let files: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'studio' });
    files = await startServer({ '/guide.md': serve('# Guide\n\nThe lighthouse opens at noon.', 'text/markdown') });
  });
  after(async () => {
    await files?.close();
    await service?.close();
  });

  test('POST /retrain replies 202 and reads every source again from what was stored, fetching nothing', async () => {
    const agent = await seedAgent(service, ws);
    const text = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Cats', content: 'Cats sleep a lot.' } });
    const file = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: `${files.url}/guide.md` } });
    assert.equal(file.status, 201);
    await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_x', url: 'https://site.example/a', title: 'Page', text: 'A page about dogs.' });
    for (const id of [text.body.data.id, file.body.data.id]) assert.equal((await waitForSource(service, ws.keys.read, agent, id)).status, 'ready');
    const fetchesBefore = files.hits.get('/guide.md');
    delete files.routes['/guide.md']; // the address is gone: retrain must not need it

    const reply = await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage });
    assert.equal(reply.status, 202);
    assert.equal(reply.body.data.queued, true);
    assert.equal(reply.body.data.sourceCount, 3);
    assert.equal(typeof reply.body.data.id, 'string');
    const list = await service.api('GET', `/agents/${agent}/sources`, { key: ws.keys.read });
    for (const source of list.body.data) {
      const done = await waitForSource(service, ws.keys.read, agent, source.id);
      assert.equal(done.status, 'ready', `${source.type}: ${done.error}`);
    }
    const fileSource = await service.api('GET', `/agents/${agent}/sources/${file.body.data.id}`, { key: ws.keys.read });
    assert.match(fileSource.body.data.content, /lighthouse opens at noon/);
    assert.equal(files.hits.get('/guide.md'), fetchesBefore);
    const trained = await sql<{ last_trained_at: Date | null }>`select last_trained_at from agents where id = ${agent}`.execute(service.ctx.db);
    assert.ok(trained.rows[0].last_trained_at);
  });

  test('the eleventh retrain in a UTC day gets 429 retrain_limit_reached with Retry-After, until the next UTC day', async () => {
    const agent = await seedAgent(service, ws, 'Limits');
    for (let i = 0; i < 10; i++) {
      const reply = await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage });
      assert.equal(reply.status, 202, `retrain ${i + 1}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.data.retrainsLeft, 9 - i, 'each reply says how many are left this UTC day');
    }
    const eleventh = await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage });
    assert.equal(eleventh.status, 429);
    assert.equal(eleventh.body.error.code, 'retrain_limit_reached');
    const now = service.ctx.clock.now();
    const toMidnight = Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000);
    const retryAfter = Number(eleventh.headers.get('retry-after'));
    assert.ok(retryAfter > 0 && Math.abs(retryAfter - toMidnight) <= 2, `${retryAfter} vs ${toMidnight}`);
    service.ctx.testClock!.advance(retryAfter + 1);
    assert.equal((await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage })).status, 202);
  });

  test('POST /retrain refuses a read key (403) and an unknown agent (404)', async () => {
    const agent = await seedAgent(service, ws, 'Scopes');
    assert.equal((await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.read })).status, 403);
    assert.equal((await service.api('POST', `/agents/ag_doesnotexist/retrain`, { key: ws.keys.manage })).status, 404);
  });
});

describe('busy agents and unfinished work (no workers at first)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env, workers: false });
    ws = await service.seedWorkspace({ plan: 'studio' });
  });
  after(() => service?.close());

  /**
   * A text source added through the API is read from its row (the row queue); these tests are about sources read
   * by a job of the queue (a retrain's, a file's, a recovered one): the source is given one, as a retrain does.
   */
  async function readByJob(sourceId: string): Promise<{ job_id: string | null }> {
    await queueReads(service.ctx, [{ id: sourceId, generation: 0 }]);
    const row = await service.ctx.db.selectFrom('sources').select('job_id').where('id', '=', sourceId).executeTakeFirstOrThrow();
    assert.notEqual(row.job_id, 'rows', 'the source names its job');
    return row;
  }

  test('POST /retrain gives 409 agent_busy while a source is pending or a crawl is under way', async () => {
    const agent = await seedAgent(service, ws, 'Busy');
    const added = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'a', content: 'b' } });
    assert.equal(added.status, 201);
    const busy = await service.api('POST', `/agents/${agent}/retrain`, { key: ws.keys.manage });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error.code, 'agent_busy');

    const crawling = await seedAgent(service, ws, 'Crawling');
    await sql`insert into crawls (id, workspace_id, agent_id, url, mode, status, site, created_at)
      values ('crawl_busy', ${ws.id}, ${crawling}, 'https://example.com/', 'links', 'running', 'example.com', ${service.ctx.clock.now()})`.execute(service.ctx.db);
    const crawlBusy = await service.api('POST', `/agents/${crawling}/retrain`, { key: ws.keys.manage });
    assert.equal(crawlBusy.status, 409);
    assert.equal(crawlBusy.body.error.code, 'agent_busy');
  });

  test('a source whose job ended without settling it is marked failed never_finished', async () => {
    const agent = await seedAgent(service, ws, 'Never');
    const added = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'x', content: 'Lost work.' } });
    const source = await readByJob(added.body.data.id);
    await sql`update pgboss.job set state = 'failed' where id::text = ${source.job_id}`.execute(service.ctx.db);
    service.ctx.testClock!.advance(120);
    await recoverUnfinishedReads(service.ctx);
    const failed = await waitForSource(service, ws.keys.read, agent, added.body.data.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, 'never_finished');
  });

  test('sources accepted while no worker runs, and one whose worker died mid-read, are finished once workers start', async () => {
    const agent = await seedAgent(service, ws, 'Recovered');
    const waiting = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Waiting', content: 'Accepted while no worker ran.' } });
    const crashed = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Crashed', content: 'Its worker died while reading.' } });
    const row = await readByJob(crashed.body.data.id);
    // What a worker killed mid-read leaves behind: the job claimed (active) with no heartbeat since.
    await sql`update pgboss.job set state = 'active', started_on = now() - interval '1 hour', heartbeat_on = now() - interval '1 hour'
      where id::text = ${row.job_id}`.execute(service.ctx.db);
    service.ctx.testClock!.advance(120);
    await startWorkers(service.ctx);
    for (const id of [waiting.body.data.id, crashed.body.data.id]) {
      const done = await waitForSource(service, ws.keys.read, agent, id);
      assert.equal(done.status, 'ready', `${id}: ${done.error}`);
    }
  });
});

describe('a passing fault', () => {
  let service: Service;
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;

  before(async () => {
    embeddings = await startEmbeddingServer(32);
    service = await startService({ env: { ...env, OPENAI_BASE_URL: embeddings.url, PARLEY_EMBEDDING_MODEL: 'fake', PARLEY_EMBEDDING_DIMENSIONS: '32' } });
    (service.ctx.config as unknown as { sourceRetryDelaySeconds: number }).sourceRetryDelaySeconds = 1;
  });
  after(async () => {
    await service?.close();
    await embeddings?.close();
  });

  test('a fault that outlasts the retries fails the source with temporary; one that passes leaves it ready', async () => {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, ws);
    embeddings.setFailing(true);
    const failing = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Down', content: 'The model is down.' } });
    const failed = await waitForSource(service, ws.keys.read, agent, failing.body.data.id, 30_000);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, 'temporary');

    const passing = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Back', content: 'The model comes back.' } });
    setTimeout(() => embeddings.setFailing(false), 300);
    const ready = await waitForSource(service, ws.keys.read, agent, passing.body.data.id, 30_000);
    assert.equal(ready.status, 'ready');
  });
});
