/**
 * The five languages as the search index reads them: which of them a text is written in
 * (eld's small n-gram set narrowed to the five, loaded on first use from eld-five-languages.json; about 10-20 µs for a
 * question) and PostgreSQL's text search configuration that stops and stems each one.
 */
import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LANGUAGES, type Language } from '../agents/schemas.ts';
import { FIVE_LANGUAGES_FILE, type NgramsData } from './eld-five-languages.ts';

type Detector = { detect(text: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> } };

const TEXT_SEARCH_CONFIG: Record<string, string> = { en: 'english', nl: 'dutch', fr: 'french', de: 'german', es: 'spanish' };
/** An unreliable detection (a word or two) counts when its language leads the next by this much (scores 0..1). */
const CLEAR_LEAD = 0.1;
/** Enough of a passage to tell its language; the rest only costs time. */
const DETECTED_CHARS = 1000;
let detector: Promise<Detector> | undefined;
/** The detector once loaded, for the synchronous reading (detectLanguageNow). */
let loaded: Detector | undefined;

/**
 * eld's detector fed only the five languages' n-grams (eld-five-languages.ts: same results as
 * its whole small set narrowed to the five, for a fraction of the memory). The package
 * exports its detector only ready-loaded, so it is taken from its file beside the entry.
 */
function loadDetector(): Promise<Detector> {
  detector ??= (async () => {
    const detectorFile = new URL('../languageDetector.js', import.meta.resolve('eld/small')).href;
    const { createEld } = (await import(detectorFile)) as { createEld(): { instance: Detector & { setLanguageSubset(languages: string[]): unknown }; loadData(data: NgramsData): string } };
    const { instance, loadData } = createEld();
    if (!loadData(JSON.parse(await readFile(FIVE_LANGUAGES_FILE, 'utf8')) as NgramsData)) throw new Error('eld-five-languages.json did not load');
    instance.setLanguageSubset([...LANGUAGES]);
    loaded = instance;
    return instance;
  })();
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
  return languageOf(await loadDetector(), text);
}

/**
 * detectLanguage without waiting, for pure code that runs after a question's language was
 * detected (the answering service always detects it first): undefined while the detector
 * has not been loaded yet.
 */
export function detectLanguageNow(text: string): Language | undefined {
  return loaded ? languageOf(loaded, text) : undefined;
}

/**
 * The languages of the texts read lately, by a hash of the part read (the text itself would keep alive the larger
 * string it may be a slice of): an answer reads its question's language twice (retrieval and the answer's language)
 * and the passages it quotes are read again by every answer that quotes them. Cleared when full.
 */
const detected = new Map<string, Language | undefined>();
const MAX_DETECTED = 5_000;
let runs = 0;

/** How many times the detector itself has run in this process (the readings not served from `detected`). */
export function detectorRuns(): number {
  return runs;
}

function languageOf(detector: Detector, text: string): Language | undefined {
  const sample = text.length > DETECTED_CHARS ? text.slice(0, DETECTED_CHARS) : text;
  const key = hash('sha1', sample, 'base64');
  if (detected.has(key)) return detected.get(key);
  const language = detectedLanguage(detector, sample);
  if (detected.size >= MAX_DETECTED) detected.clear();
  detected.set(key, language);
  return language;
}

function detectedLanguage(detector: Detector, sample: string): Language | undefined {
  runs++;
  const result = detector.detect(sample);
  if (!isLanguage(result.language)) return undefined;
  if (result.isReliable()) return result.language;
  const [first = 0, second = 0] = Object.values(result.getScores()).sort((a, b) => b - a);
  return first - second >= CLEAR_LEAD ? result.language : undefined;
}
