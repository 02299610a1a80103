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
import { prepared, type Db } from '../../platform/db.ts';
import { StatementGroups, statementGroupsOf } from '../../platform/grouped-statements.ts';
import { keepBounded } from '../../platform/kept.ts';

/** BM25's parameters, as bm25_top_passages (migrations/026) has them. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * A question's word that the index holds in no form weighs this share of the idf of a term
 * in one passage in the score's divisor (bm25_top_passages has the same).
 */
export const ABSENT_SHARE = 0.5;
/**
 * A term in more passages than this is not read whole (MaxScore reads its layers; a layer
 * longer leaves the question to the database). The process's cap (config.searchMemoryBytes)
 * is what bounds the lists kept; this only bounds one read.
 */
const MAX_LIST_LENGTH = 2_000_000;
/** What a kept list is taken to cost a posting before it is read (a gap of one or two bytes and tf in a byte). */
const ESTIMATED_POSTING_BYTES = 3;
/** What a kept term costs besides its postings (its entry, its arrays' headers, its place in the recency order). */
const TERM_BYTES = 200;
/**
 * A question whose terms hold at most this many postings together is scored over all its
 * lists; a larger one by MaxScore (maxScoreTop): only its rarest terms' lists are read whole.
 */
export const FULL_READ_POSTINGS = 20_000;
/** Postings MaxScore reads whole at first: the rarest lists, whose best passages set the first k-th score. */
export const FIRST_READ = 20_000;
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

/**
 * A term's postings, compressed: its passages as slots of the agent's passage table (their
 * rank by passage number), delta-coded in ascending order (7 bits a byte, the high bit set
 * on every byte but a gap's last: a gap under 128 takes one byte), and each posting's tf in a
 * byte (255 and over: 255, the tf in `bigTfs` by the posting's index). The passage's length is
 * the table's, once per passage; a posting's BM25 contribution is computed as it is summed.
 */
export interface TermList {
  count: number;
  gaps: Uint8Array;
  tfs: Uint8Array;
  bigTfs?: Map<number, number>;
  /** Set when a posting has a tf of 0 (which adds nothing to a score: scoreLists then notes each first add). */
  zeroTf?: true;
}

/** An agent's passages in passage number order: a slot is a passage's rank, with its length beside it. */
export interface PassageTable {
  seqs: Float64Array;
  lengths: Uint16Array | Uint32Array;
  /**
   * Each passage's slot by its offset from the first passage's number (-1: no passage of the
   * agent), when the agent's numbers are close together (slotsByOffset): a list's posting then
   * finds its slot in one read instead of a search of the table.
   */
  slotByOffset?: Int32Array;
}

/** What the index holds of a question's term: its statistics, and its postings once read. */
interface TermEntry {
  term: string;
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
  /** Its key and value in Kept.recent (touch). */
  recency?: { key: string; place: { agent: AgentLists; term: string } };
}

/** A part of a term's postings that MaxScore reads whole or looks up on its own: all of them, or a layer (LOW_LAYER_LENGTH_SHARE). */
interface Layer {
  term: TermEntry;
  kind: 'whole' | 'high' | 'low';
  /** The term's idf as this question weighs it (ParsedQuestion.shares). */
  idf: number;
  /** The most one of its postings adds to a score. */
  bound: number;
  /** The postings it holds, or is taken to hold before it is read. */
  estimate: number;
}

interface AgentLists {
  agentId: string;
  version: string;
  terms: Map<string, TermEntry>;
  /** Read once per version, before the first list: scores add up in an array by slot, not a map. */
  table?: PassageTable;
  /** The table of the version this one followed, until this one's is read: only the passages added since are read then (readTable). */
  earlier?: PassageTable;
  /** What the table and the kept terms cost, in bytes. */
  bytes: number;
  /** The table's lengths' norms at the version's average length (lengthNorms), made at the first sum. */
  norms?: { avgdl: number; values: Float64Array | undefined; bytes: number };
}

/**
 * What one process keeps: the agents' tables and lists, and the terms in the order they were
 * last used (the first ones are let go first: a term at a time, not an agent at a time).
 */
interface Kept {
  agents: Map<string, AgentLists>;
  recent: Map<string, { agent: AgentLists; term: string }>;
  /** The passage tables' rows read so far (the tests' view: keptLists). */
  tableRowsRead: number;
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
  /**
   * Each term's share of its idf (by index into terms): 1 for a word's own forms and its
   * synonyms, less for a looser alternative (a verb of one doer: search.ts). A term that is
   * several words' forms counts its largest share.
   */
  shares: number[];
}

/**
 * A further form searched for a question's word: a synonym or a translation (its share of
 * the idf left out: 1), or a looser one at a lower share (a verb of one doer: search.ts).
 */
export type Alternative = [word: string, alternative: string, share?: number];

export interface ScoredPassage {
  seq: number;
  /** BM25 divided by the question's words' weights (questionWeight), 0..1. */
  score: number;
}

const keptByContext = new WeakMap<Context, Kept>();

function keptFor(ctx: Context): Kept {
  return keptByContext.get(ctx) ?? keptByContext.set(ctx, { agents: new Map(), recent: new Map(), tableRowsRead: 0 }).get(ctx)!;
}

/**
 * What the process keeps for an agent (the tests' view): its version, its terms with whole lists and with layers, its
 * bytes, whether its table finds slots by offset (PassageTable.slotByOffset), its table's passages, and the passage tables'
 * rows the process has read.
 */
export function keptLists(
  ctx: Context,
  agentId: string,
): { version: string; whole: string[]; layered: string[]; bytes: number; totalBytes: number; slotsByOffset: boolean; passages: number[]; tableRowsRead: number } | undefined {
  const kept = keptByContext.get(ctx);
  const agent = kept?.agents.get(agentId);
  if (!kept || !agent) return undefined;
  const terms = [...agent.terms.values()];
  return {
    version: agent.version,
    whole: terms.filter((term) => term.list).map((term) => term.term).sort(),
    layered: terms.filter((term) => term.layers).map((term) => term.term).sort(),
    bytes: agent.bytes,
    totalBytes: [...kept.agents.values()].reduce((sum, other) => sum + other.bytes, 0),
    slotsByOffset: agent.table?.slotByOffset !== undefined,
    passages: [...(agent.table?.seqs ?? [])],
    tableRowsRead: kept.tableRowsRead,
  };
}

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
  budgets?: { fullRead: number; firstRead: number },
): Promise<ScoredPassage[] | null> {
  if (question.terms.length === 0) return [];
  const found = await termsFor(ctx, agentId, question, budgets?.fullRead);
  if (!found) return null;
  const { agent, terms } = found;
  const idfSum = questionWeight(question, terms);
  if (idfSum <= 0 || terms.every((term) => term.df === 0) || limit <= 0) return [];
  if (terms.every((term) => term.list)) return sumOfLists(agent, question, terms as Array<TermEntry & { list: TermList }>, limit, minScore, idfSum);
  return maxScoreTop(ctx, agentId, question, agent, terms, limit, minScore, idfSum, budgets?.firstRead ?? FIRST_READ);
}

/** Slots summed at a time by sumOfLists: 256 KB of sums, which stay in the processor's cache. */
const WINDOW = 1 << 15;
/**
 * sumOfLists' sums and the slots added to (the sum is synchronous: one question at a time
 * uses them), zeroed after each window; made at the first search, so an idle process holds nothing.
 */
