import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import type { Context } from '../../context.ts';
import { newId } from '../../platform/ids.ts';
import { buildBlocks, decodeBlock, encodeBlocks } from './blocks.ts';
import { ingestWebsitePage } from './ingest.ts';
import { addPassages, indexSourcesText } from './indexing.ts';
import { keptLists, parseQuestion, topPassages } from './postings.ts';
import { databaseLexicalSearch } from './search.ts';

const WORDS = ['kavox', 'temrip', 'lusdar', 'pirnok', 'faxtul', 'wembic'];
const EVERY = [2, 3, 4, 5, 7, 9];
const QUERIES = [`${WORDS[0]} ${WORDS[1]} harbour`, `${WORDS[2]} lantern`, `${WORDS[3]} ${WORDS[4]} ${WORDS[5]} river`, `${WORDS[0]} garden stone`];

let service: Service;
let ws: SeededWorkspace;
let agentId: string;
/** The service's context with the blocks' threshold low enough for the test's agent. */
let ctx: Context;

function pageText(n: number, extra = ''): string {
  const words = WORDS.filter((_, i) => n % EVERY[i]! === 0).map((word) => (n % 4 === 1 ? `${word} ${word}` : word));
  return `Page ${n}. ${words.join(' ')} river stone ${'lantern '.repeat(1 + (n % 5))}garden ${extra}.`;
}

function page(n: number, extra = ''): Promise<{ sourceId: string }> {
  return ingestWebsitePage(service.ctx, { workspaceId: ws.id, agentId, crawlId: 'crawl_blocks', url: `https://blocks.example/${n}`, title: `Page ${n}`, text: pageText(n, extra) });
}

async function bulkSource(count: number): Promise<string> {
  const sourceId = newId('src');
  const now = service.ctx.clock.now();
  await service.ctx.db
    .insertInto('sources')
    .values({ id: sourceId, workspace_id: ws.id, agent_id: agentId, type: 'text', name: 'Bulk', url: null, title: null, status: 'ready', error: null, turned_away: null, size_bytes: 0, chunk_count: count, content: '', crawl_id: null, generation: 0, job_id: null, queued_at: null, created_at: now, processed_at: now })
    .execute();
  const passages = Array.from({ length: count }, (_, i) => ({ position: i, text: pageText(i * 7 + 3, i % 3 === 0 ? 'harbour' : '') }));
  await addPassages(service.ctx, { agentId, sourceId, title: 'Bulk', url: null, config: 'english' }, passages);
  return sourceId;
}

before(async () => {
  service = await startService();
  ws = await service.seedWorkspace({ plan: 'studio' });
  agentId = await seedAgent(service, ws, 'Blocks');
  ctx = { ...service.ctx, config: { ...service.ctx.config, searchBlocksMinPassages: 10 } };
  for (let n = 0; n < 24; n++) await page(n);
  await bulkSource(300);
});
after(() => service?.close());

/** Each question ranks in a context that kept lists across the writes, in a fresh one and in bm25_top_passages alike. */
let keptCtx: Context | undefined;
async function assertExact(label: string): Promise<void> {
  keptCtx ??= { ...service.ctx, config: { ...service.ctx.config } };
  for (const query of QUERIES) {
    const fresh: Context = { ...service.ctx, config: { ...service.ctx.config } };
    const parsed = (await parseQuestion(fresh, agentId, ['english'], query))!;
    const expected = (await databaseLexicalSearch(fresh, agentId, parsed, 20, 0)).map((hit) => hit.score.toFixed(9));
    for (const on of [keptCtx, fresh]) {
      const got = await topPassages(on, agentId, (await parseQuestion(on, agentId, ['english'], query))!, 20, 0);
      assert.notEqual(got, null, `${label}: ${query}`);
      assert.deepEqual(got!.map((hit) => hit.score.toFixed(9)), expected, `${label}: ${query}`);
    }
  }
}

/**
 * The agent's blocks against passage_postings: every posting up to the watermark is in a block, and a block's posting
 * that is not one is of a passage deleted since. `exact`: the blocks hold the postings up to the watermark and nothing else.
 */
