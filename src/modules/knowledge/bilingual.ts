/**
 * Translations of single words between any two of the five languages, from the FreeDict
 * dictionaries Debian packages (dict-freedict-*; dictd files under /usr/share/dictd; the
 * licences in docs/knowledge.md), narrowed to what answering needs: one file per pair of
 * languages (bilingual-en-nl.json, bilingual-de-fr.json …), each word of the pair's first
 * language with its words in the second, from both dictionaries of the pair that Debian has
 * (nld-fra, and fra-nld reversed). Only single words of letters are kept, the first
 * MAX_TRANSLATIONS of a headword; examples, notes, glosses and cross-references are left
 * out. German and English's dictionaries (from Ding, 980,000 headwords both ways) list rare
 * and technical senses too: only their common English words are kept.
 * src/modules/knowledge/bilingual.test.ts checks the files against the packages when they
 * are installed (.ci/run installs them); `node src/modules/knowledge/bilingual.ts` writes
 * them again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { LANGUAGES, type Language } from '../agents/schemas.ts';
import { fold, stem } from './stemming.ts';
import { ENGLISH_WORDNET_FILE, type EnglishWordnet } from './english-wordnet.ts';

/** FreeDict's three-letter names. */
const FREEDICT_CODE: Record<Language, string> = { en: 'eng', nl: 'nld', fr: 'fra', de: 'deu', es: 'spa' };

/** Every pair of two languages, in LANGUAGES' order: en-nl, en-fr, … de-es. */
export const LANGUAGE_PAIRS: ReadonlyArray<readonly [Language, Language]> = LANGUAGES.flatMap((first, i) => LANGUAGES.slice(i + 1).map((second) => [first, second] as const));

export const DICTD_DIRECTORY = '/usr/share/dictd/';

export function bilingualFile([first, second]: readonly [Language, Language]): URL {
  return new URL(`./bilingual-${first}-${second}.json`, import.meta.url);
}

export interface BilingualData {
  /** One word a line: a word of the pair's first language (lower case), then its words in the second, separated by spaces. */
  words: string;
}

/** A headword's translations kept, at most (the dictionaries list the usual ones first). */
const MAX_TRANSLATIONS = 4;
/** Headwords of a pair's two dictionaries together above which only common English words are kept (German and English's: 980,000; Dutch and English's: 30,000). */
const LARGE_DICTIONARIES = 200_000;
/** Words of at least this many letters (shorter ones are mostly function words and abbreviations). */
const MIN_LETTERS = 3;

const SINGLE_WORD = /^\p{L}+$/u;

/**
 * A dictd dictionary's entries: headword and the translations of its definition lines (its
 * first line, "data <pl>", or its numbered ones, "1. stop, discontinue", without their
 * grammar in brackets; indented lines are notes, examples and cross-references).
 */
