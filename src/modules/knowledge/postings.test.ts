import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { ingestWebsitePage } from './ingest.ts';
import { BM25_B, BM25_K1, decodePostings, encodePostings, keptLists, lengthNorms, parseQuestion, scoreLists, topPassages, type Alternative, type ParsedQuestion, type PassageTable } from './postings.ts';
import { storeUnderTest } from '../../../test/support/stores.ts';
import { databaseLexicalSearch, lexicalSearch } from './search.ts';

test('a compressed posting list decodes to the slots and tfs it was made of (gaps of one to five bytes, tf of 255 and over)', () => {
  const slots = [0, 1, 2, 129, 130, 16_514, 2_113_666, 270_549_250, 2_000_000_000, 2_000_000_001];
  const tfs = [1, 2, 254, 255, 256, 1, 70_000, 3, 1, 9];
  const list = encodePostings(slots, tfs);
  assert.deepEqual(decodePostings(list), { slots, tfs });
  // One byte a gap under 128, tf in a byte: 2 bytes a posting for a dense list.
  const dense = encodePostings(
    Array.from({ length: 1_000 }, (_, i) => i * 3),
    Array.from({ length: 1_000 }, () => 1),
  );
  assert.equal(dense.gaps.byteLength + dense.tfs.byteLength, 2_000);
  assert.deepEqual(decodePostings(encodePostings([], [])), { slots: [], tfs: [] });
  assert.throws(() => encodePostings([3, 3], [1, 1]));
});

test('the kept lists are summed to the same scores, to the bit, as each posting\'s BM25 contribution added term by term (random lists, one division a posting)', () => {
  let seed = 27;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  // [passages, longest passage, the most of the passages a list holds, an idf below 0]
  for (const [n, longest, most, below] of [[50, 40, 0.6, 0], [5_000, 900, 0.6, 0], [70_000, 3_000, 0.6, 0], [3_000, 70_000, 0.6, 0], [70_000, 500, 0.01, 0], [5_000, 900, 0.6, 1]]) {
    // More passages than one window of the sum (2^15 slots), lengths past the norms kept by length (2^16), lists dense
    // (each window's sums read whole) and sparse (each first add noted), and an idf below 0 (each first add noted).
    const lengths = Array.from({ length: n }, () => 1 + Math.floor(random() * longest));
    const table: PassageTable = { seqs: Float64Array.from({ length: n }, (_, i) => 10 + i * 3), lengths: longest < 2 ** 16 ? Uint16Array.from(lengths) : Uint32Array.from(lengths) };
    const avgdl = lengths.reduce((a, b) => a + b, 0) / n;
    const lists = Array.from({ length: 4 }, (_, k) => {
      const share = random() * most;
      const slots = Array.from({ length: n }, (_, i) => i).filter(() => random() < share);
      const tfs = slots.map(() => (random() < 0.7 ? 1 : random() < 0.95 ? 2 + Math.floor(random() * 6) : 250 + Math.floor(random() * 20)));
      return { slots, tfs, list: encodePostings(slots, tfs), idf: k === 0 && below ? -0.3 : 0.01 + random() * 5 };
    });
    // The reference: contribution() as bm25_top_passages computes it, summed by passage in the question's order.
    const totals = new Map<number, number>();
    for (const { slots, tfs, idf } of lists) {
      slots.forEach((slot, i) => {
        const tf = tfs[i];
        const add = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * table.lengths[slot]) / avgdl));
        totals.set(slot, (totals.get(slot) ?? 0) + add);
      });
    }
    const idfSum = lists.reduce((sum, list) => sum + list.idf, 0);
    for (const minScore of [0, 0.3]) {
      const expected = [...totals]
        .filter(([, total]) => total >= minScore * idfSum * (1 - 1e-9) && Math.min(1, total / idfSum) >= minScore)
        .map(([slot, total]) => ({ seq: table.seqs[slot], score: total }))
        .sort((a, b) => b.score - a.score || a.seq - b.seq)
        .slice(0, 20)
        .map((hit) => ({ seq: hit.seq, score: Math.min(1, hit.score / idfSum) }));
      const norms = lengthNorms(table, avgdl);
      assert.equal(norms === undefined, longest > 65_535);
      assert.deepEqual(scoreLists(table, lists, avgdl, 20, minScore, idfSum, norms), expected);
      assert.deepEqual(scoreLists(table, lists, avgdl, 20, minScore, idfSum), expected);
    }
  }
});