let windowSums: Float64Array | undefined;
let windowTouched: Int32Array | undefined;

/**
 * Every list summed: the top of all the passages holding a term. The slots are taken a
 * window at a time, each list decoded up to the window's end, so the sums are a small array
 * the processor keeps in its cache (an array by slot of a million-passage agent is 8 MB, and
 * each posting's add went to memory: 8 ms a question where this takes a few). A passage's
 * total adds its terms in the question's order, as before.
 */
function sumOfLists(agent: AgentLists, question: ParsedQuestion, terms: Array<TermEntry & { list: TermList }>, limit: number, minScore: number, idfSum: number): ScoredPassage[] {
  const lists = terms.map((term, i) => ({ list: term.list, idf: weightedIdf(question, i, term) }));
  return scoreLists(agent.table!, lists, question.avgdl, limit, minScore, idfSum, normsOf(agent, question.avgdl));
}

/**
 * sumOfLists' sum over a table (exported for its test, which checks it against contribution() summed posting by
 * posting): the top `limit` by score, then passage number. `norms`, when given, is each length's part of the
 * divisor (lengthNorms), so that a posting costs one division, with the same bits as contribution().
 */
export function scoreLists(
  table: PassageTable,
  lists: Array<{ list: TermList; idf: number }>,
  avgdl: number,
  limit: number,
  minScore: number,
  idfSum: number,
  norms?: Float64Array,
): ScoredPassage[] {
  const { seqs, lengths } = table;
  const sums = (windowSums ??= new Float64Array(WINDOW));
  const touched = (windowTouched ??= new Int32Array(WINDOW));
  const cursors = lists.map(({ list, idf }) => ({ list, idf, i: 0, at: 0, slot: -1 }));
  const floor = minScore * idfSum * (1 - 1e-9);
  // Lists dense in the table are summed without noting each passage's first add (a test and a branch the processor
  // cannot foresee, about half the sum's time): each window's sums are read whole instead. Only when every posting
  // adds more than 0 (an idf above 0, no tf of 0), so that a passage's sum is 0 exactly when nothing was added.
  let postings = 0;
  let positive = true;
  for (const { list, idf } of lists) {
    postings += list.count;
    if (!(idf > 0) || list.zeroTf) positive = false;
  }
  // (One window only: over several, reading them whole measured no better, and at times worse, than noting first adds.)
  const scan = positive && seqs.length <= WINDOW && postings * SCAN_DENSITY >= seqs.length;
  const best = new TopK(limit);
  let bar = best.bar();
  for (let start = 0; start < seqs.length; start += WINDOW) {
    const end = start + WINDOW;
    let touchedCount = 0;
    let left = 0;
    for (const cursor of cursors) {
      const { gaps, tfs, count, bigTfs } = cursor.list;
      const idf = cursor.idf;
      // contribution()'s dividend at tf 1 (idf * 1 is idf, to the bit): most postings have tf 1.
      const once = idf * (BM25_K1 + 1);
      let { i, at, slot } = cursor;
      while (i < count) {
        let next = at;
        let byte = gaps[next++];
        let gap = byte & 127;
        for (let shift = 7; byte > 127; shift += 7) {
          byte = gaps[next++];
          gap |= (byte & 127) << shift;
        }
        if (slot + gap >= end) break;
        slot += gap;
        at = next;
        const tf = tfs[i] === 255 ? bigTfs!.get(i)! : tfs[i];
        const local = slot - start;
        if (!scan && sums[local] === 0) touched[touchedCount++] = local;
        // contribution(idf, tf, length, avgdl), its divisor's length part looked up by length when norms are kept.
        const norm = norms !== undefined ? norms[lengths[slot]] : lengthNorm(lengths[slot], avgdl);
        sums[local] += (tf === 1 ? once : idf * tf * (BM25_K1 + 1)) / (tf + norm);
        i++;
      }
      cursor.i = i;
      cursor.at = at;
      cursor.slot = slot;
      left += count - i;
    }
    // A total below the k-th kept so far cannot enter the top (TopK.offer would refuse it): refused here, unweighed.
    if (scan) {
      for (let local = 0, stop = Math.min(WINDOW, seqs.length - start); local < stop; local++) {
        const total = sums[local];
        if (total === 0) continue;
        sums[local] = 0;
        if (total < bar) continue;
        if (total >= floor && Math.min(1, total / idfSum) >= minScore) {
          best.offer(seqs[start + local], total);
          bar = best.bar();
        }
      }
    }
    for (let k = 0; k < touchedCount; k++) {
      const local = touched[k];
      const total = sums[local];
      sums[local] = 0;
      if (total < bar) continue;
      if (total >= floor && Math.min(1, total / idfSum) >= minScore) {
        best.offer(seqs[start + local], total);
        bar = best.bar();
      }
    }
    if (left === 0) break;
  }
  return best.ranked().map((hit) => ({ seq: hit.seq, score: Math.min(1, hit.score / idfSum) }));
}

/**
 * Lists holding together at least a quarter as many postings as the table has passages are summed by reading each
 * window's sums whole (scoreLists): reading a slot costs less than a quarter of noting a posting's first add.
 */
const SCAN_DENSITY = 4;

/** The part of contribution()'s divisor that depends on the passage's length, computed as contribution() computes it. */
function lengthNorm(length: number, avgdl: number): number {
  return BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl);
}

/** A table's longest passage up to which its lengths' norms are kept (an array by length: 512 KB at most). */
const MAX_NORMED_LENGTH = 65_535;

/**
 * lengthNorm of every length from 0 to the table's longest, for an average length (one per index version, so kept
 * with the agent's table): sumOfLists then divides once a posting instead of twice. Undefined for a table with a
 * passage longer than MAX_NORMED_LENGTH (computed posting by posting then).
 */
export function lengthNorms(table: PassageTable, avgdl: number): Float64Array | undefined {
  let longest = 0;
  for (let i = 0; i < table.lengths.length; i++) if (table.lengths[i] > longest) longest = table.lengths[i];
  if (longest > MAX_NORMED_LENGTH) return undefined;
  const norms = new Float64Array(longest + 1);
  for (let length = 0; length <= longest; length++) norms[length] = lengthNorm(length, avgdl);
  return norms;
}

function normsOf(agent: AgentLists, avgdl: number): Float64Array | undefined {
  if (agent.norms?.avgdl !== avgdl) {
    if (agent.norms) account(agent, -agent.norms.bytes);
    const values = lengthNorms(agent.table!, avgdl);
    agent.norms = { avgdl, values, bytes: values?.byteLength ?? 0 };
    account(agent, agent.norms.bytes);
  }
  return agent.norms.values;
}

/**
 * Adds a list's contributions into `totals` by slot (each computed as bm25_top_passages
 * computes it, in the same order of operations), noting in `touched` each slot it is the
 * first to add to.
 */
