import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import type { Context } from '../../context.ts';
import { openPostgres } from '../../platform/db.ts';
import { ingestWebsitePage } from './ingest.ts';
import { ABSENT_SHARE, BM25_B, BM25_K1, parseQuestion, topPassages } from './postings.ts';
import { databaseLexicalSearch, lexicalSearch } from './search.ts';

// Words of very different frequency (a Zipf law), repeated within passages and passages
// of very different length, so that pruning has common terms to skip and bounds to use.
const SYLLABLES = 'ka lo mi re su ta ne vo'.split(' ');
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.map((b) => `${a}${b}dor`));

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function zipfWord(random: () => number): string {
  const weights = WORDS.map((_, rank) => 1 / (rank + 1));
  let target = random() * weights.reduce((a, b) => a + b, 0);
  for (const [i, w] of weights.entries()) if ((target -= w) <= 0) return WORDS[i];
  return WORDS[0];
}

function page(random: () => number): string {
  const paragraphs = 1 + Math.floor(random() * 3);
  return Array.from({ length: paragraphs }, () => Array.from({ length: 3 + Math.floor(random() * 60) }, () => zipfWord(random)).join(' ') + '.').join('\n\n');
}

/**
 * BM25 from scratch: every passage's lexemes read again from its title and text in the
 * configuration it records, nothing from the index tables. A query's words are its English
 * lexemes; a word's other forms are the lexemes the passages' configurations give at its place.
 */
async function recount(service: Service, agentId: string): Promise<{ scores(query: string): Promise<Map<string, number>>; df: Map<string, number>; n: number; totalLength: number }> {
  const rows = (
    await sql<{ id: string; term: string; tf: number }>`
      select p.id, l.lexeme as term, coalesce(array_length(l.positions, 1), 1) as tf
      from passages p cross join lateral unnest(to_tsvector(p.config::regconfig, p.title || E'\n' || p.text)) as l where p.agent_id = ${agentId}`.execute(service.ctx.db)
  ).rows;
  const ids = (await sql<{ id: string }>`select id from passages where agent_id = ${agentId}`.execute(service.ctx.db)).rows.map((r) => r.id);
  const length = new Map(ids.map((id) => [id, 0]));
  const df = new Map<string, number>();
  const postings = new Map<string, Array<{ id: string; tf: number }>>();
  for (const row of rows) {
    length.set(row.id, length.get(row.id)! + row.tf);
    df.set(row.term, (df.get(row.term) ?? 0) + 1);
    postings.set(row.term, [...(postings.get(row.term) ?? []), { id: row.id, tf: row.tf }]);
  }
  const n = ids.length;
  const totalLength = [...length.values()].reduce((a, b) => a + b, 0);
  const avgdl = Math.max(totalLength / n, 1);
  return {
    df,
    n,
    totalLength,
    scores: async (query) => {
      const forms = (
        await sql<{ word: string; term: string }>`
          select e.lexeme as word, l.lexeme as term
          from unnest(to_tsvector('english', ${query})) as e
          cross join (select distinct p.config from passages p where p.agent_id = ${agentId} union select 'english') c
          cross join lateral unnest(to_tsvector(c.config::regconfig, ${query})) as l
          where l.positions && e.positions`.execute(service.ctx.db)
      ).rows;
      const words = new Map<string, Set<string>>();
      for (const { word, term } of forms) words.set(word, (words.get(word) ?? new Set()).add(term));
      const idfOf = (term: string) => Math.log(1 + (n - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5));
      let idfSum = 0;
      for (const terms of words.values()) {
        const held = [...terms].filter((term) => df.has(term)).map(idfOf);
        idfSum += held.length > 0 ? Math.max(...held) : ABSENT_SHARE * Math.log(1 + (n - 1 + 0.5) / 1.5);
      }
      const scores = new Map<string, number>();
      for (const term of new Set([...words.values()].flatMap((terms) => [...terms]))) {
        const idf = idfOf(term);
        for (const { id, tf } of postings.get(term) ?? []) {
          const weight = (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length.get(id)!) / avgdl));
          scores.set(id, (scores.get(id) ?? 0) + idf * weight);
        }
      }
      for (const [id, score] of scores) scores.set(id, Math.min(1, score / idfSum));
      return scores;
    },
  };
}

let service: Service;
let ws: SeededWorkspace;
let agentId: string;
/** The service's context as another process would have it: its own kept lists, which only MaxScore (layers) fills. */
let layersOnly: Context;
const random = seeded(7);
const queries = Array.from({ length: 40 }, () => Array.from({ length: 1 + Math.floor(random() * 5) }, () => zipfWord(random)).join(' '));