// Six made-up words in shrinking shares of the pages, so each question's lists have known relative sizes.
const WORDS = ['kavox', 'temrip', 'lusdar', 'pirnok', 'faxtul', 'wembic'];
const EVERY = [2, 3, 4, 5, 7, 9];

let service: Service;
let ws: SeededWorkspace;
let agentId: string;

before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ plan: 'studio' });
  agentId = await seedAgent(service, ws, 'Kept lists');
  for (let n = 0; n < 60; n++) {
    const words = WORDS.filter((_, i) => n % EVERY[i] === 0).map((word) => (n % 4 === 1 ? `${word} ${word}` : word));
    const text = `Page ${n} of the handbook. ${words.join(' ')} river stone ${'lantern '.repeat(1 + (n % 5))}garden.`;
    await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_kept', url: `https://kept.example/${n}`, title: `Page ${n}`, text });
  }
});
after(() => service?.close());

/** A context of its own (its own kept lists) whose cap the test sets. */
function contextWithCap(bytes: number): Context {
  return { ...service.ctx, config: { ...service.ctx.config, searchMemoryBytes: bytes } };
}

async function assertExact(ctx: Context, query: string): Promise<string[]> {
  const parsed = (await parseQuestion(ctx, agentId, ['english'], query))!;
  const got = await topPassages(ctx, agentId, parsed, 20, 0);
  assert.notEqual(got, null, query);
  const expected = await databaseLexicalSearch(ctx, agentId, parsed, 20, 0);
  assert.deepEqual(
    got!.map((hit) => hit.score.toFixed(9)),
    expected.map((hit) => hit.score.toFixed(9)),
    query,
  );
  return parsed.terms;
}

test('past PARLEY_SEARCH_MEMORY_MB the process lets go of the least recently used terms, not the whole agent, and ranks exactly after', async () => {
  const ctx = contextWithCap(2 ** 30);
  const first = await assertExact(ctx, `${WORDS[0]} ${WORDS[1]}`);
  const second = await assertExact(ctx, `${WORDS[2]} ${WORDS[3]}`);
  const both = keptLists(ctx, agentId)!;
  assert.deepEqual(both.whole, [...first, ...second].sort());
  // The cap is now exactly what the two questions hold; the second is asked again, so the first's terms are the oldest.
  ctx.config.searchMemoryBytes = both.totalBytes;
  await assertExact(ctx, `${WORDS[2]} ${WORDS[3]}`);
  const third = await assertExact(ctx, `${WORDS[4]} ${WORDS[5]}`);
  const after = keptLists(ctx, agentId)!;
  assert.equal(after.version, both.version);
  assert.ok(after.totalBytes <= both.totalBytes, `${after.totalBytes} kept, cap ${both.totalBytes}`);
  for (const term of [...second, ...third]) assert.ok(after.whole.includes(term), `${term} kept`);
  assert.ok(first.some((term) => !after.whole.includes(term)), `one of ${first.join(', ')} let go`);
  // The terms let go are read again when asked for, and rank exactly.
  await assertExact(ctx, `${WORDS[0]} ${WORDS[1]}`);
  assert.ok(keptLists(ctx, agentId)!.totalBytes <= both.totalBytes);
});

test('a cap too small for an agent\'s table still answers exactly (nothing is kept past the question)', async () => {
  const ctx = contextWithCap(1);
  await assertExact(ctx, `${WORDS[0]} ${WORDS[4]}`);
  await assertExact(ctx, `${WORDS[1]} ${WORDS[5]} lantern`);
  assert.ok((keptLists(ctx, agentId)?.whole.length ?? 0) <= 3);
});

