/**
 * Translations of single words between English and Dutch, French, German and Spanish, from
 * the FreeDict dictionaries Debian packages (dict-freedict-nld-eng, eng-nld, fra-eng,
 * eng-fra, deu-eng, eng-deu, spa-eng, eng-spa; dictd files under /usr/share/dictd, GPL-2+,
 * deu-eng and eng-deu GPL-3+), narrowed to what answering needs: one file per language
 * (bilingual-nl.json …), each word of that language with its English words, both
 * dictionaries of the pair read into it (the English one reversed). Only single words of
 * letters are kept, the first MAX_TRANSLATIONS of a headword; examples, notes and
 * cross-references are left out.
 * Between two languages other than English the translation goes through English ("Daten"
 * data "données"), from the first PIVOT_TRANSLATIONS English words only: each step
 * loosens it.
 * src/modules/knowledge/bilingual.test.ts checks the files against the packages when they
 * are installed (.ci/run installs them); `node src/modules/knowledge/bilingual.ts` writes
 * them again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import type { Language } from '../agents/schemas.ts';
import { fold, stem } from './stemming.ts';
import { ENGLISH_WORDNET_FILE, type EnglishWordnet } from './english-wordnet.ts';

export type ForeignLanguage = Exclude<Language, 'en'>;
export const FOREIGN_LANGUAGES: readonly ForeignLanguage[] = ['nl', 'fr', 'de', 'es'];

/** FreeDict's three-letter names. */
const FREEDICT_CODE: Record<ForeignLanguage, string> = { nl: 'nld', fr: 'fra', de: 'deu', es: 'spa' };

export const DICTD_DIRECTORY = '/usr/share/dictd/';

export function bilingualFile(language: ForeignLanguage): URL {
  return new URL(`./bilingual-${language}.json`, import.meta.url);
}

export interface BilingualData {
  /** One word a line: the word (lower case), then its English words, separated by spaces. */
  toEnglish: string;
}

/** A headword's translations kept, at most (the dictionaries list the usual ones first). */
const MAX_TRANSLATIONS = 4;
/** A word's English words kept, at most, from all its entries in both dictionaries (its own language's first). */
const MAX_WORD_TRANSLATIONS = 6;
/** The English words a pivot goes on from, at most. */
const PIVOT_TRANSLATIONS = 2;
/** Headwords of a language's two dictionaries together above which only common English words are kept (German's: 980,000; Dutch's: 30,000). */
const LARGE_DICTIONARIES = 200_000;
/** Words of at least this many letters (shorter ones are mostly function words and abbreviations). */
const MIN_LETTERS = 3;

const SINGLE_WORD = /^\p{L}+$/u;

/**
 * A dictd dictionary's entries: headword and the translations of its definition lines (a
 * line "1. stop, discontinue" or "data <pl>", without its grammar in brackets; indented
 * lines are notes, examples and cross-references).
 */
export function dictdEntries(dictionary: string): Array<[headword: string, translations: string[]]> {
  const dictDirectory = DICTD_DIRECTORY;
  const index = readFileSync(`${dictDirectory}freedict-${dictionary}.index`, 'utf8');
  const text = gunzipSync(readFileSync(`${dictDirectory}freedict-${dictionary}.dict.dz`));
  const entries: Array<[string, string[]]> = [];
  for (const line of index.split('\n')) {
    const [headword, offset, length] = line.split('\t');
    if (!headword || !offset || headword.startsWith('00-database') || headword.startsWith('00database')) continue;
    const body = text.subarray(base64Number(offset), base64Number(offset) + base64Number(length)).toString('utf8').split('\n');
    const translations = body
      .slice(1)
      .filter((definition) => definition && !/^\s/.test(definition))
      .flatMap((definition) => definition.replace(/^\d+\.\s*/, '').replace(/\s*(<[^>]*>|\([^)]*\)|\[[^\]]*\])/g, '').split(/[,;]\s*/))
      .map((word) => word.trim().normalize('NFKC').toLowerCase());
    entries.push([headword.normalize('NFKC').toLowerCase(), translations]);
  }
  return entries;
}

/** dictd's index numbers: base 64, most significant digit first. */
function base64Number(digits: string): number {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let value = 0;
  for (const digit of digits) value = value * 64 + alphabet.indexOf(digit);
  return value;
}

