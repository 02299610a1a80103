/**
 * What a crawl keeps of a real small-business site (issue 26): the header and footer
 * facts once per site, a short contact page, a linked PDF as a file source, and every
 * page turned away listed with its reason. Through HTTP, against local sites.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startService, type SeededWorkspace, type Service } from '../../../../test/support/harness.ts';
import { serveFixtureSite, type FixtureSite } from '../../../../test/support/fixture-sites.ts';
import { seedAgent } from '../../../../test/support/seed-agent.ts';
import { newId } from '../../../platform/ids.ts';
import { PLANS } from '../../../domain/plans.ts';
import { makeDocx } from '../test-support.ts';
import { getLatestCrawl, type CrawlObject } from './service.ts';
import { page, paragraphsFor, startSite, type TestSite } from './test-site.ts';

interface SourceItem {
  id: string;
  type: string;
  name: string;
  url: string;
  status: string;
}

describe('reading a small-business site', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let clinic: FixtureSite;
  let small: TestSite;
  let clinicAgent: string;
  /** Crawled by the turned-away test; the Word document test reads what that crawl kept. */
  let smallAgent = '';

  before(async () => {
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    ws = await service.seedWorkspace({ plan: 'studio' });
    clinic = await serveFixtureSite('clearwater');
    small = await startSite({
      '/': page('Home', paragraphsFor(0), ['/login', '/empty', '/soon', '/about', '/files/terms.docx', '/files/old.pdf']),
      '/files/terms.docx': {
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        body: await makeDocx(['Terms of sale', 'Orders placed before noon are shipped the same working day by tracked parcel.']),
      },
      '/files/old.pdf': { type: 'application/pdf', body: 'This address says it is a PDF, but it holds plain text.' },
      '/about': page('About', paragraphsFor(1), ['/']),
      '/login': {
        body: '<html><head><title>Sign in</title></head><body><h1>Sign in</h1><form><input name="email"><input type="password" name="password"></form></body></html>',
      },
      '/empty': page('Coming soon', ['Soon.'], ['/']),
      '/soon': page('Later', ['Later.'], ['/']),
    });
    clinicAgent = await seedAgent(service, ws, 'clinic');
    await crawl(clinicAgent, `${clinic.origin}/`);
  });
  after(async () => {
    await clinic?.close();
    await small?.close();
    await service?.close();
  });

  async function crawl(agentId: string, url: string): Promise<CrawlObject> {
    const started = await service.api('POST', `/agents/${agentId}/sources`, { key: ws.keys.manage, body: { type: 'website', url } });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const until = Date.now() + 120_000;
    // In-process polling: HTTP polls would run into the key's rate limit.
    while (Date.now() < until) {
      const progress = await getLatestCrawl(service.ctx, { id: agentId, workspaceId: ws.id, status: 'active' });
      if (!['queued', 'running'].includes(progress.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const reply = await service.api('GET', `/agents/${agentId}/crawl`, { key: ws.keys.read });
    return reply.body.data;
  }
  const sources = async (agentId: string): Promise<SourceItem[]> => (await service.api('GET', `/agents/${agentId}/sources?limit=100`, { key: ws.keys.read })).body.data;
  const content = async (agentId: string, sourceId: string): Promise<string> =>
    (await service.api('GET', `/agents/${agentId}/sources/${sourceId}`, { key: ws.keys.read })).body.data.content;

  test('the contact facts of the header and footer are one source for the site, not repeated on every page', async () => {
    const all = await sources(clinicAgent);
    const facts = all.filter((source) => source.url.endsWith('/#contact-details'));
    assert.equal(facts.length, 1, JSON.stringify(all.map((s) => s.url)));
    assert.equal(facts[0].name, 'Contact details');
    assert.equal(facts[0].status, 'ready');
    const text = await content(clinicAgent, facts[0].id);
    for (const fact of ['0117 946 0321', 'reception@clearwaterphysio.example', '14 Gloucester Road', 'Saturday: 9:00am – 1:00pm']) assert.ok(text.includes(fact), `${fact} in ${text}`);
    assert.equal(text.split('0117 946 0321').length - 1, 1, 'kept once, though every page has the footer');
    const pages = all.filter((source) => source.type === 'website' && source !== facts[0]);
    assert.ok(pages.length >= 8);
    for (const source of pages) assert.ok(!(await content(clinicAgent, source.id)).includes('0117 946 0321'), `${source.url} repeats the footer`);
  });

  test('a short contact page is kept when the site carries contact details', async () => {
    const contact = (await sources(clinicAgent)).find((source) => new URL(source.url).pathname === '/contact');
    assert.ok(contact, 'the contact page is a source');
    assert.match(await content(clinicAgent, contact.id), /same day/);
  });

  test('a PDF linked from a page of the site is read in the same crawl as a file source', async () => {
    const pdf = (await sources(clinicAgent)).find((source) => source.url.endsWith('/files/fees-2026.pdf'));
    assert.ok(pdf, 'the linked PDF is a source');
    assert.deepEqual({ type: pdf.type, status: pdf.status, name: pdf.name }, { type: 'file', status: 'ready', name: 'fees-2026.pdf' });
    assert.match(await content(clinicAgent, pdf.id), /Medico-legal reports for solicitors: 150 pounds/);
  });

  test('a crawl again replaces the site facts and the linked PDF instead of adding copies', async () => {
    await crawl(clinicAgent, `${clinic.origin}/`);
    const all = await sources(clinicAgent);
    assert.equal(all.filter((source) => source.url.endsWith('/#contact-details')).length, 1);
    assert.equal(all.filter((source) => source.url.endsWith('/files/fees-2026.pdf')).length, 1);
  });

  test('every page turned away is counted on the crawl and listed with its reason', async () => {
    const agentId = (smallAgent = await seedAgent(service, ws, 'small'));
    const done = await crawl(agentId, `${small.origin}/`);
    assert.deepEqual({ status: done.status, processed: done.processed, turnedAway: done.turnedAway }, { status: 'completed', processed: 7, turnedAway: 3 });
    const listed = await service.api('GET', `/agents/${agentId}/crawl/pages?status=turned_away`, { key: ws.keys.read });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.data.map((item: { url: string; status: string; reason: string }) => [new URL(item.url).pathname, item.status, item.reason]),
      [['/empty', 'turned_away', 'too_little_content'], ['/login', 'turned_away', 'login_page'], ['/soon', 'turned_away', 'too_little_content']],
    );
    const first = await service.api('GET', `/agents/${agentId}/crawl/pages?status=turned_away&limit=2`, { key: ws.keys.read });
    assert.equal(first.body.data.length, 2);
    const rest = await service.api('GET', `/agents/${agentId}/crawl/pages?status=turned_away&limit=2&cursor=${first.body.pagination.nextCursor}`, { key: ws.keys.read });
    assert.deepEqual(rest.body.data.map((item: { url: string }) => new URL(item.url).pathname), ['/soon']);
    assert.equal(rest.body.pagination.nextCursor, null);
    const everything = await service.api('GET', `/agents/${agentId}/crawl/pages`, { key: ws.keys.read });
    assert.equal(everything.body.data.length, 7);
    const skipped = await service.api('GET', `/agents/${agentId}/crawl/pages?status=skipped`, { key: ws.keys.read });
    assert.deepEqual(skipped.body.data.map((item: { url: string; reason: string }) => [new URL(item.url).pathname, item.reason]), [['/files/old.pdf', 'not_a_document']]);
  });

  test('a Word document linked from the site is read in the same crawl as a file source', async () => {
    const agentId = smallAgent;
    assert.ok(agentId, 'the small site was crawled by the test before');
    const docx = (await sources(agentId)).find((source) => source.url.endsWith('/files/terms.docx'));
    assert.ok(docx, 'the linked document is a source');
    assert.deepEqual({ type: docx.type, status: docx.status }, { type: 'file', status: 'ready' });
    assert.match(await content(agentId, docx.id), /shipped the same working day/);
  });

  test('linked documents stop being added at the storage allowance, though the lanes fetched them side by side', async () => {
    const documents = await Promise.all(
      [1, 2, 3, 4].map((n) => makeDocx([`Price list ${n}`, `Every item in price list number ${n} is sold by the box of twelve and shipped within two working days.`])),
    );
    const largest = Math.max(...documents.map((bytes) => bytes.length));
    const paths = documents.map((_, i) => `/files/prices-${i + 1}.docx`);
    const docs = await startSite({
      // Too short to keep itself: the four documents are all the crawl stores, one lane each.
      '/': page('Files', ['Files.'], paths),
      ...Object.fromEntries(paths.map((path, i) => [path, { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', body: documents[i] }])),
    });
    try {
      const agentId = await seedAgent(service, ws, 'nearly-full');
      // Room for one document and a half: each lane's check before its fetch passes, only one document fits.
      const filler = PLANS.studio.storagePerAgentBytes - Math.floor(largest * 1.5);
      await service.ctx.db
        .insertInto('sources')
        .values({ id: newId('src'), workspace_id: ws.id, agent_id: agentId, type: 'text', name: 'filler', status: 'ready', size_bytes: filler, content: '', created_at: new Date() } as never)
        .execute();
      await crawl(agentId, `${docs.origin}/`);
      const files = (await sources(agentId)).filter((source) => source.type === 'file');
      assert.equal(files.length, 1, JSON.stringify(files.map((source) => source.url)));
      const skipped = await service.api('GET', `/agents/${agentId}/crawl/pages?status=skipped`, { key: ws.keys.read });
      assert.deepEqual(skipped.body.data.map((item: { reason: string }) => item.reason), ['storage_limit', 'storage_limit', 'storage_limit']);
    } finally {
      await docs.close();
    }
  });

  test('GET /crawl/pages answers 400 invalid_request for a cursor it never gave and 404 when the agent was never crawled', async () => {
    const bad = await service.api('GET', `/agents/${clinicAgent}/crawl/pages?cursor=nonsense`, { key: ws.keys.read });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_request');
    assert.equal(bad.body.error.details[0].field, 'cursor');
    const status = await service.api('GET', `/agents/${clinicAgent}/crawl/pages?status=nope`, { key: ws.keys.read });
    assert.equal(status.status, 400);
    const never = await service.api('GET', `/agents/${await seedAgent(service, ws, 'never')}/crawl/pages`, { key: ws.keys.read });
    assert.equal(never.status, 404);
    assert.equal(never.body.error.code, 'not_found');
  });
});