test('a kept list is read again after a write to the agent (a new page holding a kept term ranks at once)', async () => {
  const ctx = contextWithCap(2 ** 30);
  await assertExact(ctx, WORDS[0]);
  const before = keptLists(ctx, agentId)!;
  assert.ok(before.whole.includes(WORDS[0]));
  const { sourceId } = await ingestWebsitePage(ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_kept', url: 'https://kept.example/new', title: 'New', text: `${WORDS[0]} ${WORDS[0]} ${WORDS[0]} ${WORDS[0]}.` });
  const found = await lexicalSearch(ctx, agentId, WORDS[0], ['english'], 5);
  assert.equal(found[0]?.url, 'https://kept.example/new');
  await assertExact(ctx, WORDS[0]);
  assert.notEqual(keptLists(ctx, agentId)!.version, before.version);
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${sourceId}`, { key: ws.keys.manage })).status, 200);
  assert.notEqual((await lexicalSearch(ctx, agentId, WORDS[0], ['english'], 5))[0]?.url, 'https://kept.example/new');
  await assertExact(ctx, WORDS[0]);
});

/** A context of its own whose statements that read the terms' statistics (agent_term_stats) are counted. */
function countingTermReads(): { ctx: Context; reads: () => number } {
  let reads = 0;
  const db = service.ctx.db.withPlugin({
    transformQuery: (args) => {
      if (JSON.stringify(args.node).includes('agent_term_stats')) reads++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { ctx: { ...service.ctx, db, config: { ...service.ctx.config } }, reads: () => reads };
}

test('the statistics of terms whose lists are not read whole are read once per index version, not again for every question', async () => {
  const { ctx, reads } = countingTermReads();
  const notWhole = { fullRead: 0, firstRead: 0 };
  const ask = async (query: string) => {
    const parsed = (await parseQuestion(service.ctx, agentId, ['english'], query))!;
    const got = await topPassages(ctx, agentId, parsed, 20, 0, notWhole);
    assert.notEqual(got, null, query);
    const expected = await databaseLexicalSearch(service.ctx, agentId, parsed, 20, 0);
    assert.deepEqual(got!.map((hit) => hit.score.toFixed(9)), expected.map((hit) => hit.score.toFixed(9)), query);
  };
  await ask(`${WORDS[0]} ${WORDS[1]}`);
  assert.equal(reads(), 1, 'read at the first question');
  assert.deepEqual(keptLists(ctx, agentId)!.whole, [], 'no list read whole');
  await ask(`${WORDS[0]} ${WORDS[1]}`);
  await ask(`${WORDS[1]} ${WORDS[0]}`);
  assert.equal(reads(), 1, 'the same terms again: no statement for their statistics');
  await ask(`${WORDS[0]} ${WORDS[2]}`);
  assert.equal(reads(), 2, 'a new term is read');
  await ask(`${WORDS[2]} ${WORDS[1]} ${WORDS[0]}`);
  assert.equal(reads(), 2);
  // A write to the agent moves its index version: the statistics are read again, and rank exactly.
  const { sourceId } = await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_kept', url: 'https://kept.example/stats', title: 'Stats', text: `${WORDS[1]} ${WORDS[1]} ${WORDS[2]}.` });
  await ask(`${WORDS[0]} ${WORDS[1]}`);
  assert.equal(reads(), 3, 'read again at the new version');
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${sourceId}`, { key: ws.keys.manage })).status, 200);
});

/** Counts the statements run on the service's own handle (the embedded store's turns are gathered on it), with their parameters. */
async function withStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: unknown[][] }> {
  const db = service.ctx.db;
  const statements: unknown[][] = [];
  const executeQuery = db.executeQuery;
  db.executeQuery = ((query: { parameters: readonly unknown[] }, ...rest: unknown[]) => {
    statements.push([...query.parameters]);
    return (executeQuery as (...args: unknown[]) => unknown).call(db, query, ...rest);
  }) as typeof db.executeQuery;
  try {
    return { result: await work(), statements };
  } finally {
    delete (db as { executeQuery?: unknown }).executeQuery;
  }
}

type ParseAsked = [agent: string, configs: string[], query: string, alternatives: Alternative[]];