before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ plan: 'studio' });
  agentId = await seedAgent(service, ws, 'Index');
  layersOnly = { ...service.ctx };
  const ingest = (n: number, text: string) =>
    ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_index', url: `https://index.example/${n}`, title: `Page ${n}`, text });
  const sources: string[] = [];
  for (let n = 0; n < 60; n++) sources.push((await ingest(n, page(random))).sourceId);
  for (let n = 0; n < 60; n += 7) await ingest(n, page(random)); // replaced: old passages out, new in
  for (const sourceId of sources.filter((_, i) => i % 5 === 3)) {
    assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${sourceId}`, { key: ws.keys.manage })).status, 200);
  }
});
after(() => service?.close());

async function assertIndexMatchesRecount(): Promise<void> {
  const truth = await recount(service, agentId);
  const stats = (await sql<{ term: string; df: number }>`select term, df from agent_term_stats where agent_id = ${agentId}`.execute(service.ctx.db)).rows;
  assert.deepEqual(new Map(stats.map((r) => [r.term, Number(r.df)])), truth.df);
  const totals = (await sql<{ n: number; total: number }>`select passage_count as n, total_length as total from agent_stats where agent_id = ${agentId}`.execute(service.ctx.db)).rows[0];
  assert.deepEqual([Number(totals.n), Number(totals.total)], [truth.n, truth.totalLength]);
  const postings = (await sql<{ n: number }>`select count(*) as n from passage_postings x join passages p on p.seq = x.passage_seq where p.agent_id = ${agentId}`.execute(service.ctx.db)).rows[0];
  assert.equal(Number(postings.n), [...truth.df.values()].reduce((a, b) => a + b, 0));

  for (const query of queries) {
    for (const [limit, minScore] of [[20, 0], [5, 0], [20, 0.3]] as const) {
      const expected = [...(await truth.scores(query)).entries()].filter(([, s]) => s >= minScore).sort((a, b) => b[1] - a[1]).slice(0, limit);
      const all = await truth.scores(query);
      // The lists kept in the process and the database function alone rank alike; the kept lists answer (no fallback).
      const parsed = (await parseQuestion(service.ctx, agentId, ['english'], query))!;
      assert.notEqual(await topPassages(service.ctx, agentId, parsed, limit, minScore), null, query);
      // MaxScore over the rarest lists (the path of a question whose lists are long together) ranks alike too.
      const byMaxScore = await topPassages(service.ctx, agentId, parsed, limit, minScore, { fullRead: 0, firstRead: 0 });
      assert.deepEqual(byMaxScore?.map((hit) => hit.score.toFixed(9)), expected.map(([, s]) => s.toFixed(9)), `MaxScore: ${query} (top ${limit}, min ${minScore})`);
      // A process that has kept no list whole reads the terms' high and low layers instead: it ranks alike too.
      const byLayers = await topPassages(layersOnly, agentId, parsed, limit, minScore, { fullRead: 0, firstRead: 0 });
      assert.deepEqual(byLayers?.map((hit) => hit.score.toFixed(9)), expected.map(([, s]) => s.toFixed(9)), `MaxScore over layers: ${query} (top ${limit}, min ${minScore})`);
      const searches = {
        lexicalSearch: () => lexicalSearch(service.ctx, agentId, query, ['english'], limit, minScore),
        databaseLexicalSearch: () => databaseLexicalSearch(service.ctx, agentId, parsed, limit, minScore),
      };
      for (const [name, search] of Object.entries(searches)) {
        const got = await search();
        const label = `${name}: ${query} (top ${limit}, min ${minScore})`;
        assert.deepEqual(got.map((h) => h.score.toFixed(9)), expected.map(([, s]) => s.toFixed(9)), label);
        for (const hit of got) assert.equal(all.get(hit.passageId)!.toFixed(9), hit.score.toFixed(9), label);
      }
    }
  }
}

test('the term statistics equal a recount from the passages, and pruned search gives the exact BM25 top k, after pages were added, replaced and deleted', async () => {
  await assertIndexMatchesRecount();
});

test('after a retrain (every source read and indexed again) the statistics and rankings are still exact', async () => {
  const reply = await service.api('POST', `/agents/${agentId}/retrain`, { key: ws.keys.manage });
  assert.equal(reply.status, 202);
  const until = Date.now() + 60_000;
  const count = async (status: string) =>
    Number((await sql<{ n: number }>`select count(*) as n from sources where agent_id = ${agentId} and status = ${status}`.execute(service.ctx.db)).rows[0].n);
  while ((await count('pending')) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await count('ready'), reply.body.data.sourceCount);
  await assertIndexMatchesRecount();
});

test('a retrain leaves the statistics a fresh index of the same texts has: each term counted, bounded and totalled alike (its row written once a batch, by the net change)', async () => {
  // A workspace of its own (the plan's agents), texts of their own: several of the readers' batches of 50.
  const own = await service.seedWorkspace({ plan: 'studio' });
  const retrained = await seedAgent(service, own, 'Retrained');
  const fresh = await seedAgent(service, own, 'Fresh');
  const texts = ((random) => Array.from({ length: 120 }, () => page(random)))(seeded(11));
  const ingest = (agent: string, url: string, text: string) => ingestWebsitePage(service.ctx, { workspaceId: own.id, agentId: agent, crawlId: 'crawl_net', url, title: 'Net', text });
  for (const agent of [retrained, fresh]) for (const [n, text] of texts.entries()) await ingest(agent, `https://net.example/${n}`, text);
  // A page whose words no other page has, replaced: the terms it alone held are bounded by its new text alone, as
  // in an index that never had the old one (its "qorvex" four times in a short passage, now once in a long one).
  await ingest(retrained, 'https://net.example/solo', 'Qorvex qorvex qorvex qorvex plimbat.');
  const replacement = 'Qorvex plimbat plimbat stands beside the quiet harbour wall where the boats of the village wait for the tide.';
  await ingest(retrained, 'https://net.example/solo', replacement);
  await ingest(fresh, 'https://net.example/solo', replacement);

  const reply = await service.api('POST', `/agents/${retrained}/retrain`, { key: own.keys.manage });
  assert.equal(reply.status, 202, JSON.stringify(reply.body));
  assert.equal(reply.body.data.sourceCount, texts.length + 1);
  const until = Date.now() + 120_000;
  const pending = async () => Number((await sql<{ n: number }>`select count(*) as n from sources where agent_id = ${retrained} and status <> 'ready'`.execute(service.ctx.db)).rows[0].n);
  while ((await pending()) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await pending(), 0, 'the retrain is read');

  const statistics = async (agent: string) => ({
    terms: (await sql<{ term: string; df: number; max_tf: number; min_length: number }>`
      select term, df::int as df, max_tf, min_length from agent_term_stats where agent_id = ${agent} order by term`.execute(service.ctx.db)).rows.map((row) => ({ ...row })),
    totals: (await sql<{ n: number; total: number; configs: string[] }>`
      select passage_count::int as n, total_length::int as total, configs from agent_stats where agent_id = ${agent}`.execute(service.ctx.db)).rows.map((row) => ({ ...row })),
  });
  const [after, expected] = [await statistics(retrained), await statistics(fresh)];
  assert.ok(expected.terms.length > 50);
  assert.deepEqual(after.totals.map(({ n, total }) => ({ n, total })), expected.totals.map(({ n, total }) => ({ n, total })), 'passages and their total length');
  // The configurations a question is parsed with are kept while the index holds passages (the replaced page's
  // first text may have read as another language): the fresh index's are among them.
  assert.deepEqual(expected.totals[0].configs.filter((config) => !after.totals[0].configs.includes(config)), [], 'configurations');
  assert.deepEqual(after.terms.find((row) => row.term === 'qorvex'), { term: 'qorvex', df: 1, max_tf: 1, min_length: expected.terms.find((row) => row.term === 'qorvex')!.min_length });
  assert.deepEqual(after.terms, expected.terms, 'every term’s df, max_tf and min_length');
});

