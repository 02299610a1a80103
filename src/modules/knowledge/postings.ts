/**
 * The lexical search's posting lists kept in the process (docs/knowledge.md, "Postings in
 * memory"). Reading a question's posting lists from the database on every question was most
 * of an answer's database time, and on the embedded store that work runs on the service's
 * own thread. Here each list is read once and kept behind its agent's index version
 * (agent_stats.version, which every write to the agent's index moves: migrations/020), with
 * each posting's BM25 contribution worked out as it is read, so a question costs one
 * statement for its terms and the version, a sum over the lists, and one for the texts.
 * The database stays the only record: a moved version, a restart or another process reads
 * the lists again. Lists too long to keep leave the question to bm25_top_passages.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';

/** BM25's parameters, as bm25_top_passages (migrations/026) has them. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * A question's word that the index holds in no form weighs this share of the idf of a term
 * in one passage in the score's divisor (bm25_top_passages has the same).
 */
export const ABSENT_SHARE = 0.5;
/** Postings kept by one process over all agents (16 bytes each: about 32 MB). */
const MAX_KEPT_POSTINGS = 2_000_000;
/** A term in more passages than this is not kept: its question is scored by the database. */
const MAX_LIST_LENGTH = 200_000;

/** A term's postings: its passages (as the agent's slots) and each one's BM25 contribution for the term. */
interface TermList {
  idf: number;
  slots: Int32Array;
  contributions: Float64Array;
}

interface AgentLists {
  version: string;
  terms: Map<string, TermList>;
  /** Passage numbers by slot, and slots by passage number: scores add up in an array, not a map. */
  seqs: number[];
  slotOf: Map<number, number>;
  postings: number;
}

/**
 * A question as the index reads it, with the agent's index version and statistics: its
 * lexemes in every configuration it was parsed with, and its words, each with the lexemes
 * the configurations give at its place in the question (its forms).
 */
export interface ParsedQuestion {
  version: string;
  n: number;
  avgdl: number;
  terms: string[];
  /** Each word's terms, as indexes into terms. */
  words: number[][];
}

export interface ScoredPassage {
  seq: number;
  /** BM25 divided by the question's words' weights (questionWeight), 0..1. */
  score: number;
}

const keptByContext = new WeakMap<Context, Map<string, AgentLists>>();

/**
 * The exact BM25 top `limit` (score at least minScore), as bm25_top_passages ranks them:
 * score descending, then passage number. Null when a list is too long to keep or the index
 * changed while its lists were read: the database function answers then.
 */
export async function topPassages(ctx: Context, agentId: string, question: ParsedQuestion, limit: number, minScore: number): Promise<ScoredPassage[] | null> {
  if (question.terms.length === 0) return [];
  const found = await listsFor(ctx, agentId, question);
  if (!found) return null;
  const { agent, lists } = found;
  const idfSum = questionWeight(question, lists);
  if (idfSum <= 0 || lists.every((list) => list.slots.length === 0) || limit <= 0) return [];
  const totals = new Float64Array(agent.seqs.length);
  const touched: number[] = [];
  for (const list of lists) {
    for (let i = 0; i < list.slots.length; i++) {
      const slot = list.slots[i];
      if (totals[slot] === 0) touched.push(slot);
      totals[slot] += list.contributions[i];
    }
  }
  const floor = minScore * idfSum * (1 - 1e-9);
  const best = new TopK(limit);
  for (const slot of touched) {
    const total = totals[slot];
    if (total >= floor && Math.min(1, total / idfSum) >= minScore) best.offer(agent.seqs[slot], total);
  }
  return best.ranked().map((hit) => ({ seq: hit.seq, score: Math.min(1, hit.score / idfSum) }));
}

/** The best `size` passages offered: score descending, then passage number. */
class TopK {
  private readonly hits: ScoredPassage[] = [];
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  offer(seq: number, score: number): void {
    const hits = this.hits;
    if (hits.length === this.size && !ahead(seq, score, hits[hits.length - 1])) return;
    let at = hits.length;
    while (at > 0 && ahead(seq, score, hits[at - 1])) at--;
    hits.splice(at, 0, { seq, score });
    if (hits.length > this.size) hits.pop();
  }

  ranked(): ScoredPassage[] {
    return this.hits;
  }
}

function ahead(seq: number, score: number, other: ScoredPassage): boolean {
  return score > other.score || (score === other.score && seq < other.seq);
}

