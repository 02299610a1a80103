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
  const lexical = (await lexicalSearch(ctx, input.agentId, query, textSearchConfig(language), candidates)).filter((hit) => hit.score >= input.minSimilarity);
  let ranked: Ranked[] = lexical;
  if (embeddingsEnabled(ctx)) {
    const vector = (await vectorSearch(ctx, input.agentId, query, candidates)).filter((hit) => hit.score >= input.minSimilarity);
    ranked = fuse([lexical, vector]);
  }
  return withPassages(ctx, input.agentId, ranked.slice(0, input.topK));
}

/** BM25 over the agent's passages, normalised to 0..1. */
export async function lexicalSearch(ctx: Context, agentId: string, query: string, config: string, limit: number): Promise<Ranked[]> {
  const [K1, B] = [String(BM25_K1), String(BM25_B)];
  const result = await sql<{ passage_id: string; bm25: number; idf_sum: number }>`
    with q as (
      select distinct lexeme as term from unnest(to_tsvector(${config}::regconfig, ${query}))
    ), st as (
      select passage_count::float8 as n,
             case when passage_count > 0 then greatest(total_length::float8 / passage_count, 1) else 1 end as avgdl
      from agent_stats where agent_id = ${agentId}
    ), idf as (
      select q.term, ln(1 + (st.n - coalesce(s.df, 0) + 0.5) / (coalesce(s.df, 0) + 0.5)) as idf
      from q cross join st left join agent_term_stats s on s.agent_id = ${agentId} and s.term = q.term
    ), scored as (
      select t.passage_id,
             sum(idf.idf * t.tf * (${K1}::float8 + 1) / (t.tf + ${K1}::float8 * (1 - ${B}::float8 + ${B}::float8 * p.length / st.avgdl))) as bm25
      from passage_terms t
      join idf on idf.term = t.term
      join passages p on p.id = t.passage_id
      cross join st
      where t.agent_id = ${agentId}
      group by t.passage_id
    )
    select scored.passage_id, scored.bm25::float8 as bm25, (select sum(idf) from idf)::float8 as idf_sum
    from scored order by scored.bm25 desc, scored.passage_id limit ${limit}`.execute(ctx.db);
  return result.rows.map((row) => ({ passageId: row.passage_id, score: row.idf_sum > 0 ? Math.min(1, Number(row.bm25) / Number(row.idf_sum)) : 0 }));
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

async function withPassages(ctx: Context, agentId: string, ranked: Ranked[]): Promise<PassageHit[]> {
  if (ranked.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('passages as p')
    .innerJoin('sources as s', 's.id', 'p.source_id')
    .select(['p.id', 'p.source_id', 's.name', 'p.url', 'p.title', 'p.text'])
    .where('p.agent_id', '=', agentId)
    .where(
      'p.id',
      'in',
      ranked.map((r) => r.passageId),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ranked.flatMap((hit) => {
    const row = byId.get(hit.passageId);
    if (!row) return [];
    return [{ passageId: row.id, sourceId: row.source_id, sourceName: row.name, url: row.url, title: row.title, text: row.text, score: Math.round(hit.score * 10_000) / 10_000 }];
  });
}
