/**
 * Finding an agent's passages for a question.
 *
 * Lexical: BM25 (k1 1.2, b 0.75) over the stemmed lexemes PostgreSQL full text gives, each
 * passage in its own language, with the term statistics kept in tables by indexing.ts. The
 * question is parsed in its own language (its words: what that language stops is no word)
 * and in the agent's and the passages' languages (further forms of those words), and any
 * passage holding one of them is scored (docs/knowledge.md, "Languages"). The score is
 * normalised to 0..1 by dividing by the words' weights (postings.ts, questionWeight): a
 * passage that holds every word the index knows once at average length scores about 1, and
 * a word the index lacks in every form weighs less than one it holds. That share is then
 * calibrated (SCORE_POWER) so that minSimilarity reads alike on a small site and
 * a large one: the passage that answers often shares one distinctive word of a question of
 * four to six, a sixth of its weight, and must pass the strictest preset (0.55).
 * Vector (when an embedding provider is configured): cosine similarity over pgvector HNSW.
 * Hybrid: reciprocal rank fusion (k 60) of the two lists, each list first cut at
 * minSimilarity, the fused value divided by its maximum (first in both lists) to 0..1.
 * minSimilarity is applied here; callers should not filter the fused score again.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { prepared, type Db } from '../../platform/db.ts';
import { StatementGroups, statementGroupsOf } from '../../platform/grouped-statements.ts';
import { embeddingsEnabled, embedTexts, vectorLiteral, vectorTable } from './embeddings.ts';
import { isLanguage, textSearchConfig } from './languages.ts';
import { parseQuestion, topPassages, type Alternative, type ParsedQuestion } from './postings.ts';
import { agentLanguage } from './store.ts';
import { englishLexicon, synonymsOfOnlyTranslation } from './english-wordnet.ts';
import { translations } from './bilingual.ts';
import { withCompounds } from './compounds.ts';
import { keptOrMade } from '../../platform/kept.ts';

export const RRF_K = 60;
/**
 * The lexical score is the share of the question's weight a passage holds raised to this
 * power: a sixth scores 0.55, a quarter 0.63, a half 0.79, all of it 1. The ranking is the
 * share's; only the scale minSimilarity is read on moves.
 */
export const SCORE_POWER = 1 / 3;

/** A share of the question's weight (0..1) on minSimilarity's scale. */
export function calibrated(share: number): number {
  return share <= 0 ? 0 : Math.min(1, share ** SCORE_POWER);
}

/** The share of the question's weight a score on minSimilarity's scale stands for. */
function shareOf(minSimilarity: number): number {
  return minSimilarity <= 0 ? 0 : minSimilarity ** (1 / SCORE_POWER);
}

export interface SearchInput {
  agentId: string;
  query: string;
  topK: number;
  minSimilarity: number;
  /** The agent's language (en, nl, fr, de, es); read from the agent when left out. */
  language?: string;
  /** The question's own language, when it shows one; the agent's stands in otherwise. */
  questionLanguage?: string;
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
  const questionLanguage = input.questionLanguage ?? language;
  const configs = [textSearchConfig(questionLanguage), textSearchConfig(language)];
  const alternatives = [...(questionLanguage === 'en' ? englishAlternatives(query) : []), ...translatedAlternatives(query, questionLanguage, language)];
  // A question in another language than the material's has no parts of the material's compounds: "offer" does not begin "offerte".
  const compounding = questionLanguage === language ? language : undefined;
  if (!embeddingsEnabled(ctx)) {
    // Lexical ranking is exact, so its first topK are the answer: no wider candidate list, no second read of the texts.
    const hits = await lexicalSearch(ctx, input.agentId, query, configs, input.topK, shareOf(input.minSimilarity), alternatives, compounding);
    return hits.map((hit) => rounded({ ...hit, score: calibrated(hit.score) }));
  }
  const [lexical, vector] = await Promise.all([
    lexicalRanking(ctx, input.agentId, query, configs, candidates, input.minSimilarity, alternatives, compounding),
    vectorSearch(ctx, input.agentId, query, candidates),
  ]);
  const ranked = fuse([lexical, vector.filter((hit) => hit.score >= input.minSimilarity)]).slice(0, input.topK);
  return withPassages(ctx, input.agentId, ranked);
}