test('questions parsed together each give what they give alone (their own agent, configurations, question and alternatives): on PostgreSQL those that arrive while one is in flight go as one statement, on the embedded store one turn\'s', async () => {
  const other = await seedAgent(service, ws, 'Parsed together');
  await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: other, crawlId: 'crawl_parse', url: 'https://parse.example/1', title: 'Tuin', text: 'De tuin ligt bij de rivier, achter de stenen muur.' });
  const asks: ParseAsked[] = [
    [agentId, ['english'], `${WORDS[0]} ${WORDS[1]} lanterns`, []],
    [agentId, ['english', 'dutch'], 'Where are the gardens by the river?', [['gardens', 'yards'], ['river', 'stream'], ['river', 'creek', 0.5]]],
    [other, ['dutch', 'english'], 'Waar is de tuin bij de rivier?', [['tuin', 'garden'], ['rivier', 'river', 0.5], ['waar', 'where']]],
    [other, ['english', 'english'], 'river stones and walls', [['stones', 'rocks'], ['walls', 'partition']]],
    [agentId, ['french', 'german', 'english'], 'Où est le jardin? Wo ist der Garten?', [['jardin', 'garden']]],
    ['agt_missing', ['english'], 'river', [['river', 'stream']]],
    [agentId, ['english'], 'the of and', [['the', 'a']]],
  ];
  // Each in a context of its own: none knows the others' words (wordParses), so each parses its own alternatives.
  const fresh = (): Context => ({ ...service.ctx });
  const together = await withStatements(() => Promise.all(asks.map(([agent, configs, query, alternatives]) => new Promise<ParsedQuestion | undefined>((resolve, reject) =>
    setImmediate(() => parseQuestion(fresh(), agent, configs, query, alternatives).then(resolve, reject))))));
  const ctx = fresh();
  const alone: Array<ParsedQuestion | undefined> = [];
  for (const [agent, configs, query, alternatives] of asks) alone.push(await parseQuestion(ctx, agent, configs, query, alternatives));
  assert.deepEqual(together.result, alone);
  assert.equal(together.result[5], undefined, 'an agent without passages');
  assert.ok(together.result[2]!.terms.includes('garden') && together.result[2]!.terms.includes('tuin'));
  // PostgreSQL: the first goes at once, the six that arrive while it is in flight as the next statement (7 on the base).
  assert.ok(together.statements.length <= 2, `${asks.length} parses in ${together.statements.length} statements`);
  // Again in the same context, the words known: the same questions.
  for (const [i, [agent, configs, query, alternatives]] of asks.entries()) assert.deepEqual(await parseQuestion(ctx, agent, configs, query, alternatives), alone[i]);
});

test('the alternatives\' lexemes are parsed once a process: a later question with the same alternatives sends none of them to the database, and parses the same', async () => {
  const ctx: Context = { ...service.ctx };
  const alternatives: Alternative[] = [['gardens', 'shrubbery'], ['river', 'watercourse', 0.5]];
  const first = await withStatements(() => parseQuestion(ctx, agentId, ['english', 'dutch'], 'Gardens by the river?', alternatives));
  assert.ok(JSON.stringify(first.statements).includes('watercourse'), 'parsed at the first question');
  const again = await withStatements(() => parseQuestion(ctx, agentId, ['english', 'dutch'], 'Which river has gardens?', alternatives));
  assert.equal(again.statements.length, 1);
  assert.ok(!JSON.stringify(again.statements).includes('watercourse') && !JSON.stringify(again.statements).includes('shrubbery'), JSON.stringify(again.statements));
  assert.deepEqual(again.result, await parseQuestion({ ...service.ctx }, agentId, ['english', 'dutch'], 'Which river has gardens?', alternatives));
  assert.ok(again.result!.terms.includes('watercours'));
});

