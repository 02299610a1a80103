/**
 * Compounds in the search (docs/chat.md, "The eighth step"). Dutch and German write a
 * compound as one word ("cafeïnevrije", "Horecaklanten"), and PostgreSQL's stemmers keep it
 * one lexeme, so a question naming one of its parts ("Hoe halen jullie de cafeïne eruit?")
 * shares no lexeme with it. A question's word that the agent's index lacks in every form is
 * searched by the index's longer terms that start with it (migration 049 keeps the terms in
 * byte order): the compounds it begins, as a word's further forms are searched. A word the
 * index holds is left alone: its own passages are what it asks for. Only for a question in the
 * material's own language (search.ts): another language's word is no part of the material's
 * compounds ("offer" does not begin "offerte").
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { withFurtherForms, type ParsedQuestion } from './postings.ts';

/** The languages that write compounds as one word. */
const COMPOUNDING = new Set(['nl', 'de']);
/** The shortest term read as a compound's first part (as the offline model's longer forms: chat/offline-model.ts). */
const MIN_PART_LETTERS = 5;
/** Longer terms taken for one word at most, the most frequent first. */
const MAX_COMPOUNDS = 8;

/**
 * The question with the index's compounds that begin each of its absent words added as
 * further forms of that word. Unchanged for a material language that does not compound, or
 * when no word is absent.
 */
export async function withCompounds(ctx: Context, agentId: string, question: ParsedQuestion, language: string): Promise<ParsedQuestion> {
  if (!COMPOUNDING.has(language)) return question;
  const pairs = question.words.flatMap((word, i) => word.filter((term) => question.terms[term].length >= MIN_PART_LETTERS).map((term) => [i, question.terms[term]] as const));
  if (pairs.length === 0) return question;
  const { rows } = await sql<{ word: number; term: string }>`
    with forms(word, term) as (select * from unnest(${pairs.map(([word]) => word)}::int[], ${pairs.map(([, term]) => term)}::text[])),
    absent as (
      select f.word, f.term from forms f
      where not exists (
        select 1 from forms g join agent_term_stats s on s.agent_id = ${agentId} and s.term = g.term
        where g.word = f.word))
    select a.word, c.term from absent a
    cross join lateral (
      select s.term from agent_term_stats s
      where s.agent_id = ${agentId} and s.term ~>=~ a.term and s.term ~<~ (a.term || chr(1114111)) and s.term <> a.term and starts_with(s.term, a.term)
      order by s.df desc, s.term
      limit ${MAX_COMPOUNDS}) c`.execute(ctx.db);
  // A compound counts its whole idf, as a synonym does.
  return withFurtherForms(question, rows.map(({ word, term }) => ({ word, term, share: 1 })));
}
