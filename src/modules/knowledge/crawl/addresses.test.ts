/**
 * Addresses as the server gives them (issue 10 §1): "/shop/" and "/shop" are two
 * addresses, links resolve against the address that served the page, and two
 * spellings are one page (one source) only where the server says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../../platform/ids.ts';
import { startService, type SeededWorkspace, type Service } from '../../../../test/support/harness.ts';
import { seedAgent } from '../../../../test/support/seed-agent.ts';
import { getLatestCrawl, type CrawlObject } from './service.ts';
import { page, paragraphsFor, startSite, type SiteRoute, type TestSite } from './test-site.ts';

/** The pages of the shop kept under /shop/, and where its relative links must lead. */
const SHOP_PAGES = ['/shop/', '/shop/intro', '/shop/guides/', '/shop/guides/setup', '/shop/guides/returns', '/shop/guides/printable', '/shop/help/warranty'];
/** Where those links lead when resolved against an address without its slash. */
const WRONG_PAGES = ['/intro', '/guides/', '/guides/setup', '/guides/returns', '/shop/setup', '/shop/printable', '/shop/returns', '/shop/guides/warranty', '/shop/warranty'];

/**
 * A shop kept under the folder /shop/: /shop redirects to /shop/, /shop/guides/ answers
 * only with its slash, links are relative one and two levels deep, and one page has a
 * <base href>. The pages a wrong resolution would reach exist too, so reading them shows.
 */
