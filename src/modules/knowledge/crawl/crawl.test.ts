import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../../config.ts';
import { createContext, type Context } from '../../../context.ts';
import { newId } from '../../../platform/ids.ts';
import type { Database } from '../../../platform/db.ts';
import { startWorkers } from '../../../workers.ts';
import { ADMIN_TOKEN, startService, type SeededWorkspace, type Service } from '../../../../test/support/harness.ts';
import { seedAgent } from '../../../../test/support/seed-agent.ts';
import { freshDatabase } from '../../../../test/support/stores.ts';
import { getLatestCrawl, startCrawl, type CrawlObject } from './service.ts';
import { page, paragraphsFor, startPagedSite, startSite, type TestSite } from './test-site.ts';

const PRIVATE = { PARLEY_ALLOW_PRIVATE_URLS: '1' };

/** A small site with one of everything the crawler must handle. */
function featureSite(): Promise<TestSite> {
  const about = page('About us', paragraphsFor(1), ['/']);
  return startSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private\n' },
    '/': page('Home', paragraphsFor(0), [
      '/about', '/pricing?utm_source=newsletter', '/faq#shipping', '/faq', '/login', '/empty', '/blog/post-1', '/private/secret',
      '/old-page', '/about-copy', '/about-twin', '/data', '/brochure.pdf', 'http://example.invalid/elsewhere', 'mailto:team@example.com',
    ]),
    '/about': about,
    '/about-twin': about, // same text under another address
    '/about-copy': page('About us (print)', paragraphsFor(99), ['/'], '<link rel="canonical" href="/about">'),
    '/pricing': page('Pricing', paragraphsFor(2), ['/']),
    '/faq': page('FAQ', paragraphsFor(3), ['/', '/pricing']),
    '/login': {
      body: '<html><head><title>Sign in</title></head><body><h1>Sign in</h1><form method="post"><input name="email"><input type="password" name="password"><button>Sign in</button></form></body></html>',
    },
    '/empty': page('Coming soon', ['Soon.'], ['/']),
    '/blog/post-1': page('Blog post', paragraphsFor(4), ['/']),
    '/private/secret': page('Secret', paragraphsFor(5), ['/']),
    '/old-page': { status: 301, headers: { location: '/moved' } },
    '/moved': page('Moved here', paragraphsFor(6), ['/']),
    '/data': { type: 'application/json', body: '{"not":"a page"}' },
    '/brochure.pdf': { type: 'application/pdf', body: 'not a PDF at all' }, // a linked document is fetched; this one is no document
    '/missing': { status: 404, body: 'gone' },
    '/sitemap.xml': (origin) => ({
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap><sitemap><loc>${origin}/sitemap-more.xml</loc></sitemap></sitemapindex>`,
    }),
    '/sitemap-pages.xml': (origin) => ({
      type: 'application/xml',
      body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/about</loc></url><url><loc>${origin}/pricing</loc></url>
<url><loc>${origin}/private/secret</loc></url><url><loc>${origin}/blog/post-1</loc></url></urlset>`,
    }),
    '/sitemap-more.xml': (origin) => ({ type: 'application/xml', body: `<urlset><url><loc>${origin}/faq</loc></url><url><loc>${origin}/login</loc></url></urlset>` }),
  });
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, seconds = 60): Promise<T> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ended = (crawl: CrawlObject | undefined) => crawl !== undefined && !['queued', 'running'].includes(crawl.status);

