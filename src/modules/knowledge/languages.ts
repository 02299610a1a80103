/**
 * The five languages as the search index reads them: which of them a text is written in
 * (eld's small n-gram set narrowed to the five, loaded on first use; about 10-20 µs for a
 * question) and PostgreSQL's text search configuration that stops and stems each one.
 */
import { LANGUAGES, type Language } from '../agents/schemas.ts';

type Detector = { detect(text: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> } };

const TEXT_SEARCH_CONFIG: Record<string, string> = { en: 'english', nl: 'dutch', fr: 'french', de: 'german', es: 'spanish' };
/** An unreliable detection (a word or two) counts when its language leads the next by this much (scores 0..1). */
const CLEAR_LEAD = 0.1;
/** Enough of a passage to tell its language; the rest only costs time. */
const DETECTED_CHARS = 1000;
let detector: Promise<Detector> | undefined;

function loadDetector(): Promise<Detector> {
  detector ??= import('eld/small').then(({ eld }) => {
    eld.setLanguageSubset([...LANGUAGES]);
    return eld;
  });
  return detector;
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The text search configuration of one of the five languages (English for anything else). */
export function textSearchConfig(language: string | undefined): string {
  return TEXT_SEARCH_CONFIG[language ?? 'en'] ?? 'english';
}

/**
 * The text's language, or undefined when it shows none (digits only, another language,
 * or a word or two that could be several: "Hello" scores Spanish and German alike,
 * "Kosten?" German and Dutch).
 */
export async function detectLanguage(text: string): Promise<Language | undefined> {
  const result = (await loadDetector()).detect(text.slice(0, DETECTED_CHARS));
  if (!isLanguage(result.language)) return undefined;
  if (result.isReliable()) return result.language;
  const [first = 0, second = 0] = Object.values(result.getScores()).sort((a, b) => b - a);
  return first - second >= CLEAR_LEAD ? result.language : undefined;
}
