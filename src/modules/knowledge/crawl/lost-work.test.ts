/**
 * Work a killed worker held is taken up again within 30 s, through heartbeats, and
 * nothing is read twice but the pages that were in its hands; a live worker's work,
 * however slow, is never taken from it. Real processes of src/main.ts with the
 * lost-work window at its default (PARLEY_LOST_WORK_AFTER_SECONDS unset) unless said.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { callApi, MANAGE_KEY, printed, startMain, stopAll, until, waitFor, type Running, type ServiceApi } from '../../../../test/support/processes.ts';
import { freshDatabase, storeUnderTest } from '../../../../test/support/stores.ts';
import { serve, startEmbeddingServer, startServer, type EmbeddingServer, type Route } from '../test-support.ts';
import { openPostgres } from '../../../platform/db.ts';
import { createQueue } from '../../../platform/queue.ts';
import { CRAWL_BATCH_JOB } from './service.ts';
import { paragraphsFor, startPagedSite, type TestSite } from './test-site.ts';

const RESUMED_WITHIN_MS = 30_000;

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

const isOver = <T extends { status: string }>(crawl: T) => crawl.status !== 'queued' && crawl.status !== 'running';

/** How often the site served each page (robots.txt and sitemaps left out). */
function fetchesPerPage(served: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const hit of served.filter((path) => path === '/' || path.startsWith('/p/'))) counts.set(hit, (counts.get(hit) ?? 0) + 1);
  return counts;
}

/**
 * No page read before the kill is fetched again, and no page more than twice. With `held`
 * (the pages in the killed worker's hands), only those are fetched twice.
 */
function assertReadOnceButHeld(served: string[], readBefore: string[], pages: number, held?: string[]): void {
  const counts = fetchesPerPage(served);
  assert.equal(counts.size, pages, 'every page was fetched');
  const again = [...counts].filter(([, n]) => n > 1);
  assert.deepEqual(
    again.filter(([page, n]) => n > 2 || readBefore.includes(page) || (held !== undefined && !held.includes(page))),
    [],
    `fetched again: ${JSON.stringify(again)}; in the killed worker's hands: ${JSON.stringify(held)}`,
  );
}

/** The paths of the agent's website sources that are ready. */
async function readyPages(api: ServiceApi, agentId: string): Promise<string[]> {
  const sources: Array<{ type: string; status: string; url: string }> = await callApi(api, 'GET', `/agents/${agentId}/sources?limit=100`);
  return sources.filter((source) => source.type === 'website' && source.status === 'ready').map((source) => new URL(source.url).pathname);
}

async function assertEveryPageReady(api: ServiceApi, agentId: string, pages: number): Promise<void> {
  const sources: Array<{ type: string; status: string }> = await callApi(api, 'GET', `/agents/${agentId}/sources?limit=100`);
  const websites = sources.filter((source) => source.type === 'website');
  assert.equal(websites.length, pages);
  assert.deepEqual(websites.filter((source) => source.status !== 'ready'), []);
}

/** The paths of the pages a worker holds right now (all workers' when none is named). */
async function heldPages(client: pg.Client, workerId?: string): Promise<string[]> {
  const { rows } = workerId
    ? await client.query<{ url: string }>(`select url from crawl_pages where status = 'fetching' and worker_id = $1`, [workerId])
    : await client.query<{ url: string }>(`select url from crawl_pages where status = 'fetching'`);
  return rows.map((row) => new URL(row.url).pathname);
}