/** The lexical candidates of a hybrid search, ranked, without their texts: only the fused first topK are read. */
async function lexicalRanking(ctx: Context, agentId: string, query: string, configs: string[], limit: number, minScore: number, alternatives: Alternatives, language: string | undefined): Promise<Ranked[]> {
  const question = await parsedWithCompounds(ctx, agentId, configs, query, alternatives, language);
  if (!question) return [];
  const top = await topPassages(ctx, agentId, question, limit, shareOf(minScore));
  if (!top) return (await databaseLexicalSearch(ctx, agentId, question, limit, shareOf(minScore))).map(({ passageId, score }) => ({ passageId, score: calibrated(score) }));
  if (top.length === 0) return [];
  const { rows } = await sql<{ seq: number; id: string }>`
    select seq::float8 as seq, id from passages where seq = any(${top.map((hit) => hit.seq)}::bigint[])`.execute(ctx.db);
  const idOf = new Map(rows.map((row) => [Number(row.seq), row.id]));
  return top.flatMap((hit) => {
    const passageId = idOf.get(hit.seq);
    return passageId ? [{ passageId, score: calibrated(hit.score) }] : [];
  });
}

type Alternatives = Alternative[];
/** Synonyms searched for a word, at most (in the file's order); broader nouns likewise. */
const MAX_ALTERNATIVES = 6;
/**
 * The share of its idf a looser alternative adds for a question's word (a verb of one doer, a
 * sister noun its definition names, a noun one sense more general):
 * half, as the offline model holds the word by it (chat/offline-model.ts, NARROWER_SHARE). A
 * founder is a beginner, but not every start is a founding: a passage holding the word itself
 * or a synonym ranks above one holding only such a verb.
 */
export const RELATED_SHARE = 0.5;

/**
 * An English question's words with their synonyms (english-wordnet.ts): "operation" is
 * also searched as "surgery", "started" as "began". Each synonym is a further form of its
 * word: a passage holding either scores for it, and the word weighs what its best held form
 * weighs. A verb is also searched as the verbs of one doer with it, at RELATED_SHARE
 * ("started" as "founded"), and a noun as the sister nouns its definition names, likewise
 * ("monitor" as "screen": english-wordnet.ts), and, when WordNet's tagged texts use it mostly
 * as a noun, as the nouns one sense more general ("house" as "home", "dwelling").
 * The other four languages have no maintained thesaurus here.
 */
export function englishAlternatives(query: string): Alternatives {
  const seen = new Set<string>();
  const out: Alternatives = [];
  for (const word of query.toLowerCase().match(/\p{L}{3,}/gu) ?? []) {
    if (seen.has(word)) continue;
    seen.add(word);
    for (const alternative of englishAlternativesOfWord(word)) out.push(alternative);
  }
  return out;
}

/**
 * A word's alternatives (englishAlternatives), kept by word: the lexicon is the process's, read once, and a question's
 * words recur across questions (looking them up again was 1.2% of the api process in the capacity bench's profile,
 * docs/performance.md, Capacity, twelfth round). Frozen: every question shares them; bounded, cleared when full.
 */
function englishAlternativesOfWord(word: string): readonly Alternative[] {
  return keptOrMade(ENGLISH_ALTERNATIVES, word, MAX_WORDS_ALTERNATIVES, () => {
    const lexicon = englishLexicon();
    const out: Alternative[] = [];
    for (const alternative of lexicon.synonyms(word).slice(0, MAX_ALTERNATIVES)) out.push([word, alternative]);
    for (const verb of lexicon.sameDoer(word).slice(0, MAX_ALTERNATIVES)) out.push([word, verb, RELATED_SHARE]);
    for (const sister of lexicon.sisters(word).slice(0, MAX_ALTERNATIVES)) out.push([word, sister, RELATED_SHARE]);
    // Only a noun the tagged texts use: a rare or technical word's broader nouns are seldom what a visitor means ("quantum", "amount").
    if (lexicon.known(word) && !lexicon.notNoun(word)) for (const broader of lexicon.broader(word).slice(0, MAX_ALTERNATIVES)) out.push([word, broader, RELATED_SHARE]);
    return Object.freeze(out.map((alternative) => Object.freeze(alternative) as Alternative));
  });
}