function accumulate(list: TermList, idf: number, table: PassageTable, avgdl: number, totals: Float64Array, touched: number[]): void {
  const { gaps, tfs, count } = list;
  const lengths = table.lengths;
  let slot = -1;
  for (let i = 0, at = 0; i < count; i++) {
    let byte = gaps[at++];
    let gap = byte & 127;
    for (let shift = 7; byte > 127; shift += 7) {
      byte = gaps[at++];
      gap |= (byte & 127) << shift;
    }
    slot += gap;
    const tf = tfs[i] === 255 ? list.bigTfs!.get(i)! : tfs[i];
    if (totals[slot] === 0) touched.push(slot);
    totals[slot] += contribution(idf, tf, lengths[slot], avgdl);
  }
}

/** A list's postings compressed (TermList): slots ascending, each with its tf. */
export function encodePostings(slots: ArrayLike<number>, tfs: ArrayLike<number>): TermList {
  const count = slots.length;
  const bytes = new Uint8Array(count * 5);
  const small = new Uint8Array(count);
  let bigTfs: Map<number, number> | undefined;
  let zeroTf = false;
  let at = 0;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    let gap = slots[i] - previous;
    if (!(gap >= 1)) throw new Error('encodePostings: slots must ascend');
    previous = slots[i];
    while (gap > 127) {
      bytes[at++] = (gap & 127) | 128;
      gap >>>= 7;
    }
    bytes[at++] = gap;
    const tf = tfs[i];
    if (tf >= 255) (bigTfs ??= new Map()).set(i, tf);
    if (!(tf > 0)) zeroTf = true;
    small[i] = Math.min(tf, 255);
  }
  return { count, gaps: bytes.slice(0, at), tfs: small, ...(bigTfs ? { bigTfs } : {}), ...(zeroTf ? { zeroTf: true as const } : {}) };
}

/** A compressed list's slots and tfs (the tests' round trip). */
export function decodePostings(list: TermList): { slots: number[]; tfs: number[] } {
  const slots: number[] = [];
  const tfs: number[] = [];
  let slot = -1;
  for (let i = 0, at = 0; i < list.count; i++) {
    let byte = list.gaps[at++];
    let gap = byte & 127;
    for (let shift = 7; byte > 127; shift += 7) {
      byte = list.gaps[at++];
      gap |= (byte & 127) << shift;
    }
    slots.push((slot += gap));
    tfs.push(list.tfs[i] === 255 ? list.bigTfs!.get(i)! : list.tfs[i]);
  }
  return { slots, tfs };
}