// Last in the file: it moves the passages' sequence by 2^31 for every agent of this database.
test('lists are read as offsets from the agent\'s first passage: exact up to 2^31 - 1 apart, and beyond that the database answers, exactly', async () => {
  const wideAgent = await seedAgent(service, ws, 'Wide numbers');
  const page = (n: number, text: string) => ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: wideAgent, crawlId: 'crawl_wide', url: `https://wide.example/${n}`, title: `Wide ${n}`, text });
  await page(0, `${WORDS[0]} ${WORDS[1]} river stone.`);
  await page(1, `${WORDS[0]} lantern garden.`);
  const [{ first }] = (await sql<{ first: string }>`select min(seq)::text as first from passages where agent_id = ${wideAgent}`.execute(service.ctx.db)).rows;
  const skipTo = async (seq: bigint) => void (await sql`select setval(pg_get_serial_sequence('passages', 'seq'), ${String(seq - 1n)}::bigint)`.execute(service.ctx.db));
  // The largest offset an int4 holds: read from the database as such, and ranked first by its four mentions.
  await skipTo(BigInt(first) + 2n ** 31n - 1n);
  await page(2, `${WORDS[0]} ${WORDS[0]} ${WORDS[0]} ${WORDS[0]} ${WORDS[1]}.`);
  const ctx = contextWithCap(2 ** 30);
  const parsed = (await parseQuestion(ctx, wideAgent, ['english'], `${WORDS[0]} ${WORDS[1]}`))!;
  const near = await topPassages(ctx, wideAgent, parsed, 5, 0);
  const expected = await databaseLexicalSearch(ctx, wideAgent, parsed, 5, 0);
  assert.deepEqual(near?.map((hit) => hit.score.toFixed(9)), expected.map((hit) => hit.score.toFixed(9)));
  assert.equal(expected[0]?.url, 'https://wide.example/2');
  assert.ok(keptLists(ctx, wideAgent)!.whole.length > 0, 'the lists are kept');
  // One past: the agent is left to bm25_top_passages, which ranks the same.
  await skipTo(BigInt(first) + 2n ** 31n + 5n);
  await page(3, `${WORDS[1]} ${WORDS[1]} ${WORDS[1]} ${WORDS[1]} ${WORDS[1]} ${WORDS[0]}.`);
  const wide = (await parseQuestion(ctx, wideAgent, ['english'], `${WORDS[0]} ${WORDS[1]}`))!;
  assert.equal(await topPassages(ctx, wideAgent, wide, 5, 0), null);
  const found = await lexicalSearch(ctx, wideAgent, `${WORDS[0]} ${WORDS[1]}`, ['english'], 5);
  const fromDatabase = await databaseLexicalSearch(ctx, wideAgent, wide, 5, 0);
  assert.deepEqual(found.map((hit) => [hit.url, hit.score]), fromDatabase.map((hit) => [hit.url, hit.score]));
  assert.equal(found.length, 4);
  assert.equal(found[0]?.url, 'https://wide.example/3');
});

test('an agent whose passage numbers lie close together finds its postings\' slots by offset, one whose numbers lie far apart (other agents\' passages between) by searching its table: both rank exactly', async () => {
  const ask = async (agent: string) => {
    const ctx = contextWithCap(2 ** 30);
    const parsed = (await parseQuestion(ctx, agent, ['english'], `${WORDS[0]} ${WORDS[1]} lantern`))!;
    const kept = await topPassages(ctx, agent, parsed, 5, 0);
    const expected = await databaseLexicalSearch(ctx, agent, parsed, 5, 0);
    assert.deepEqual(kept?.map((hit) => hit.score.toFixed(9)), expected.map((hit) => hit.score.toFixed(9)));
    assert.equal(expected.length, 4);
    return keptLists(ctx, agent)!;
  };
  const texts = [`${WORDS[0]} ${WORDS[1]} river.`, `${WORDS[0]} lantern garden.`, `${WORDS[1]} ${WORDS[1]} stone.`, `lantern ${WORDS[0]} ${WORDS[0]} ${WORDS[1]}.`];
  const pages = async (name: string, between: () => Promise<void>) => {
    const agent = await seedAgent(service, ws, name);
    for (const [n, text] of texts.entries()) {
      await ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId: agent, crawlId: `crawl_${n}`, url: `https://${name.replace(/ /g, '-')}.example/${n}`, title: `${name} ${n}`, text });
      await between();
    }
    return agent;
  };
  const close = await pages('Close numbers', async () => {});
  assert.equal((await ask(close)).slotsByOffset, true);
  // A thousand numbers taken between its pages: the span is far more than twice its passages.
  const skip = async () => void (await sql`select setval(pg_get_serial_sequence('passages', 'seq'), nextval(pg_get_serial_sequence('passages', 'seq')) + 1000)`.execute(service.ctx.db));
  const far = await pages('Far numbers', skip);
  assert.equal((await ask(far)).slotsByOffset, false);
});

