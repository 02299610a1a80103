/**
 * Finding an agent's passages for a question.
 *
 * Lexical: BM25 (k1 1.2, b 0.75) over the stemmed lexemes PostgreSQL full text gives in
 * the agent's language, with the term statistics kept in tables by indexing.ts. The score
 * is normalised to 0..1 by dividing by the sum of the query terms' idf: a passage that
 * holds every query term once at average length scores about 1.
 * Vector (when an embedding provider is configured): cosine similarity over pgvector HNSW.
 * Hybrid: reciprocal rank fusion (k 60) of the two lists, each list first cut at
 * minSimilarity, the fused value divided by its maximum (first in both lists) to 0..1.
 * minSimilarity is applied here; callers should not filter the fused score again.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { embeddingsEnabled, embedTexts, vectorLiteral, vectorTable } from './embeddings.ts';
import { textSearchConfig } from './indexing.ts';
import { agentLanguage } from './store.ts';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
export const RRF_K = 60;

export interface SearchInput {
  agentId: string;
  query: string;
  topK: number;
  minSimilarity: number;
  /** The agent's language (en, nl, fr, de, es); read from the agent when left out. */
  language?: string;
}

export interface PassageHit {
  passageId: string;
  sourceId: string;
  sourceName: string;
  /** A website source's page address; null for other sources (a file's address may carry a credential, and answers show it). */
  url: string | null;
  title: string;
  text: string;
  /** 0..1, higher is closer. */
  score: number;
}

interface Ranked {
  passageId: string;
  score: number;
}

export async function searchPassages(ctx: Context, input: SearchInput): Promise<PassageHit[]> {
  const query = input.query.trim().slice(0, 4000);
  if (!query || input.topK <= 0) return [];
  const candidates = Math.max(input.topK * 4, 20);
  const language = input.language ?? (await agentLanguage(ctx.db, input.agentId));
  const config = textSearchConfig(language);
  if (!embeddingsEnabled(ctx)) {
    // Lexical ranking is exact, so its first topK are the answer: no wider candidate list, no second read of the texts.
    return (await lexicalSearch(ctx, input.agentId, query, config, input.topK, input.minSimilarity)).map(rounded);
  }
  const [lexical, vector] = await Promise.all([
    lexicalSearch(ctx, input.agentId, query, config, candidates, input.minSimilarity),
    vectorSearch(ctx, input.agentId, query, candidates),
  ]);
  const ranked = fuse([lexical, vector.filter((hit) => hit.score >= input.minSimilarity)]).slice(0, input.topK);
  return withPassages(ctx, input.agentId, ranked, new Map(lexical.map((hit) => [hit.passageId, hit])));
}

function rounded(hit: PassageHit): PassageHit {
  return { ...hit, score: Math.round(hit.score * 10_000) / 10_000 };
}

interface QueryTerm {
  /** Null for a query term no passage of the agent holds. */
  termId: number | null;
  df: number;
  idf: number;
  /** The most this term can add to any passage's BM25 score. */
  bound: number;
}

/**
 * BM25 over the agent's passages, best `limit` first, normalised to 0..1 and cut at
 * minScore. Exact top-k by MaxScore pruning (docs/knowledge.md): only the postings of the
 * query's selective terms are read; the common terms are added only for the passages
 * that could still reach the top.
 */
export async function lexicalSearch(ctx: Context, agentId: string, query: string, config: string, limit: number, minScore = 0): Promise<PassageHit[]> {
  const found = await queryTerms(ctx, agentId, query, config);
  if (!found) return [];
  const idfSum = found.terms.reduce((sum, term) => sum + term.idf, 0);
  const indexed = found.terms.filter((term) => term.termId !== null).sort((a, b) => b.bound - a.bound);
  if (indexed.length === 0 || idfSum <= 0) return [];
  // Passages below minScore are dropped anyway, so it is a threshold from the start (with rounding slack).
  const floor = minScore * idfSum * (1 - 1e-9);
  const rows = await topPassages(ctx, indexed, found.avgdl, limit, floor);
  return rows
    .map((row) => ({ passageId: row.id, sourceId: row.source_id, sourceName: row.source_name, url: row.url, title: row.title, text: row.text, score: Math.min(1, row.score / idfSum) }))
    .filter((hit) => hit.score >= minScore);
}