export function dictdEntries(dictionary: string): Array<[headword: string, translations: string[]]> {
  const index = readFileSync(`${DICTD_DIRECTORY}freedict-${dictionary}.index`, 'utf8');
  const text = gunzipSync(readFileSync(`${DICTD_DIRECTORY}freedict-${dictionary}.dict.dz`));
  const entries: Array<[string, string[]]> = [];
  for (const line of index.split('\n')) {
    const [headword, offset, length] = line.split('\t');
    if (!headword || !offset || headword.startsWith('00-database') || headword.startsWith('00database')) continue;
    const body = text.subarray(base64Number(offset), base64Number(offset) + base64Number(length)).toString('utf8').split('\n');
    // The first line, or the numbered ones ("1. stop, discontinue"); an unnumbered line after them is a gloss in the headword's language.
    const numbered = body.slice(1).filter((definition) => /^\d+\.\s/.test(definition));
    const translations = (numbered.length > 0 ? numbered : body.slice(1, 2))
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

/** What a pair's file holds, from the pair's FreeDict dictionaries (either or both). */
export function deriveBilingual([first, second]: readonly [Language, Language]): BilingualData {
  const forward = installed(first, second) ? dictdEntries(`${FREEDICT_CODE[first]}-${FREEDICT_CODE[second]}`) : [];
  const backward = installed(second, first) ? dictdEntries(`${FREEDICT_CODE[second]}-${FREEDICT_CODE[first]}`) : [];
  const common = forward.length + backward.length > LARGE_DICTIONARIES ? commonEnglish() : undefined;
  const usual = (word: string, language: Language) => !common || language !== 'en' || common.has(word) || common.has(word.replace(/s$/, ''));
  const joinable = (word: string, language: Language) => SINGLE_WORD.test(word) && word.length >= MIN_LETTERS && usual(word, language);
  const words = new Map<string, string[]>();
  const add = (word: string, translation: string) => {
    const list = words.get(word) ?? words.set(word, []).get(word)!;
    if (!list.includes(translation)) list.push(translation);
  };
  for (const [entries, from, to] of [[forward, first, second], [backward, second, first]] as const) {
    for (const [headword, translations] of entries) {
      if (!joinable(headword, from)) continue;
      for (const translation of translations.filter((t) => joinable(t, to)).slice(0, MAX_TRANSLATIONS)) (from === first ? add(headword, translation) : add(translation, headword));
    }
  }
  const lines = [...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([word, translations]) => `${word} ${translations.join(' ')}`);
  return { words: lines.join('\n') };
}

/** The English words WordNet's sense-tagged texts use (english-wordnet.json, its nouns and the rest). */
function commonEnglish(): Set<string> {
  const wordnet = JSON.parse(readFileSync(ENGLISH_WORDNET_FILE, 'utf8')) as EnglishWordnet;
  return new Set([...wordnet.nouns.split(' '), ...wordnet.notNouns.split(' ')]);
}

/** The dictionaries between the five languages that Debian (bookworm) packages: all but Spanish into French and into Dutch. */
export const DEBIAN_DICTIONARIES = LANGUAGE_PAIRS.flatMap(([a, b]) => [`${a}-${b}`, `${b}-${a}`]).filter((pair) => pair !== 'es-fr' && pair !== 'es-nl');

function installed(from: Language, to: Language): boolean {
  return existsSync(`${DICTD_DIRECTORY}freedict-${FREEDICT_CODE[from]}-${FREEDICT_CODE[to]}.index`);
}

/** Whether every dictionary of the pair that Debian has is installed here (a pair's file read from fewer would differ). */
export function dictionariesInstalled([first, second]: readonly [Language, Language]): boolean {
  return DEBIAN_DICTIONARIES.includes(`${first}-${second}`) === installed(first, second) && DEBIAN_DICTIONARIES.includes(`${second}-${first}`) === installed(second, first);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const pair of LANGUAGE_PAIRS) {
    if (!dictionariesInstalled(pair)) throw new Error(`install the dict-freedict packages of ${pair.join('-')} first (.ci/run lists them)`);
    writeFileSync(bilingualFile(pair), `${JSON.stringify(deriveBilingual(pair))}\n`);
    console.log(`wrote ${fileURLToPath(bilingualFile(pair))}`);
  }
}

/**
 * A pair's words both ways, read and indexed on the first question that needs them. Each
 * word's translations are kept as one string of words separated by spaces (a list of
 * strings per word took twice the memory).
 */
interface Dictionary {
  forward: Map<string, string>;
  backward: Map<string, string>;
}

const dictionaries = new Map<string, Dictionary>();

function dictionary(pair: readonly [Language, Language]): Dictionary {
  const known = dictionaries.get(pair.join('-'));
  if (known) return known;
  const data = JSON.parse(readFileSync(bilingualFile(pair), 'utf8')) as BilingualData;
  const forward = new Map<string, string>();
  const backward = new Map<string, string>();
  for (const line of data.words.split('\n')) {
    const space = line.indexOf(' ');
    const word = line.slice(0, space);
    forward.set(word, line.slice(space + 1));
    for (const translation of line.slice(space + 1).split(' ')) {
      const others = backward.get(translation);
      backward.set(translation, others ? `${others} ${word}` : word);
    }
  }
  for (const [word, translations] of backward) backward.set(word, flat(translations));
  const loaded = { forward, backward };
  dictionaries.set(pair.join('-'), loaded);
  return loaded;
}

/** A string joined piece by piece, as one piece of memory. */
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * A word's translations into another language (lower case, as the dictionaries write
 * them): looked up as written, as the infinitive of a Dutch or German past participle,
 * else by any headword of the same light stem (stemming.ts: "afspraken" as "afspraak").
 * Empty for the same language or a word the dictionaries lack.
 */
export function translations(word: string, from: Language, to: Language): readonly string[] {
  if (from === to) return [];
  const pair = LANGUAGE_PAIRS.find(([first, second]) => (first === from && second === to) || (first === to && second === from))!;
  const { forward, backward } = dictionary(pair);
  return lookUp(pair[0] === from ? forward : backward, word.toLowerCase(), from);
}

/** The infinitives a Dutch or German past participle may come from: "gespeichert" speichern, "gewerkt" werken. */
function infinitives(word: string, language: Language): string[] {
  const participle = /^ge(\p{L}{3,})[td]$/u.exec(word);
  return participle && (language === 'de' || language === 'nl') ? [`${participle[1]}en`, `${participle[1]}n`] : [];
}

/** Each index's headwords by their light stem (joined by spaces), made on the first word not found as written. */
const byStem = new WeakMap<Map<string, string>, Map<string, string>>();

function lookUp(index: Map<string, string>, word: string, language: Language): string[] {
  for (const form of [word, fold(word), ...infinitives(word, language)]) {
    const written = index.get(form);
    if (written) return written.split(' ');
  }
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