const ENGLISH_ALTERNATIVES = new Map<string, readonly Alternative[]>();
const MAX_WORDS_ALTERNATIVES = 10_000;

/**
 * A question in another language than the agent's: its words with their translations into
 * the agent's language (bilingual.ts, FreeDict), searched as further forms of them as
 * synonyms are ("afspraak" also as "appointment", "Germany" as "Duitsland"). Into English, a
 * word with one translation is read as that word, so also as its synonyms ("eerste" is only
 * "first": also "initial"; english-wordnet.ts, synonymsOfOnlyTranslation).
 */
export function translatedAlternatives(query: string, questionLanguage: string, agentLanguage: string): Alternatives {
  if (questionLanguage === agentLanguage || !isLanguage(questionLanguage) || !isLanguage(agentLanguage)) return [];
  const seen = new Set<string>();
  const out: Alternatives = [];
  for (const word of query.toLowerCase().match(/\p{L}{3,}/gu) ?? []) {
    if (seen.has(word)) continue;
    seen.add(word);
    const translated = translations(word, questionLanguage, agentLanguage);
    for (const translation of translated.slice(0, MAX_ALTERNATIVES)) out.push([word, translation]);
    // Into English, a word with one translation is that word, with its synonyms ("eerste" first, initial), as an English question's.
    if (agentLanguage === 'en') for (const synonym of synonymsOfOnlyTranslation(translated).slice(0, MAX_ALTERNATIVES)) out.push([word, synonym]);
  }
  return out;
}

/** The question as the index reads it, with the compounds of the material's language that begin a word the index lacks (compounds.ts). */
async function parsedWithCompounds(ctx: Context, agentId: string, configs: string[], query: string, alternatives: Alternatives, language: string | undefined) {
  const question = await parseQuestion(ctx, agentId, configs, query, alternatives);
  return question && language ? withCompounds(ctx, agentId, question, language) : question;
}

function rounded(hit: PassageHit): PassageHit {
  return { ...hit, score: Math.round(hit.score * 10_000) / 10_000 };
}

/**
 * BM25 over the agent's passages, best `limit` first, normalised to 0..1 (the share of the
 * question's weight held, not yet calibrated) and cut at minScore: scored over the posting
 * lists the process keeps (postings.ts), then the passages' texts read in one statement;
 * when a list is too long to keep, by the database function bm25_top_passages
 * (migrations/026), the exact top k by MaxScore pruning (docs/knowledge.md). Both rank
 * alike, to the last bit but for the order of a sum.
 * `configs`: the question's language's first (see parseQuestion).
 */
export async function lexicalSearch(
  ctx: Context,
  agentId: string,
  query: string,
  configs: string[],
  limit: number,
  minScore = 0,
  alternatives: Alternatives = [],
  language?: string,
): Promise<PassageHit[]> {
  const question = await parsedWithCompounds(ctx, agentId, configs, query, alternatives, language);
  if (!question) return [];
  const top = await topPassages(ctx, agentId, question, limit, minScore);
  if (!top) return databaseLexicalSearch(ctx, agentId, question, limit, minScore);
  if (top.length === 0) return [];
  const seqs = top.map((hit) => hit.seq);
  const bySeq = await statementGroupsOf(passageReaders, ctx.db, async (asked: number[][]) => {
    const read = await passagesBySeq(ctx.db, asked.length === 1 ? asked[0] : [...new Set(asked.flat())]);
    return asked.map(() => read);
  }).submit(seqs);
  return top.flatMap((hit) => {
    const row = bySeq.get(hit.seq);
    return row ? [hitOf(row, hit.score)] : [];
  });
}

