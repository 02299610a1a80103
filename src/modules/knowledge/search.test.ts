import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { ingestWebsitePage, recordTurnedAwayPage, storageUsedBytes } from './ingest.ts';
import { QUALITY_CORPUS, QUALITY_QUESTIONS } from './quality-corpus.ts';
import { fuse, searchPassages } from './search.ts';
import { startEmbeddingServer } from './test-support.ts';

const CRAWL = 'crawl_test';

async function loadCorpus(service: Service, ws: SeededWorkspace, agentId: string): Promise<Map<string, string>> {
  const sourceByKey = new Map<string, string>();
  for (const passage of QUALITY_CORPUS) {
    const { sourceId } = await ingestWebsitePage(service.ctx, {
      workspaceId: ws.id,
      agentId,
      crawlId: CRAWL,
      url: `https://northwind.example/${passage.key}`,
      title: passage.title,
      text: passage.text,
    });
    sourceByKey.set(passage.key, sourceId);
  }
  return sourceByKey;
}

async function topOneAccuracy(service: Service, agentId: string, sourceByKey: Map<string, string>): Promise<{ right: number; misses: string[] }> {
  let right = 0;
  const misses: string[] = [];
  for (const { question, expected } of QUALITY_QUESTIONS) {
    const hits = await searchPassages(service.ctx, { agentId, query: question, topK: 3, minSimilarity: 0, language: 'en' });
    if (hits[0]?.sourceId === sourceByKey.get(expected)) right++;
    else misses.push(`${question} -> ${hits[0]?.title ?? 'nothing'}`);
  }
  return { right, misses };
}

