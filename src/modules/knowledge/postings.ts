/**
 * The lexical search's posting lists kept in the process (docs/knowledge.md, "Postings in
 * memory"). Reading a question's posting lists from the database on every question was most
 * of an answer's database time, and on the embedded store that work runs on the service's
 * own thread. Here each list is read once and kept behind its agent's index version
 * (agent_stats.version, which every write to the agent's index moves: migrations/020), with
 * each posting's BM25 contribution worked out as it is read, so a question costs one
 * statement for its terms and the version, a sum over the lists, and one for the texts.
 * The database stays the only record: a moved version, a restart or another process reads
 * the lists again. A question whose lists are long together (a large agent) reads only the
 * layers of its terms' lists that can decide the top and looks the others up for the
 * passages that may reach it (MaxScore: maxScoreTop); a layer it needs whole that is too
 * long to keep leaves the question to bm25_top_passages.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { prepared } from '../../platform/db.ts';

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
/** What a passage's slot costs against MAX_KEPT_POSTINGS (an array entry and a map entry, about 64 bytes). */
const SLOT_POSTINGS = 4;
/** A term in more passages than this is not kept: its question is scored by the database. */
const MAX_LIST_LENGTH = 200_000;
/**
 * A question whose terms hold at most this many postings together is scored over all its
 * lists; a larger one by MaxScore (maxScoreTop): only its rarest terms' lists are read whole.
 */
export const FULL_READ_POSTINGS = 20_000;
/** Postings MaxScore reads whole at first: the rarest lists, whose best passages set the first k-th score. */
const FIRST_READ = 20_000;
/** Candidates whose other terms are looked up in one statement (maxScoreTop). */
const PROBE_BATCH = 500;
/** Candidates looked up at most before the next term's list is read whole instead. */
const MAX_PROBED = 2_000;
/**
 * Where MaxScore splits a term's postings: the low layer holds those of tf 1 in a passage
 * at least this share of the average length, whose contributions are bound by tf 1 at that
 * length (about 1.1 times the idf, where the term's own bound, its largest tf at its shortest
 * passage, is often 1.8 times); the high layer the others, few and bound by the term's bound.
 */
const LOW_LAYER_LENGTH_SHARE = 0.75;
/** The share of a term's postings its high layer is taken to hold before it is read (only to choose what to read first). */
const HIGH_LAYER_ESTIMATE = 0.25;
/** Slack on the MaxScore bounds, so that rounding never prunes a passage that belongs in the top (as bm25_top_passages). */
const SLACK = 1 + 1e-9;

/** A term's postings: its passages (as the agent's slots) and each one's BM25 contribution for the term. */
interface TermList {
  slots: Int32Array;
  contributions: Float64Array;
}

/** What the index holds of a question's term: its statistics, and its postings once read. */
interface TermEntry {
  /** agent_term_stats.term_id; 0 for a term no passage holds. */
  termId: number;
  df: number;
  idf: number;
  /** The most the term adds to any passage's score (its largest tf at its shortest passage). */
  bound: number;
  maxTf: number;
  minLength: number;
  list?: TermList;
  /** Its layers' postings (MaxScore), once read. */
  layers?: Partial<Record<'high' | 'low', TermList>>;
}

/** A part of a term's postings that MaxScore reads whole or looks up on its own: all of them, or a layer (LOW_LAYER_LENGTH_SHARE). */
interface Layer {
  term: TermEntry;
  kind: 'whole' | 'high' | 'low';
  /** The most one of its postings adds to a score. */
  bound: number;
  /** The postings it holds, or is taken to hold before it is read. */
  estimate: number;
}

