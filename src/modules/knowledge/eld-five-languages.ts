/**
 * The five languages' part of eld's small n-gram set (eld-five-languages.json), and how it is
 * derived. eld's `small` entry holds the n-grams of 60 languages as one 1.6 MB JavaScript
 * object literal: compiling it took about 80 MB of native memory (kept by the allocator
 * afterwards) and its objects 45 MB of heap, in every process from its first detected
 * language on (docs/performance.md, Memory). The detector adds up, per language, the
 * weights of the text's n-grams, and a subset keeps only its languages' sums; so the
 * n-grams and weights of the five alone, at their places in the 60, give the same scores
 * and the same results. src/modules/knowledge/languages.test.ts checks the file against
 * eld's set; `node src/modules/knowledge/eld-five-languages.ts` writes it again (after an
 * upgrade of eld).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LANGUAGES } from '../agents/schemas.ts';

export interface NgramsData {
  type: string;
  languages: Record<string, string>;
  ngrams: Record<string, Record<string, number>>;
}

export const FIVE_LANGUAGES_FILE = new URL('./eld-five-languages.json', import.meta.url);

export function fiveLanguagesOf(data: NgramsData): NgramsData {
  const kept = new Set(Object.entries(data.languages).filter(([, code]) => (LANGUAGES as readonly string[]).includes(code)).map(([index]) => index));
  const ngrams: NgramsData['ngrams'] = {};
  for (const [ngram, weights] of Object.entries(data.ngrams)) {
    const ours = Object.fromEntries(Object.entries(weights).filter(([index]) => kept.has(index)));
    if (Object.keys(ours).length > 0) ngrams[ngram] = ours;
  }
  return { type: data.type, languages: data.languages, ngrams };
}

/** eld's own small set, read from its file (the package exports it only inside a detector). */
export async function eldSmallSet(): Promise<NgramsData> {
  return ((await import(new URL('../ngrams/small.js', import.meta.resolve('eld/small')).href)) as { ngramsData: NgramsData }).ngramsData;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(FIVE_LANGUAGES_FILE, JSON.stringify(fiveLanguagesOf(await eldSmallSet())));
  console.log(`wrote ${fileURLToPath(FIVE_LANGUAGES_FILE)}`);
}