describe('lexical search (no embedding provider)', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agentId: string;
  let sourceByKey: Map<string, string>;

  before(async () => {
    service = await startService();
    ws = await service.seedWorkspace({ plan: 'studio' });
    agentId = await seedAgent(service, ws);
    sourceByKey = await loadCorpus(service, ws, agentId);
  });
  after(() => service?.close());

  test('BM25 puts the right passage first for at least 80% of paraphrased questions', async () => {
    const { right, misses } = await topOneAccuracy(service, agentId, sourceByKey);
    console.log(`# retrieval quality, lexical BM25: ${right}/${QUALITY_QUESTIONS.length} right first (${Math.round((100 * right) / QUALITY_QUESTIONS.length)}%)`);
    for (const miss of misses) console.log(`#   miss: ${miss}`);
    assert.ok(right / QUALITY_QUESTIONS.length >= 0.8, `${right}/${QUALITY_QUESTIONS.length}`);
  });

  test('searchPassages gives scores between 0 and 1, best first, with source name, url and title', async () => {
    const hits = await searchPassages(service.ctx, { agentId, query: 'descale the kettle with vinegar', topK: 5, minSimilarity: 0, language: 'en' });
    assert.ok(hits.length > 0 && hits.length <= 5);
    assert.equal(hits[0].url, 'https://northwind.example/descaling');
    assert.equal(hits[0].title, 'Descaling');
    assert.equal(hits[0].sourceName, 'Descaling');
    for (const hit of hits) assert.ok(hit.score >= 0 && hit.score <= 1, String(hit.score));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  });

  test('minSimilarity leaves out passages that match too little', async () => {
    const none = await searchPassages(service.ctx, { agentId, query: 'quantum chromodynamics lattice', topK: 5, minSimilarity: 0.2, language: 'en' });
    assert.deepEqual(none, []);
    const strict = await searchPassages(service.ctx, { agentId, query: 'gift voucher valid years', topK: 5, minSimilarity: 0.5, language: 'en' });
    assert.ok(strict.length >= 1);
    assert.ok(strict.every((hit) => hit.score >= 0.5));
  });

  test("search stays inside the agent: another agent's passages are never returned", async () => {
    const other = await seedAgent(service, ws, 'Other');
    await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: other, crawlId: CRAWL, url: 'https://other.example/a', title: 'Other', text: 'Gift vouchers are never valid here.' });
    const hits = await searchPassages(service.ctx, { agentId, query: 'gift voucher', topK: 10, minSimilarity: 0, language: 'en' });
    assert.ok(hits.every((hit) => hit.url?.startsWith('https://northwind.example/')));
  });

  test('searches at once (their passages read together: on PostgreSQL those that arrive while a read is in flight, on the embedded store one turn\'s) each give the passages they give alone, in their order', async () => {
    const queries = ['descale the kettle with vinegar', 'gift voucher valid years', 'quantum chromodynamics lattice', ...QUALITY_QUESTIONS.slice(0, 5).map((q) => q.question)];
    const search = (query: string) => searchPassages(service.ctx, { agentId, query, topK: 5, minSimilarity: 0, language: 'en' });
    const alone = [];
    for (const query of queries) alone.push(await new Promise((resolve, reject) => setImmediate(() => search(query).then(resolve, reject))));
    // The statements that read passages' texts, counted on the service's handle.
    const db = service.ctx.db;
    let passageReads = 0;
    const executeQuery = db.executeQuery;
    db.executeQuery = ((query: { sql: string }, ...rest: unknown[]) => {
      if (/from passages p join sources s/.test(query.sql)) passageReads++;
      return (executeQuery as (...args: unknown[]) => unknown).call(db, query, ...rest);
    }) as typeof db.executeQuery;
    let together;
    try {
      together = await Promise.all(queries.map((query) => new Promise((resolve, reject) => setImmediate(() => search(query).then(resolve, reject)))));
    } finally {
      delete (db as { executeQuery?: unknown }).executeQuery;
    }
    assert.deepEqual(together, alone);
    assert.ok(alone.filter((hits) => (hits as unknown[]).length > 0).length >= 5);
    // The first parse goes alone and the seven others together (postings.ts), so the texts are read in at most three
    // statements (one a search, 8, on the base's PostgreSQL).
    assert.ok(passageReads >= 1 && passageReads <= 3, `${queries.length} searches read their passages in ${passageReads} statements`);
  });

  test('ingestWebsitePage replaces the source for the same agent and url, and its passages with it', async () => {
    const agent = await seedAgent(service, ws, 'Pages');
    const first = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: CRAWL, url: 'https://site.example/p', title: 'Old', text: 'The old text speaks of walruses.' });
    const second = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: CRAWL, url: 'https://site.example/p', title: 'New', text: 'The new text speaks of penguins.' });
    assert.equal(second.sourceId, first.sourceId);
    const reply = await service.api('GET', `/agents/${agent}/sources/${first.sourceId}`, { key: ws.keys.read });
    assert.equal(reply.body.data.status, 'ready');
    assert.equal(reply.body.data.type, 'website');
    assert.equal(reply.body.data.name, 'New');
    assert.equal(reply.body.data.url, 'https://site.example/p');
    assert.equal(reply.body.data.content, 'The new text speaks of penguins.');
    assert.equal(reply.body.data.sizeBytes, Buffer.byteLength('The new text speaks of penguins.'));
    assert.deepEqual(await searchPassages(service.ctx, { agentId: agent, query: 'walruses', topK: 3, minSimilarity: 0, language: 'en' }), []);
    assert.equal((await searchPassages(service.ctx, { agentId: agent, query: 'penguins', topK: 3, minSimilarity: 0, language: 'en' })).length, 1);
    assert.equal(await storageUsedBytes(service.ctx, agent), Buffer.byteLength('The new text speaks of penguins.'));
    const stats = await sql<{ passage_count: number }>`select passage_count from agent_stats where agent_id = ${agent}`.execute(service.ctx.db);
    assert.equal(Number(stats.rows[0].passage_count), 1);
  });

  test('recordTurnedAwayPage marks a page kept earlier and creates nothing for a new page', async () => {
    const agent = await seedAgent(service, ws, 'Turned away');
    const kept = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: CRAWL, url: 'https://site.example/members', title: 'Members', text: 'Member news.' });
    const marked = await recordTurnedAwayPage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_2', url: 'https://site.example/members', title: 'Log in', reason: 'login_page' });
    assert.equal(marked.sourceId, kept.sourceId);
    const fresh = await recordTurnedAwayPage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: 'crawl_2', url: 'https://site.example/new', title: '', reason: 'too_little_content' });
    assert.equal(fresh.sourceId, null);
    const list = await service.api('GET', `/agents/${agent}/sources`, { key: ws.keys.read });
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].turnedAway, 'login_page');
    assert.equal(list.body.data[0].status, 'ready');
  });

  test('search uses the agent language for stemming (Dutch)', async () => {
    const agent = await seedAgent(service, ws, 'Dutch');
    await sql`update agents set settings = jsonb_set(settings, '{language}', '"nl"') where id = ${agent}`.execute(service.ctx.db).catch(() => {});
    await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: CRAWL, url: 'https://nl.example/a', title: 'Bezorging', text: 'Wij bezorgen de pakketten binnen twee werkdagen.' });
    const hits = await searchPassages(service.ctx, { agentId: agent, query: 'Hoe snel bezorgt u een pakket?', topK: 3, minSimilarity: 0, language: 'nl' });
    assert.equal(hits.length, 1);
  });

  test('a Dutch question’s word that the index lacks finds the compounds it begins ("cafeïne" in "cafeïnevrije"); a word the index holds is not widened', async () => {
    const own = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, own, 'Dutch compounds');
    const page = (path: string, title: string, text: string) => ingestWebsitePage(service.ctx, { workspaceId: own.id, agentId: agent, crawlId: CRAWL, url: `https://nl.example/${path}`, title, text });
    await page('assortiment', 'Assortiment', 'Onze cafeïnevrije koffie wordt ontcafeïneerd met de Swiss Water-methode.');
    await page('verzending', 'Verzending', 'We versturen elke bestelling binnen twee werkdagen.');
    const search = (query: string, language: string) => searchPassages(service.ctx, { agentId: agent, query, topK: 3, minSimilarity: 0, language });
    assert.deepEqual((await search('Hoe halen jullie de cafeïne eruit?', 'nl')).map((hit) => hit.title), ['Assortiment']);
    assert.deepEqual(await search('How do you take the cafeïne out?', 'en'), [], 'English writes no such compounds: no longer terms are searched');
    await page('bonen', 'Bonen', 'Cafeïne zit in elke boon, ook in de onze.');
    assert.deepEqual((await search('Hoe halen jullie de cafeïne eruit?', 'nl')).map((hit) => hit.title), ['Bonen'], 'the word itself is held: its compounds are not searched');
  });

  /** The titles of an English search over pages (title → text) of an agent of their own, best first, and their scores. */
  const searchOwnPages = async (name: string, pages: Record<string, string>, query: string) => {
    const own = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, own, name);
    for (const [key, text] of Object.entries(pages)) {
      await ingestWebsitePage(service.ctx, { workspaceId: own.id, agentId: agent, crawlId: CRAWL, url: `https://${name.toLowerCase()}.example/${key}`, title: key, text });
    }
    return searchPassages(service.ctx, { agentId: agent, query, topK: 3, minSimilarity: 0, language: 'en' });
  };

  test("an English verb finds a passage holding a verb of one doer with it, below one holding the verb itself ('started' finds 'founded')", async () => {
    const hits = await searchOwnPages('Doers', {
      team: 'Hannah Okafor founded the bakery in 2014.',
      history: 'The bakery started in a garage.',
      parking: 'Parking is free behind the shop.',
    }, 'Who started it?');
    assert.deepEqual(hits.map((hit) => hit.title), ['history', 'team']);
    assert.ok(hits[1].score < hits[0].score);
  });

  test("an English noun finds a passage holding a sister noun its definition names, below one holding the noun itself ('monitor' finds 'screen')", async () => {
    const hits = await searchOwnPages('Sisters', {
      desk: 'Set the top of your screen at eye level.',
      shop: 'We sell a monitor arm for every desk.',
      parking: 'Parking is free behind the shop.',
    }, 'How high should my monitor be?');
    assert.deepEqual(hits.map((hit) => hit.title), ['shop', 'desk']);
    assert.ok(hits[1].score < hits[0].score);
  });

  test("an English noun finds a passage holding a noun one sense more general, below one holding the noun itself ('house' finds 'home')", async () => {
    const hits = await searchOwnPages('Broader', {
      fees: 'Home visits within 5 miles: 95 pounds per visit.',
      moving: 'We help you move house with a van.',
      parking: 'Parking is free behind the shop.',
    }, 'Can you come to my house?');
    assert.deepEqual(hits.map((hit) => hit.title), ['moving', 'fees']);
    assert.ok(hits[1].score < hits[0].score);
  });
});