test('an agent\'s passage table (numbers and lengths in number order) is read from an index alone, not the passages\' heap with their texts', async () => {
  const plan = await service.ctx.db.transaction().execute(async (trx) => {
    // The test's agents are small enough for a scan of the table to cost less: the plan is asked for as at a million passages.
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_bitmapscan = off`.execute(trx);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain select seq, length from passages where agent_id = ${agentId} order by seq`.execute(trx);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
  assert.match(plan, /Index Only Scan using passages_agent_seq/);
  assert.doesNotMatch(plan, /Sort/);
});

test('after a write that only adds passages the next question reads only the new passages\' rows of the table; after a delete or a page replaced, the whole table; each ranks as a fresh process does', async () => {
  const own = await service.seedWorkspace({ plan: 'studio' }); // the shared workspace's plan has no room for more agents
  const agent = await seedAgent(service, own, 'Table read on');
  const page = (n: number, text: string) =>
    ingestWebsitePage(service.ctx, { workspaceId: own.id, agentId: agent, crawlId: 'crawl_table', url: `https://table.example/${n}`, title: `Table ${n}`, text });
  for (let n = 0; n < 4; n++) await page(n, `${WORDS[0]} ${'lantern '.repeat(n + 1)}${n % 2 ? WORDS[1] : 'river'}.`);
  const ctx = contextWithCap(2 ** 30);
  const query = `${WORDS[0]} ${WORDS[1]} lantern`;
  /** Asks in the kept context and in a fresh one: the same ranking, the same table; answers the table's rows read. */
  const ask = async () => {
    const before = keptLists(ctx, agent)?.tableRowsRead ?? 0;
    const fresh = contextWithCap(2 ** 30);
    const rank = async (on: Context) => topPassages(on, agent, (await parseQuestion(on, agent, ['english'], query))!, 20, 0);
    const kept = await rank(ctx);
    assert.ok(kept && kept.length > 0);
    assert.deepEqual(kept, await rank(fresh));
    const expected = await databaseLexicalSearch(ctx, agent, (await parseQuestion(ctx, agent, ['english'], query))!, 20, 0);
    assert.deepEqual(kept.map((hit) => hit.score.toFixed(9)), expected.map((hit) => hit.score.toFixed(9)));
    assert.deepEqual(keptLists(ctx, agent)!.passages, keptLists(fresh, agent)!.passages);
    return { read: keptLists(ctx, agent)!.tableRowsRead - before, passages: keptLists(ctx, agent)!.passages.length };
  };
  assert.deepEqual(await ask(), { read: 4, passages: 4 });
  await sql`update agent_stats set passage_count = passage_count where agent_id = ${agent}`.execute(service.ctx.db);
  assert.deepEqual(await ask(), { read: 0, passages: 4 }, 'a moved version with nothing written reads no row');
  await page(4, `${WORDS[1]} ${WORDS[1]} lantern stone.`);
  const { sourceId } = await page(5, `${WORDS[0]} garden lantern.`);
  assert.deepEqual(await ask(), { read: 2, passages: 6 }, 'two pages added: their two rows read');
  assert.equal((await service.api('DELETE', `/agents/${agent}/sources/${sourceId}`, { key: own.keys.manage })).status, 200);
  assert.deepEqual(await ask(), { read: 5, passages: 5 }, 'a page deleted: the table read whole');
  await page(1, `${WORDS[1]} lantern lantern stone river.`);
  assert.deepEqual(await ask(), { read: 5, passages: 5 }, 'a page replaced (as a retrain does): the table read whole');
  await page(6, `${WORDS[0]} ${WORDS[1]}.`);
  assert.deepEqual(await ask(), { read: 1, passages: 6 });
});