/**
 * What a score is divided by: each word weighs the idf of its best term the index holds; a
 * word held in no form (a question word no stop list has, "jullie", "wann"; an inflection
 * the material does not use) weighs ABSENT_SHARE of the idf of a term in one passage. Such a
 * word tells no passage apart, so it may not outweigh the words the passages do hold (with a
 * df of 0 its idf was the largest of all), while a question most of whose words the material
 * lacks still scores low. A passage holding every held word once at average length scores
 * about 1.
 */
function questionWeight(question: ParsedQuestion, lists: TermList[]): number {
  const absent = ABSENT_SHARE * Math.log(1 + (question.n - 1 + 0.5) / (1 + 0.5));
  let total = 0;
  for (const word of question.words) {
    let best = -1;
    for (const term of word) if (lists[term].slots.length > 0) best = Math.max(best, lists[term].idf);
    total += best >= 0 ? best : absent;
  }
  return total;
}

/**
 * Parses the question with each configuration: the first (the question's own language's)
 * decides its words (what it stops is no word); the others add the lexemes they give at the
 * same place of the question as further forms of those words, and the agent's passages'
 * own configurations (agent_stats.configs) are always among them. One statement, that also
 * reads the index's version and statistics. Undefined when the agent has no passages.
 */
export async function parseQuestion(
  ctx: Context,
  agentId: string,
  configs: string[],
  query: string,
  alternatives: Array<[word: string, alternative: string]> = [],
): Promise<ParsedQuestion | undefined> {
  const { rows } = await sql<{ version: string; n: number; total: number; parsed: unknown; alternatives: unknown }>`
    select a.version::text as version, a.passage_count::float8 as n, a.total_length::float8 as total,
      (select coalesce(json_agg(json_build_array(c.i, l.lexeme, l.positions)), '[]')
        from (select name, min(i) as i from unnest(${configs}::text[] || a.configs) with ordinality as c(name, i) group by name) c
        cross join lateral unnest(to_tsvector(c.name::regconfig, ${query})) as l) as parsed,
      (select coalesce(json_agg(json_build_array(w.lexeme, o.lexeme)), '[]')
        from unnest(${alternatives.map(([word]) => word)}::text[], ${alternatives.map(([, alternative]) => alternative)}::text[]) as x(word, alternative)
        cross join lateral unnest(to_tsvector(${configs[0]}::regconfig, x.word)) as w
        cross join lateral unnest(to_tsvector(${configs[0]}::regconfig, x.alternative)) as o) as alternatives
    from agent_stats a where a.agent_id = ${agentId}`.execute(ctx.db);
  const row = rows[0];
  if (!row || Number(row.n) <= 0) return undefined;
  const n = Number(row.n);
  const parsed = (typeof row.parsed === 'string' ? JSON.parse(row.parsed) : row.parsed) as Array<[number, string, number[] | null]>;
  const alternative = (typeof row.alternatives === 'string' ? JSON.parse(row.alternatives) : row.alternatives) as Array<[string, string]>;
  return { version: row.version, n, avgdl: Math.max(Number(row.total) / n, 1), ...questionWords(parsed, alternative) };
}

/**
 * The words of a question from its lexemes by configuration (1 the first) and places; a
 * word's alternatives (its synonyms, as lexemes of the first configuration) are further
 * forms of it.
 */
function questionWords(parsed: Array<[number, string, number[] | null]>, alternatives: Array<[string, string]> = []): { terms: string[]; words: number[][] } {
  const terms: string[] = [];
  const indexOf = new Map<string, number>();
  const termIndex = (term: string) => indexOf.get(term) ?? indexOf.set(term, terms.push(term) - 1).get(term)!;
  const words: Array<Set<number>> = [];
  const wordAt = new Map<number, Set<number>>();
  for (const [config, lexeme, positions] of parsed) {
    if (Number(config) !== 1) continue;
    const word = new Set([termIndex(lexeme)]);
    words.push(word);
    for (const position of positions ?? []) wordAt.set(position, word);
  }
  for (const [config, lexeme, positions] of parsed) {
    if (Number(config) === 1) continue;
    for (const position of positions ?? []) wordAt.get(position)?.add(termIndex(lexeme));
  }
  for (const [wordLexeme, alternative] of alternatives) {
    const at = indexOf.get(wordLexeme);
    if (at === undefined) continue;
    for (const word of words) if (word.has(at)) word.add(termIndex(alternative));
  }
  return { terms, words: words.map((word) => [...word]) };
}

