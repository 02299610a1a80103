/**
 * Writing a source's passages into the search index: the passages, their postings
 * (PostgreSQL full-text lexemes, stopped and stemmed in the passage's own language), the
 * text search configurations the agent's passages use, the BM25 statistics
 * and, with an embedding provider, their vectors. All of one source, or of a batch of
 * small sources, in one transaction, serialised per agent by a lock on the agent's
 * statistics row; each batch of passages is one set-based statement (docs/knowledge.md,
 * "Search index").
 */
import { sql, type Transaction } from 'kysely';
import type { Context } from '../../context.ts';
import type { Tables } from '../../platform/db.ts';
import { newTimeOrderedId } from '../../platform/ids.ts';
import { chunkText } from './chunk.ts';
import { indexedPageTitle, type CrawlTitles } from './crawl/site-name.ts';
import { embeddingsEnabled, embedTexts, vectorLiteral, vectorTable } from './embeddings.ts';
import { detectLanguage, textSearchConfig } from './languages.ts';
import { agentLanguage, type SourceRow } from './store.ts';
import { scheduleBlocks } from './blocks.ts';

export { textSearchConfig };

/** Passages written per statement: bounds the statement's size for a very long file. */
const WRITE_BATCH = 1000;
/**
 * Passages written per statement by the bulk path (addPassages): each statement touches
 * each of its terms' last postings page once, so fewer, larger statements touch fewer pages
 * (docs/knowledge.md, "Search index").
 */
const BULK_WRITE_BATCH = 5000;

/** Thrown when a source gives no text to index. */
export class NoContentError extends Error {}

/** The text a source is indexed from. */
export function indexableText(source: Pick<SourceRow, 'type' | 'name' | 'content'>): string {
  return source.type === 'qa' ? `${source.name}\n\n${source.content}` : source.content;
}

export interface NewPassage {
  position: number;
  text: string;
  /** Its embedding, when the index holds vectors. */
  vector?: number[];
  /** The text search configuration of its own language; the target's when left out. */
  config?: string;
}

export interface PassageTarget {
  agentId: string;
  sourceId: string;
  title: string;
  url: string | null;
  /** The text search configuration of passages that do not name their own. */
  config: string;
}

/**
 * Indexes the source's stored text and marks it ready. Does nothing when the source is
 * gone or was queued again since (another generation). Throws NoContentError for a
 * source without text.
 */
export async function indexSourceText(ctx: Context, input: { sourceId: string; agentId: string; generation: number }): Promise<boolean> {
  const source = await ctx.db.selectFrom('sources').selectAll().where('id', '=', input.sourceId).executeTakeFirst();
  if (!source || source.generation !== input.generation) return false;
  const outcome = (await indexSourcesText(ctx, [source])).get(source.id);
  if (outcome === 'no_content') throw new NoContentError('the source holds no text');
  return outcome === 'ready';
}

/** What indexSourcesText made of a source: indexed and ready, no text to index, or queued again since (left alone). */
export type IndexOutcome = 'ready' | 'no_content' | 'stale';

/**
 * Indexes the stored text of many sources (each as read, at its generation) and marks them
 * ready, all in one transaction: a batch of small sources costs one commit, one lock of
 * each agent's statistics (taken in agent order, so two batches never wait on each other
 * crosswise) and, with an embedding provider, one round of embedding requests. A source
 * queued again since it was read is left alone ('stale').
 */