async function assertBlocksHold(label: string, exact: boolean): Promise<number> {
  const { rows: state } = await sql<{ through: number }>`select through_seq::float8 as through from agent_blocks where agent_id = ${agentId}`.execute(service.ctx.db);
  assert.equal(state.length, 1, label);
  const through = state[0]!.through;
  const { rows: blocks } = await sql<{ term_id: number; first_seq: number; count: number; bytes: Uint8Array }>`
    select term_id::float8 as term_id, first_seq::float8 as first_seq, count, bytes from term_blocks where agent_id = ${agentId}`.execute(service.ctx.db);
  const inBlocks = new Set<string>();
  for (const block of blocks) {
    const { seqs, tfs } = decodeBlock(block.first_seq, block.count, new Uint8Array(block.bytes));
    seqs.forEach((seq, i) => {
      assert.ok(seq <= through, `${label}: a block's posting past the watermark`);
      inBlocks.add(`${block.term_id}:${seq}:${tfs[i]}`);
    });
  }
  const { rows: postings } = await sql<{ term_id: number; seq: number; tf: number }>`
    select p.term_id::float8 as term_id, p.passage_seq::float8 as seq, p.tf from passage_postings p join agent_term_stats s on s.term_id = p.term_id
    where s.agent_id = ${agentId} and p.passage_seq <= ${through}::bigint`.execute(service.ctx.db);
  const held = new Set(postings.map((p) => `${p.term_id}:${p.seq}:${p.tf}`));
  for (const posting of held) assert.ok(inBlocks.has(posting), `${label}: ${posting} not in a block`);
  const live = new Set((await sql<{ seq: number }>`select seq::float8 as seq from passages where agent_id = ${agentId}`.execute(service.ctx.db)).rows.map((r) => r.seq));
  const stale = [...inBlocks].filter((posting) => !held.has(posting));
  for (const posting of stale) assert.ok(!live.has(Number(posting.split(':')[1])), `${label}: ${posting} in a block, of a passage still there, not in passage_postings`);
  if (exact) assert.equal(stale.length, 0, `${label}: blocks of deleted passages after a compaction`);
  return stale.length;
}

test('blocks encode a term\'s postings as varints and decode to them (gaps and tfs of one to five bytes; blocks of at most 512 postings)', () => {
  const seqs = [5, 6, 7, 200, 16_600, 2_113_666, 2_000_000_000, 2_000_000_001, ...Array.from({ length: 1_200 }, (_, i) => 2_000_000_100 + i * 3)];
  const tfs = seqs.map((_, i) => [1, 2, 0, 255, 70_000, 1, 1, 9][i % 8]!);
  const blocks = encodeBlocks(seqs, tfs);
  assert.ok(blocks.length >= 3 && blocks.every((block) => block.count <= 512));
  const decoded = blocks.map((block) => decodeBlock(block.firstSeq, block.count, block.bytes));
  assert.deepEqual(decoded.flatMap((d) => d.seqs), seqs);
  assert.deepEqual(decoded.flatMap((d) => d.tfs), tfs);
});