describe('website crawl', () => {
  let service: Service;
  let site: TestSite;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: PRIVATE });
    site = await featureSite();
    ws = await service.seedWorkspace({ plan: 'enterprise' }); // room for an agent per rule
  });
  after(async () => {
    await site.close();
    await service.close();
  });

  const crawlOf = async (agentId: string, key = ws.keys.read) => {
    const reply = await service.api('GET', `/agents/${agentId}/crawl`, { key });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data as CrawlObject;
  };
  // Polling goes in-process: 50 ms polls over HTTP would run into the key's 120 requests a minute.
  const progress = (agentId: string) => getLatestCrawl(service.ctx, { id: agentId, workspaceId: ws.id, status: 'active' });
  const finished = async (agentId: string) => {
    await waitFor(() => progress(agentId), ended);
    return crawlOf(agentId);
  };
  const startWebsite = (agentId: string, body: Record<string, unknown>) =>
    service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', ...body } });
  const websiteSources = async (agentId: string) => {
    const reply = await service.api('GET', `/agents/${agentId}/sources?limit=100`, { key: ws.keys.read });
    return (reply.body.data as Array<{ type: string; url: string }>).filter((s) => s.type === 'website').map((s) => new URL(s.url).pathname + new URL(s.url).search);
  };

  test('links mode follows same-site links, keeps content pages and turns away login and near-empty pages', async () => {
    const agentId = await seedAgent(service, ws, 'links');
    const started = await startWebsite(agentId, { url: `${site.origin}/`, excludePaths: ['/blog'] });
    assert.equal(started.status, 201);
    assert.equal(started.body.data.status, 'queued');
    const crawl = await finished(agentId);
    // /, about, about-copy, about-twin, pricing, faq, login, empty, old-page, data, brochure.pdf: eleven addresses once normalised.
    assert.deepEqual(crawl, { id: started.body.data.id, status: 'completed', processed: 11, discovered: 11, pending: 0, failed: 0, turnedAway: 2, stopReason: null });
    const kept = (await websiteSources(agentId)).sort();
    // One of /about and its twin (same text) is kept; /about-copy names /about as canonical; /old-page redirects to /moved.
    assert.equal(kept.filter((p) => p === '/about' || p === '/about-twin').length, 1);
    assert.deepEqual(kept.filter((p) => p !== '/about' && p !== '/about-twin'), ['/', '/faq', '/moved', '/pricing']);
  });

  test('links mode never requests robots-disallowed, excluded or off-site addresses', () => {
    for (const never of ['/private/secret', '/blog/post-1']) assert.ok(!site.hits.includes(never), `${never} was requested`);
    assert.equal(site.hits.filter((hit) => hit === '/faq').length, 1, 'the address with a fragment is the same page');
  });

  test('sitemap mode reads the pages a sitemap index lists, within robots.txt, and follows no links', async () => {
    const agentId = await seedAgent(service, ws, 'sitemap');
    const before = site.hits.length;
    const started = await startWebsite(agentId, { url: site.origin, mode: 'sitemap' });
    assert.equal(started.status, 201);
    const crawl = await finished(agentId);
    assert.equal(crawl.status, 'completed');
    assert.equal(crawl.discovered, 5); // about, pricing, blog/post-1, faq, login; /private is disallowed
    assert.equal(crawl.processed, 5);
    assert.deepEqual((await websiteSources(agentId)).sort(), ['/about', '/blog/post-1', '/faq', '/pricing']);
    const hits = site.hits.slice(before);
    assert.ok(!hits.includes('/') && !hits.includes('/empty'), 'no links were followed');
  });

  test('single mode reads one page', async () => {
    const agentId = await seedAgent(service, ws, 'single');
    const before = site.hits.length;
    await startWebsite(agentId, { url: `${site.origin}/pricing`, mode: 'single' });
    const crawl = await finished(agentId);
    assert.deepEqual({ status: crawl.status, processed: crawl.processed, discovered: crawl.discovered }, { status: 'completed', processed: 1, discovered: 1 });
    assert.deepEqual(site.hits.slice(before).filter((hit) => hit !== '/robots.txt'), ['/pricing']);
    assert.deepEqual(await websiteSources(agentId), ['/pricing']);
  });

  test('a crawl whose first page cannot be read fails', async () => {
    const agentId = await seedAgent(service, ws, 'missing');
    await startWebsite(agentId, { url: `${site.origin}/missing`, mode: 'single' });
    const crawl = await finished(agentId);
    assert.deepEqual({ status: crawl.status, failed: crawl.failed, processed: crawl.processed }, { status: 'failed', failed: 1, processed: 1 });
  });

  test('GET /crawl and DELETE /crawl give 404 not_found when the agent was never crawled', async () => {
    const agentId = await seedAgent(service, ws, 'never');
    const read = await service.api('GET', `/agents/${agentId}/crawl`, { key: ws.keys.read });
    assert.equal(read.status, 404);
    assert.equal(read.body.error.code, 'not_found');
    const stop = await service.api('DELETE', `/agents/${agentId}/crawl`, { key: ws.keys.manage });
    assert.equal(stop.status, 404);
  });

  test('progress counts move while a crawl runs and add up when it ends', async () => {
    const slow = await startPagedSite(12, { delayMs: 150 });
    try {
      const agentId = await seedAgent(service, ws, 'progress');
      await startWebsite(agentId, { url: slow.origin });
      const midway = await waitFor(() => progress(agentId), (c) => c.status === 'running' && c.processed > 0 && c.pending > 0);
      assert.equal(midway.status, 'running');
      assert.ok(midway.processed < midway.discovered);
      assert.equal(midway.processed + midway.pending, midway.discovered);
      const done = await finished(agentId);
      assert.deepEqual({ status: done.status, processed: done.processed, discovered: done.discovered, pending: done.pending }, { status: 'completed', processed: 12, discovered: 12, pending: 0 });
    } finally {
      await slow.close();
    }
  });

  test('DELETE /crawl stops a running crawl, keeps the pages read, and gives 404 once it has ended', async () => {
    const slow = await startPagedSite(40, { delayMs: 200 });
    try {
      const agentId = await seedAgent(service, ws, 'cancel');
      await startWebsite(agentId, { url: slow.origin });
      await waitFor(() => progress(agentId), (c) => c.processed >= 2);
      const stop = await service.api('DELETE', `/agents/${agentId}/crawl`, { key: ws.keys.manage });
      assert.equal(stop.status, 200);
      assert.equal(stop.body.data.cancelled, true);
      assert.ok(stop.body.data.processed >= 2);
      await new Promise((resolve) => setTimeout(resolve, 800)); // pages in hand finish; no new ones start
      const after = await crawlOf(agentId);
      assert.equal(after.status, 'cancelled');
      assert.equal(after.pending, 0);
      assert.ok(after.processed <= stop.body.data.processed + 4, 'only pages already in hand were finished');
      assert.ok(after.processed < 40);
      assert.ok((await websiteSources(agentId)).length >= 2, 'pages read stay as sources');
      const again = await service.api('DELETE', `/agents/${agentId}/crawl`, { key: ws.keys.manage });
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, 'not_found');
      const readKey = await service.api('DELETE', `/agents/${agentId}/crawl`, { key: ws.keys.read });
      assert.equal(readKey.status, 403);
    } finally {
      await slow.close();
    }
  });

  test('a new crawl of an agent cancels the one under way', async () => {
    const slow = await startPagedSite(30, { delayMs: 200 });
    try {
      const agentId = await seedAgent(service, ws, 'twice');
      const first = await startWebsite(agentId, { url: slow.origin });
      const second = await startWebsite(agentId, { url: `${site.origin}/pricing`, mode: 'single' });
      assert.equal(second.status, 201);
      const latest = await finished(agentId);
      assert.equal(latest.id, second.body.data.id);
      const old = await service.ctx.db.selectFrom('crawls').select('status').where('id', '=', first.body.data.id).executeTakeFirstOrThrow();
      assert.equal(old.status, 'cancelled');
    } finally {
      await slow.close();
    }
  });

  test('a crawl stops at the plan page limit with stopReason page_limit', async () => {
    const big = await startPagedSite(70);
    try {
      const agentId = await seedAgent(service, ws, 'limit');
      // The free plan (50 pages) has no API: the crawl is started in-process and read over HTTP after.
      await sql`update workspaces set plan = 'free' where id = ${ws.id}`.execute(service.ctx.db);
      try {
        await startCrawl(service.ctx, { id: agentId, workspaceId: ws.id, status: 'active' }, { url: big.origin });
        await waitFor(() => progress(agentId), ended);
      } finally {
        await sql`update workspaces set plan = 'enterprise' where id = ${ws.id}`.execute(service.ctx.db);
      }
      const crawl = await crawlOf(agentId);
      assert.deepEqual({ status: crawl.status, stopReason: crawl.stopReason, processed: crawl.processed, pending: crawl.pending }, { status: 'completed', stopReason: 'page_limit', processed: 50, pending: 0 });
    } finally {
      await big.close();
    }
  });

  test('a crawl stops at the storage allowance with stopReason storage_limit', async () => {
    const agentId = await seedAgent(service, ws, 'full');
    await service.ctx.db
      .insertInto('sources')
      .values({ id: newId('src'), workspace_id: ws.id, agent_id: agentId, type: 'text', name: 'big', status: 'ready', size_bytes: 500 * 1024 * 1024, content: '', created_at: new Date() } as never)
      .execute();
    await startWebsite(agentId, { url: site.origin });
    const crawl = await finished(agentId);
    assert.deepEqual({ status: crawl.status, stopReason: crawl.stopReason, processed: crawl.processed }, { status: 'completed', stopReason: 'storage_limit', processed: 0 });
  });

  test('a foreign workspace and a key tied to another agent get 404 for the crawl', async () => {
    const agentId = await seedAgent(service, ws, 'tenancy');
    await startWebsite(agentId, { url: `${site.origin}/pricing`, mode: 'single' });
    await finished(agentId);
    const other = await service.seedWorkspace({ name: 'Other' });
    for (const [method, key] of [['GET', other.keys.read], ['DELETE', other.keys.manage]] as const) {
      const reply = await service.api(method, `/agents/${agentId}/crawl`, { key });
      assert.equal(reply.status, 404);
      assert.equal(reply.body.error.code, 'not_found');
    }
    const otherAgent = await seedAgent(service, ws, 'tenancy-2');
    const tied = await ws.addKey('manage', otherAgent);
    assert.equal((await service.api('GET', `/agents/${agentId}/crawl`, { key: tied.key })).status, 404);
    assert.equal((await service.api('DELETE', `/agents/${agentId}/crawl`, { key: tied.key })).status, 404);
  });
});