interface AgentLists {
  version: string;
  terms: Map<string, TermEntry>;
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
 * score descending, then passage number. A question whose lists are short together is
 * scored over all of them; a longer one by MaxScore over its rarest lists (maxScoreTop).
 * Null when a list it needs whole is too long to keep or the index changed while it was
 * read: the database function answers then. `budgets` are for the tests, which take the
 * MaxScore path, and let it prune, on a small agent.
 */
export async function topPassages(
  ctx: Context,
  agentId: string,
  question: ParsedQuestion,
  limit: number,
  minScore: number,
  budgets: { fullRead: number; firstRead: number } = { fullRead: FULL_READ_POSTINGS, firstRead: FIRST_READ },
): Promise<ScoredPassage[] | null> {
  if (question.terms.length === 0) return [];
  const found = await termsFor(ctx, agentId, question, budgets.fullRead);
  if (!found) return null;
  const { agent, terms } = found;
  const idfSum = questionWeight(question, terms);
  if (idfSum <= 0 || terms.every((term) => term.df === 0) || limit <= 0) return [];
  if (terms.every((term) => term.list)) return sumOfLists(agent, terms as Array<Required<TermEntry>>, limit, minScore, idfSum);
  return maxScoreTop(ctx, agentId, question, agent, terms, limit, minScore, idfSum, budgets.firstRead);
}

/** Every list summed: the top of all the passages holding a term. */
function sumOfLists(agent: AgentLists, terms: Array<Required<TermEntry>>, limit: number, minScore: number, idfSum: number): ScoredPassage[] {
  const totals = new Float64Array(agent.seqs.length);
  const touched: number[] = [];
  for (const { list } of terms) {
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

/**
 * MaxScore (docs/knowledge.md, "Search at scale") over the terms' layers: a term's postings
 * are its low layer (tf 1 in a passage not much shorter than average: bound by tf 1 at that
 * length) and its high layer (the others, bound by the term's bound), or all of them when
 * they are kept whole. The layers ordered by the most each adds to a score, the first ones
 * are read whole ("essential") and summed; a passage none of them holds scores at most the
 * rest's bounds together (per term the larger of its layers' bounds), so once that is below
 * the k-th score found, only the passages the essential layers hold can be in the top. Those
 * are taken best partial score first and their other layers' postings looked up in the
 * database, until the next one's partial score plus the rest's bounds falls below the k-th
 * exact score. When that bound is not below it, or too many passages would be looked up,
 * the next layers are read whole and the count starts again. Exact: every passage that could
 * tie or beat the k-th is scored in full.
 */
async function maxScoreTop(
  ctx: Context,
  agentId: string,
  question: ParsedQuestion,
  agent: AgentLists,
  terms: TermEntry[],
  limit: number,
  minScore: number,
  idfSum: number,
  firstRead: number,
): Promise<ScoredPassage[] | null> {
  const cut = lowLayerCut(question.avgdl);
  const held = terms
    .filter((term) => term.df > 0)
    .flatMap((term) => layersOf(term, cut, question.avgdl))
    .sort((a, b) => b.bound - a.bound || a.term.termId - b.term.termId || a.kind.localeCompare(b.kind));
  const rest = restBounds(held);
  const floor = minScore * idfSum * (1 - 1e-9);
  // The first layers, as many as firstRead postings allow (at least enough to hold `limit` passages): their best
  // passages, completed, give the k-th score the other layers are judged by.
  let essential = 1;
  for (let passages = held[0].estimate; essential < held.length && (passages < limit || passages + held[essential].estimate <= firstRead); essential++) passages += held[essential].estimate;
  for (;;) {
    if (!(await readLayers(ctx, agentId, question, agent, held.slice(0, essential), cut))) return null;
    const outcome = await scoreWithEssential(ctx, agentId, question, agent, held, essential, rest[essential], limit, floor, cut);
    if (outcome === null) return null;
    if ('top' in outcome) {
      return outcome.top
        .filter((hit) => hit.score >= floor && Math.min(1, hit.score / idfSum) >= minScore)
        .map((hit) => ({ seq: hit.seq, score: Math.min(1, hit.score / idfSum) }));
    }
    // Every layer up to the first whose rest is below the k-th score known so far must be read whole.
    let next = essential + 1;
    while (next < held.length && rest[next] * SLACK >= outcome.kth) next++;
    essential = next;
  }
}

/** The length from which a posting of tf 1 is in its term's low layer. */
function lowLayerCut(avgdl: number): number {
  return Math.ceil(LOW_LAYER_LENGTH_SHARE * avgdl);
}

/** A term as MaxScore reads it: whole when its list is kept, else its layers (only the low one when no posting can be high). */
function layersOf(term: TermEntry, cut: number, avgdl: number): Layer[] {
  if (term.list) return [{ term, kind: 'whole', bound: term.bound, estimate: term.list.slots.length }];
  const low: Layer = { term, kind: 'low', bound: contribution(term.idf, 1, Math.max(cut, term.minLength), avgdl), estimate: term.layers?.low?.slots.length ?? term.df };
  if (term.maxTf <= 1 && term.minLength >= cut) return [low];
  return [{ term, kind: 'high', bound: term.bound, estimate: term.layers?.high?.slots.length ?? Math.ceil(term.df * HIGH_LAYER_ESTIMATE) }, low];
}

/** For each start in the ordered layers, the most the layers from there add to a passage: per term, the larger of its layers' bounds. */
function restBounds(held: Layer[]): Float64Array {
  const rest = new Float64Array(held.length + 1);
  for (let i = held.length - 1; i >= 0; i--) {
    const byTerm = new Map<TermEntry, number>();
    for (const layer of held.slice(i)) byTerm.set(layer.term, Math.max(byTerm.get(layer.term) ?? 0, layer.bound));
    for (const bound of byTerm.values()) rest[i] += bound;
  }
  return rest;
}

/** The postings of a layer, from a kept list. */
function layerList(layer: Layer): TermList {
  return layer.kind === 'whole' ? layer.term.list! : layer.term.layers![layer.kind]!;
}

/**
 * The top from the essential layers (the first `essential` of `held`, read), the other
 * layers looked up for the candidates; when the rest's bound or the candidates are too many
 * to settle it, the k-th score known (a floor to the true one) to read more layers by; null
 * when the index moved meanwhile.
 */
async function scoreWithEssential(
  ctx: Context,
  agentId: string,
  question: ParsedQuestion,
  agent: AgentLists,
  held: Layer[],
  essential: number,
  restBound: number,
  limit: number,
  floor: number,
  cut: number,
): Promise<{ top: ScoredPassage[] } | { kth: number } | null> {
  const partial = new Float64Array(agent.seqs.length);
  const touched: number[] = [];
  for (const layer of held.slice(0, essential)) {
    const { slots, contributions } = layerList(layer);
    for (let i = 0; i < slots.length; i++) {
      if (partial[slots[i]] === 0) touched.push(slots[i]);
      partial[slots[i]] += contributions[i];
    }
  }
  // The k-th best partial score is a floor to the k-th score.
  const lower = new TopK(limit);
  for (const slot of touched) lower.offer(agent.seqs[slot], partial[slot]);
  let kth = Math.max(floor, lower.ranked().length === limit ? lower.ranked()[limit - 1].score : 0);
  const others = held.slice(essential);
  const lookUp = (seqs: number[]) => (others.length === 0 || seqs.length === 0 ? new Map<number, number>() : otherContributions(ctx, agentId, question, others, seqs, cut));
  // A passage no essential layer holds scores at most restBound. When that is not below the k-th, the best partial
  // scores are completed first: their k-th exact score is a higher floor, and fewer layers have to be read whole.
  if (others.length > 0 && restBound * SLACK >= kth) {
    const first = lower.ranked().length < limit ? [] : touched.filter((slot) => partial[slot] >= kth).sort((a, b) => partial[b] - partial[a]).slice(0, PROBE_BATCH);
    const extra = await lookUp(first.map((slot) => agent.seqs[slot]));
    if (!extra) return null;
    const exact = new TopK(limit);
    for (const slot of first) exact.offer(agent.seqs[slot], partial[slot] + (extra.get(agent.seqs[slot]) ?? 0));
    if (exact.ranked().length === limit) kth = Math.max(kth, exact.ranked()[limit - 1].score);
    if (restBound * SLACK >= kth) return { kth };
  }
  const candidates: Array<[slot: number, score: number]> = touched.filter((slot) => partial[slot] + restBound * SLACK >= kth).map((slot) => [slot, partial[slot]]);
  if (others.length > 0 && candidates.length > MAX_PROBED) return { kth };
  candidates.sort((a, b) => b[1] - a[1] || agent.seqs[a[0]] - agent.seqs[b[0]]);
  const best = new TopK(limit);
  for (let at = 0; at < candidates.length && candidates[at][1] + restBound * SLACK >= kth; ) {
    const batch = candidates.slice(at, at + PROBE_BATCH).filter(([, score]) => score + restBound * SLACK >= kth);
    at += PROBE_BATCH;
    const extra = await lookUp(batch.map(([slot]) => agent.seqs[slot]));
    if (!extra) return null;
    for (const [slot, score] of batch) best.offer(agent.seqs[slot], score + (extra.get(agent.seqs[slot]) ?? 0));
    const ranked = best.ranked();
    if (ranked.length === limit) kth = Math.max(kth, ranked[limit - 1].score);
  }
  return { top: best.ranked() };
}

/**
 * The other layers' contributions to the given passages, summed per passage number: one
 * statement whose index scan probes each (term, passage) pair in key order; a posting counts
 * when its layer is among them (the others were summed already). Null when the index moved
 * since the question was parsed.
 */
async function otherContributions(ctx: Context, agentId: string, question: ParsedQuestion, others: Layer[], seqs: number[], cut: number): Promise<Map<number, number> | null> {
  const kinds = new Map<TermEntry, Set<Layer['kind']>>();
  for (const layer of others) kinds.set(layer.term, (kinds.get(layer.term) ?? new Set()).add(layer.kind));
  const { rows } = await sql<{ version: string; seq: string | null; term_id: string | null; tf: number | null; length: number | null }>`
    with v as (select version::text as version from agent_stats where agent_id = ${agentId})
    select v.version, x.passage_seq as seq, x.term_id, x.tf, x.length from v left join lateral (
      select o.passage_seq, o.term_id, o.tf, o.length from passage_postings o
      where o.term_id = any(${[...kinds.keys()].map((term) => term.termId)}::bigint[]) and o.passage_seq = any(${seqs}::bigint[])
    ) x on true`.execute(ctx.db);
  if (rows[0]?.version !== question.version) return null;
  const byId = new Map([...kinds.keys()].map((term) => [term.termId, term]));
  const sums = new Map<number, number>();
  for (const row of rows) {
    if (row.seq === null) continue;
    const term = byId.get(Number(row.term_id))!;
    const tf = Number(row.tf);
    const length = Number(row.length);
    const wanted = kinds.get(term)!;
    if (!wanted.has('whole') && !wanted.has(tf > 1 || length < cut ? 'high' : 'low')) continue;
    const seq = Number(row.seq);
    sums.set(seq, (sums.get(seq) ?? 0) + contribution(term.idf, tf, length, question.avgdl));
  }
  return sums;
}

/** One posting's BM25 contribution, as bm25_top_passages computes it, in the same order of operations. */
function contribution(idf: number, tf: number, length: number, avgdl: number): number {
  return (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl));
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
function questionWeight(question: ParsedQuestion, terms: TermEntry[]): number {
  const absent = ABSENT_SHARE * Math.log(1 + (question.n - 1 + 0.5) / (1 + 0.5));
  let total = 0;
  for (const word of question.words) {
    let best = -1;
    for (const term of word) if (terms[term].df > 0) best = Math.max(best, terms[term].idf);
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
  // The question's values are each read through a scalar subquery, so that the plan cannot depend on them: PostgreSQL
  // then keeps one plan for the prepared statement (generic) instead of planning it anew for every question, which
  // took about four times its execution (docs/performance.md, "Capacity", fourth round). The alternatives come in an
  // order of their own (configuration by configuration, then the question's words in order), where before it was the
  // plan's (either way round, by database): the order of the terms follows it.
  const { rows } = await prepared(
    ctx.db,
    sql<{ version: string; n: number; total: number; parsed: unknown; alternatives: unknown }>`
    select a.version::text as version, a.passage_count::float8 as n, a.total_length::float8 as total,
      (select coalesce(json_agg(json_build_array(c.i, l.lexeme, l.positions)), '[]')
        from (select name, min(i) as i from unnest((select ${configs}::text[]) || a.configs) with ordinality as c(name, i) group by name) c
        cross join lateral unnest(to_tsvector(c.name::regconfig, (select ${query}::text))) as l) as parsed,
      (select coalesce(json_agg(json_build_array(w.lexeme, o.lexeme) order by c.ci, x.xi, w.wi, o.oi), '[]')
        from unnest((select ${alternatives.map(([word]) => word)}::text[]), (select ${alternatives.map(([, alternative]) => alternative)}::text[])) with ordinality as x(word, alternative, xi)
        cross join lateral unnest(to_tsvector((select ${configs[0]}::regconfig), x.word)) with ordinality as w(lexeme, positions, weights, wi)
        cross join lateral unnest((select ${configs.slice(0, 2)}::text[])) with ordinality as c(name, ci)
        cross join lateral unnest(to_tsvector(c.name::regconfig, x.alternative)) with ordinality as o(lexeme, positions, weights, oi)) as alternatives
    from agent_stats a where a.agent_id = ${agentId}`,
  );
  const row = rows[0];
  if (!row || Number(row.n) <= 0) return undefined;
  const n = Number(row.n);
  const parsed = (typeof row.parsed === 'string' ? JSON.parse(row.parsed) : row.parsed) as Array<[number, string, number[] | null]>;
  const alternative = (typeof row.alternatives === 'string' ? JSON.parse(row.alternatives) : row.alternatives) as Array<[string, string]>;
  return { version: row.version, n, avgdl: Math.max(Number(row.total) / n, 1), ...questionWords(parsed, alternative) };
}

/**
 * The words of a question from its lexemes by configuration (1 the first) and places; a
 * word's alternatives (its synonyms or translations, as lexemes of the first two
 * configurations: the question's language's and the agent's) are further forms of it.
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

/**
 * The question's terms, from memory or read now, with their lists when all of them hold at
 * most fullReadPostings postings together; null when the index moved meanwhile.
 */
async function termsFor(ctx: Context, agentId: string, question: ParsedQuestion, fullReadPostings: number): Promise<{ agent: AgentLists; terms: TermEntry[] } | null> {
  const kept = keptByContext.get(ctx) ?? keptByContext.set(ctx, new Map()).get(ctx)!;
  let agent = kept.get(agentId);
  if (agent?.version !== question.version) agent = { version: question.version, terms: new Map(), seqs: [], slotOf: new Map(), postings: 0 };
  // Most recently used last: the first agents are the ones let go.
  kept.delete(agentId);
  kept.set(agentId, agent);
  const missing = question.terms.filter((term) => !agent.terms.get(term)?.list);
  if (missing.length > 0) {
    const keptPostings = question.terms.reduce((sum, term) => sum + (agent.terms.get(term)?.list ? agent.terms.get(term)!.df : 0), 0);
    const read = await readTerms(ctx, agentId, question, missing, agent, Math.max(0, fullReadPostings - keptPostings));
    if (!read) {
      kept.delete(agentId);
      return null;
    }
    for (const [term, entry] of read) keep(agent, term, entry);
    letGo(kept);
  }
  return { agent, terms: question.terms.map((term) => agent.terms.get(term)!) };
}

function keep(agent: AgentLists, term: string, entry: TermEntry): void {
  // Layers read for an earlier question stay (the same version: the same postings) until the list is kept whole.
  const layers = agent.terms.get(term)?.layers;
  if (layers && !entry.list) entry.layers = layers;
  else if (layers) agent.postings -= (layers.high?.slots.length ?? 0) + (layers.low?.slots.length ?? 0);
  agent.terms.set(term, entry);
  agent.postings += (entry.list?.slots.length ?? 0) + 1;
}

/**
 * Reads the given layers' postings (those not read yet) in one statement that also reads the
 * version; false when one is too long to keep or the index moved.
 */
async function readLayers(ctx: Context, agentId: string, question: ParsedQuestion, agent: AgentLists, layers: Layer[], cut: number): Promise<boolean> {
  const missing = layers.filter((layer) => layer.kind !== 'whole' && !layer.term.layers?.[layer.kind]);
  if (missing.length === 0) return true;
  const { rows } = await sql<{ version: string; at: number | null; count: number | null; postings: Uint8Array | null }>`
    with v as (select version::text as version from agent_stats where agent_id = ${agentId})
    select v.version, x.at, l.count, l.postings
    from v left join unnest(${missing.map((layer) => layer.term.termId)}::bigint[], ${missing.map((layer) => layer.kind === 'high')}::boolean[]) with ordinality as x(term_id, high, at) on true
    left join lateral (
      -- In the index's order (no sort), and no further than one past the longest list kept.
      select count(*)::int as count, ${POSTINGS_BYTES} as postings
      from (select passage_seq, tf, length from passage_postings p where p.term_id = x.term_id and (p.tf > 1 or p.length < ${cut}) = x.high limit ${MAX_LIST_LENGTH + 1}) p
    ) l on true`.execute(ctx.db);
  if (rows[0]?.version !== question.version || rows.some((row) => Number(row.count) > MAX_LIST_LENGTH)) return false;
  for (const row of rows) {
    const layer = missing[Number(row.at) - 1];
    const list = termList(question, agent, layer.term.idf, row.postings);
    // The question's entries are the ones maxScoreTop holds: their layers are filled in place.
    layer.term.layers = { ...layer.term.layers, [layer.kind]: list };
    agent.postings += list.slots.length;
  }
  const kept = keptByContext.get(ctx);
  if (kept) letGo(kept);
  return true;
}

/**
 * Reads the terms' statistics, and their lists when they hold at most `budget` postings
 * together (and none more than MAX_LIST_LENGTH), in one statement that also reads the
 * version, so they are of one state of the index; each term's postings come as three
 * arrays (far cheaper to read than a row a posting). Null when the version moved.
 */
async function readTerms(ctx: Context, agentId: string, question: ParsedQuestion, terms: string[], agent: AgentLists, budget: number): Promise<Map<string, TermEntry> | null> {
  const { rows } = await sql<{ version: string; term: string | null; term_id: number | null; df: number | null; max_tf: number | null; min_length: number | null; postings: Uint8Array | null }>`
    with v as (select version::text as version from agent_stats where agent_id = ${agentId}),
    t as (select term, df, term_id, max_tf, min_length from agent_term_stats where agent_id = ${agentId} and term = any(${terms}::text[])),
    whole as (select coalesce(sum(df), 0) <= ${Number.isFinite(budget) ? budget : Number.MAX_SAFE_INTEGER}::float8 as fits from t)
    select v.version, t.term, t.term_id::float8 as term_id, t.df, t.max_tf, t.min_length, l.postings
    from v left join t on true left join lateral (
      -- In the index's order: an order by here would sort each array again (three times the read's cost at 30,000 postings).
      select ${POSTINGS_BYTES} as postings
      from passage_postings p where p.term_id = t.term_id and t.df <= ${MAX_LIST_LENGTH} and (select fits from whole)
    ) l on true`.execute(ctx.db);
  if (rows[0]?.version !== question.version) return null;
  const byTerm = new Map(rows.filter((row) => row.term !== null).map((row) => [row.term!, row]));
  const whole = rows.every((row) => row.term === null || row.postings !== null);
  const entries = new Map<string, TermEntry>();
  for (const term of terms) {
    const row = byTerm.get(term);
    const df = Number(row?.df ?? 0);
    const idf = Math.log(1 + (question.n - df + 0.5) / (df + 0.5));
    const maxTf = Number(row?.max_tf ?? 1);
    const minLength = Number(row?.min_length ?? 0);
    const entry: TermEntry = { termId: Number(row?.term_id ?? 0), df, idf, maxTf, minLength, bound: contribution(idf, maxTf, minLength, question.avgdl) };
    if (whole) entry.list = termList(question, agent, idf, row?.postings ?? null);
    entries.set(term, entry);
  }
  return entries;
}

/**
 * A list's postings as one bytea, 16 bytes each (the passage number as int8, tf and length as
 * int4, big-endian): three times faster to read than three arrays, whose text the driver
 * parses number by number (43,000 postings: 27 to 36 ms against 77 to 117, under load 14).
 * Aggregated in the index's order: no sort.
 */
const POSTINGS_BYTES = sql`string_agg(int8send(p.passage_seq) || int4send(p.tf) || int4send(p.length), ''::bytea)`;
const POSTING_BYTES = 16;

/** Each posting's contribution computed as bm25_top_passages computes it, in the same order of operations. */
function termList(question: ParsedQuestion, agent: AgentLists, idf: number, postings: Uint8Array | null): TermList {
  const count = (postings?.byteLength ?? 0) / POSTING_BYTES;
  const slots = new Int32Array(count);
  const contributions = new Float64Array(count);
  if (!postings) return { slots, contributions };
  const bytes = new DataView(postings.buffer, postings.byteOffset, postings.byteLength);
  for (let i = 0, at = 0; i < count; i++, at += POSTING_BYTES) {
    const seq = bytes.getUint32(at) * 2 ** 32 + bytes.getUint32(at + 4);
    let slot = agent.slotOf.get(seq);
    if (slot === undefined) {
      slot = agent.seqs.push(seq) - 1;
      agent.slotOf.set(seq, slot);
    }
    slots[i] = slot;
    contributions[i] = contribution(idf, bytes.getInt32(at + 8), bytes.getInt32(at + 12), question.avgdl);
  }
  return { slots, contributions };
}

/**
 * Lets the least recently used agents' lists go while more than MAX_KEPT_POSTINGS are kept
 * (the question being answered holds its own). A passage's slot (its number in an array
 * and a map) counts as SLOT_POSTINGS postings: a million-passage agent's lists touch most
 * of its passages.
 */
function letGo(kept: Map<string, AgentLists>): void {
  const footprint = (agent: AgentLists) => agent.postings + SLOT_POSTINGS * agent.seqs.length;
  let total = 0;
  for (const agent of kept.values()) total += footprint(agent);
  for (const [agentId, agent] of kept) {
    if (total <= MAX_KEPT_POSTINGS) break;
    kept.delete(agentId);
    total -= footprint(agent);
  }
}