/** The query's distinct lexemes with their idf and bound, and the agent's average passage length, in one statement. */
async function queryTerms(ctx: Context, agentId: string, query: string, config: string): Promise<{ terms: QueryTerm[]; avgdl: number } | undefined> {
  const result = await sql<{ passage_count: number; total_length: number; term_id: number | null; df: number | null; max_tf: number | null; min_length: number | null }>`
    select a.passage_count, a.total_length, s.term_id, s.df, s.max_tf, s.min_length
    from agent_stats a
    cross join (select distinct lexeme as term from unnest(to_tsvector(${config}::regconfig, ${query}))) q
    left join agent_term_stats s on s.agent_id = a.agent_id and s.term = q.term
    where a.agent_id = ${agentId}`.execute(ctx.db);
  const n = Number(result.rows[0]?.passage_count ?? 0);
  if (n <= 0) return undefined;
  const avgdl = Math.max(Number(result.rows[0].total_length) / n, 1);
  const terms = result.rows.map((row) => {
    const df = Number(row.df ?? 0);
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const termId = row.term_id === null ? null : Number(row.term_id);
    return { termId, df, idf, bound: termId === null ? 0 : idf * termWeight(Number(row.max_tf), Number(row.min_length), avgdl) };
  });
  return { terms, avgdl };
}

/** BM25's term-frequency part: rises with tf, falls with the passage's length. */
function termWeight(tf: number, length: number, avgdl: number): number {
  return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl));
}

/** A query term w's BM25 contribution (idf × termWeight) in SQL, over a posting p (tf, length). */
function contribution(avgdl: number) {
  const [k1, b] = [sql.lit(BM25_K1), sql.lit(BM25_B)];
  return sql<number>`w.idf * p.tf * (${k1}::float8 + 1) / (p.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * p.length / ${avgdl}::float8))`;
}

/** The query terms as a relation w (term_id, idf). */
function termList(terms: QueryTerm[]) {
  return sql`unnest(${terms.map((t) => t.termId)}::bigint[], ${terms.map((t) => t.idf)}::float8[]) as w(term_id, idf)`;
}

/**
 * MaxScore over terms sorted by bound, highest first. Terms [0, e) are essential: their
 * postings are read and give each passage holding any of them a partial score; the rest
 * are only looked up for passages whose partial score plus the rest's bounds reaches the
 * k-th best partial score. A passage holding none of the essential terms scores at most
 * the rest's bounds, so the answer is exact once the k-th best score is above that.
 * A first, cheap pass over the most selective terms gives the threshold that picks e.
 */
async function topPassages(ctx: Context, terms: QueryTerm[], avgdl: number, k: number, floor: number): Promise<ScoredPassage[]> {
  const rest = (e: number) => terms.slice(e).reduce((sum, term) => sum + term.bound, 0) * (1 + 1e-9);
  let probe = 1;
  // Enough selective terms that, overlaps aside, k passages hold one of them.
  for (let held = terms[0].df; probe < terms.length && held < k; probe++) held += terms[probe].df;
  let threshold = floor;
  if (probe < terms.length) threshold = Math.max(threshold, await kthPartialScore(ctx, terms.slice(0, probe), avgdl, k));
  let e = probe;
  while (e < terms.length && rest(e) >= threshold) e++;
  let top = await scoreWithPruning(ctx, terms.slice(0, e), terms.slice(e), avgdl, k, floor, rest(e));
  const kth = Math.max(top.length >= k ? top[k - 1].score : 0, floor);
  // Fewer than k passages (above the floor) hold the essential terms: read every term's postings.
  if (e < terms.length && kth <= rest(e)) top = await scoreWithPruning(ctx, terms, [], avgdl, k, floor, 0);
  return top.filter((row) => row.score >= floor);
}

/** The k-th best score over `terms` alone (0 when fewer than k passages hold them): a lower bound on the k-th best full score. */
async function kthPartialScore(ctx: Context, terms: QueryTerm[], avgdl: number, k: number): Promise<number> {
  const result = await sql<{ partial: number }>`
    select sum(${contribution(avgdl)}) as partial
    from passage_postings p join ${termList(terms)} on p.term_id = w.term_id
    group by p.passage_seq order by partial desc offset ${k - 1} limit 1`.execute(ctx.db);
  return Number(result.rows[0]?.partial ?? 0);
}

/**
 * The best k passages among those holding an essential term, with full scores: partial
 * scores from the essential terms' postings; the other terms looked up (index probes)
 * only for passages whose partial score plus `restBound` reaches the k-th best partial.
 */