function shopSite(): Promise<TestSite> {
  const routes: Record<string, SiteRoute> = {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/shop': { status: 301, headers: { location: '/shop/' } },
    '/shop/': page('Shop', paragraphsFor(10), ['intro', 'guides/', 'guides/setup', '/shop', './']),
    '/shop/intro': page('Intro', paragraphsFor(11), ['guides/returns', './']),
    '/shop/guides/': page('Guides', paragraphsFor(12), ['setup', '../intro', 'printable']),
    '/shop/guides/setup': page('Setup', paragraphsFor(13), ['../']),
    '/shop/guides/returns': page('Returns', paragraphsFor(14), ['./', 'setup']),
    '/shop/guides/printable': page('Printable guide', paragraphsFor(15), ['warranty'], '<base href="/shop/help/">'),
    '/shop/help/warranty': page('Warranty', paragraphsFor(16), ['../']),
    '/sitemap.xml': (origin) => ({
      type: 'application/xml',
      body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/shop/</loc></url>
<url><loc>${origin}/shop/guides/</loc></url><url><loc>${origin}/shop/guides/setup</loc></url></urlset>`,
    }),
  };
  WRONG_PAGES.forEach((path, n) => (routes[path] = page(`Wrong page ${n}`, paragraphsFor(60 + n))));
  return startSite(routes);
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, seconds = 20): Promise<T> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ended = (crawl: CrawlObject) => !['queued', 'running'].includes(crawl.status);
const pageHits = (hits: string[]) => hits.filter((hit) => hit !== '/robots.txt' && !hit.includes('sitemap'));

describe('crawl addresses', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let shop: TestSite;

  before(async () => {
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    shop = await shopSite();
  });
  after(async () => {
    await shop.close();
    await service.close();
  });

  // Polling goes in-process: 50 ms polls over HTTP would run into the key's rate limit.
  const progress = (agentId: string) => getLatestCrawl(service.ctx, { id: agentId, workspaceId: ws.id, status: 'active' });
  const crawl = async (agentId: string, body: Record<string, unknown>): Promise<CrawlObject> => {
    const started = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', ...body } });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    await waitFor(() => progress(agentId), ended);
    const reply = await service.api('GET', `/agents/${agentId}/crawl`, { key: ws.keys.read });
    return reply.body.data as CrawlObject;
  };
  const websiteSources = async (agentId: string) => {
    const reply = await service.api('GET', `/agents/${agentId}/sources?limit=100`, { key: ws.keys.read });
    assert.equal(reply.status, 200);
    return (reply.body.data as Array<{ id: string; type: string; url: string; name: string }>).filter((s) => s.type === 'website');
  };
  const sourcePaths = async (agentId: string) => (await websiteSources(agentId)).map((s) => new URL(s.url).pathname).sort();

  test('a crawl started at a folder address with its slash fetches that address and resolves links one and two levels deep against it', async () => {
    const agentId = await seedAgent(service, ws, 'with slash');
    const before = shop.hits.length;
    const done = await crawl(agentId, { url: `${shop.origin}/shop/` });
    // The seven pages, and /shop (linked; it redirects to /shop/, read already).
    assert.deepEqual(done, { ...done, status: 'completed', processed: 8, discovered: 8, pending: 0, failed: 0 });
    assert.deepEqual(await sourcePaths(agentId), [...SHOP_PAGES].sort());
    const hits = pageHits(shop.hits.slice(before));
    assert.equal(hits[0], '/shop/', 'the address given is fetched as it is');
    assert.deepEqual(hits.filter((hit) => WRONG_PAGES.includes(hit) || hit === '/shop/guides'), []);
  });

  test('a crawl started at a folder address without its slash follows the redirect and resolves links against /shop/', async () => {
    const agentId = await seedAgent(service, ws, 'without slash');
    const before = shop.hits.length;
    const done = await crawl(agentId, { url: `${shop.origin}/shop` });
    // /shop and the six pages below it; /shop/ is where /shop led, not a page of its own.
    assert.deepEqual(done, { ...done, status: 'completed', processed: 7, discovered: 7, pending: 0, failed: 0 });
    assert.deepEqual(await sourcePaths(agentId), [...SHOP_PAGES].sort(), 'the start page is kept under the address that served it');
    const hits = pageHits(shop.hits.slice(before));
    assert.deepEqual(hits.filter((hit) => WRONG_PAGES.includes(hit)), []);
    assert.equal(hits.filter((hit) => hit === '/shop/').length, 1, '/shop/ is read once, through the redirect');
  });

  test('sitemap mode fetches listed addresses that end in a slash as they are', async () => {
    const agentId = await seedAgent(service, ws, 'sitemap');
    const before = shop.hits.length;
    const done = await crawl(agentId, { url: `${shop.origin}/shop/`, mode: 'sitemap' });
    assert.deepEqual(done, { ...done, status: 'completed', processed: 3, discovered: 3, failed: 0 });
    assert.deepEqual(await sourcePaths(agentId), ['/shop/', '/shop/guides/', '/shop/guides/setup']);
    assert.deepEqual(pageHits(shop.hits.slice(before)).sort(), ['/shop/', '/shop/guides/', '/shop/guides/setup']);
  });

  test('single mode reads a page that only answers at its address with the slash', async () => {
    const agentId = await seedAgent(service, ws, 'single');
    const done = await crawl(agentId, { url: `${shop.origin}/shop/guides/`, mode: 'single' });
    assert.deepEqual(done, { ...done, status: 'completed', processed: 1, discovered: 1, failed: 0 });
    assert.deepEqual(await sourcePaths(agentId), ['/shop/guides/']);
  });

  test('excludePaths leave out a folder with and without its slash', async () => {
    const agentId = await seedAgent(service, ws, 'exclude');
    const before = shop.hits.length;
    const done = await crawl(agentId, { url: `${shop.origin}/shop/`, excludePaths: ['/shop/guides/'] });
    assert.equal(done.status, 'completed');
    assert.deepEqual(await sourcePaths(agentId), ['/shop/', '/shop/intro']);
    assert.deepEqual(pageHits(shop.hits.slice(before)).filter((hit) => hit.startsWith('/shop/guides')), []);
  });

  test('a crawl of a folder that only answers with its slash runs: DELETE /crawl stops it and retrain answers 409 agent_busy meanwhile', async () => {
    const routes: Record<string, SiteRoute> = { '/docs/': page('Docs', paragraphsFor(30), Array.from({ length: 30 }, (_, i) => `p${i + 1}`)) };
    for (let n = 1; n <= 30; n++) routes[`/docs/p${n}`] = page(`Docs page ${n}`, paragraphsFor(30 + n), ['./']);
    const docs = await startSite(routes, { delayMs: 200 });
    try {
      const agentId = await seedAgent(service, ws, 'docs');
      const started = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', url: `${docs.origin}/docs/` } });
      assert.equal(started.status, 201);
      const midway = await waitFor(() => progress(agentId), (c) => c.processed >= 2 || ended(c));
      assert.equal(midway.status, 'running');
      const retrain = await service.api('POST', `/agents/${agentId}/retrain`, { key: ws.keys.manage });
      assert.equal(retrain.status, 409);
      assert.equal(retrain.body.error.code, 'agent_busy');
      const stop = await service.api('DELETE', `/agents/${agentId}/crawl`, { key: ws.keys.manage });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      assert.equal(stop.body.data.cancelled, true);
      const after = await waitFor(() => progress(agentId), (c) => c.pending === 0);
      assert.equal(after.status, 'cancelled');
      assert.ok((await sourcePaths(agentId)).includes('/docs/'), 'the start page was read at its address');
      assert.ok(!docs.hits.includes('/docs'), 'the address without the slash was never asked for');
    } finally {
      await docs.close();
    }
  });

  test('a page recorded under one address that now redirects elsewhere stays one source, under the new address', async () => {
    const routes: Record<string, SiteRoute> = { '/guide': page('Guide', paragraphsFor(40)) };
    const site = await startSite(routes);
    try {
      const agentId = await seedAgent(service, ws, 'moved');
      await crawl(agentId, { url: `${site.origin}/guide`, mode: 'single' });
      const [first] = await websiteSources(agentId);
      assert.equal(new URL(first.url).pathname, '/guide');
      routes['/guide'] = { status: 301, headers: { location: '/guide/' } };
      routes['/guide/'] = page('Guide, new edition', paragraphsFor(41));
      const done = await crawl(agentId, { url: `${site.origin}/guide`, mode: 'single' });
      assert.equal(done.status, 'completed');
      const sources = await websiteSources(agentId);
      assert.deepEqual(sources.map((s) => ({ id: s.id, path: new URL(s.url).pathname, name: s.name })), [{ id: first.id, path: '/guide/', name: 'Guide, new edition' }]);
    } finally {
      await site.close();
    }
  });

  test('a page recorded under its own address that later names another as canonical is folded into that page', async () => {
    const routes: Record<string, SiteRoute> = {
      '/': page('Home', paragraphsFor(42), ['/about', '/print']),
      '/about': page('About', paragraphsFor(43), ['/']),
      '/print': page('About (print)', paragraphsFor(44), ['/']),
    };
    const site = await startSite(routes);
    try {
      const agentId = await seedAgent(service, ws, 'canonical');
      await crawl(agentId, { url: `${site.origin}/` });
      const print = (await websiteSources(agentId)).find((s) => new URL(s.url).pathname === '/print');
      assert.ok(print, 'the print page was a source of its own');
      routes['/print'] = page('About (print)', paragraphsFor(44), ['/'], '<link rel="canonical" href="/about">');
      await crawl(agentId, { url: `${site.origin}/` });
      assert.deepEqual(await sourcePaths(agentId), ['/', '/about']);
      // /about has a source of its own, so the copy under /print goes.
      const gone = await service.api('GET', `/agents/${agentId}/sources/${print.id}`, { key: ws.keys.read });
      assert.equal(gone.status, 404);
    } finally {
      await site.close();
    }
  });

  test("a source a crawl before the fix recorded without the slash becomes the page's source when the server redirects there, and stays when it does not", async () => {
    const routes: Record<string, SiteRoute> = {
      '/plain': page('Plain', paragraphsFor(46)),
      '/plain/': page('Plain folder', paragraphsFor(47)),
    };
    const site = await startSite(routes);
    try {
      const agentId = await seedAgent(service, ws, 'before the fix');
      const oldCrawl = newId('crawl');
      const now = service.ctx.clock.now();
      await service.ctx.db
        .insertInto('crawls')
        .values({ id: oldCrawl, workspace_id: ws.id, agent_id: agentId, url: `${shop.origin}/shop`, mode: 'links', exclude_paths: '[]' as never, status: 'completed', site: new URL(shop.origin).host, seeded: true, dropped_trailing_slash: true, created_at: now })
        .execute();
      const oldSource = (url: string) => ({
        id: newId('src'), workspace_id: ws.id, agent_id: agentId, type: 'website' as const, name: 'Old copy', url, title: 'Old copy', status: 'ready' as const,
        size_bytes: 10, chunk_count: 0, content: 'old text', crawl_id: oldCrawl, generation: 0, created_at: now,
      });
      const shopSource = oldSource(`${shop.origin}/shop`);
      await service.ctx.db.insertInto('sources').values([shopSource, oldSource(`${site.origin}/plain`)]).execute();

      await crawl(agentId, { url: `${shop.origin}/shop/`, mode: 'single' });
      await crawl(agentId, { url: `${site.origin}/plain/`, mode: 'single' });
      const sources = await websiteSources(agentId);
      const shopPages = sources.filter((s) => s.url.startsWith(shop.origin));
      assert.deepEqual(shopPages.map((s) => ({ id: s.id, path: new URL(s.url).pathname, name: s.name })), [{ id: shopSource.id, path: '/shop/', name: 'Shop' }], '/shop redirects to /shop/: one source');
      const plainPages = sources.filter((s) => s.url.startsWith(site.origin)).map((s) => new URL(s.url).pathname).sort();
      assert.deepEqual(plainPages, ['/plain', '/plain/'], '/plain is a page of its own: both stay');
    } finally {
      await site.close();
    }
  });
});
