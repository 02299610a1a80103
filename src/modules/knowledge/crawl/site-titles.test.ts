/**
 * The site's name in a crawled site's page titles (site-name.ts, titles.ts): each page's
 * passages are searched and weighed by the page's own part of its title, the home page
 * keeps the name, and the sources keep the titles people see. Through HTTP, against a
 * local site whose every title ends in "| Acme Bikes".
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startService, type SeededWorkspace, type Service } from '../../../../test/support/harness.ts';
import { seedAgent } from '../../../../test/support/seed-agent.ts';
import { indexSourcesText } from '../indexing.ts';
import { getLatestCrawl } from './service.ts';
import { page, paragraphsFor, startSite, type SiteRoute, type TestSite } from './test-site.ts';

const NAME = ' | Acme Bikes';
/** More pages than the crawl reads before it looks for the name: the first ones are indexed again at its end. */
const PAGES = ['Prices', 'Repairs', 'Rental bikes', 'Delivery', 'Returns', 'About us', 'Opening hours', 'Careers', 'Gift cards'];
const path = (title: string) => `/${title.toLowerCase().replace(/\s+/g, '-')}`;

describe('the site’s name in its page titles', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let site: TestSite;
  let agent: string;

  before(async () => {
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    const routes: Record<string, SiteRoute> = { '/': page(`Bikes for Utrecht${NAME}`, paragraphsFor(0), PAGES.map(path)) };
    PAGES.forEach((title, i) => (routes[path(title)] = page(`${title}${NAME}`, paragraphsFor(i + 1), ['/', ...PAGES.map(path)])));
    site = await startSite(routes);
    agent = await seedAgent(service, ws, 'bikes');
    await crawl(agent, `${site.origin}/`);
  });
  after(async () => {
    await site?.close();
    await service?.close();
  });

  async function crawl(agentId: string, url: string, mode?: string): Promise<void> {
    const started = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', url, ...(mode ? { mode } : {}) } });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      const progress = await getLatestCrawl(service.ctx, { id: agentId, workspaceId: ws.id, status: 'active' });
      if (!['queued', 'running'].includes(progress.status)) {
        assert.equal(progress.status, 'completed', JSON.stringify(progress));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('the crawl did not end');
  }

  /** Each website source's path with its name (what people see) and its passages' titles (what is searched). */
  async function titles(agentId: string): Promise<Map<string, { name: string; indexed: string[] }>> {
    const rows = await service.ctx.db
      .selectFrom('sources as s')
      .innerJoin('passages as p', 'p.source_id', 's.id')
      .select(['s.url', 's.name', 'p.title'])
      .where('s.agent_id', '=', agentId)
      .where('s.type', '=', 'website')
      .execute();
    const out = new Map<string, { name: string; indexed: string[] }>();
    for (const row of rows) {
      const key = new URL(row.url!).pathname;
      const held = out.get(key) ?? { name: row.name, indexed: [] };
      held.indexed.push(row.title);
      out.set(key, held);
    }
    return out;
  }

  test('every page is indexed by its own part of its title, the first pages read too; the sources keep their whole titles', async () => {
    const held = await titles(agent);
    assert.equal(held.size, PAGES.length + 1, JSON.stringify([...held.keys()]));
    for (const title of PAGES) {
      const source = held.get(path(title));
      assert.ok(source, `${title} is a source`);
      assert.equal(source.name, `${title}${NAME}`);
      assert.deepEqual([...new Set(source.indexed)], [title]);
    }
  });

  test('the home page keeps the site’s name: it is indexed once, not on every page', async () => {
    const held = await titles(agent);
    assert.deepEqual([...new Set(held.get('/')!.indexed)], [`Bikes for Utrecht${NAME}`]);
    const named = [...held.values()].filter((source) => source.indexed.some((title) => title.includes('Acme')));
    assert.equal(named.length, 1);
  });

  test('a page indexed again (a retrain) is indexed by its own part of the title as well', async () => {
    const sources = await service.ctx.db.selectFrom('sources').selectAll().where('agent_id', '=', agent).where('type', '=', 'website').execute();
    await indexSourcesText(service.ctx, sources);
    assert.deepEqual([...new Set((await titles(agent)).get(path('Repairs'))!.indexed)], ['Repairs']);
  });

  test('a crawl of the same site again, and a single page of it, know the site’s name from the pages read before', async () => {
    await crawl(agent, `${site.origin}/`);
    await crawl(agent, `${site.origin}${path('Careers')}`, 'single');
    const held = await titles(agent);
    for (const title of PAGES) assert.deepEqual([...new Set(held.get(path(title))!.indexed)], [title]);
  });

  test('a one-page source is about its whole title: one title shares nothing with another', async () => {
    const alone = await seedAgent(service, ws, 'one page');
    await crawl(alone, `${site.origin}${path('Prices')}`, 'single');
    assert.deepEqual([...(await titles(alone)).entries()].map(([key, source]) => [key, [...new Set(source.indexed)]]), [[path('Prices'), [`Prices${NAME}`]]]);
  });
});