export async function indexSourcesText(ctx: Context, sources: SourceRow[]): Promise<Map<string, IndexOutcome>> {
  const outcomes = new Map<string, IndexOutcome>();
  const prepared: Array<{ source: SourceRow; target: PassageTarget; passages: NewPassage[] }> = [];
  const crawls = await crawlTitles(ctx, sources);
  for (const source of sources) {
    const chunks = chunkText(indexableText(source));
    if (chunks.length === 0) {
      outcomes.set(source.id, 'no_content');
      continue;
    }
    const target = await passageTarget(ctx, source, chunks, crawls);
    const passages = await Promise.all(
      chunks.map(async (chunk) => ({ position: chunk.position, text: chunk.text, config: await passageConfig(chunk.text, target.config) }) as NewPassage),
    );
    prepared.push({ source, target, passages });
  }
  if (prepared.length === 0) return outcomes;
  const vectors = embeddingsEnabled(ctx) ? await embedTexts(ctx, prepared.flatMap((p) => p.passages.map((passage) => passage.text)), { maxRetries: 0 }) : undefined;
  if (vectors) {
    let next = 0;
    for (const { passages } of prepared) for (const passage of passages) passage.vector = vectors[next++];
  }
  const table = vectors ? await vectorTable(ctx) : undefined; // before the transaction: it may create the table
  const now = ctx.clock.now();

  const changed = await ctx.db.transaction().execute(async (trx) => {
    const agents = [...new Set(prepared.map((p) => p.source.agent_id))].sort();
    for (const agentId of agents) await lockAgentStats(trx, agentId);
    const current = await trx
      .selectFrom('sources')
      .select(['id', 'generation'])
      .where('id', 'in', prepared.map((p) => p.source.id))
      .orderBy('id')
      .forUpdate()
      .execute();
    const generations = new Map(current.map((row) => [row.id, row.generation]));
    const fresh = prepared.filter((p) => generations.get(p.source.id) === p.source.generation);
    let changed = 0;
    const counts = new Map<string, number>();
    for (const agentId of agents) {
      const own = fresh.filter((p) => p.source.agent_id === agentId);
      if (own.length === 0) continue;
      // The sources' earlier passages (a retrain's, a recovered read's) go in the statement that writes the new ones:
      // each term's statistics row is written once, by the net of the two.
      const written = await writePassages(ctx, trx, agentId, own.flatMap((p) => p.passages.map((passage) => ({ ...passage, target: p.target }))), table, WRITE_BATCH, own.map((p) => p.source.id));
      changed += written.postings;
      counts.set(agentId, written.passageCount);
    }
    if (fresh.length > 0) {
      await sql`update sources set status = 'ready', error = null, chunk_count = t.chunks, processed_at = ${now}
        from unnest(${fresh.map((p) => p.source.id)}::text[], ${fresh.map((p) => p.passages.length)}::int[]) as t(id, chunks)
        where sources.id = t.id`.execute(trx);
    }
    for (const p of prepared) outcomes.set(p.source.id, fresh.includes(p) ? 'ready' : 'stale');
    return { changed, counts };
  });
  await tidyEmbeddedIndex(ctx, changed.changed);
  for (const [agentId, count] of changed.counts) await scheduleBlocks(ctx, agentId, count);
  return outcomes;
}

/**
 * What the crawls that last read these sources (website pages) found their site's titles
 * share: a page is indexed by its own part of its title (crawl/site-name.ts).
 */