test('with the blocks built off the write path, the first pass ranks exactly after pages added, deleted and replaced, a retrain and a bulk source deleted, before and after the job runs again; compaction leaves exactly the postings', async () => {
  assert.equal((await buildBlocks(ctx, agentId)).action, 'compacted');
  assert.equal(await assertBlocksHold('built', true), 0);
  await assertExact('built');

  // The first pass reads the blocks: one made unreadable leaves the question to the database.
  await sql`update term_blocks set count = count + 1 where agent_id = ${agentId}`.execute(service.ctx.db);
  const fresh: Context = { ...service.ctx, config: { ...service.ctx.config } };
  assert.equal(await topPassages(fresh, agentId, (await parseQuestion(fresh, agentId, ['english'], QUERIES[0]!))!, 20, 0), null);
  await sql`update term_blocks set count = count - 1 where agent_id = ${agentId}`.execute(service.ctx.db);

  // Writes with the job not run: the watermark behind them.
  await page(30, 'harbour');
  await page(31);
  await assertExact('pages added');
  const gone = (await sql<{ id: string }>`select id from sources where agent_id = ${agentId} and url = 'https://blocks.example/2'`.execute(service.ctx.db)).rows[0]!.id;
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${gone}`, { key: ws.keys.manage })).status, 200);
  await page(4, `${WORDS[1]} ${WORDS[2]} replaced`);
  await assertExact('a page deleted and one replaced');
  assert.ok((await assertBlocksHold('behind the writes', false)) > 0);

  // Small writes leave the tail to passage_postings; an extension adds only blocks past the watermark.
  assert.equal((await buildBlocks(ctx, agentId)).action, 'none');
  const extended = await buildBlocks(ctx, agentId, { minTail: 1 });
  assert.equal(extended.action, 'extended');
  assert.ok(extended.postings > 0);
  await assertBlocksHold('extended', false);
  await assertExact('extended');

  // A retrain: every source read again (its passages deleted and written anew in one statement).
  const sources = await service.ctx.db.selectFrom('sources').selectAll().where('agent_id', '=', agentId).where('type', '=', 'website').execute();
  await indexSourcesText(service.ctx, sources);
  await assertExact('retrained, the job not run');
  await assertBlocksHold('retrained', false);
  const rebuilt = await buildBlocks(ctx, agentId, { minTail: 1 });
  assert.equal(rebuilt.action, 'extended'); // the website pages are a small share of the agent: the blocks are extended
  await assertExact('retrained, extended');

  // The bulk source deleted: most of what the blocks cover is gone, and the job compacts them.
  const bulk = (await sql<{ id: string }>`select id from sources where agent_id = ${agentId} and type = 'text'`.execute(service.ctx.db)).rows[0]!.id;
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${bulk}`, { key: ws.keys.manage })).status, 200);
  await assertExact('the bulk source deleted, the job not run');
  assert.equal((await buildBlocks(ctx, agentId)).action, 'compacted');
  assert.equal(await assertBlocksHold('compacted', true), 0);
  await assertExact('compacted');

  // Numbers far apart (other agents' passages between): the table is searched for each posting's slot, not indexed by offset.
  const skip = () => sql`select setval(pg_get_serial_sequence('passages', 'seq'), nextval(pg_get_serial_sequence('passages', 'seq')) + 1000)`.execute(service.ctx.db);
  for (const n of [50, 51, 52]) {
    await skip();
    await page(n, 'harbour');
  }
  assert.equal((await buildBlocks(ctx, agentId, { minTail: 1 })).action, 'extended');
  const deleted = (await sql<{ id: string }>`select id from sources where agent_id = ${agentId} and url = 'https://blocks.example/51'`.execute(service.ctx.db)).rows[0]!.id;
  assert.equal((await service.api('DELETE', `/agents/${agentId}/sources/${deleted}`, { key: ws.keys.manage })).status, 200);
  await skip();
  await page(53, 'harbour');
  await assertExact('numbers far apart');
  assert.equal(keptLists(keptCtx!, agentId)!.slotsByOffset, false);
});

test('a blocks job that fails before it commits leaves the earlier blocks and watermark; an agent under the threshold has its blocks dropped', async () => {
  await buildBlocks(ctx, agentId, { compact: true });
  const snapshot = async () => ({
    state: (await sql`select through_seq::float8 as through, passages_covered::float8 as covered, extensions from agent_blocks where agent_id = ${agentId}`.execute(service.ctx.db)).rows,
    blocks: (await sql`select term_id::float8 as term_id, first_seq::float8 as first_seq, count, encode(bytes, 'hex') as bytes from term_blocks where agent_id = ${agentId} order by term_id, first_seq`.execute(service.ctx.db)).rows,
  });
  const earlier = await snapshot();
  await page(40, 'lighthouse');
  for (const options of [{ minTail: 1 }, { compact: true }]) {
    await assert.rejects(
      buildBlocks(ctx, agentId, {
        ...options,
        beforeCommit: () => {
          throw new Error('killed');
        },
      }),
      /killed/,
    );
    assert.deepEqual(await snapshot(), earlier);
  }
  await assertExact('after a failed job');
  const small: Context = { ...ctx, config: { ...ctx.config, searchBlocksMinPassages: 1_000_000 } };
  assert.equal((await buildBlocks(small, agentId)).action, 'dropped');
  assert.deepEqual(await snapshot(), { state: [], blocks: [] });
  await assertExact('blocks dropped');
});