/** A site of a home page linking to pages that answer only once open() is called; and /notes.md, a file. */
function gatedSite(gated: string[]) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const html = (title: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><nav>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</nav>` +
    `<main><article><h1>${title}</h1>${paragraphsFor(title.length * 7).map((p) => `<p>${title}: ${p}</p>`).join('')}</article></main></body></html>`;
  const routes: Record<string, Route> = {
    '/robots.txt': serve('User-agent: *\nAllow: /\n', 'text/plain'),
    '/': serve(html('Home', gated), 'text/html'),
    '/notes.md': serve('# Notes\n\nThe kittiwake nests on the cliff ledges all summer.', 'text/markdown'),
  };
  for (const path of gated) routes[path] = (request, response) => void opened.then(() => serve(html(`Page ${path}`, ['/']), 'text/html')(request, response));
  return { routes, open: () => open() };
}

describe('worker processes on PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass' }, () => {
  async function deployment(extra: Record<string, string> = {}) {
    const database = await freshDatabase('postgres');
    await database.database.close();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-lost-work-'));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanups.push(
      () => client.end(),
      () => database.drop(),
      () => rm(dataDir, { recursive: true, force: true }),
    );
    const env = { ...extra, PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000', DATABASE_URL: database.url!, REDIS_URL: process.env.TEST_REDIS_URL!, PARLEY_DATA_DIR: dataDir };
    const server = await startMain({ ...env, PARLEY_ROLE: 'api' });
    await waitFor(server, /Try: curl/, 10_000);
    const api: ServiceApi = { url: server.url, key: printed(server.output(), MANAGE_KEY)! };
    /** Starts a worker process; its worker id is the heartbeat row that appears with it. */
    const startWorker = async (): Promise<{ process: Running; id: string }> => {
      const before = new Set((await client.query<{ worker_id: string }>('select worker_id from worker_heartbeats')).rows.map((row) => row.worker_id));
      const process = await startMain({ ...env, PARLEY_ROLE: 'worker' });
      const { rows } = await client.query<{ worker_id: string }>('select worker_id from worker_heartbeats');
      const id = rows.map((row) => row.worker_id).find((worker) => !before.has(worker));
      assert.ok(id, 'the worker beats');
      return { process, id };
    };
    return { api, client, startWorker, databaseUrl: database.url! };
  }

  test('a worker killed mid-crawl while another lives: its pages are taken up within 30 s of the kill, the crawl completes, no page read twice but those it held', async () => {
    const PAGES = 60;
    site = await startPagedSite(PAGES, { delayMs: 800 });
    const { api, client, startWorker } = await deployment();
    // The doomed worker alone takes the crawl's batch (with two, either may), then a second one joins.
    const doomed = await startWorker();
    const agent = await callApi(api, 'POST', '/agents', { name: 'Lost work', useCase: 'general' });
    await callApi(api, 'POST', `/agents/${agent.id}/sources`, { type: 'website', url: site.origin });
    await until('the crawl reads some pages', () => readyPages(api, agent.id), (pages) => pages.length >= 5, 60_000);
    await startWorker();
    await until('the doomed worker holds pages', () => heldPages(client, doomed.id), (pages) => pages.length >= 2, 60_000);
    const readBefore = await readyPages(api, agent.id);

    doomed.process.child.kill('SIGKILL');
    await doomed.process.exited;
    const killedAt = Date.now();
    const inHand = await heldPages(client, doomed.id);
    assert.ok(inHand.length >= 1, "pages were in the killed worker's hands");
    site.delayMs = 0;

    // Taken up: no page is left in the dead worker's hands. Finishing the ~50 pages left then takes what the machine gives.
    await until('the dead worker holds no page', () => heldPages(client, doomed.id), (pages) => pages.length === 0, RESUMED_WITHIN_MS);
    assert.ok(Date.now() - killedAt < RESUMED_WITHIN_MS, `taken up ${Date.now() - killedAt} ms after the kill`);
    const ended = await until('the crawl ends', () => callApi(api, 'GET', `/agents/${agent.id}/crawl`), isOver, 120_000);
    assert.deepEqual(
      { status: ended.status, processed: ended.processed, discovered: ended.discovered, pending: ended.pending, failed: ended.failed },
      { status: 'completed', processed: PAGES, discovered: PAGES, pending: 0, failed: 0 },
    );
    assertReadOnceButHeld(site.hits, readBefore, PAGES, inHand);
    await assertEveryPageReady(api, agent.id, PAGES);
  });

  test('a live worker slower than the lost-work window keeps its crawl pages and its file read: another batch run meanwhile takes neither', async () => {
    const MARKER = 'kittiwake';
    // Six seconds of silence would make a worker dead (beats every 1.5 s, so a busy machine's late beat is no death);
    // its pages and its read take far longer, and it beats meanwhile.
    const gate = gatedSite(['/a', '/b']);
    const served = await startServer(gate.routes);
    files = served;
    embeddings = await startEmbeddingServer(32);
    const { api, client, startWorker, databaseUrl } = await deployment({
      PARLEY_LOST_WORK_AFTER_SECONDS: '6',
      OPENAI_BASE_URL: embeddings.url,
      PARLEY_EMBEDDING_MODEL: 'fake',
      PARLEY_EMBEDDING_DIMENSIONS: '32',
    });
    await startWorker();
    await startWorker();
    const agent = await callApi(api, 'POST', `/agents`, { name: 'Slow', useCase: 'general' });
    embeddings.holdWhen((texts) => texts.some((text) => text.includes(MARKER)));
    const file = await callApi(api, 'POST', `/agents/${agent.id}/sources`, { type: 'file', url: `${served.url}/notes.md` });
    const crawl = await callApi(api, 'POST', `/agents/${agent.id}/sources`, { type: 'website', url: `${served.url}/` });
    await until('the file read waits on the embedding endpoint', async () => embeddings!.held().length, (held) => held === 1, 30_000);
    await until('both pages are in hand', () => heldPages(client, undefined), (pages) => pages.length === 2, 30_000);

    // Past the window, another batch of the crawl runs (as after a worker start): it must leave the pages in hand alone.
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    const database = await openPostgres(databaseUrl, 2);
    const queue = await createQueue(database);
    const jobId = await queue.send(CRAWL_BATCH_JOB, { v: 1, crawlId: crawl.id });
    await queue.stop();
    await database.close();
    await until('the extra batch ran', async () => (await client.query(`select state::text from pgboss.job where id = $1`, [jobId])).rows[0]?.state, (state) => state === 'completed', 30_000);
    assert.equal(embeddings.held().length, 1, 'the read was not given to another worker');
    assert.deepEqual([served.hits.get('/a'), served.hits.get('/b')], [1, 1], 'the pages were not given to another worker');
    gate.open();
    embeddings.release();

    const ended = await until('the crawl ends', () => callApi(api, 'GET', `/agents/${agent.id}/crawl`), isOver, 60_000);
    assert.deepEqual({ status: ended.status, processed: ended.processed, failed: ended.failed }, { status: 'completed', processed: 3, failed: 0 });
    assert.deepEqual(['/', '/a', '/b'].map((page) => served.hits.get(page)), [1, 1, 1], 'each page was fetched once');
    const read = await until('the file is read', () => callApi(api, 'GET', `/agents/${agent.id}/sources/${file.id}`), (source) => source.status !== 'pending', 30_000);
    assert.equal(read.status, 'ready');
    await assertEveryPageReady(api, agent.id, 3);
  });
});

describe('the service killed mid-crawl on the embedded database', { skip: storeUnderTest() !== 'embedded' && 'the embedded pass tries it' }, () => {
  test('started again, it takes the dead process’s pages up at once: the crawl completes within 30 s, no page read twice but those it held', async () => {
    const PAGES = 40;
    site = await startPagedSite(PAGES, { delayMs: 500 });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-lost-work-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_DATA_DIR: dataDir };
    const first = await startMain(env);
    await waitFor(first, /Try: curl/, 10_000);
    const key = printed(first.output(), MANAGE_KEY)!;
    const before: ServiceApi = { url: first.url, key };
    const agent = await callApi(before, 'POST', '/agents', { name: 'Restarted', useCase: 'general' });
    await callApi(before, 'POST', `/agents/${agent.id}/sources`, { type: 'website', url: site.origin });
    await until('the crawl reads some pages', () => readyPages(before, agent.id), (pages) => pages.length >= 5, 60_000);
    const readBefore = await readyPages(before, agent.id);
    first.child.kill('SIGKILL');
    await first.exited;
    site.delayMs = 0;

    const again = await startMain(env);
    const restartedAt = Date.now();
    const after: ServiceApi = { url: again.url, key };
    const ended = await until('the crawl ends', () => callApi(after, 'GET', `/agents/${agent.id}/crawl`), isOver, RESUMED_WITHIN_MS);
    assert.ok(Date.now() - restartedAt < RESUMED_WITHIN_MS);
    assert.deepEqual(
      { status: ended.status, processed: ended.processed, discovered: ended.discovered, pending: ended.pending, failed: ended.failed, stopReason: ended.stopReason },
      { status: 'completed', processed: PAGES, discovered: PAGES, pending: 0, failed: 0, stopReason: null },
      `read before the kill: ${readBefore.length}; fetched: ${JSON.stringify([...fetchesPerPage(site.hits)])}\n${again.output()}`,
    );
    assertReadOnceButHeld(site.hits, readBefore, PAGES);
    await assertEveryPageReady(after, agent.id, PAGES);
  });
});