async function crawlTitles(ctx: Context, sources: SourceRow[]): Promise<Map<string, CrawlTitles>> {
  const ids = [...new Set(sources.filter((s) => s.type === 'website' && s.crawl_id).map((s) => s.crawl_id!))];
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.selectFrom('crawls').select(['id', 'url', 'mode', 'title_prefix', 'title_suffix']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The title a source's passages are searched and weighed with: a crawled page's own part of its title. */
export function passageTitle(source: Pick<SourceRow, 'type' | 'title' | 'name' | 'url' | 'crawl_id'>, crawls: Map<string, CrawlTitles>): string {
  const title = source.title ?? source.name;
  if (source.type !== 'website' || !source.crawl_id) return title;
  return indexedPageTitle(title, source.url, crawls.get(source.crawl_id));
}

/** Where a source's passages go, and the language they are read in when they show none of their own. */
async function passageTarget(ctx: Context, source: SourceRow, chunks: Array<{ text: string }>, crawls: Map<string, CrawlTitles>): Promise<PassageTarget> {
  const title = passageTitle(source, crawls);
  return {
    agentId: source.agent_id,
    sourceId: source.id,
    title,
    url: source.url,
    // The first passages tell the source's language (detection reads 1,000 characters).
    config: textSearchConfig((await detectLanguage(`${title}\n${chunks.slice(0, 2).map((c) => c.text).join('\n')}`)) ?? (await agentLanguage(ctx.db, source.agent_id))),
  };
}

/**
 * A passage is stopped and stemmed in its own language (a Dutch page of an agent whose
 * language is English is Dutch), else in its source's (a short passage shows none).
 */
async function passageConfig(text: string, sourceConfig: string): Promise<string> {
  const language = await detectLanguage(text);
  return language ? textSearchConfig(language) : sourceConfig;
}

/**
 * Adds already split passages to a source, next to those it has, in one transaction:
 * the bulk path (the benchmark loads 100,000 passages through it). The caller keeps the
 * source row itself (status, chunk_count) right.
 */
export async function addPassages(ctx: Context, target: PassageTarget, passages: NewPassage[]): Promise<void> {
  const table = passages.some((p) => p.vector) ? await vectorTable(ctx) : undefined;
  const written = await ctx.db.transaction().execute(async (trx) => {
    await lockAgentStats(trx, target.agentId);
    return writePassages(ctx, trx, target.agentId, passages.map((passage) => ({ ...passage, target })), table, BULK_WRITE_BATCH);
  });
  // No blocks job queued (blocks.ts): the bulk path's callers (the benches) build them when they choose.
  await tidyEmbeddedIndex(ctx, written.postings);
}

/** Takes the agent's statistics row (made when missing) for the rest of the transaction. */
async function lockAgentStats(trx: Transaction<Tables>, agentId: string): Promise<void> {
  // The no-op update on conflict is what takes the row lock.
  await sql`insert into agent_stats (agent_id) values (${agentId})
    on conflict (agent_id) do update set passage_count = agent_stats.passage_count`.execute(trx);
}

/** A passage with the source it belongs to. */
type PlacedPassage = NewPassage & { target: PassageTarget };

/**
 * Passages of one agent (of one source or several), in place of the passages the `replacing` sources had (taken out
 * by the first batch's statement). Returns the postings written and removed, and the agent's passages after.
 */
async function writePassages(ctx: Context, trx: Transaction<Tables>, agentId: string, passages: PlacedPassage[], table: string | undefined, batchSize = WRITE_BATCH, replacing: string[] = []): Promise<{ postings: number; passageCount: number }> {
  // A batch's sorts (the postings in key order, the lexemes by passage) spilled to disk at the default 4 MB. Not on
  // the embedded store: PGlite's memory, once grown, is never given back (its resident size is sized deliberately).
  if (ctx.database.kind === 'postgres') await sql`set local work_mem = '64MB'`.execute(trx);
  let postings = 0;
  let passageCount = 0;
  for (let start = 0; start < passages.length; start += batchSize) {
    const batch = passages.slice(start, start + batchSize);
    const ids = batch.map(() => newTimeOrderedId('chk'));
    const written = await insertPassageBatch(trx, agentId, ids, batch, start === 0 ? replacing : []);
    postings += written.postings;
    passageCount = written.passageCount;
    if (table) {
      await sql`insert into ${sql.table(table)} (passage_id, agent_id, model, embedding)
        select id, ${agentId}, ${ctx.config.embeddingModel}, v::vector
        from unnest(${ids}::text[], ${batch.map((p) => vectorLiteral(p.vector!))}::text[]) as t(id, v)`.execute(trx);
    }
  }
  return { postings, passageCount };
}

/**
 * One statement for a batch: the passages of the `replacing` sources taken out (a retrain's or a recovered read's
 * earlier ones; their postings go by the trigger), the lexemes of every new passage (to_tsvector once each, in the
 * passage's configuration), the terms' document frequencies and bounds, the postings, the passages with their
 * lengths and term ids, and the agent's totals with the configurations its passages use (a question is parsed with
 * each of them: search.ts).
 *
 * Each term's statistics row is written once, by the net of what the gone passages held and what the new ones
 * hold (a retrain of the same text rewrites about as many terms as it adds; written twice, once down and once up,
 * the rows were half a retrain batch's cost on the embedded store). A term the gone passages held alone is as if
 * removed and added again: its bounds are the new passages' own, as they would be in a fresh index. A term whose
 * passages are all gone and none added goes; a term not held before is inserted (with a new term id).
 */
async function insertPassageBatch(trx: Transaction<Tables>, agentId: string, ids: string[], batch: PlacedPassage[], replacing: string[] = []): Promise<{ postings: number; passageCount: number }> {
  const configs = batch.map((p) => p.config ?? p.target.config);
  const result = await sql<{ postings: number; passage_count: number }>`
    -- Looked up once: pg_get_serial_sequence called a passage cost more than the nextval itself.
    with passage_sequence as (
      select pg_get_serial_sequence('passages', 'seq')::regclass as seq_name
    ), gone as materialized (
      -- All sub-statements see one snapshot: this takes only the passages there before the statement.
      delete from passages where source_id = any(${replacing}::text[]) and agent_id = ${agentId} returning length, term_ids
    ), removed as (
      select g.term_id, count(*)::int as n from gone cross join lateral unnest(gone.term_ids) as g(term_id) group by g.term_id
    ), docs as materialized (
      select d.id, d.source_id, d.title, d.url, d.position, d.text, d.config, nextval((select seq_name from passage_sequence)) as seq,
             -- The title is searched with each passage: a passage under "Shipping costs" answers "what does shipping cost?".
             to_tsvector(d.config::regconfig, d.title || E'\n' || d.text) as vec
      from unnest(${ids}::text[], ${batch.map((p) => p.target.sourceId)}::text[], ${batch.map((p) => p.target.title)}::text[], ${batch.map((p) => p.target.url)}::text[],
                  ${batch.map((p) => p.position)}::int[], ${batch.map((p) => p.text)}::text[], ${configs}::text[]) as d(id, source_id, title, url, position, text, config)
    ), lex as (
      select d.seq, l.lexeme as term, coalesce(array_length(l.positions, 1), 1) as tf
      from docs d cross join lateral unnest(d.vec) as l
    ), lens as (
      select seq, sum(tf)::int as length from lex group by seq
    ), fresh as materialized (
      select lex.term, count(*)::int as df, max(lex.tf) as max_tf, min(lens.length) as min_length
      from lex join lens using (seq) group by lex.term
    ), held as materialized (
      -- The batch's terms the agent already has, with what the gone passages took of each.
      select s.term_id, s.term, s.df as old_df, coalesce(r.n, 0) as n, f.df, f.max_tf, f.min_length
      from fresh f join agent_term_stats s on s.agent_id = ${agentId} and s.term = f.term left join removed r on r.term_id = s.term_id
    ), raised as (
      update agent_term_stats s set df = h.old_df - h.n + h.df,
        max_tf = case when h.old_df <= h.n then h.max_tf else greatest(s.max_tf, h.max_tf) end,
        min_length = case when h.old_df <= h.n then h.min_length else least(s.min_length, h.min_length) end
      from held h where s.term_id = h.term_id
    ), inserted as (
      insert into agent_term_stats as s (agent_id, term, df, max_tf, min_length)
      select ${agentId}, f.term, f.df, f.max_tf, f.min_length from fresh f where not exists (select 1 from held h where h.term = f.term)
      order by f.term
      -- Writers of an agent's index hold its statistics row (lockAgentStats): a conflict would be a writer without it.
      on conflict (agent_id, term) do update
        set df = s.df + excluded.df, max_tf = greatest(s.max_tf, excluded.max_tf), min_length = least(s.min_length, excluded.min_length)
      returning s.term, s.term_id
    ), terms as (
      select term, term_id from held union all select term, term_id from inserted
    ), left_behind as (
      -- Terms of the gone passages that no new passage holds: down by what went, or gone with the last.
      select r.term_id, r.n from removed r where not exists (select 1 from held h where h.term_id = r.term_id)
    ), lowered as (
      update agent_term_stats s set df = s.df - b.n from left_behind b where s.term_id = b.term_id and s.df > b.n
    ), dropped as (
      delete from agent_term_stats s using left_behind b where s.term_id = b.term_id and s.df <= b.n
    ), postings as (
      insert into passage_postings (term_id, passage_seq, tf, length)
      select terms.term_id, lex.seq, lex.tf, lens.length from lex join terms using (term) join lens using (seq)
      -- In the key's order: each term's postings go to its last page together, one page after the other.
      order by terms.term_id, lex.seq
    ), forward as (
      select lex.seq, array_agg(terms.term_id order by terms.term_id) as term_ids from lex join terms using (term) group by lex.seq
    ), added as (
      insert into passages (id, seq, agent_id, source_id, position, title, url, text, config, length, term_ids)
      select d.id, d.seq, ${agentId}, d.source_id, d.position, d.title, d.url, d.text, d.config, coalesce(lens.length, 0), coalesce(forward.term_ids, '{}')
      from docs d left join lens using (seq) left join forward using (seq)
      returning length
    )
    update agent_stats set
      written_at = now(),
      passage_count = passage_count - (select count(*) from gone) + (select count(*) from added),
      total_length = total_length - (select coalesce(sum(length), 0) from gone) + (select coalesce(sum(length), 0) from added),
      -- An index the gone passages left empty starts its list of configurations again.
      configs = array(select distinct c from unnest(case when agent_stats.passage_count = (select count(*) from gone) then '{}'::text[] else agent_stats.configs end
                                                    || ${[...new Set(configs)]}::text[]) as c order by c)
    where agent_id = ${agentId}
    -- A posting a lexeme added and one a term id of a gone passage (the inserts run to completion unread).
    returning ((select count(*) from lex) + (select coalesce(sum(cardinality(term_ids)), 0) from gone))::int as postings, agent_stats.passage_count`.execute(trx);
  return { postings: Number(result.rows[0]?.postings ?? 0), passageCount: Number(result.rows[0]?.passage_count ?? 0) };
}

/**
 * Takes sources' passages (of one agent) out of the index and their terms out of the
 * statistics: the document frequencies come down by what their passages held (a term no
 * passage holds any more goes), then the passages go and a trigger takes their postings
 * with them. Returns the postings removed.
 */
async function removePassages(trx: Transaction<Tables>, agentId: string, sourceIds: string[]): Promise<{ postings: number; passageCount: number }> {
  const result = await sql<{ postings: number; passage_count: number }>`
    with gone as materialized (
      select length, term_ids from passages where source_id = any(${sourceIds}::text[])
    ), counts as (
      select term_id, count(*)::int as n from gone cross join lateral unnest(gone.term_ids) as term_id group by term_id
    ), lowered as (
      update agent_term_stats s set df = s.df - counts.n from counts where s.term_id = counts.term_id and s.df > counts.n
    ), dropped as (
      delete from agent_term_stats s using counts where s.term_id = counts.term_id and s.df <= counts.n
    )
    update agent_stats set
      written_at = now(),
      passage_count = passage_count - (select count(*) from gone),
      total_length = total_length - (select coalesce(sum(length), 0) from gone),
      -- An index left empty starts its list of configurations again.
      configs = case when passage_count = (select count(*) from gone) then '{}' else configs end
    where agent_id = ${agentId}
    returning (select coalesce(sum(cardinality(term_ids)), 0) from gone)::int as postings, agent_stats.passage_count`.execute(trx);
  await sql`delete from passages where source_id = any(${sourceIds}::text[])`.execute(trx);
  return { postings: Number(result.rows[0]?.postings ?? 0), passageCount: Number(result.rows[0]?.passage_count ?? 0) };
}

/** Deletes a source with its passages and their statistics, at once. */
export async function deleteSourceAndPassages(ctx: Context, agentId: string, sourceId: string): Promise<void> {
  const removed = await ctx.db.transaction().execute(async (trx) => {
    await lockAgentStats(trx, agentId);
    const removed = await removePassages(trx, agentId, [sourceId]);
    await trx.deleteFrom('sources').where('id', '=', sourceId).where('agent_id', '=', agentId).execute();
    return removed;
  });
  await tidyEmbeddedIndex(ctx, removed.postings);
  await scheduleBlocks(ctx, agentId, removed.passageCount);
}

const changedSinceVacuum = new WeakMap<Context, number>();

/**
 * The embedded store has no autovacuum: left alone, replaced postings would stay as dead
 * rows for good and queries could never read postings from the index alone (about half
 * the search time at 100,000 passages). So after writes, once the postings changed since
 * the last pass reach a fifth of the table (autovacuum's own default), the index tables
 * are vacuumed and analysed. PostgreSQL's autovacuum does this on a server.
 */
async function tidyEmbeddedIndex(ctx: Context, changedPostings: number): Promise<void> {
  if (ctx.database.kind !== 'embedded' || changedPostings === 0) return;
  // Counted before the await and judged after it with no await between: two readers that finish together
  // add both their changes and vacuum once (each read the count before the other's write, and both vacuumed).
  changedSinceVacuum.set(ctx, (changedSinceVacuum.get(ctx) ?? 0) + changedPostings);
  const { rows } = await ctx.database.executeSql(`select reltuples::float8 as n from pg_class where relname = 'passage_postings'`);
  if ((changedSinceVacuum.get(ctx) ?? 0) < 1000 + 0.2 * Math.max(0, Number(rows[0]?.n ?? 0))) return;
  changedSinceVacuum.set(ctx, 0);
  await ctx.database.exec('vacuum analyze passage_postings, passages, agent_term_stats');
  // Statistics only for the vectors (without them the planner may pass the HNSW index by):
  // vacuuming an HNSW index with many dead rows takes minutes on PGlite.
  if (embeddingsEnabled(ctx)) await ctx.database.exec(`analyze ${await vectorTable(ctx)}`);
}
