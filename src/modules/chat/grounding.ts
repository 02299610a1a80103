/**
 * How sure an answer is (docs/chat.md):
 * - confidence (0..100) before the answer is written: the best passage's retrieval
 *   score and the share of the question the passages hold, half each;
 * - grounding after it: each sentence of the answer checked against the passages
 *   used (lexically, or by a second call to the model that answered), and the
 *   confidence capped by the result (partial: 60, unsupported: 20).
 */
import type { LanguageModel } from 'ai';
import { aiSdk } from './ai-sdk.ts';
import type { Language } from '../agents/schemas.ts';
import { askedFor, contentTerms, heldKinds, keptForPassage, questionTerms, sentences, type MadeFromPassage } from './text.ts';
import { isOfflineDecline } from './offline-model.ts';
import { PHRASES } from './language.ts';

export type Grounding = 'supported' | 'partial' | 'unsupported';

export interface UsedPassage {
  /** The passage's id, when it has one (a file read for the question has none): what its terms are kept by (termsOfPassage). */
  id?: string;
  title: string;
  text: string;
  score: number;
}

/** A sentence is supported when this share of its terms occurs in the passages. */
export const SENTENCE_SUPPORT = 0.7;

/**
 * Before the answer: half the best passage's score, half the share of what the question
 * asks the passages hold: its own terms (not the words any question uses, such as "how"
 * or "can", nor those that ask for a kind of fact, such as "how much" or "where are you
 * located"), both stemmed for the answer's language, and the kinds of fact it asks for
 * (text.ts, askedFor: a price, an address), held when a passage holds such a fact.
 */
export function retrievalConfidence(question: string, passages: UsedPassage[], language?: Language): number {
  if (passages.length === 0) return 0;
  const { kinds, rest } = askedFor(question, language);
  const terms = questionTerms(rest, language);
  const asked = new Set([...terms, ...kinds.map((kind) => `#${kind}`)]);
  const held = heldOf(asked, passages, language);
  for (const kind of kinds) if (passages.some((p) => heldKinds(p.text, [kind]).length > 0)) held.add(`#${kind}`);
  const share = asked.size === 0 ? 0 : [...asked].filter((t) => held.has(t)).length / asked.size;
  const best = Math.min(1, Math.max(...passages.map((p) => p.score)));
  return Math.round(100 * (0.5 * best + 0.5 * share));
}

/**
 * The terms of `wanted` that the passages (title and text) hold. Only those are gathered: the passages' terms are
 * hundreds an answer, the wanted a few, and a set of all of them was most of both checks' time (docs/performance.md).
 */
function heldOf(wanted: Set<string>, passages: UsedPassage[], language?: Language): Set<string> {
  const held = new Set<string>();
  for (const passage of passages) {
    if (passage.id === undefined) {
      for (const term of contentTerms(`${passage.title} ${passage.text}`, language)) if (wanted.has(term)) held.add(term);
      continue;
    }
    const terms = termsOfPassage(passage, language);
    for (const term of wanted) if (terms.has(term)) held.add(term);
  }
  return held;
}

/**
 * A found passage's terms (its title's and text's, contentTerms), kept by its id and taken only for the same title,
 * text and language (keptForPassage): both checks read them for every answer, and finding them by the passage's
 * title and text joined made that string and hashed it twice an answer (docs/performance.md, Capacity, eleventh
 * round).
 */
function termsOfPassage(passage: UsedPassage, language: Language | undefined): ReadonlySet<string> {
  return keptForPassage(PASSAGE_TERMS, MAX_PASSAGES_KEPT, passage, language, () => ({
    title: passage.title,
    text: passage.text,
    language,
    terms: new Set(contentTerms(`${passage.title} ${passage.text}`, language)),
  })).terms;
}

interface PassageTerms extends MadeFromPassage {
  terms: ReadonlySet<string>;
}

const PASSAGE_TERMS = new Map<string, PassageTerms[]>();
const MAX_PASSAGES_KEPT = 2_000;

export function cappedConfidence(confidence: number, grounding: Grounding | null): number {
  if (grounding === 'unsupported') return Math.min(confidence, 20);
  if (grounding === 'partial') return Math.min(confidence, 60);
  return confidence;
}

/** Lines that name sources are the service's own, not claims to check. */
export const SOURCE_LINE = /^(sources?|bron(nen)?|quellen?|fuentes?)\s*:/i;

/** The lines before a quote from material in another language ("My information on this is in Dutch:"), in the five languages. */
const OTHER_LANGUAGE_LINES = Object.values(PHRASES).map((phrases) => {
  const [before, after] = phrases.otherLanguage.split('{language}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${before}\\p{L}+${after}$`, 'u');
});

/** The offline model's own lines, which claim nothing from the passages: the source line, the other-language line. */
export function isOwnLine(sentence: string): boolean {
  return SOURCE_LINE.test(sentence) || OTHER_LANGUAGE_LINES.some((line) => line.test(sentence.trim()));
}

/** Lexical check: the share of each answer sentence's terms found in the passages. */
export function lexicalGrounding(answer: string, passages: UsedPassage[]): Grounding {
  // A decline claims nothing from the passages; the next steps it offers are the agent's own.
  if (isOfflineDecline(answer)) return 'unsupported';
  const claims = sentences(answer).filter((s) => !isOwnLine(s) && contentTerms(s).length > 0);
  if (claims.length === 0) return 'unsupported';
  const claimed = claims.map((claim) => contentTerms(claim));
  const held = heldOf(new Set(claimed.flat()), passages);
  const supported = claimed.filter((terms) => terms.filter((t) => held.has(t)).length / terms.length >= SENTENCE_SUPPORT).length;
  if (supported === claims.length) return 'supported';
  return supported === 0 ? 'unsupported' : 'partial';
}

const CHECK_PROMPT = `You check whether an assistant's answer is supported by the passages it was given.
Read each factual statement of the answer. Reply with exactly one word:
supported - every statement is backed by the passages (or the answer only says it does not know);
partial - some statements are backed and some are not;
unsupported - the statements are not backed by the passages.`;

/** A second call to the model that answered; its verdict, or the lexical check when the reply is not one of the three words. */
export async function modelGrounding(model: LanguageModel, answer: string, passages: UsedPassage[]): Promise<Grounding> {
  const material = passages.map((p, i) => `[${i + 1}] ${p.title}\n${p.text}`).join('\n\n');
  try {
    const { generateText } = await aiSdk();
    const { text } = await generateText({
      model,
      system: CHECK_PROMPT,
      prompt: `Passages:\n${material || '(none)'}\n\nAnswer:\n${answer}\n\nVerdict:`,
      temperature: 0,
      maxOutputTokens: 5,
      maxRetries: 1,
      abortSignal: AbortSignal.timeout(20_000),
    });
    const verdict = text.trim().toLowerCase().match(/\b(supported|partial|unsupported)\b/)?.[1];
    if (verdict) return verdict as Grounding;
  } catch {
    // the check is advisory: a provider that fails it leaves the lexical check
  }
  return lexicalGrounding(answer, passages);
}