describe('hybrid search (embedding provider configured)', () => {
  const dims = 256;
  let service: Service;
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;
  let ws: SeededWorkspace;
  let agentId: string;
  let sourceByKey: Map<string, string>;

  before(async () => {
    embeddings = await startEmbeddingServer(dims);
    service = await startService({
      env: { OPENAI_BASE_URL: embeddings.url, PARLEY_EMBEDDING_MODEL: 'fake-embed', PARLEY_EMBEDDING_DIMENSIONS: String(dims) },
    });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agentId = await seedAgent(service, ws);
    sourceByKey = await loadCorpus(service, ws, agentId);
  });
  after(async () => {
    await service?.close();
    await embeddings?.close();
  });

  test('passages get vectors in the pgvector table with an HNSW index', async () => {
    const vectors = await sql<{ n: number }>`select count(*) as n from passage_vectors_256 where agent_id = ${agentId}`.execute(service.ctx.db);
    const passages = await sql<{ n: number }>`select count(*) as n from passages where agent_id = ${agentId}`.execute(service.ctx.db);
    assert.equal(Number(vectors.rows[0].n), Number(passages.rows[0].n));
    const index = await sql<{ indexdef: string }>`select indexdef from pg_indexes where tablename = 'passage_vectors_256' and indexdef like '%hnsw%'`.execute(service.ctx.db);
    assert.match(index.rows[0].indexdef, /vector_cosine_ops/);
    assert.ok(embeddings.calls() > 0);
  });

  test('hybrid (reciprocal rank fusion) puts the right passage first for at least 80% of paraphrased questions', async () => {
    const { right, misses } = await topOneAccuracy(service, agentId, sourceByKey);
    console.log(`# retrieval quality, hybrid BM25 + fake vectors (RRF): ${right}/${QUALITY_QUESTIONS.length} right first (${Math.round((100 * right) / QUALITY_QUESTIONS.length)}%)`);
    for (const miss of misses) console.log(`#   miss: ${miss}`);
    assert.ok(right / QUALITY_QUESTIONS.length >= 0.8, `${right}/${QUALITY_QUESTIONS.length}`);
  });

  test('a passage first in both lists scores 1; scores stay within 0..1', async () => {
    const hits = await searchPassages(service.ctx, { agentId, query: 'Is the showroom open on Saturday?', topK: 5, minSimilarity: 0, language: 'en' });
    assert.equal(hits[0].sourceId, sourceByKey.get('opening-hours'));
    assert.equal(hits[0].score, 1);
    for (const hit of hits) assert.ok(hit.score > 0 && hit.score <= 1);
  });
});

test('fuse: reciprocal rank fusion normalised so first in every list is 1', () => {
  const fused = fuse([
    [{ passageId: 'a', score: 0.9 }, { passageId: 'b', score: 0.5 }],
    [{ passageId: 'a', score: 0.8 }, { passageId: 'c', score: 0.7 }],
  ]);
  assert.equal(fused[0].passageId, 'a');
  assert.equal(fused[0].score, 1);
  assert.ok(fused[1].score < 0.5 && fused[1].score > 0.4);
});
