/**
 * A worker killed (SIGKILL) in the middle of a crawl and of a file read: real
 * processes of src/main.ts. The embedding endpoint is held when the kill comes,
 * so the worker is surely inside a source read and inside crawl pages (fetched,
 * being indexed). A new worker on the same store must finish both: the crawl
 * completes with every page, the file is read again, nothing stays pending.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { apiAndWorkerOn, callApi, oneEmbeddedProcess, stopAll, until, type KillableDeployment, type ServiceApi } from '../../../test/support/processes.ts';
import { freshDatabase, storeUnderTest } from '../../../test/support/stores.ts';
import { startPagedSite, type TestSite } from './crawl/test-site.ts';
import { serve, startEmbeddingServer, startServer, type EmbeddingServer } from './test-support.ts';

const PAGES = 40;
const MARKER = 'zebrafinch';
/** PARLEY_LOST_WORK_AFTER_SECONDS of the processes: a dead worker's pages and reads are taken up after this. */
const LOST_AFTER_SECONDS = 1;

let site: TestSite | undefined;
let files: Awaited<ReturnType<typeof startServer>> | undefined;
let embeddings: EmbeddingServer | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await stopAll();
  await site?.close();
  await files?.close();
  await embeddings?.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function sources(api: ServiceApi, agentId: string): Promise<Array<{ id: string; type: string; url: string; status: string; error: string | null; chunkCount: number }>> {
  return callApi(api, 'GET', `/agents/${agentId}/sources?limit=100`);
}

async function killMidCrawlAndMidRead(deployment: KillableDeployment): Promise<void> {
  site = await startPagedSite(PAGES, { delayMs: 200 });
  files = await startServer({ '/guide.md': serve(`# Field guide\n\nThe ${MARKER} nests by the old lighthouse and sings at dawn.`, 'text/markdown') });
  embeddings = await startEmbeddingServer(32);
  const api = await deployment.start({
    PARLEY_ALLOW_PRIVATE_URLS: '1',
    PARLEY_RATE_LIMIT_PER_MINUTE: '100000',
    PARLEY_LOST_WORK_AFTER_SECONDS: String(LOST_AFTER_SECONDS),
    OPENAI_BASE_URL: embeddings.url,
    PARLEY_EMBEDDING_MODEL: 'fake',
    PARLEY_EMBEDDING_DIMENSIONS: '32',
  });
  const agent = await callApi(api, 'POST', '/agents', { name: 'Crash', useCase: 'general' });

  // The file read stops inside indexing: its passages wait on the embedding endpoint.
  embeddings.holdWhen((texts) => texts.some((text) => text.includes(MARKER)));
  const file = await callApi(api, 'POST', `/agents/${agent.id}/sources`, { type: 'file', url: `${files.url}/guide.md` });
  await until('the file read reaches the embedding endpoint', async () => embeddings!.held().length, (held) => held === 1);

  // The crawl runs a few pages, then lanes stop inside pages as well (fetched, their sources pending).
  const crawl = await callApi(api, 'POST', `/agents/${agent.id}/sources`, { type: 'website', url: site.origin });
  await until('the crawl reads some pages', () => callApi(api, 'GET', `/agents/${agent.id}/crawl`), (c) => c.processed >= 5);
  embeddings.holdWhen(() => true);
  const heldPages = async () => embeddings!.held().filter((texts) => !texts.some((text) => text.includes(MARKER))).length;
  await until('crawl pages reach the embedding endpoint', heldPages, (held) => held >= 2);
  const before = await callApi(api, 'GET', `/agents/${agent.id}/crawl`);
  assert.equal(before.id, crawl.id);
  assert.equal(before.status, 'running');
  assert.ok(before.processed >= 5 && before.processed < PAGES, `mid-crawl: ${JSON.stringify(before)}`);
  const accepted = await sources(api, agent.id);
  assert.ok(accepted.filter((source) => source.status === 'ready').length >= 5, 'pages read before the kill are sources');

  const survivor = await deployment.killWorker();
  if (survivor) {
    // The API outlived the worker: the crawl and the read show as unfinished.
    const left = await callApi(survivor, 'GET', `/agents/${agent.id}/crawl`);
    assert.equal(left.status, 'running');
    assert.ok(left.pending > 0, `pages were in hand: ${JSON.stringify(left)}`);
    assert.equal((await callApi(survivor, 'GET', `/agents/${agent.id}/sources/${file.id}`)).status, 'pending');
  }

  // A worker starts once the dead one's claims count as lost; the embedding endpoint answers again.
  await new Promise((resolve) => setTimeout(resolve, LOST_AFTER_SECONDS * 1000));
  embeddings.release();
  site.delayMs = 0;
  const after = await deployment.restartWorker();

  const ended = await until('the crawl ends', () => callApi(after, 'GET', `/agents/${agent.id}/crawl`), (c) => c.status !== 'queued' && c.status !== 'running');
  // A failed page's reason goes with the failure: "never_finished" (taken back too often) or the fetch's own error.
  const failedPages = ended.failed > 0 ? await callApi(after, 'GET', `/agents/${agent.id}/crawl/pages?status=failed&limit=100`) : [];
  assert.deepEqual(
    { status: ended.status, processed: ended.processed, discovered: ended.discovered, pending: ended.pending, failed: ended.failed },
    { status: 'completed', processed: PAGES, discovered: PAGES, pending: 0, failed: 0 },
    `failed pages: ${JSON.stringify(failedPages)}`,
  );
  const pendingSources = async () => (await sources(after, agent.id)).filter((source) => source.status === 'pending').map((source) => source.url);
  await until('no source is pending', pendingSources, (pending) => pending.length === 0);
  const settled = await sources(after, agent.id);
  const read = settled.find((source) => source.id === file.id);
  assert.ok(read, 'the file source is still there');
  assert.equal(read.status, 'ready', `the file was read again: ${JSON.stringify(read)}`);
  assert.ok(read.chunkCount > 0);

  const pages = settled.filter((source) => source.type === 'website');
  const expected = [`${site.origin}/`, ...Array.from({ length: PAGES - 1 }, (_, i) => `${site!.origin}/p/${i + 1}`)];
  assert.deepEqual(pages.map((source) => source.url).sort(), expected.sort(), 'every page is one website source');
  assert.deepEqual(
    pages.filter((source) => source.status !== 'ready'),
    [],
    'every page is ready',
  );
  const ids = new Set(settled.map((source) => source.id));
  assert.deepEqual(
    accepted.filter((source) => !ids.has(source.id)),
    [],
    'no source there before the kill was lost',
  );
}

describe('a worker killed mid-crawl and mid-read, on PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass' }, () => {
  test('a new worker process finishes the crawl with every page and reads the file again; nothing stays pending', async () => {
    const database = await freshDatabase('postgres');
    await database.database.close();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-crash-pg-'));
    cleanups.push(() => database.drop(), () => rm(dataDir, { recursive: true, force: true }));
    await killMidCrawlAndMidRead(apiAndWorkerOn(database.url!, dataDir));
  });
});

describe('the service killed mid-crawl and mid-read, on the embedded database', { skip: storeUnderTest() !== 'embedded' && 'the embedded pass tries it' }, () => {
  test('started again on the same data directory, it finishes the crawl with every page and reads the file again; nothing stays pending', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await killMidCrawlAndMidRead(oneEmbeddedProcess(dataDir));
  });
});