/** The question's lists, from memory or read now; null when one is too long or the index moved meanwhile. */
async function listsFor(ctx: Context, agentId: string, question: ParsedQuestion): Promise<{ agent: AgentLists; lists: TermList[] } | null> {
  const kept = keptByContext.get(ctx) ?? keptByContext.set(ctx, new Map()).get(ctx)!;
  let agent = kept.get(agentId);
  if (agent?.version !== question.version) agent = { version: question.version, terms: new Map(), seqs: [], slotOf: new Map(), postings: 0 };
  // Most recently used last: the first agents are the ones let go.
  kept.delete(agentId);
  kept.set(agentId, agent);
  const missing = question.terms.filter((term) => !agent.terms.has(term));
  if (missing.length > 0) {
    const read = await readLists(ctx, agentId, question, missing, agent);
    if (!read) {
      kept.delete(agentId);
      return null;
    }
    for (const [term, list] of read) {
      agent.terms.set(term, list);
      agent.postings += list.slots.length + 1;
    }
    letGo(kept);
  }
  return { agent, lists: question.terms.map((term) => agent.terms.get(term)!) };
}

/**
 * Reads the terms' lists in one statement that also reads the version, so they are of one
 * state of the index; each term's postings come as three arrays (far cheaper to read than a
 * row a posting).
 */
async function readLists(ctx: Context, agentId: string, question: ParsedQuestion, terms: string[], agent: AgentLists): Promise<Map<string, TermList> | null> {
  const { rows } = await sql<{ version: string; term: string | null; df: number | null; seqs: number[] | null; tfs: number[] | null; lengths: number[] | null }>`
    with v as (select version::text as version from agent_stats where agent_id = ${agentId}),
    t as (select term, df, term_id from agent_term_stats where agent_id = ${agentId} and term = any(${terms}::text[]))
    select v.version, t.term, t.df, l.seqs, l.tfs, l.lengths
    from v left join t on true left join lateral (
      select array_agg(p.passage_seq::float8 order by p.passage_seq) as seqs, array_agg(p.tf order by p.passage_seq) as tfs,
        array_agg(p.length order by p.passage_seq) as lengths
      from passage_postings p where p.term_id = t.term_id and t.df <= ${MAX_LIST_LENGTH}
    ) l on true`.execute(ctx.db);
  if (rows[0]?.version !== question.version) return null;
  const byTerm = new Map(rows.filter((row) => row.term !== null).map((row) => [row.term!, row]));
  const lists = new Map<string, TermList>();
  for (const term of terms) {
    const row = byTerm.get(term);
    const df = Number(row?.df ?? 0);
    if (df > MAX_LIST_LENGTH) return null;
    lists.set(term, termList(question, agent, df, { seqs: row?.seqs ?? [], tfs: row?.tfs ?? [], lengths: row?.lengths ?? [] }));
  }
  return lists;
}

/** Each posting's contribution computed as bm25_top_passages computes it, in the same order of operations. */
function termList(question: ParsedQuestion, agent: AgentLists, df: number, postings: { seqs: number[]; tfs: number[]; lengths: number[] }): TermList {
  const idf = Math.log(1 + (question.n - df + 0.5) / (df + 0.5));
  const count = postings.seqs.length;
  const slots = new Int32Array(count);
  const contributions = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const seq = Number(postings.seqs[i]);
    const tf = Number(postings.tfs[i]);
    let slot = agent.slotOf.get(seq);
    if (slot === undefined) {
      slot = agent.seqs.push(seq) - 1;
      agent.slotOf.set(seq, slot);
    }
    slots[i] = slot;
    contributions[i] = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * Number(postings.lengths[i])) / question.avgdl));
  }
  return { idf, slots, contributions };
}

/** Lets the least recently used agents' lists go while more than MAX_KEPT_POSTINGS are kept (the question being answered holds its own). */
function letGo(kept: Map<string, AgentLists>): void {
  let total = 0;
  for (const agent of kept.values()) total += agent.postings;
  for (const [agentId, agent] of kept) {
    if (total <= MAX_KEPT_POSTINGS) break;
    kept.delete(agentId);
    total -= agent.postings;
  }
}
