/**
 * Words as the search and the answering code compare them: accents folded and a light
 * stem per language (pure functions). Here, below both, so that the knowledge area's
 * thesaurus (english-wordnet.ts) and the chat area's sentence matching (chat/text.ts)
 * share one stem without the lower area importing the higher one.
 */
import type { Language } from '../agents/schemas.ts';
import { keptOrMade } from '../../platform/kept.ts';

/** Lower case without accents: "Öffnungszeiten" and "offnungszeiten" are one word. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

const ENDINGS = ['ations', 'ation', 'ments', 'ment', 'ingen', 'ungen', 'ing', 'ung', 'ies', 'ied', 'es', 'en', 'ed', 'er', 'ly', 's', 'e', 'n'];

/**
 * Spanish endings of verbs (the persons of the present, the gerund, the participle, the
 * infinitive) and of nouns and adjectives: "abren", "abrimos" and "abrir" are one word.
 * Longest first.
 */
const SPANISH_ENDINGS = ['iendo', 'ieron', 'ando', 'amos', 'emos', 'imos', 'aron', 'ados', 'idos', 'ado', 'ido', 'ais', 'eis', 'as', 'es', 'os', 'an', 'en', 'ar', 'er', 'ir', 'a', 'e', 'o', 's'];

/**
 * A light stem: the word folded, then at most two common endings cut, each only when four
 * letters stay (three for a plural s: "days", "cars"), and at most seven letters kept.
 * "insurers" and "insurer" give "insur", "fitting" and "fit" give "fit" (a doubled
 * consonant left by a cut is undoubled, except l, s and z), "batteries" gives "battery".
 * In Spanish, whose verbs change their endings most, one of SPANISH_ENDINGS is cut
 * instead, when three letters stay.
 */
export function stem(word: string, language?: Language): string {
  return keptOrMade(STEMS[language ?? 'none'], word, MAX_STEMS_KEPT, () => stemOf(word, language));
}

/**
 * The stems already made, per language: one answer stems the same candidate passages
 * several times (retrieval, grounding, sentence picking), and a lookup costs a fraction
 * of folding and cutting again (the capacity bench, docs/performance.md). Bounded.
 */
const STEMS: Record<Language | 'none', Map<string, string>> = { en: new Map(), nl: new Map(), fr: new Map(), de: new Map(), es: new Map(), none: new Map() };
const MAX_STEMS_KEPT = 50_000;

function stemOf(word: string, language?: Language): string {
  let w = fold(word);
  if (/^\d/.test(w)) return w;
  const number = language ? NUMBERS[language].get(w) : undefined;
  if (number) return number;
  if (language === 'es') {
    const ending = SPANISH_ENDINGS.find((e) => w.endsWith(e) && w.length - e.length >= 3);
    return (ending ? w.slice(0, -ending.length) : w).slice(0, 7);
  }
  for (let cut = 0; cut < 2; cut++) {
    const shorter = cutEnding(w);
    if (shorter === w) break;
    w = cut === 0 ? undouble(shorter) : shorter;
  }
  // Dutch doubles a vowel in a closed syllable: "bewaar" and "bewaren", "week" and "weken" are one word.
  if (language === 'nl') w = w.replace(/([aeou])\1([^aeiouy])$/, '$1$2');
  return w.slice(0, 7);
}

/**
 * The numbers two to twelve written as words, per language, read as their digits: "six
 * people" holds the "6" of a table's "Users: 6", "cinq personnes" the "5". (Not one:
 * it is also the article, "un", "een", "ein", "uno".)
 */
const NUMBERS: Record<Language, Map<string, string>> = {
  en: numberWords('two three four five six seven eight nine ten eleven twelve'),
  nl: numberWords('twee drie vier vijf zes zeven acht negen tien elf twaalf'),
  fr: numberWords('deux trois quatre cinq six sept huit neuf dix onze douze'),
  de: numberWords('zwei drei vier funf sechs sieben acht neun zehn elf zwolf'),
  es: numberWords('dos tres cuatro cinco seis siete ocho nueve diez once doce'),
};

function numberWords(list: string): Map<string, string> {
  return new Map(list.split(' ').map((word, i) => [word, String(i + 2)]));
}

function cutEnding(w: string): string {
  for (const ending of ENDINGS) {
    if (!w.endsWith(ending)) continue;
    const rest = w.slice(0, -ending.length);
    if (ending === 's') {
      if (rest.length >= 3 && !/[siu]$/.test(rest)) return rest;
      continue;
    }
    if (rest.length < 4) continue;
    return ending === 'ies' || ending === 'ied' ? `${rest}y` : rest;
  }
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-km-np-rtv-y])\1$/.test(w) ? w.slice(0, -1) : w;
}