/** What bilingual-<language>.json holds, from the language's two FreeDict dictionaries with English. */
export function deriveBilingual(language: ForeignLanguage): BilingualData {
  const code = FREEDICT_CODE[language];
  const english = new Map<string, string[]>();
  const add = (word: string, translation: string) => {
    if (word === translation) return;
    const list = english.get(word) ?? english.set(word, []).get(word)!;
    if (!list.includes(translation) && list.length < MAX_WORD_TRANSLATIONS) list.push(translation);
  };
  const joinable = (word: string) => SINGLE_WORD.test(word) && word.length >= MIN_LETTERS;
  const fromLanguage = dictdEntries(`${code}-eng`);
  const fromEnglish = dictdEntries(`eng-${code}`);
  // Dictionaries this large list rare and technical senses too: their English words are kept when in common use.
  const common = fromLanguage.length + fromEnglish.length > LARGE_DICTIONARIES ? commonEnglish() : undefined;
  const usual = (english: string) => !common || common.has(english) || common.has(english.replace(/s$/, ''));
  for (const [headword, translations] of fromLanguage) {
    if (!joinable(headword)) continue;
    for (const translation of translations.filter((t) => joinable(t) && usual(t)).slice(0, MAX_TRANSLATIONS)) add(headword, translation);
  }
  for (const [headword, translations] of fromEnglish) {
    if (!joinable(headword) || !usual(headword)) continue;
    for (const translation of translations.filter(joinable).slice(0, MAX_TRANSLATIONS)) add(translation, headword);
  }
  const lines = [...english].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([word, translations]) => `${word} ${translations.join(' ')}`);
  return { toEnglish: lines.join('\n') };
}

/** The English words WordNet's sense-tagged texts use (english-wordnet.json, its nouns and the rest). */
function commonEnglish(): Set<string> {
  const wordnet = JSON.parse(readFileSync(ENGLISH_WORDNET_FILE, 'utf8')) as EnglishWordnet;
  return new Set([...wordnet.nouns.split(' '), ...wordnet.notNouns.split(' ')]);
}

/** Whether the packages a language's file comes from are installed here. */
export function dictionariesInstalled(language: ForeignLanguage): boolean {
  const code = FREEDICT_CODE[language];
  return [`${code}-eng`, `eng-${code}`].every((dictionary) => existsSync(`${DICTD_DIRECTORY}freedict-${dictionary}.index`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const language of FOREIGN_LANGUAGES) {
    writeFileSync(bilingualFile(language), `${JSON.stringify(deriveBilingual(language))}\n`);
    console.log(`wrote ${fileURLToPath(bilingualFile(language))}`);
  }
}

/**
 * One language's words and English's, both ways, read and indexed on the first question
 * that needs them. Each word's translations are kept as one string of words separated by
 * spaces (a list of strings per word took twice the memory).
 */
interface Dictionary {
  toEnglish: Map<string, string>;
  fromEnglish: Map<string, string>;
}

const dictionaries = new Map<ForeignLanguage, Dictionary>();

function dictionary(language: ForeignLanguage): Dictionary {
  const known = dictionaries.get(language);
  if (known) return known;
  const data = JSON.parse(readFileSync(bilingualFile(language), 'utf8')) as BilingualData;
  const toEnglish = new Map<string, string>();
  const fromEnglish = new Map<string, string>();
  for (const line of data.toEnglish.split('\n')) {
    const space = line.indexOf(' ');
    const word = line.slice(0, space);
    toEnglish.set(word, line.slice(space + 1));
    for (const translation of line.slice(space + 1).split(' ')) {
      const others = fromEnglish.get(translation);
      fromEnglish.set(translation, others ? `${others} ${word}` : word);
    }
  }
  for (const [english, words] of fromEnglish) fromEnglish.set(english, flat(words));
  const loaded = { toEnglish, fromEnglish };
  dictionaries.set(language, loaded);
  return loaded;
}

/** A string joined piece by piece, as one piece of memory. */
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * A word's translations into another language (lower case, as the dictionaries write
 * them): looked up as written, else by any headword of the same light stem (stemming.ts:
 * "afspraken" as "afspraak"). Empty for the same language or a word the dictionaries lack.
 */
export function translations(word: string, from: Language, to: Language): readonly string[] {
  if (from === to) return [];
  const lower = word.toLowerCase();
  if (from === 'en') return lookUp(dictionary(to as ForeignLanguage).fromEnglish, lower, 'en');
  const english = lookUp(dictionary(from).toEnglish, lower, from);
  if (to === 'en') return english;
  const target = dictionary(to).fromEnglish;
  return [...new Set(english.slice(0, PIVOT_TRANSLATIONS).flatMap((translation) => target.get(translation)?.split(' ') ?? []))];
}

/** Each index's headwords by their light stem (joined by spaces), made on the first word not found as written. */
const byStem = new WeakMap<Map<string, string>, Map<string, string>>();

function lookUp(index: Map<string, string>, word: string, language: Language): string[] {
  const written = index.get(word) ?? index.get(fold(word));
  if (written) return written.split(' ');
  let stems = byStem.get(index);
  if (!stems) {
    stems = new Map();
    for (const headword of index.keys()) {
      const key = stem(headword, language);
      const others = stems.get(key);
      stems.set(key, others ? `${others} ${headword}` : headword);
    }
    byStem.set(index, stems);
  }
  const headwords = stems.get(stem(word, language))?.split(' ') ?? [];
  return [...new Set(headwords.flatMap((headword) => index.get(headword)?.split(' ') ?? []))];
}