describe('website crawl without private addresses', () => {
  let service: Service;
  before(async () => {
    service = await startService();
  });
  after(() => service.close());

  test('POST sources with a website on a private address gives 400 unsafe_url', async () => {
    const ws = await service.seedWorkspace();
    const agentId = await seedAgent(service, ws);
    for (const url of ['http://127.0.0.1:8080/', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data']) {
      const reply = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', url } });
      assert.equal(reply.status, 400, url);
      assert.equal(reply.body.error.code, 'unsafe_url');
    }
    const ftp = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', url: 'ftp://example.com/' } });
    assert.equal(ftp.status, 400);
    assert.equal(ftp.body.error.code, 'invalid_request');
    assert.equal((await service.api('GET', `/agents/${agentId}/crawl`, { key: ws.keys.read })).status, 404);
  });
});

describe('website crawl across a restart', () => {
  test('a crawl interrupted by a stopping service resumes on the next one and reads every page once', async () => {
    const site = await startPagedSite(30, { delayMs: 300 });
    const testDb = await freshDatabase();
    // Both services share the database; closing the first must not close it.
    const shared: Database = { ...testDb.database, close: async () => {} };
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-crawl-'));
    const config = loadConfig({ PARLEY_DATA_DIR: dataDir, PARLEY_ADMIN_TOKEN: ADMIN_TOKEN, PARLEY_TEST_CLOCK: '1', PARLEY_LOG_LEVEL: 'silent', ...PRIVATE });
    const startContext = async (advanceSeconds = 0): Promise<Context> => {
      const ctx = await createContext(config, { database: shared });
      ctx.testClock?.advance(advanceSeconds);
      await startWorkers(ctx);
      return ctx;
    };
    let second: Context | undefined;
    try {
      const first = await startContext();
      const agent = await seedRows(first);
      const crawl = await startCrawl(first, agent, { url: site.origin });
      await waitFor(() => getLatestCrawl(first, agent), (c) => c.processed >= 5);
      await first.close();
      const stopped = await getLatestCrawl(first, agent);
      assert.equal(stopped.status, 'running');
      assert.ok(stopped.pending > 0 && stopped.processed < 30, `stopped midway: ${JSON.stringify(stopped)}`);
      const held = await first.db.selectFrom('crawl_pages').select('url').where('crawl_id', '=', crawl.id).where('status', '=', 'fetching').execute();
      assert.deepEqual(held, [], 'pages in hand were finished before the service stopped');

      // A worker that died holding a page: its claim is taken back once stale.
      const crashed = await first.db
        .updateTable('crawl_pages')
        .set({ status: 'fetching', claimed_at: first.clock.now(), attempts: 1 })
        .where('crawl_id', '=', crawl.id)
        .where('url', '=', (eb) => eb.selectFrom('crawl_pages').select('url').where('crawl_id', '=', crawl.id).where('status', '=', 'queued').orderBy('url').limit(1))
        .returning('url')
        .execute();
      assert.equal(crashed.length, 1);

      site.delayMs = 0;
      second = await startContext(5 * 60);
      const done = await waitFor(() => getLatestCrawl(second!, agent), ended, 30);
      assert.deepEqual({ status: done.status, processed: done.processed, discovered: done.discovered, pending: done.pending, failed: done.failed }, {
        status: 'completed', processed: 30, discovered: 30, pending: 0, failed: 0,
      });
      const pageHits = site.hits.filter((hit) => hit === '/' || hit.startsWith('/p/'));
      assert.equal(new Set(pageHits).size, 30);
      assert.equal(pageHits.length, 30, 'no page was read twice');
      const sources = await second.db.selectFrom('sources').select('url').where('agent_id', '=', agent.id).execute();
      assert.equal(sources.length, 30);
    } finally {
      await second?.close();
      await testDb.database.close();
      await testDb.drop();
      await rm(dataDir, { recursive: true, force: true });
      await site.close();
    }
  });
});

async function seedRows(ctx: Context) {
  const now = ctx.clock.now();
  const workspaceId = newId('ws');
  const agentId = newId('ag');
  await sql`insert into workspaces (id, name, plan, created_at, updated_at) values (${workspaceId}, 'Restart', 'studio', ${now}, ${now})`.execute(ctx.db);
  await sql`insert into agents (id, workspace_id, status, created_at, updated_at) values (${agentId}, ${workspaceId}, 'active', ${now}, ${now})`.execute(ctx.db);
  return { id: agentId, workspaceId, status: 'active' as const };
}