/** The passages' rows with their sources', by the passages' seq, in one statement. */
async function passagesBySeq(db: Db, seqs: number[]): Promise<Map<number, PassageRowOut>> {
  const { rows } = await prepared(
    db,
    sql<PassageRowOut & { seq: number }>`
    select p.seq::float8 as seq, ${passageColumns}
    from passages p join sources s on s.id = p.source_id
    where p.seq = any(cast((select ${seqs}::bigint[]) as bigint[]))`, // one plan kept, as parseQuestion's (postings.ts)
  );
  return new Map(rows.map((row) => [Number(row.seq), row]));
}

/**
 * The passage reads in groups, one statement a group (platform/grouped-statements.ts: on PostgreSQL the answers' that arrive
 * while a group is in flight, on the embedded store each event-loop turn's): each answer takes its own passages from
 * the rows read.
 */
const passageReaders = new WeakMap<Db, StatementGroups<number[], Map<number, PassageRowOut>>>();

interface PassageRowOut {
  id: string;
  source_id: string;
  source_name: string;
  url: string | null;
  title: string;
  text: string;
}

function hitOf(row: PassageRowOut, score: number): PassageHit {
  return { passageId: row.id, sourceId: row.source_id, sourceName: row.source_name, url: row.url, title: row.title, text: row.text, score };
}

/** The same ranking by the database function alone: one round trip reading the postings it needs. */
export async function databaseLexicalSearch(ctx: Context, agentId: string, question: ParsedQuestion, limit: number, minScore = 0): Promise<PassageHit[]> {
  const pairs = question.words.flatMap((word, i) => word.map((term) => [question.terms[term], i + 1, question.shares[term]] as const));
  if (pairs.length === 0) return [];
  const result = await sql<PassageRowOut & { score: number }>`
    select * from bm25_top_passages(${agentId}, ${pairs.map(([term]) => term)}::text[], ${pairs.map(([, word]) => word)}::integer[],
      ${pairs.map(([, , share]) => share)}::float8[], ${limit}::integer, ${minScore}::float8)`.execute(ctx.db);
  return result.rows.map((row) => hitOf(row, Number(row.score)));
}

/**
 * A passage p with its source s as every text read returns it (PassageRowOut); the
 * address only for a website source's page (see PassageHit.url).
 */
const passageColumns = sql`p.id, p.source_id, s.name as source_name, case when s.type = 'website' then p.url end as url, p.title, p.text`;

/** Nearest passages by cosine similarity (0..1, negative similarities read as 0). */
export async function vectorSearch(ctx: Context, agentId: string, query: string, limit: number): Promise<Ranked[]> {
  const [vector] = await embedTexts(ctx, [query]);
  const table = await vectorTable(ctx);
  // Filtered by agent, the HNSW scan goes on until it has `limit` rows: hnsw.iterative_scan is set on every session (platform/db.ts).
  const literal = vectorLiteral(vector);
  const { rows } = await sql<{ passage_id: string; similarity: number }>`
    select passage_id, (1 - (embedding <=> ${literal}::vector))::float8 as similarity
    from ${sql.table(table)}
    where agent_id = ${agentId} and model = ${ctx.config.embeddingModel}
    order by embedding <=> ${literal}::vector
    limit ${limit}`.execute(ctx.db);
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

/** The ranked passages with their texts, in one statement. */
async function withPassages(ctx: Context, agentId: string, ranked: Ranked[]): Promise<PassageHit[]> {
  if (ranked.length === 0) return [];
  const { rows } = await sql<PassageRowOut>`
    select ${passageColumns}
    from passages p join sources s on s.id = p.source_id
    where p.agent_id = ${agentId} and p.id = any(${ranked.map((hit) => hit.passageId)}::text[])`.execute(ctx.db);
  const read = new Map(rows.map((row) => [row.id, row]));
  return ranked.flatMap((hit) => {
    const row = read.get(hit.passageId);
    return row ? [rounded(hitOf(row, hit.score))] : [];
  });
}