test('a page added or deleted after a search is seen by the very next search (the lists kept in the process follow the index version)', async () => {
  const search = () => lexicalSearch(service.ctx, agentId, 'zuxtorbel kalodor', ['english'], 5, 0.5);
  assert.deepEqual(await search(), []);
  const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_index', url: 'https://index.example/new', title: 'New page', text: 'Zuxtorbel kalodor zuxtorbel.' });
  const found = await search();
  assert.equal(found.length, 1);
  assert.equal(found[0].url, 'https://index.example/new');
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${sourceId}`, { key: ws.keys.manage })).status, 200);
  assert.deepEqual(await search(), []);
});

test("on PostgreSQL, the question's parse and the passages' read keep one plan on a connection instead of being planned for every question", async (t) => {
  if (!service.ctx.config.databaseUrl) return t.skip('PostgreSQL only: the embedded store keeps no statement');
  // One connection: the statements it prepared are those pg_prepared_statements lists on it.
  const single = await openPostgres(service.ctx.config.databaseUrl, 1);
  try {
    const ctx = { ...service.ctx, db: single.db };
    for (const query of queries.slice(0, 10)) {
      const expected = await lexicalSearch(service.ctx, agentId, query, ['english'], 20, 0);
      assert.deepEqual(await lexicalSearch(ctx, agentId, query, ['english'], 20, 0), expected, query);
    }
    const plans = await sql<{ statement: string; generic_plans: number; custom_plans: number }>`
      select statement, generic_plans, custom_plans from pg_prepared_statements
      where statement like '%join agent_stats a on a.agent_id = q.agent_id%' or statement like '%from passages p join sources s on s.id = p.source_id%'`.execute(single.db);
    assert.equal(plans.rows.length, 2, 'both statements prepared on the connection');
    // PostgreSQL tries a plan made for the values five times first, then keeps the generic one when it costs no more.
    for (const plan of plans.rows) assert.ok(Number(plan.generic_plans) >= 5, `${plan.statement.trim().slice(0, 60)}: ${plan.generic_plans} generic, ${plan.custom_plans} custom`);
  } finally {
    await single.close();
  }
});

test("a question's alternatives come configuration by configuration (the question's language's, then the agent's), each in the order of the question's words", async () => {
  const parsed = (await parseQuestion(service.ctx, agentId, ['english', 'dutch'], 'fit seat', [['fit', 'accommodate'], ['seat', 'suit']]))!;
  // English stems "accommodate" to accommod and Dutch to accommodat; "suit" is suit in both.
  assert.deepEqual(parsed.terms.slice(parsed.terms.indexOf('accommod')), ['accommod', 'suit', 'accommodat']);
  assert.deepEqual(parsed.words.map((word) => word.map((term) => parsed.terms[term])), [['fit', 'accommod', 'accommodat'], ['seat', 'suit']]);
});

test('alternatives at a share of their idf (broader nouns) rank alike in every path: the lists kept, MaxScore, its layers and the database function', async () => {
  for (const query of queries.slice(0, 12)) {
    // Each word also searched as a rarer word at half its idf, and the first as another at full.
    const alternatives: Array<[string, string, number?]> = query.split(' ').map((word) => [word, WORDS[(WORDS.indexOf(word) + 29) % WORDS.length], 0.5]);
    alternatives.push([query.split(' ')[0], WORDS[(WORDS.indexOf(query.split(' ')[0]) + 11) % WORDS.length]]);
    const parsed = (await parseQuestion(service.ctx, agentId, ['english'], query, alternatives))!;
    assert.ok(parsed.shares.includes(0.5), query);
    for (const [limit, minScore] of [[20, 0], [5, 0], [20, 0.3]] as const) {
      const label = `${query} (top ${limit}, min ${minScore})`;
      const kept = (await topPassages(service.ctx, agentId, parsed, limit, minScore))!.map((hit) => hit.score.toFixed(9));
      const byMaxScore = (await topPassages(service.ctx, agentId, parsed, limit, minScore, { fullRead: 0, firstRead: 0 }))!.map((hit) => hit.score.toFixed(9));
      const byLayers = (await topPassages(layersOnly, agentId, parsed, limit, minScore, { fullRead: 0, firstRead: 0 }))!.map((hit) => hit.score.toFixed(9));
      const byDatabase = (await databaseLexicalSearch(service.ctx, agentId, parsed, limit, minScore)).map((hit) => hit.score.toFixed(9));
      assert.deepEqual(byMaxScore, kept, `MaxScore: ${label}`);
      assert.deepEqual(byLayers, kept, `layers: ${label}`);
      assert.deepEqual(byDatabase, kept, `database: ${label}`);
    }
  }
});

test('deleting the agent takes its passages, postings and statistics with it', async () => {
  const before = Number((await sql<{ n: number }>`select count(*) as n from passage_postings`.execute(service.ctx.db)).rows[0].n);
  const mine = Number(
    (await sql<{ n: number }>`select count(*) as n from passage_postings x join passages p on p.seq = x.passage_seq where p.agent_id = ${agentId}`.execute(service.ctx.db)).rows[0].n,
  );
  assert.ok(mine > 0);
  assert.equal((await service.api('DELETE', `/agents/${agentId}`, { key: ws.keys.manage })).status, 200);
  const left = Number((await sql<{ n: number }>`select count(*) as n from passage_postings`.execute(service.ctx.db)).rows[0].n);
  assert.equal(left, before - mine);
  const stats = (await sql<{ n: number }>`select count(*) as n from agent_term_stats where agent_id = ${agentId}`.execute(service.ctx.db)).rows[0];
  assert.equal(Number(stats.n), 0);
});