/** What a kept list costs, in bytes. */
function listBytes(list: TermList): number {
  return list.gaps.byteLength + list.tfs.byteLength + (list.bigTfs?.size ?? 0) * 32;
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
  const holding = new Set(terms);
  const held = terms
    .flatMap((term, i) => (term.df > 0 ? layersOf(term, weightedIdf(question, i, term), cut, question.avgdl) : []))
    .sort((a, b) => b.bound - a.bound || a.term.termId - b.term.termId || a.kind.localeCompare(b.kind));
  const rest = restBounds(held);
  const floor = minScore * idfSum * (1 - 1e-9);
  // The first layers, as many as firstRead postings allow (at least enough to hold `limit` passages): their best
  // passages, completed, give the k-th score the other layers are judged by.
  let essential = 1;
  for (let passages = held[0].estimate; essential < held.length && (passages < limit || passages + held[essential].estimate <= firstRead); essential++) passages += held[essential].estimate;
  for (;;) {
    if (!(await readLayers(ctx, agentId, question, agent, held.slice(0, essential), cut, holding))) return null;
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

/**
 * A term as MaxScore reads it, at the idf this question gives it: whole when its list is
 * kept, else its layers (only the low one when no posting can be high).
 */
function layersOf(term: TermEntry, idf: number, cut: number, avgdl: number): Layer[] {
  const bound = contribution(idf, term.maxTf, term.minLength, avgdl);
  if (term.list) return [{ term, kind: 'whole', idf, bound, estimate: term.list.count }];
  const low: Layer = { term, kind: 'low', idf, bound: contribution(idf, 1, Math.max(cut, term.minLength), avgdl), estimate: term.layers?.low?.count ?? term.df };
  if (term.maxTf <= 1 && term.minLength >= cut) return [low];
  return [{ term, kind: 'high', idf, bound, estimate: term.layers?.high?.count ?? Math.ceil(term.df * HIGH_LAYER_ESTIMATE) }, low];
}

/** A term's idf as the question weighs it: its share of it (ParsedQuestion.shares; 1 multiplies to the idf itself, to the bit). */
function weightedIdf(question: ParsedQuestion, index: number, term: TermEntry): number {
  return term.idf * question.shares[index];
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
  const table = agent.table!;
  const partial = new Float64Array(table.seqs.length);
  const touched: number[] = [];
  for (const layer of held.slice(0, essential)) accumulate(layerList(layer), layer.idf, table, question.avgdl, partial, touched);
  // The k-th best partial score is a floor to the k-th score.
  const lower = new TopK(limit);
  for (const slot of touched) lower.offer(table.seqs[slot], partial[slot]);
  let kth = Math.max(floor, lower.ranked().length === limit ? lower.ranked()[limit - 1].score : 0);
  const others = held.slice(essential);
  const lookUp = (seqs: number[]) => (others.length === 0 || seqs.length === 0 ? new Map<number, number>() : otherContributions(ctx, agentId, question, others, seqs, cut));
  // A passage no essential layer holds scores at most restBound. When that is not below the k-th, the best partial
  // scores are completed first: their k-th exact score is a higher floor, and fewer layers have to be read whole.
  if (others.length > 0 && restBound * SLACK >= kth) {
    const first = lower.ranked().length < limit ? [] : touched.filter((slot) => partial[slot] >= kth).sort((a, b) => partial[b] - partial[a]).slice(0, PROBE_BATCH);
    const extra = await lookUp(first.map((slot) => table.seqs[slot]));
    if (!extra) return null;
    const exact = new TopK(limit);
    for (const slot of first) exact.offer(table.seqs[slot], partial[slot] + (extra.get(table.seqs[slot]) ?? 0));
    if (exact.ranked().length === limit) kth = Math.max(kth, exact.ranked()[limit - 1].score);
    if (restBound * SLACK >= kth) return { kth };
  }
  const candidates: Array<[slot: number, score: number]> = touched.filter((slot) => partial[slot] + restBound * SLACK >= kth).map((slot) => [slot, partial[slot]]);
  if (others.length > 0 && candidates.length > MAX_PROBED) return { kth };
  candidates.sort((a, b) => b[1] - a[1] || table.seqs[a[0]] - table.seqs[b[0]]);
  const best = new TopK(limit);
  for (let at = 0; at < candidates.length && candidates[at][1] + restBound * SLACK >= kth; ) {
    const batch = candidates.slice(at, at + PROBE_BATCH).filter(([, score]) => score + restBound * SLACK >= kth);
    at += PROBE_BATCH;
    const extra = await lookUp(batch.map(([slot]) => table.seqs[slot]));
    if (!extra) return null;
    for (const [slot, score] of batch) best.offer(table.seqs[slot], score + (extra.get(table.seqs[slot]) ?? 0));
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
  const idfOf = new Map<TermEntry, number>();
  for (const layer of others) {
    kinds.set(layer.term, (kinds.get(layer.term) ?? new Set()).add(layer.kind));
    idfOf.set(layer.term, layer.idf);
  }
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
    sums.set(seq, (sums.get(seq) ?? 0) + contribution(idfOf.get(term)!, tf, length, question.avgdl));
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

  /** The score below which an offer is refused: the last one kept once there are `size`, else none. */
  bar(): number {
    return this.hits.length === this.size ? this.hits[this.size - 1].score : -Infinity;
  }
}

function ahead(seq: number, score: number, other: ScoredPassage): boolean {
  return score > other.score || (score === other.score && seq < other.seq);
}

/**
 * What a score is divided by: each word weighs the most one of its terms the index holds can
 * add, its idf at the question's share of it (a looser form rarer than the word, held at a
 * lower share, weighs no more than it adds, so it does not lower every passage's share); a
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
    for (const term of word) if (terms[term].df > 0) best = Math.max(best, weightedIdf(question, term, terms[term]));
    total += best >= 0 ? best : absent;
  }
  return total;
}

/**
 * Parses the question with each configuration: the first (the question's own language's)
 * decides its words (what it stops is no word); the others add the lexemes they give at the
 * same place of the question as further forms of those words, and the agent's passages'
 * own configurations (agent_stats.configs) are always among them. One statement, that also
 * reads the index's version and statistics (readParses: on the embedded store one statement
 * for an event-loop turn's questions). A word's and an alternative's lexemes are kept in the
 * process (wordParses), so only those not yet known are parsed with it. Undefined when the
 * agent has no passages.
 */
export async function parseQuestion(
  ctx: Context,
  agentId: string,
  configs: string[],
  query: string,
  alternatives: Alternative[] = [],
): Promise<ParsedQuestion | undefined> {
  const known = wordParsesOf(ctx);
  const lexemes = new Map<string, string[]>();
  const missing: WordParse[] = [];
  const want = (config: string, text: string) => {
    const key = wordKey(config, text);
    if (lexemes.has(key)) return;
    const kept = known.get(key);
    if (kept) lexemes.set(key, kept);
    else if (!missing.some(([c, t]) => c === config && t === text)) missing.push([config, text]);
  };
  const alternativeConfigs = configs.slice(0, 2);
  // No configuration, no alternative (the statement parsed them with a null configuration: no lexeme).
  if (configs.length === 0) alternatives = [];
  for (const [word, alternative] of alternatives) {
    want(configs[0], word);
    for (const config of alternativeConfigs) want(config, alternative);
  }
  const asked: ParseAsked = { agentId, configs, query, words: missing };
  const read = await statementGroupsOf(parseReaders, ctx.db, (group: ParseAsked[]) => readParses(ctx.db, group)).submit(asked);
  for (const [config, text] of missing) {
    const key = wordKey(config, text);
    const parsed = read.words.get(key)!;
    lexemes.set(key, keepBounded(known, key, MAX_WORD_PARSES, parsed));
  }
  if (!read.stats || read.stats.n <= 0) return undefined;
  const { version, n, total, parsed } = read.stats;
  // The alternatives' lexemes in the order the statement gave them when it parsed them itself (by configuration, then the
  // alternatives in order, then the word's lexemes, then the alternative's, each tsvector's in its own order): the
  // order of the terms follows it.
  const alternative: Array<[string, string, number]> = [];
  for (const config of alternativeConfigs) {
    for (const [word, form, share] of alternatives) {
      for (const wordLexeme of lexemes.get(wordKey(configs[0], word))!) {
        for (const formLexeme of lexemes.get(wordKey(config, form))!) alternative.push([wordLexeme, formLexeme, share ?? 1]);
      }
    }
  }
  return { version, n, avgdl: Math.max(total / n, 1), ...questionWords(parsed, alternative) };
}

/** A word or an alternative to parse with a configuration: [configuration, text]. */
type WordParse = [config: string, text: string];

interface ParseAsked {
  agentId: string;
  configs: string[];
  query: string;
  /** Words and alternatives whose lexemes the process does not know yet. */
  words: WordParse[];
}

interface ParseRead {
  /** The agent's index version and statistics with the question's lexemes; undefined without a statistics row. */
  stats?: { version: string; n: number; total: number; parsed: Array<[number, string, number[] | null]> };
  /** The lexemes of the words asked, by wordKey (of the whole turn's: each answer takes its own). */
  words: Map<string, string[]>;
}

/**
 * The parses in groups, one statement a group (platform/grouped-statements.ts): on PostgreSQL the questions that arrive while
 * a group is in flight go together as the next (none waits longer than one statement), on the embedded store each
 * event-loop turn's (gatherTurn).
 */
const parseReaders = new WeakMap<Db, StatementGroups<ParseAsked, ParseRead>>();

/**
 * The lexemes of words and alternatives by configuration, kept by context (as the lists are:
 * its database's configurations are its own, and PostgreSQL's and PGlite's versions may stem
 * a word differently). to_tsvector is immutable, so a kept parse is what the statement would
 * give. The alternatives come from the process's lexicons: a few tens an English question,
 * two thirds of its parse's work when the statement parsed them at every question. Cleared
 * when full (20,000 parses: about 4 MB).
 */
const wordParses = new WeakMap<Context, Map<string, string[]>>();
const MAX_WORD_PARSES = 20_000;

function wordParsesOf(ctx: Context): Map<string, string[]> {
  return wordParses.get(ctx) ?? wordParses.set(ctx, new Map()).get(ctx)!;
}

function wordKey(config: string, text: string): string {
  return `${config}\u0000${text}`;
}

/**
 * The questions asked, each with its agent's index version and statistics and its lexemes in
 * every configuration, and the lexemes of the words asked (the union of the questions'), in
 * one statement: a group's (parseReaders).
 */
async function readParses(db: Db, asked: ParseAsked[]): Promise<ParseRead[]> {
  const words = new Map<string, WordParse>();
  for (const each of asked) for (const [config, text] of each.words) words.set(wordKey(config, text), [config, text]);
  const pairs = [...words.values()];
  for (const each of asked) {
    if (each.configs.some((config) => config.includes(','))) throw new Error(`a text search configuration's name with a comma: ${each.configs.join(' ')}`);
  }
  // The question's values are each read through a scalar subquery, so that the plan cannot depend on them: PostgreSQL
  // then keeps one plan for the prepared statement (generic) instead of planning it anew for every question, which
  // took about four times its execution (docs/performance.md, "Capacity", fourth round). A question's configurations
  // go as one text (a name has no comma), as arrays of arrays must be rectangular.
  const { rows } = await prepared(
    db,
    sql<{ i: number; version: string | null; n: number | null; total: number | null; parsed: unknown; lexemes: string[] | null }>`
    select q.i::int as i, a.version::text as version, a.passage_count::float8 as n, a.total_length::float8 as total,
      (select coalesce(json_agg(json_build_array(c.i, l.lexeme, l.positions)), '[]')
        from (select name, min(i) as i from unnest(string_to_array(q.configs, ',') || a.configs) with ordinality as c(name, i) group by name) c
        cross join lateral unnest(to_tsvector(c.name::regconfig, q.query)) as l) as parsed,
      null::text[] as lexemes
    from unnest((select ${asked.map((a) => a.agentId)}::text[]), (select ${asked.map((a) => a.configs.join(','))}::text[]),
      (select ${asked.map((a) => a.query)}::text[])) with ordinality as q(agent_id, configs, query, i)
    join agent_stats a on a.agent_id = q.agent_id
    union all
    select -w.i::int, null, null, null, null, tsvector_to_array(to_tsvector(w.config::regconfig, w.text))
    from unnest((select ${pairs.map(([config]) => config)}::text[]), (select ${pairs.map(([, text]) => text)}::text[])) with ordinality as w(config, text, i)`,
  );
  const byQuestion = new Map<number, ParseRead['stats']>();
  const lexemes = new Map<string, string[]>();
  for (const row of rows) {
    const i = Number(row.i);
    if (i < 0) {
      const [config, text] = pairs[-i - 1];
      lexemes.set(wordKey(config, text), row.lexemes ?? []);
      continue;
    }
    const parsed = (typeof row.parsed === 'string' ? JSON.parse(row.parsed) : row.parsed) as Array<[number, string, number[] | null]>;
    byQuestion.set(i, { version: row.version!, n: Number(row.n), total: Number(row.total), parsed });
  }
  return asked.map((_, i) => ({ stats: byQuestion.get(i + 1), words: lexemes }));
}

/**
 * The question with further forms of its words added (a word's index, the form's term, its share
 * of the idf), as questionWords adds alternatives: a term already in the question keeps its
 * place, and a term several words have counts its largest share.
 */
export function withFurtherForms(question: ParsedQuestion, forms: Array<{ word: number; term: string; share: number }>): ParsedQuestion {
  if (forms.length === 0) return question;
  const terms = [...question.terms];
  const shares = [...question.shares];
  const words = question.words.map((word) => [...word]);
  for (const { word, term, share } of forms) {
    let at = terms.indexOf(term);
    if (at < 0) at = terms.push(term) - 1;
    shares[at] = Math.max(shares[at] ?? 0, share);
    if (!words[word].includes(at)) words[word].push(at);
  }
  return { ...question, terms, words, shares };
}

/**
 * The words of a question from its lexemes by configuration (1 the first) and places; a
 * word's alternatives (its synonyms or translations, as lexemes of the first two
 * configurations: the question's language's and the agent's) are further forms of it, each
 * at its share of the idf (a term several words have counts its largest).
 */
function questionWords(parsed: Array<[number, string, number[] | null]>, alternatives: Array<[string, string, number]> = []): { terms: string[]; words: number[][]; shares: number[] } {
  const terms: string[] = [];
  const shares: number[] = [];
  const indexOf = new Map<string, number>();
  const termIndex = (term: string, share = 1) => {
    let at = indexOf.get(term);
    if (at === undefined) indexOf.set(term, (at = terms.push(term) - 1));
    shares[at] = Math.max(shares[at] ?? 0, share);
    return at;
  };
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
  for (const [wordLexeme, alternative, share] of alternatives) {
    const at = indexOf.get(wordLexeme);
    if (at === undefined) continue;
    for (const word of words) if (word.has(at)) word.add(termIndex(alternative, Number(share)));
  }
  return { terms, words: words.map((word) => [...word]), shares };
}

/**
 * The question's terms, from memory or read now, with their lists when all of them can be
 * kept: within the process's cap (config.searchMemoryBytes, the agent's other terms let go
 * as needed), or within fullReadPostings postings together when the tests name it. Null
 * when the index moved meanwhile.
 */
async function termsFor(ctx: Context, agentId: string, question: ParsedQuestion, fullReadPostings?: number): Promise<{ agent: AgentLists; terms: TermEntry[] } | null> {
  const kept = keptFor(ctx);
  let agent = kept.agents.get(agentId);
  if (agent?.version !== question.version) {
    // The lists of another version are not this one's, but its passages mostly are: the table is read on from them.
    const earlier = agent?.table ?? agent?.earlier;
    if (agent) forget(kept, agent);
    agent = { agentId, version: question.version, terms: new Map(), bytes: 0, earlier };
  }
  // Most recently used last: the first agents are the ones let go once their terms are.
  kept.agents.delete(agentId);
  kept.agents.set(agentId, agent);
  const current = agent;
  const giveUp = () => {
    if (kept.agents.get(agentId) === current) forget(kept, current);
    return null;
  };
  if (!agent.table) {
    const table = await readTable(ctx, agentId, question, agent.earlier);
    if (!table) return giveUp();
    if (!agent.table) {
      agent.table = table;
      agent.earlier = undefined;
      account(agent, tableBytes(table));
    }
  }
  // Kept (it is read once per version), but its lists cannot be read as offsets: the database answers.
  if (!offsetsFit(agent.table)) return null;
  // The entries are taken now: another question may let some go while this one reads.
  const entries = new Map(question.terms.map((term) => [term, agent.terms.get(term)]));
  const missing = question.terms.filter((term) => !entries.get(term)?.list);
  if (missing.length > 0) {
    const keptPostings = question.terms.reduce((sum, term) => sum + (entries.get(term)?.list ? entries.get(term)!.df : 0), 0);
    const budget = fullReadPostings !== undefined ? Math.max(0, fullReadPostings - keptPostings) : Math.max(FULL_READ_POSTINGS - keptPostings, roomFor(ctx, agent, question, entries));
    const unread = notWhole(missing.map((term) => entries.get(term)), budget) ? missing.filter((term) => !entries.get(term)) : missing;
    if (unread.length > 0) {
      // Lists that cannot all be read whole are read as none: the unknown terms' statistics alone.
      const read = await readTerms(ctx, agentId, question, unread, agent, unread === missing ? budget : -1);
      if (!read) return giveUp();
      for (const [term, entry] of read) entries.set(term, keep(ctx, agent, term, entry));
    }
  }
  const terms = question.terms.map((term) => entries.get(term)!);
  for (const entry of terms) touch(kept, agent, entry);
  letGo(ctx, kept, new Set(terms));
  return { agent, terms };
}

/**
 * Whether the statistics kept of the question's missing lists (entries of this index version,
 * read for an earlier question) already show they cannot be read whole, as readTerms would
 * find: together more than `budget` postings, or one longer than MAX_LIST_LENGTH. Then their
 * statistics need not be read again for every question of common words.
 */
function notWhole(known: Array<TermEntry | undefined>, budget: number): boolean {
  let postings = 0;
  for (const entry of known) {
    if (!entry) continue;
    if (entry.df > MAX_LIST_LENGTH) return true;
    postings += entry.df;
  }
  return postings > budget;
}

/**
 * The postings the question's missing lists may hold together and still be kept: the cap,
 * less the agent's table and the question's lists kept already (the agent's
 * other terms and other agents are let go for them, least recently used first).
 */
function roomFor(ctx: Context, agent: AgentLists, question: ParsedQuestion, entries: Map<string, TermEntry | undefined>): number {
  const n = agent.table?.seqs.length ?? question.n;
  let used = agent.table ? tableBytes(agent.table) : n * 12;
  for (const entry of entries.values()) if (entry) used += entryBytes(entry);
  return Math.max(0, Math.floor((ctx.config.searchMemoryBytes - used) / ESTIMATED_POSTING_BYTES));
}

/** Keeps a term's entry read now in place of the one kept (whose layers stay when the list is not whole); returns the entry kept. */
function keep(ctx: Context, agent: AgentLists, term: string, entry: TermEntry): TermEntry {
  const old = agent.terms.get(term);
  // Layers read for an earlier question stay (the same version: the same postings) until the list is kept whole.
  if (old?.layers && !entry.list) entry.layers = old.layers;
  if (old) account(agent, -entryBytes(old));
  agent.terms.set(term, entry);
  account(agent, entryBytes(entry));
  return entry;
}

function account(agent: AgentLists, bytes: number): void {
  agent.bytes += bytes;
}

function entryBytes(entry: TermEntry): number {
  return TERM_BYTES + (entry.list ? listBytes(entry.list) : 0) + (entry.layers?.high ? listBytes(entry.layers.high) : 0) + (entry.layers?.low ? listBytes(entry.layers.low) : 0);
}

function tableBytes(table: PassageTable): number {
  return table.seqs.byteLength + table.lengths.byteLength + (table.slotByOffset?.byteLength ?? 0);
}

/**
 * Lets an agent's lists go whole (a moved version, or past the cap): its places in the
 * recency order go too, which would otherwise keep its lists in memory uncounted.
 */
function forget(kept: Kept, agent: AgentLists): void {
  if (kept.agents.get(agent.agentId) === agent) kept.agents.delete(agent.agentId);
  for (const term of agent.terms.keys()) {
    const key = `${agent.agentId}\u0000${term}`;
    if (kept.recent.get(key)?.agent === agent) kept.recent.delete(key);
  }
}

/** The term was used now: it is let go after the ones used before it. */
function touch(kept: Kept, agent: AgentLists, entry: TermEntry): void {
  if (agent.terms.get(entry.term) !== entry) return;
  // Its key and place made once (every question touches each of its terms: making them each time was most of this).
  if (entry.recency?.place.agent !== agent) entry.recency = { key: `${agent.agentId}\u0000${entry.term}`, place: { agent, term: entry.term } };
  kept.recent.delete(entry.recency.key);
  kept.recent.set(entry.recency.key, entry.recency.place);
}

/**
 * Lets terms go, least recently used first, while the process keeps more than its cap (the
 * entries the question being answered holds stay); then, if still over, whole agents, the
 * least recently searched first (a table of a large agent whose terms are all gone).
 */
function letGo(ctx: Context, kept: Kept, holding: Set<TermEntry>): void {
  const cap = ctx.config.searchMemoryBytes;
  let total = 0;
  for (const agent of kept.agents.values()) total += agent.bytes;
  if (total <= cap) return;
  for (const [key, { agent, term }] of kept.recent) {
    if (total <= cap) break;
    const entry = agent.terms.get(term);
    if (kept.agents.get(agent.agentId) !== agent || !entry) {
      kept.recent.delete(key); // of a version let go
      continue;
    }
    if (holding.has(entry)) continue;
    kept.recent.delete(key);
    agent.terms.delete(term);
    const bytes = entryBytes(entry);
    agent.bytes -= bytes;
    total -= bytes;
  }
  const holders = new Set([...holding].map((entry) => entry.term));
  for (const agent of kept.agents.values()) {
    if (total <= cap) break;
    if ([...agent.terms.keys()].some((term) => holders.has(term) && holding.has(agent.terms.get(term)!))) continue;
    forget(kept, agent);
    total -= agent.bytes;
  }
}

/**
 * The agent's passages, in passage number order, with their lengths, read in one statement
 * with the version (12 bytes a passage: int8send of the number, int4send of the length, in
 * base64: asBytes); null when the version moved. Given the table of an earlier version, only
 * the passages numbered after its last are read, when the agent's passage count shows that
 * none of the earlier table's passages went (laterPassagesOnly); otherwise all of them.
 */
async function readTable(ctx: Context, agentId: string, question: ParsedQuestion, earlier?: PassageTable): Promise<PassageTable | null> {
  const last = earlier && earlier.seqs.length > 0 ? earlier.seqs[earlier.seqs.length - 1] : -1;
  const { rows } = await sql<{ version: string; after: string; passages: string | null }>`
    with a as (select version::text as version, passage_count from agent_stats where agent_id = ${agentId}),
    start as (select ${laterPassagesOnly(agentId, earlier ? earlier.seqs.length : -1, last)} as after)
    select a.version, (select after from start)::text as after,
      (select encode(string_agg(int8send(p.seq) || int4send(p.length), ''::bytea), 'base64') from passages p
        where p.agent_id = ${agentId} and p.seq > (select after from start)) as passages
    from a`.execute(ctx.db);
  if (rows[0]?.version !== question.version) return null;
  const read = passageRows(asBytes(rows[0].passages) ?? new Uint8Array(0));
  keptFor(ctx).tableRowsRead += read.seqs.length;
  const table = earlier && Number(rows[0].after) === last && last >= 0 ? joinTables(earlier, read) : read;
  const slotByOffset = slotsByOffset(table.seqs);
  return slotByOffset ? { ...table, slotByOffset } : table;
}

/**
 * The number after which readTable reads the passages: the earlier table's last when the agent has exactly as many
 * passages as the earlier table plus those numbered after its last, otherwise -1 (all of them). Exact: a passage is
 * never given a number below one already committed for its agent (its writers hold the agent's statistics row while
 * they take numbers and until they commit: indexing.ts), and a passage's length never changes, so the earlier
 * table's passages still there are all the agent's up to its last, and when they are as many, they are all of them.
 * (A CASE, so that the count is made only when there is an earlier table.)
 */
function laterPassagesOnly(agentId: string, earlierCount: number, last: number) {
  return sql`case when ${earlierCount}::int >= 0 and (select passage_count from a)::bigint
      = ${earlierCount}::bigint + (select count(*) from passages p where p.agent_id = ${agentId} and p.seq > ${last}::bigint)
    then ${last}::bigint else -1::bigint end`;
}

/** A table of passages' rows (number and length, 12 bytes each), put in number order if the read did not keep it. */
function passageRows(bytes: Uint8Array): PassageTable {
  const count = bytes.byteLength / 12;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let seqs = new Float64Array(count);
  let lengths = new Uint32Array(count);
  let sorted = true;
  let longest = 0;
  for (let i = 0, at = 0; i < count; i++, at += 12) {
    seqs[i] = view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
    lengths[i] = view.getInt32(at + 8);
    if (i > 0 && seqs[i] < seqs[i - 1]) sorted = false;
    if (lengths[i] > longest) longest = lengths[i];
  }
  if (!sorted) {
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => seqs[a] - seqs[b]);
    seqs = Float64Array.from(order, (i) => seqs[i]);
    lengths = Uint32Array.from(order, (i) => lengths[i]);
  }
  return { seqs, lengths: longest < 2 ** 16 ? Uint16Array.from(lengths) : lengths };
}

/** An earlier table followed by the passages numbered after its last (new arrays: a question of the earlier version may still sum over it). */
function joinTables(earlier: PassageTable, later: PassageTable): PassageTable {
  const count = earlier.seqs.length + later.seqs.length;
  const seqs = new Float64Array(count);
  seqs.set(earlier.seqs);
  seqs.set(later.seqs, earlier.seqs.length);
  const wide = earlier.lengths instanceof Uint32Array || later.lengths instanceof Uint32Array;
  const lengths = wide ? new Uint32Array(count) : new Uint16Array(count);
  lengths.set(earlier.lengths);
  lengths.set(later.lengths, earlier.lengths.length);
  return { seqs, lengths };
}

/** At most this many offsets a passage in slotsByOffset's array (4 bytes each, beside the table's 10 a passage). */
const SPARSE_OFFSETS = 2;

/**
 * The slots by offset from the first number, when the agent's numbers span at most
 * SPARSE_OFFSETS times as many as it has passages (an agent whose passages were written
 * together, less what was deleted since); otherwise (many agents writing at once) none, and
 * termList searches the table.
 */
function slotsByOffset(seqs: Float64Array): Int32Array | undefined {
  if (seqs.length === 0) return undefined;
  const span = seqs[seqs.length - 1] - seqs[0] + 1;
  if (span > SPARSE_OFFSETS * seqs.length) return undefined;
  const slots = new Int32Array(span).fill(-1);
  for (let slot = 0; slot < seqs.length; slot++) slots[seqs[slot] - seqs[0]] = slot;
  return slots;
}

/**
 * Reads the given layers' postings (those not read yet) in one statement that also reads the
 * version; false when one is too long to keep or the index moved.
 */
async function readLayers(ctx: Context, agentId: string, question: ParsedQuestion, agent: AgentLists, layers: Layer[], cut: number, holding: Set<TermEntry>): Promise<boolean> {
  const missing = layers.filter((layer) => layer.kind !== 'whole' && !layer.term.layers?.[layer.kind]);
  if (missing.length === 0) return true;
  const { rows } = await sql<{ version: string; at: number | null; count: number | null; postings: string | null }>`
    with v as (select version::text as version from agent_stats where agent_id = ${agentId})
    select v.version, x.at, l.count, l.postings
    from v left join unnest(${missing.map((layer) => layer.term.termId)}::bigint[], ${missing.map((layer) => layer.kind === 'high')}::boolean[]) with ordinality as x(term_id, high, at) on true
    left join lateral (
      -- In the index's order (no sort), and no further than one past the longest list kept.
      select count(*)::int as count, ${postingsBytes(agent.table!)} as postings
      from (select passage_seq, tf from passage_postings p where p.term_id = x.term_id and (p.tf > 1 or p.length < ${cut}) = x.high limit ${MAX_LIST_LENGTH + 1}) p
    ) l on true`.execute(ctx.db);
  if (rows[0]?.version !== question.version || rows.some((row) => Number(row.count) > MAX_LIST_LENGTH)) return false;
  for (const row of rows) {
    const layer = missing[Number(row.at) - 1];
    const list = termList(agent.table!, asBytes(row.postings));
    if (!list) return false;
    // The question's entries are the ones maxScoreTop holds: their layers are filled in place (and counted while kept).
    layer.term.layers = { ...layer.term.layers, [layer.kind]: list };
    if (agent.terms.get(layer.term.term) === layer.term) account(agent, listBytes(list));
  }
  letGo(ctx, keptFor(ctx), holding);
  return true;
}

/**
 * Reads the terms' statistics, and their lists when they hold at most `budget` postings
 * together (and none more than MAX_LIST_LENGTH), in one statement that also reads the
 * version, so they are of one state of the index. Null when the version moved. A list is
 * read from the agent's blocks (its postings up to the blocks' watermark, blocks.ts) followed
 * by the postings numbered past the watermark from passage_postings; an agent without
 * blocks reads them all from passage_postings.
 */
async function readTerms(ctx: Context, agentId: string, question: ParsedQuestion, terms: string[], agent: AgentLists, budget: number): Promise<Map<string, TermEntry> | null> {
  const { rows } = await sql<{ version: string; fits: boolean | null; term: string | null; term_id: number | null; df: number | null; max_tf: number | null; min_length: number | null; blocks: string | null; postings: string | null }>`
    with v as (select version::text as version from agent_stats where agent_id = ${agentId}),
    w as (select coalesce((select through_seq from agent_blocks where agent_id = ${agentId}), -1) as through),
    t as (select term, df, term_id, max_tf, min_length from agent_term_stats where agent_id = ${agentId} and term = any(${terms}::text[])),
    whole as (select coalesce(sum(df), 0) <= ${Number.isFinite(budget) ? budget : Number.MAX_SAFE_INTEGER}::float8 and coalesce(max(df), 0) <= ${MAX_LIST_LENGTH} as fits from t)
    select v.version, (select fits from whole) as fits, t.term, t.term_id::float8 as term_id, t.df, t.max_tf, t.min_length, l.blocks, l.postings
    from v left join t on true left join lateral (
      select
        -- Each block behind a header of 16 bytes: its first number, its postings, its bytes (blocksList).
        (select encode(string_agg(int8send(b.first_seq) || int4send(b.count) || int4send(length(b.bytes)) || b.bytes, ''::bytea order by b.first_seq), 'base64')
         from term_blocks b where b.agent_id = ${agentId} and b.term_id = t.term_id) as blocks,
        -- In the index's order: an order by here would sort each list again (three times the read's cost at 30,000 postings).
        (select ${postingsBytes(agent.table!)} from passage_postings p where p.term_id = t.term_id and p.passage_seq > (select through from w)) as postings
      where (select fits from whole)
    ) l on true`.execute(ctx.db);
  if (rows[0]?.version !== question.version) return null;
  const byTerm = new Map(rows.filter((row) => row.term !== null).map((row) => [row.term!, row]));
  const whole = rows[0].fits !== false;
  const entries = new Map<string, TermEntry>();
  for (const term of terms) {
    const row = byTerm.get(term);
    const df = Number(row?.df ?? 0);
    const idf = Math.log(1 + (question.n - df + 0.5) / (df + 0.5));
    const maxTf = Number(row?.max_tf ?? 1);
    const minLength = Number(row?.min_length ?? 0);
    const entry: TermEntry = { term, termId: Number(row?.term_id ?? 0), df, idf, maxTf, minLength, bound: contribution(idf, maxTf, minLength, question.avgdl) };
    if (whole) {
      const blocks = asBytes(row?.blocks ?? null);
      const list = blocks ? blocksList(agent.table!, blocks, asBytes(row?.postings ?? null)) : termList(agent.table!, asBytes(row?.postings ?? null));
      if (!list) return null;
      entry.list = list;
    }
    entries.set(term, entry);
  }
  return entries;
}

/**
 * A list's postings as one bytea, 8 bytes each (the passage number less the table's first
 * as int4, tf as int4, big-endian), sent as base64: 10.7 characters a posting where the
 * bytea's own text (hex) of the number as int8 took 24, and the bytes' transfer, not their
 * making, was most of a read (docs/performance.md, "Fifth round (search1m)"). The driver's
 * binary format would carry the bytes as they are, but pg decodes every binary column as
 * UTF-8 text first, which replaces any byte over 127 (brianc/node-postgres#3495). Three
 * arrays read three times slower again, as the driver parses their text number by number.
 * The passage's length is the table's. Aggregated in the index's order: no sort.
 */
function postingsBytes(table: PassageTable) {
  return postingsFrom(firstSeq(table));
}

/**
 * The aggregate of `passage_postings p` rows as base64 bytes, 8 a posting: its number's offset from `base`, then tf.
 * One int8send of offset * 2^32 + tf: the same 8 bytes as int4send(offset) || int4send(tf), one value made a posting
 * instead of three (the aggregate's work is most of the read on the server: about 15% less).
 */
export function postingsFrom(base: number) {
  return sql<string | null>`encode(string_agg(int8send((p.passage_seq - ${base}::bigint) * 4294967296 + p.tf), ''::bytea), 'base64')`;
}
const POSTING_BYTES = 8;

/** The number postingsBytes counts a table's passages from. */
function firstSeq(table: PassageTable): number {
  return table.seqs.length > 0 ? table.seqs[0] : 0;
}

/**
 * Whether every passage of the table is within an int4 of its first (postingsBytes): an agent
 * whose oldest and newest passages are 2^31 numbers apart (the whole service having written
 * that many passages in between) is left to the database function.
 */
function offsetsFit(table: PassageTable): boolean {
  return table.seqs.length === 0 || table.seqs[table.seqs.length - 1] - table.seqs[0] < 2 ** 31;
}

/** A base64 column's bytes (encode(..., 'base64'), whose line breaks Buffer skips). */
function asBytes(base64: string | null): Uint8Array | null {
  return base64 === null ? null : Buffer.from(base64, 'base64');
}

/**
 * A list read as bytes, compressed (TermList): each passage number found in the agent's
 * table (a galloping search forward from the last one: the list comes in passage order).
 * Null when a passage is not in the table (the two were not read at one version).
 */
function termList(table: PassageTable, postings: Uint8Array | null): TermList | null {
  const count = (postings?.byteLength ?? 0) / POSTING_BYTES;
  const slots = new Int32Array(count);
  const tfs = new Int32Array(count);
  if (!postings) return encodePostings(slots, tfs);
  const bytes = new DataView(postings.buffer, postings.byteOffset, postings.byteLength);
  if (table.slotByOffset) return listBySlotOffsets(table.slotByOffset, bytes, slots, tfs);
  const seqs = table.seqs;
  const n = seqs.length;
  const first = firstSeq(table);
  let from = 0;
  let ascending = true;
  for (let i = 0, at = 0; i < count; i++, at += POSTING_BYTES) {
    const seq = first + bytes.getInt32(at);
    if (from > 0 && seqs[from - 1] >= seq) {
      from = 0;
      ascending = false;
    }
    const left = gallop(seqs, from, seq);
    if (left >= n || seqs[left] !== seq) return null;
    slots[i] = left;
    tfs[i] = bytes.getInt32(at + 4);
    from = left + 1;
  }
  return ascending ? encodePostings(slots, tfs) : sortedList(slots, tfs);
}

/** termList with the table's slots by offset: a read a posting. */
function listBySlotOffsets(slotByOffset: Int32Array, bytes: DataView, slots: Int32Array, tfs: Int32Array): TermList | null {
  let ascending = true;
  for (let i = 0, at = 0; i < slots.length; i++, at += POSTING_BYTES) {
    const offset = bytes.getInt32(at);
    const slot = offset >= 0 && offset < slotByOffset.length ? slotByOffset[offset] : -1;
    if (slot < 0) return null;
    if (i > 0 && slot <= slots[i - 1]) ascending = false;
    slots[i] = slot;
    tfs[i] = bytes.getInt32(at + 4);
  }
  return ascending ? encodePostings(slots, tfs) : sortedList(slots, tfs);
}

/** A list read out of passage order (a plan that does not follow the index), sorted by slot. */
function sortedList(slots: Int32Array, tfs: Int32Array): TermList {
  const order = Array.from({ length: slots.length }, (_, i) => i).sort((a, b) => slots[a] - slots[b]);
  return encodePostings(
    order.map((i) => slots[i]),
    order.map((i) => tfs[i]),
  );
}

/**
 * A list read from the term's blocks (blocks.ts: each behind a header of its first number, its postings and its bytes;
 * in number order) and then the postings past the blocks' watermark (as termList reads them). A block's posting whose
 * passage has no slot in the table was deleted since the blocks were built, and is skipped: the table is of the
 * version read with the blocks. A posting past the watermark without a slot means the two were not read at one version
 * (null, as termList).
 */
function blocksList(table: PassageTable, blocks: Uint8Array, tail: Uint8Array | null): TermList | null {
  const tailCount = (tail?.byteLength ?? 0) / POSTING_BYTES;
  // A posting takes a byte of a block at least.
  const slots = new Int32Array(blocks.byteLength + tailCount);
  const tfs = new Int32Array(slots.length);
  const view = new DataView(blocks.buffer, blocks.byteOffset, blocks.byteLength);
  const first = firstSeq(table);
  const byOffset = table.slotByOffset;
  const seqs = table.seqs;
  let from = 0;
  let n = 0;
  let ascending = true;
  /** The passage's slot, or -1 when the table has none (byOffset, else a galloping search forward from the last found). */
  const slotOf = (seq: number): number => {
    if (byOffset) {
      const offset = seq - first;
      return offset >= 0 && offset < byOffset.length ? byOffset[offset] : -1;
    }
    const at = gallop(seqs, from, seq);
    from = at < seqs.length && seqs[at] === seq ? at + 1 : at;
    return at < seqs.length && seqs[at] === seq ? at : -1;
  };
  for (let at = 0; at < blocks.byteLength; ) {
    let seq = view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
    const count = view.getInt32(at + 8);
    const end = at + 16 + view.getInt32(at + 12);
    at += 16;
    from = 0;
    for (let i = 0; i < count; i++) {
      let byte = blocks[at++];
      let head = byte & 127;
      for (let scale = 128; byte >= 128; scale *= 128) {
        byte = blocks[at++];
        head += (byte & 127) * scale;
      }
      const flagged = head % 2 === 1;
      seq += (head - (flagged ? 1 : 0)) / 2;
      let tf = 1;
      if (flagged) {
        byte = blocks[at++];
        tf = byte & 127;
        for (let scale = 128; byte >= 128; scale *= 128) {
          byte = blocks[at++];
          tf += (byte & 127) * scale;
        }
      }
      const slot = slotOf(seq);
      if (slot < 0) continue;
      if (n > 0 && slot <= slots[n - 1]) ascending = false;
      slots[n] = slot;
      tfs[n++] = tf;
    }
    if (at !== end) return null;
  }
  if (tail) {
    const bytes = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    from = 0;
    for (let i = 0, at = 0; i < tailCount; i++, at += POSTING_BYTES) {
      const slot = slotOf(first + bytes.getInt32(at));
      if (slot < 0) return null;
      if (n > 0 && slot <= slots[n - 1]) ascending = false;
      slots[n] = slot;
      tfs[n++] = bytes.getInt32(at + 4);
    }
  }
  return ascending ? encodePostings(slots.subarray(0, n), tfs.subarray(0, n)) : sortedList(slots.subarray(0, n), tfs.subarray(0, n));
}

/** The first index from `from` on whose number is at least `seq` (seqs ascending), by galloping then halving. */
function gallop(seqs: Float64Array, from: number, seq: number): number {
  const n = seqs.length;
  let left = from;
  let right = from;
  for (let step = 1; right < n && seqs[right] < seq; step *= 2) {
    left = right + 1;
    right = left + step;
  }
  if (right > n) right = n;
  while (left < right) {
    const middle = (left + right) >>> 1;
    if (seqs[middle] < seq) left = middle + 1;
    else right = middle;
  }
  return left;
}