async function scoreWithPruning(ctx: Context, essential: QueryTerm[], others: QueryTerm[], avgdl: number, k: number, floor: number, restBound: number): Promise<ScoredPassage[]> {
  const result = await sql<ScoredPassage>`
    with partial as materialized (
      select p.passage_seq, sum(${contribution(avgdl)}) as score
      from passage_postings p join ${termList(essential)} on p.term_id = w.term_id
      group by p.passage_seq
    ), threshold as (
      select greatest(coalesce((select score from partial order by score desc offset ${k - 1} limit 1), 0), ${floor}::float8) as score
    ), candidates as (
      select c.passage_seq, c.score + coalesce((
        select sum(${contribution(avgdl)}) from passage_postings p join ${termList(others)} on p.term_id = w.term_id
        where p.passage_seq = c.passage_seq), 0) as score
      from partial c, threshold t
      where c.score + ${restBound}::float8 >= t.score
    ), top as (
      select passage_seq, score from candidates order by score desc, passage_seq limit ${k}
    )
    select p.id, p.source_id, s.name as source_name, ${publicUrl}, p.title, p.text, top.score::float8 as score
    from top join passages p on p.seq = top.passage_seq join sources s on s.id = p.source_id
    order by top.score desc, top.passage_seq`.execute(ctx.db);
  return result.rows.map((row) => ({ ...row, score: Number(row.score) }));
}

/** The passage's address as answers may show it: only a website source's page (see PassageHit.url). */
const publicUrl = sql<string | null>`case when s.type = 'website' then p.url end`.as('url');

interface ScoredPassage {
  id: string;
  source_id: string;
  source_name: string;
  url: string | null;
  title: string;
  text: string;
  /** The raw BM25 score (not yet normalised). */
  score: number;
}
/** Nearest passages by cosine similarity (0..1, negative similarities read as 0). */
export async function vectorSearch(ctx: Context, agentId: string, query: string, limit: number): Promise<Ranked[]> {
  const [vector] = await embedTexts(ctx, [query]);
  const table = await vectorTable(ctx);
  const rows = await ctx.db.transaction().execute(async (trx) => {
    // Without iterative scans an HNSW search filtered by agent can return fewer than `limit` rows.
    await sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`.execute(trx);
    const literal = vectorLiteral(vector);
    const result = await sql<{ passage_id: string; similarity: number }>`
      select passage_id, (1 - (embedding <=> ${literal}::vector))::float8 as similarity
      from ${sql.table(table)}
      where agent_id = ${agentId} and model = ${ctx.config.embeddingModel}
      order by embedding <=> ${literal}::vector
      limit ${limit}`.execute(trx);
    return result.rows;
  });
  return rows
    .map((row) => ({ passageId: row.passage_id, score: Math.max(0, Number(row.similarity)) }))
    .sort((a, b) => b.score - a.score);
}

/** Reciprocal rank fusion, divided by the best possible value so the result is 0..1. */
export function fuse(lists: Ranked[][]): Ranked[] {
  const totals = new Map<string, number>();
  for (const list of lists) {
    list.forEach((hit, rank) => totals.set(hit.passageId, (totals.get(hit.passageId) ?? 0) + 1 / (RRF_K + rank + 1)));
  }
  const best = lists.length / (RRF_K + 1);
  return [...totals.entries()]
    .map(([passageId, total]) => ({ passageId, score: total / best }))
    .sort((a, b) => b.score - a.score || (a.passageId < b.passageId ? -1 : 1));
}

/** The ranked passages with their texts: those the lexical search already read are not read again. */
async function withPassages(ctx: Context, agentId: string, ranked: Ranked[], known: Map<string, PassageHit>): Promise<PassageHit[]> {
  const missing = ranked.filter((hit) => !known.has(hit.passageId)).map((hit) => hit.passageId);
  const rows =
    missing.length === 0
      ? []
      : await ctx.db
          .selectFrom('passages as p')
          .innerJoin('sources as s', 's.id', 'p.source_id')
          .select(['p.id', 'p.source_id', 's.name', publicUrl, 'p.title', 'p.text'])
          .where('p.agent_id', '=', agentId)
          .where('p.id', 'in', missing)
          .execute();
  const read = new Map<string, PassageHit>(known);
  for (const row of rows) read.set(row.id, { passageId: row.id, sourceId: row.source_id, sourceName: row.name, url: row.url, title: row.title, text: row.text, score: 0 });
  return ranked.flatMap((hit) => {
    const passage = read.get(hit.passageId);
    return passage ? [rounded({ ...passage, score: hit.score })] : [];
  });
}
