/**
 * The built-in offline model: an AI SDK language model that needs no account anywhere.
 * It never writes text of its own about the business: it quotes the one to three
 * sentences of the retrieved passages that best answer the question, names their
 * source, and says plainly (in the answer's language) when its material does not
 * cover the question. See docs/chat.md.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { Language } from '../agents/schemas.ts';
import { PHRASES } from './language.ts';
import { englishLexicon, englishStem, synonymsOfOnlyTranslation, type EnglishLexicon } from '../knowledge/english-wordnet.ts';
import { askedFor, contentTerms, fold, heldKinds, keptForPassage, labelAsks, questionTerms, questionVerbs, sentences, weekdaysNamed, words } from './text.ts';
import { detectLanguageNow } from '../knowledge/languages.ts';
import { translations } from '../knowledge/bilingual.ts';
import { keptOrMade } from '../../platform/kept.ts';

export const OFFLINE_PROVIDER = 'parley';

/** What the answering service hands the offline model beside the prompt (providerOptions.parley). */
export interface OfflineContext {
  question: string;
  /** The question it follows up, when the question is a short follow-up ("and on Sundays?"). */
  followsUp: string | null;
  language: Language;
  /** A passage's id, when it has one (a file read for the question has none), is what its reading is kept by (readingOf). */
  passages: Array<{ id?: string; sourceName: string; title: string; text: string; score: number }>;
  /** What a decline offers the visitor instead (see nextSteps). */
  nextSteps?: NextSteps;
  /** The answer, when the answering service composed it already (for its sources): the model then gives it as is. */
  composed?: string;
}

/** The agent's next steps a decline offers, in the answer's language. */
export interface NextSteps {
  /** The business's phone number and e-mail address, from the site's contact facts. */
  contact: string | null;
  /** The ticket form is on. */
  ticket: boolean;
  /** The lead form is on. */
  lead: boolean;
  /** The booking link. */
  booking: string | null;
}

/**
 * An answer quoted from material in another language (`material`, the quoted passages'
 * language) opens with one line in the answer's language saying so: the model cannot
 * translate.
 */
export function withLanguageLine(answer: OfflineAnswer, language: Language, material: Language | undefined): OfflineAnswer {
  if (answer.declined || answer.used.length === 0 || !material || material === language) return answer;
  const phrases = PHRASES[language];
  return { ...answer, text: `${phrases.otherLanguage.replace('{language}', phrases.names[material])}\n\n${answer.text}` };
}

/** A decline, with the next steps the agent has: its contact details, the ticket or lead form, the booking link. */
export function declined(language: Language, steps: NextSteps | undefined, held: number): OfflineAnswer {
  const phrases = PHRASES[language];
  const offered = [
    steps?.contact ? phrases.reach.replace('{contact}', steps.contact) : '',
    steps?.ticket ? phrases.ticket : steps?.lead ? phrases.lead : '',
    steps?.booking ? phrases.booking.replace('{url}', steps.booking) : '',
  ].filter(Boolean);
  return { text: [phrases.decline, ...(offered.length > 0 ? [offered.join(' ')] : [])].join('\n\n'), coverage: held, declined: true, used: [] };
}

/** Enough of the passages to tell their language (as the answering service samples a quoted passage's). */
const MATERIAL_SAMPLE_CHARS = 400;
/** Below this share of the question's weight held by the chosen sentences, the model declines. */
export const ANSWER_THRESHOLD = 0.5;
/** A sentence after the first must add this share of the question's weight. */
const LATER_GAIN = 0.2;
const MAX_SENTENCES = 3;
const GREETING = /^(hi|hello|hey|good (morning|afternoon|evening)|hallo|hoi|goedemorgen|goedemiddag|goedenavond|bonjour|salut|bonsoir|guten (morgen|tag|abend)|servus|hola|buenos d[ií]as|buenas tardes)[\s!.,]*$/i;
const GREETINGS: Record<Language, string> = {
  en: 'Hello! What would you like to know?',
  nl: 'Hallo! Waar kan ik je mee helpen?',
  fr: 'Bonjour ! Que souhaitez-vous savoir ?',
  de: 'Hallo! Was möchten Sie wissen?',
  es: '¡Hola! ¿Qué le gustaría saber?',
};
/** A sentence opening like this refers back to the one before it, which is quoted with it. */
// Not the words that are also articles or a polite "you" ("het", "die", "Sie").
const REFERS_BACK = /^(it|its|they|their|them|this|that|these|those|he|she|each|both|dit|dat|deze|ze|zij|hij|il|elle|ils|elles|ce|cela|ceci|ces|es|er|dies|diese|dieser|ello|ellos|ellas|esto|eso|estos|esta|este)\b/i;

interface Candidate {
  text: string;
  sourceName: string;
  passage: number;
  position: number;
  /** The sentence's own terms, with the kinds of fact it holds ("#money"). */
  ownTerms: ReadonlySet<string>;
  /** With its passage's title terms: "Shipping costs" is what a sentence under it is about. */
  terms: ReadonlySet<string>;
  /** Question terms it holds only by a word one sense more specific ("GP" for "doctor"): each counts NARROWER_SHARE. */
  narrower: ReadonlySet<string>;
  /** Question terms it holds by a synonym or a longer or shorter form (addForms, addShared), not by its words' stems. */
  formed: ReadonlySet<string>;
  /** The words it is read with: its passage's title and heading, the heading or question over it. */
  context: string;
  passageScore: number;
  /** lengthPenalty of its text. */
  penalty: number;
  /** Which of its sets are this answer's own (TermSets bits): the others are its reading's, shared, and copied before a write (addTerm). */
  owned: number;
}

export interface OfflineAnswer {
  text: string;
  /** Share of the question's weight the quoted sentences hold (0 for a decline). */
  coverage: number;
  declined: boolean;
  /** The passages quoted (indices into the context's passages); none for a decline. */
  used: number[];
}

/**
 * The answer, as a pure function of the question and the passages (docs/chat.md):
 * 1. the question's terms: its content words without the words any question uses, the
 *    words that ask for a kind of fact ("how much", "what time") replaced by that kind
 *    ("#money", "#clock"), each weighted by how rare it is among the passages' sentences
 *    (question and sentences stemmed alike, for the answer's language; in English a
 *    sentence also holds a word by its WordNet synonym); a word no sentence holds weighs a
 *    quarter when it is mostly not a noun (English, by WordNet) or the question's verb (the
 *    other languages, by word order), and an asked contact kind at least as much as the
 *    heaviest word;
 * 2. the sentences that hold most of that weight are chosen (see chooseSentences);
 * 3. when the chosen sentences hold less than half of it (the question's topic held only
 *    by a longer word of its stem not counted: heldByAnotherWord), the material does not
 *    cover the question and the model says so; otherwise it quotes them in the passages'
 *    order and names their sources.
 */
export function composeOfflineAnswer(input: OfflineContext): OfflineAnswer {
  const phrases = PHRASES[input.language];
  if (GREETING.test(input.question.trim())) return { text: GREETINGS[input.language], coverage: 0, declined: false, used: [] };
  if (input.passages.length === 0) return declined(input.language, input.nextSteps, 0);
  const lexicon = input.language === 'en' ? englishLexicon() : undefined;
  const asked = withPersonAsked(askedFor(input.question, input.language), input.question, input.passages, lexicon);
  const followed = input.followsUp ? askedFor(input.followsUp, input.language) : undefined;
  const kinds = [...new Set([...asked.kinds, ...(followed?.kinds ?? [])])];
  // Material in another language than the question's is read in its own; the question finds in it what the languages share.
  const material = detectLanguageNow(materialSample(input.passages));
  const crossing = material !== undefined && material !== input.language;
  const readings = input.passages.map((passage) => readingOf(passage, crossing ? material : input.language));
  const common = commonWords(input.passages, readings, crossing ? material : input.language);
  const candidates = input.passages.flatMap((passage, index) => quotable(passage, readings[index], index, kinds, common));
  const asks = [asked, ...(followed ? [followed] : [])].flatMap((a) => questionTerms(a.rest, input.language));
  const asking = [input.question, input.followsUp ?? ''].join(' ');
  // Only English has a lexicon: in the other languages no word has related words (and none is kept).
  const synonyms = lexicon ? relatedStems(asking, SYNONYM_STEMS, (word) => lexicon.synonyms(word)) : new Map<string, ReadonlySet<string>>();
  const narrower = lexicon
    ? relatedStems(asking, RELATED_STEMS, (word) => [...lexicon.narrower(word), ...lexicon.broader(word), ...lexicon.sameDoer(word), ...lexicon.sisters(word)])
    : new Map<string, ReadonlySet<string>>();
  const translated = crossing ? translatedStems(asking, input.language, material) : new Map<string, Set<string>>();
  for (const [term, stems] of translated) narrower.set(term, new Set([...(narrower.get(term) ?? []), ...stems]));
  dropFalseFriends(candidates, translated, asking, input.language);
  const { forms, holders } = formsAndHolders(readings, asks, synonyms, narrower);
  for (const candidate of candidates) addForms(candidate, asks, forms, holders);
  if (!crossing && input.language !== 'en') addRelatedThroughEnglish(candidates, asking, input.language);
  if (crossing) addShared(candidates, asking, input.language, translated);
  const heldByTranslation = new Set(candidates.flatMap((c) => [...c.narrower]));
  const notNouns = lexicon ? englishNotNouns(input.question, lexicon) : questionVerbs(input.question, input.language);
  // Across languages a word no sentence holds is most likely said in the material's language: it weighs what an absent verb weighs.
  // A name or a number is written alike in every language: one the material lacks is what the question is about ("QuickBooks").
  const alike = crossing ? namesAndNumbers(asking, input.language) : new Set<string>();
  const weights = termWeights(candidates, input.language, (term) => (crossing && !alike.has(term) && !heldByTranslation.has(term)) || notNouns.has(term), [
    { asked, factor: 1 },
    ...(followed ? [{ asked: followed, factor: 0.5 }] : []),
  ]);
  if (weights.size === 0) return declined(input.language, input.nextSteps, 0);
  const chosen = chooseSentences(candidates, weights);
  const topic = crossing ? undefined : topicTerm(weights, notNouns);
  // The question's topic held only by a longer word of its stem ("paiements" for "paie") is not held.
  const byAnotherWord = topic !== undefined && heldByAnotherWord(topic, chosen, input.question, input.language);
  const held = heldShare(weights, chosen) - (byAnotherWord ? weights.get(topic)! / sum(weights) : 0);
  if (chosen.length === 0 || held < ANSWER_THRESHOLD) return declined(input.language, input.nextSteps, held);
  // Across languages an asked kind alone ("how much") is no answer: a word the question shares with the material must be held.
  const shared = (term: string) => !term.startsWith('#') || CONTACT_KINDS.includes(term);
  if (crossing && ![...weights.keys()].some((term) => shared(term) && chosen.some((c) => c.terms.has(term) || c.narrower.has(term)))) return declined(input.language, input.nextSteps, held);
  takeLabelled(candidates, weights, chosen);
  chosen.sort((a, b) => a.passage - b.passage || a.position - b.position);
  const names = [...new Set(chosen.map((c) => c.sourceName))];
  const label = names.length > 1 ? phrases.sources : phrases.source;
  return { text: `${chosen.map((c) => c.text).join(' ')}\n\n${label}: ${names.join(', ')}`, coverage: held, declined: false, used: [...new Set(chosen.map((c) => c.passage))] };
}

/**
 * Whether a word (lower case) is a common word of the material, so that two capitalised
 * words holding it are a place or a title, not a person's name ("Gloucester Road",
 * "Clearwater Physiotherapy"): the material writes it in lower case elsewhere, or, in
 * English, WordNet's tagged texts use it.
 */
function commonWords(passages: OfflineContext['passages'], readings: PassageReading[], language: Language): (word: string) => boolean {
  if (!readings.some((reading) => reading.capitals)) return () => false;
  // Made at the first name read (a question asking who): most answers read none.
  let lower: Set<string> | undefined;
  const lexicon = language === 'en' ? englishLexicon() : undefined;
  return (word) => (lower ??= new Set(passages.flatMap((passage) => words(passage.text).filter((word) => /^\p{Ll}/u.test(word))))).has(word) || (lexicon?.known(word) ?? false);
}

/** The passages' texts joined by line breaks, their first MATERIAL_SAMPLE_CHARS characters (without joining them all). */
function materialSample(passages: OfflineContext['passages']): string {
  let sample = '';
  for (let i = 0; i < passages.length && sample.length < MATERIAL_SAMPLE_CHARS; i++) sample = i === 0 ? passages[i].text : `${sample}\n${passages[i].text}`;
  return sample.slice(0, MATERIAL_SAMPLE_CHARS);
}

/** Two capitalised words in a row: a name may be there. */
const NAME_CAPITALS = /\p{Lu}\p{Ll}+\s+\p{Lu}/u;

/** The shortest question word read by a longer form the material holds ("physio" by "physiotherapists"). */
const SHORT_FORM_MIN = 5;

/**
 * An English question asking "which" or "what" kind of person ("Which physio teaches the
 * Pilates classes?") asks for a name, as "who" does: the word is a kind of person by
 * WordNet (knowledge/english-wordnet.ts), or, when WordNet lacks it, a longer form of it
 * in the material is ("physio" for "physiotherapists").
 */
function withPersonAsked(asked: ReturnType<typeof askedFor>, question: string, passages: OfflineContext['passages'], lexicon: EnglishLexicon | undefined): ReturnType<typeof askedFor> {
  const word = question.trim().match(/^(?:which|what)\s+(\p{L}+)/iu)?.[1]?.toLowerCase();
  if (!lexicon || !word || asked.kinds.includes('name')) return asked;
  const longer = () =>
    word.length >= SHORT_FORM_MIN &&
    passages.some((passage) => words(passage.text).some((other) => other.length > word.length && other.toLowerCase().startsWith(word) && lexicon.person(other.toLowerCase())));
  if (!lexicon.person(word) && (lexicon.known(word) || !longer())) return asked;
  // The person's word is what the name answers, as "who" is: a sentence naming the person need not repeat it.
  return { kinds: [...asked.kinds, 'name'], rest: asked.rest.replace(new RegExp(`\\b${word}\\b`), ' ') };
}

/** A heading is a passage's first line, short and not a sentence (no full stop, colon or semicolon at its end) nor a table row. */
const HEADING_CHARS = 120;

/**
 * A passage's candidates for this answer: its sentences as read once (readingOf), each with the kinds of fact it holds
 * among those asked; their sets are the reading's until the answer adds to them (addForms, addShared: addTerm).
 */
function quotable(passage: OfflineContext['passages'][number], reading: PassageReading, index: number, kinds: string[], common: (word: string) => boolean): Candidate[] {
  const out: Candidate[] = [];
  const held = kinds.map((kind) => (kind === 'name' ? undefined : heldBySentences(reading, kind)));
  for (let s = 0; s < reading.sentences.length; s++) {
    const sentence = reading.sentences[s];
    const candidate: Candidate = { text: sentence.text, sourceName: passage.sourceName, passage: index, position: sentence.position, ownTerms: sentence.own, terms: sentence.terms, narrower: NO_TERMS, formed: NO_TERMS, context: sentence.context, passageScore: passage.score, penalty: sentence.penalty, owned: 0 };
    for (let k = 0; k < kinds.length; k++) {
      if (!(held[k]?.[s] ?? heldKinds(sentence.text, [kinds[k]], common).length > 0)) continue;
      addTerm(candidate, 'ownTerms', `#${kinds[k]}`);
      addTerm(candidate, 'terms', `#${kinds[k]}`);
    }
    out.push(candidate);
  }
  return out;
}

/**
 * Whether each of the reading's sentences holds a kind of fact (text.ts, heldKinds), kept in the reading by kind: the
 * sentence's text alone decides it, but for a person's name, which depends on the answer's passages (commonWords) and
 * is read for each answer. Reading the kinds again for every answer asking one (folding each sentence, its patterns)
 * was most of `quotable`'s time (docs/performance.md, Capacity, eleventh round).
 */
function heldBySentences(reading: PassageReading, kind: string): readonly boolean[] {
  let held = reading.kinds.get(kind);
  if (held === undefined) {
    held = Object.freeze(reading.sentences.map((sentence) => heldKinds(sentence.text, [kind]).length > 0));
    reading.kinds.set(kind, held);
  }
  return held;
}

const NO_TERMS: ReadonlySet<string> = new Set();

/**
 * A candidate's sets are its reading's (shared by every answer: NO_TERMS for the empty ones) until this answer adds a
 * term to one or drops one from it, when it takes a copy of its own (addTerm, dropTerm). Every candidate made four sets
 * of its own before, most of what an answer allocated (docs/performance.md, Capacity, eleventh round); reads stay a
 * plain set's. Only the order of iteration differs from the sets of old (a kind held comes after what the sentence is
 * about): no caller depends on it.
 */
type TermSets = 'ownTerms' | 'terms' | 'narrower' | 'formed';
const OWNED: Record<TermSets, number> = { ownTerms: 1, terms: 2, narrower: 4, formed: 8 };

function addTerm(candidate: Candidate, which: TermSets, term: string): void {
  if (!candidate[which].has(term)) writable(candidate, which).add(term);
}

function dropTerm(candidate: Candidate, which: TermSets, term: string): void {
  if (candidate[which].has(term)) writable(candidate, which).delete(term);
}

function writable(candidate: Candidate, which: TermSets): Set<string> {
  if ((candidate.owned & OWNED[which]) === 0) {
    candidate[which] = new Set(candidate[which]);
    candidate.owned |= OWNED[which];
  }
  return candidate[which] as Set<string>;
}

/** A quotable sentence as its passage gives it, whatever the question: what quotable makes a candidate of. */
interface SentenceReading {
  text: string;
  position: number;
  /** contentTerms of the sentence, as a set. */
  own: ReadonlySet<string>;
  /** Its own terms and those of what it is about: its title and heading, section heading and the question over it. */
  terms: ReadonlySet<string>;
  context: string;
  /** lengthPenalty of its text. */
  penalty: number;
}

/**
 * A passage's quotable sentences as read once: every answer that finds a passage read its sentences and their terms
 * again (splitting, the sentences' and headings' terms looked up by their texts: a third of the offline model's time
 * in the capacity bench's profile, docs/performance.md, Capacity, tenth round). Kept by the passage's id and taken
 * only for the same text, title and language (keptForPassage). Frozen: every answer shares them (their sets are only
 * read: a candidate copies one before it writes, addTerm).
 */
function readingOf(passage: OfflineContext['passages'][number], language: Language): PassageReading {
  return keptForPassage(READINGS, MAX_READINGS, passage, language, () => {
    const sentences = Object.freeze(readPassage(passage, language));
    const distinct = new Set<string>();
    for (const sentence of sentences) for (const term of sentence.terms) distinct.add(term);
    const terms = Object.freeze([...distinct]);
    const starts = Int32Array.from(terms, startKey);
    return Object.freeze({ text: passage.text, title: passage.title, language, sentences, distinct: terms, starts, kinds: new Map(), capitals: NAME_CAPITALS.test(passage.text) });
  });
}

interface PassageReading {
  text: string;
  title: string;
  language: Language;
  sentences: readonly SentenceReading[];
  /** Every term its sentences hold, with what they are about (their own and around terms), once each. */
  distinct: readonly string[];
  /** Each of those terms' startKey, in the same order. */
  starts: Int32Array;
  /** Its text has two capitalised words in a row (NAME_CAPITALS): a name may be there (commonWords). */
  capitals: boolean;
  /** By kind of fact, whether each sentence holds one (heldBySentences); filled as answers ask for kinds. */
  kinds: Map<string, readonly boolean[]>;
}

const READINGS = new Map<string, PassageReading[]>();
const MAX_READINGS = 2_000;

/**
 * A passage's sentences that may be quoted, each with what it is about: the passage's
 * title, its heading (the first line, when it is a heading: "Opening hours", "Do you
 * treat children?") and the question the site asked just before it (an FAQ's "Can I
 * pay cash?" over its answer). Headings and questions are context, never quoted: the
 * answer is the sentence under them.
 */
function readPassage(passage: OfflineContext['passages'][number], language: Language): SentenceReading[] {
  const titleTerms = contentTerms(passage.title, language);
  const [first = '', ...rest] = passage.text.split(/\n\s*\n/);
  // A table row read as "Solo — Price: 9 €; Users: 1" is no heading: it has a label's colon or a semicolon.
  const hasHeading = rest.length > 0 && first.length <= HEADING_CHARS && !/[.:;]$/.test(first.trim()) && !/\n|;|\S:\s/.test(first);
  const context = new Set([...titleTerms, ...(hasHeading ? contentTerms(first, language) : [])]);
  const contextText = hasHeading ? `${passage.title}\n${first}` : passage.title;
  let sectionText = '';
  let askedText = '';
  let asked: readonly string[] = [];
  let section: readonly string[] = [];
  let around: readonly string[] | undefined;
  let position = 0;
  const out: SentenceReading[] = [];
  for (const block of (hasHeading ? rest : [passage.text]).join('\n\n').split(/\n\s*\n/)) {
    // A heading inside the passage ("Openingstijden winkel" over "Zaterdag: 09:00 – 17:00") is what the lines under it are about.
    if (isSectionHeading(block)) {
      section = contentTerms(block, language);
      asked = [];
      [sectionText, askedText] = [block, ''];
      around = undefined;
      position++;
      continue;
    }
    for (const text of sentences(block)) {
      position++;
      if (/[?¿]["')\]]?$/.test(text)) {
        asked = contentTerms(text, language);
        askedText = text;
        around = undefined;
        continue;
      }
      around ??= Object.freeze([...context, ...section, ...asked]);
      const own = new Set(contentTerms(text, language));
      const terms = new Set(own);
      for (const term of around) terms.add(term);
      out.push(Object.freeze({ text, position, own, terms, context: `${contextText}\n${sectionText}\n${askedText}`, penalty: lengthPenalty(text) }));
    }
  }
  return out;
}

/** A short line of words alone in its block, without a figure or the punctuation of a sentence or a label: a heading, not a fact. */
const SECTION_HEADING_CHARS = 60;
function isSectionHeading(block: string): boolean {
  const line = block.trim();
  return line.length > 0 && line.length <= SECTION_HEADING_CHARS && !/\n/.test(line) && !/[\d.:;!?,·@]/.test(line);
}

/** Whether a text is the offline model's decline, in any of the five languages. */
export function isOfflineDecline(text: string): boolean {
  return Object.values(PHRASES).some((phrases) => text.startsWith(phrases.decline));
}

/** The shortest stem whose longer or shorter form counts as the same word (see addForms). */
const FORM_MIN_LENGTH = 5;

/**
 * A sentence holds a question's term when it holds a longer or shorter form of it: one
 * stem starting the other, both of FORM_MIN_LENGTH letters at least ("cancel" and
 * "cancelled", "refer" and "referral", "compost" and "composteerbaar"). The light stem
 * cuts common endings only; the search index's stemmer found the passage by such forms.
 */
function addForms(candidate: Candidate, asks: string[], forms: Map<string, string[]>, holders: Map<string, string[]>): void {
  for (const term of asks) {
    if (candidate.terms.has(term)) continue;
    const formsOfTerm = forms.get(term)!;
    if (formsOfTerm.some((form) => candidate.ownTerms.has(form))) addTerm(candidate, 'ownTerms', term);
    if (formsOfTerm.some((form) => candidate.terms.has(form))) {
      addTerm(candidate, 'terms', term);
      addTerm(candidate, 'formed', term);
    }
    const held = holders.get(term);
    if (!candidate.terms.has(term) && held && held.some((other) => candidate.terms.has(other))) addTerm(candidate, 'narrower', term);
  }
}

/**
 * A number for a term's first FORM_MIN_LENGTH letters (a shorter term's every letter): two terms one of which starts
 * the other, both of FORM_MIN_LENGTH letters at least (isLongerOrShorter), have the same, as have two equal terms.
 * Different starts may share one (a hash); what shares it is then compared letter by letter.
 */
function startKey(term: string): number {
  const end = Math.min(term.length, FORM_MIN_LENGTH);
  let key = end;
  for (let i = 0; i < end; i++) key = (Math.imul(key, 31) + term.charCodeAt(i)) | 0;
  return key;
}

/** A term looked for among every term a sentence may hold: the found sets it goes into when it is there, and those its longer or shorter forms there go into. */
interface Sought {
  term: string;
  itself: Set<string>[];
  forms: Set<string>[];
}

/**
 * Each asked term's forms (isLongerOrShorter, or the stem of a synonym), and for each asked term with related stems (a
 * narrower or broader word, a translation) the terms that are one of them or a longer or shorter form of one, among
 * every term a sentence holds or addForms may add: the asked terms and each passage's terms (its reading's). A
 * sentence holds the asked term by a related word when its terms hold one of the latter (addForms).
 *
 * Found once an answer, in one pass over the readings' terms, each term's start (startKey, kept in its reading) looked
 * up among the starts of what is sought: gathering every term into one set first, then testing each against each
 * asked term and related stem, was 6.5% of the api process's time (docs/performance.md, Capacity, twelfth round).
 * A term an answer dropped from a sentence (dropFalseFriends) may be among the passages' terms, which is no matter:
 * what is found here is only looked up in the sentences' sets. The kinds of fact ("#money") are no form.
 */
function formsAndHolders(
  readings: PassageReading[],
  asks: string[],
  synonyms: Map<string, ReadonlySet<string>>,
  narrower: Map<string, ReadonlySet<string>>,
): { forms: Map<string, string[]>; holders: Map<string, string[]> } {
  const sought = new Map<string, Sought>();
  const seek = (term: string) => sought.get(term) ?? sought.set(term, { term, itself: [], forms: [] }).get(term)!;
  const formsFound = new Map<string, Set<string>>();
  const heldFound = new Map<string, Set<string>>();
  for (const term of asks) {
    if (formsFound.has(term)) continue;
    const found = new Set<string>();
    formsFound.set(term, found);
    for (const same of synonyms.get(term) ?? []) seek(same).itself.push(found);
    if (term.length >= FORM_MIN_LENGTH) seek(term).forms.push(found);
    const kinds = narrower.get(term);
    if (!kinds) continue;
    const held = new Set<string>();
    heldFound.set(term, held);
    for (const kind of kinds) {
      seek(kind).itself.push(held);
      if (kind.length >= FORM_MIN_LENGTH) seek(kind).forms.push(held);
    }
  }
  const byStart = new Map<number, Sought[]>();
  for (const one of sought.values()) {
    const key = startKey(one.term);
    (byStart.get(key) ?? byStart.set(key, []).get(key)!).push(one);
  }
  const meet = (other: string, key: number) => {
    const same = byStart.get(key);
    if (same === undefined) return;
    for (const one of same) {
      if (one.term === other) for (const found of one.itself) found.add(other);
      if (one.forms.length > 0 && isLongerOrShorter(one.term, other)) for (const found of one.forms) found.add(other);
    }
  };
  for (const term of asks) meet(term, startKey(term));
  for (const reading of new Set(readings)) for (let i = 0; i < reading.distinct.length; i++) meet(reading.distinct[i], reading.starts[i]);
  const listed = (found: Map<string, Set<string>>) => new Map([...found].map(([term, terms]) => [term, [...terms]]));
  return { forms: listed(formsFound), holders: listed(heldFound) };
}

/** Two stems of FORM_MIN_LENGTH letters at least, one starting the other: a longer or shorter form of one word ("child" and "children"). */
function isLongerOrShorter(term: string, other: string): boolean {
  return term.length >= FORM_MIN_LENGTH && other.length >= FORM_MIN_LENGTH && !other.startsWith('#') && (other.startsWith(term) || term.startsWith(other));
}

/**
 * What a question shares with material in another language: the same word (a name, a
 * number, "API"), a word spelt nearly alike (a cognate: "masaje" and "massage", "minuut"
 * and "minute": stems of four letters or more at most a third apart; when the dictionary
 * knows the word, only one of its translations), or the same day of
 * the week ("Samstag" and "Saturday", text.ts, weekdaysNamed).
 */
function addShared(candidates: Candidate[], question: string, language: Language, translated: Map<string, Set<string>>): void {
  const asked = words(question).flatMap((word) => questionTerms(word, language).map((term) => ({ term, days: weekdaysNamed(word) })));
  for (const candidate of candidates) {
    const days = weekdaysNamed(candidate.text);
    for (const { term, days: named } of asked) {
      if (candidate.terms.has(term)) continue;
      // A look-alike that is none of the word's translations is a false friend ("Daten" is not "date").
      const confirmed = (own: string) => !translated.has(term) || translated.get(term)!.has(own);
      const cognate = [...candidate.ownTerms].some((own) => !own.startsWith('#') && nearlyAlike(term, own) && confirmed(own));
      if (cognate || named.some((day) => days.includes(day))) {
        addTerm(candidate, 'ownTerms', term);
        addTerm(candidate, 'terms', term);
        addTerm(candidate, 'formed', term);
      }
    }
  }
}

/**
 * Across languages, each question term's translations into the material's language, as
 * stems (knowledge/bilingual.ts, FreeDict): "afspraak" appointment, "Germany" Duitsland. A
 * sentence holding one holds the term as a narrower noun does, for NARROWER_SHARE of its
 * weight: a dictionary's translation is not always the sense the question means.
 */
function translatedStems(question: string, language: Language, material: Language): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const word of words(question)) {
    const [term] = questionTerms(word, language);
    if (!term || /\d/.test(word)) continue;
    const translated = translations(word, language, material);
    // Into English, a word's only translation also by its synonyms ("eerste" first, initial): english-wordnet.ts.
    const english = material === 'en' ? synonymsOfOnlyTranslation(translated) : [];
    const stems = [...translated, ...english].flatMap((translation) => contentTerms(translation, material));
    if (stems.length === 0) continue;
    const kept = out.get(term) ?? out.set(term, new Set()).get(term)!;
    for (const translated of stems) kept.add(translated);
  }
  return out;
}

/**
 * Dutch, French, German and Spanish have no thesaurus packaged (docs/chat.md): a question's
 * noun is held, as an English one is, by a word of the material one sense more specific or
 * more general, both read in English through the bilingual dictionaries (FreeDict) and
 * related in WordNet ("personnes" person, "utilisateurs" user: a user is a person), for
 * NARROWER_SHARE of its weight. Nouns only (the question's verbs by word order, text.ts,
 * questionVerbs; the English words by WordNet): a verb's translations are many and loose.
 * The same English word on both sides is not a relation: two words that translate alike
 * are not always alike (docs/chat.md, paraphrases by pivot).
 */
function addRelatedThroughEnglish(candidates: Candidate[], question: string, language: Language): void {
  const related = new Map<string, Set<string>>();
  const verbs = questionVerbs(question, language);
  for (const word of words(question)) {
    const [term] = questionTerms(word, language);
    if (!term || /\d/.test(word) || verbs.has(term)) continue;
    const kin = relatedThroughEnglish(word.toLowerCase(), language);
    if (kin.size > 0) related.set(term, new Set([...(related.get(term) ?? []), ...kin]));
  }
  if (related.size === 0) return;
  for (const candidate of candidates) {
    for (const [term, kin] of related) {
      if (candidate.terms.has(term) || candidate.narrower.has(term)) continue;
      if ([...candidate.ownTerms].some((own) => kin.has(own) && own !== term)) addTerm(candidate, 'narrower', term);
    }
  }
}

/**
 * A word's nouns one WordNet step more specific or more general, in its own language (as
 * stems): its English translations' related nouns translated back. Kept per word and
 * language (a question's words recur), bounded.
 */
function relatedThroughEnglish(word: string, language: Language): Set<string> {
  return keptOrMade(RELATED_THROUGH_ENGLISH, `${language} ${word}`, MAX_RELATED_KEPT, () => {
    const lexicon = englishLexicon();
    const english = translations(word, language, 'en').filter((translation) => !lexicon.notNoun(translation));
    const kin = new Set(english.flatMap((translation) => [...lexicon.narrower(translation), ...lexicon.broader(translation)]).filter((other) => !english.includes(other) && !lexicon.notNoun(other)));
    return new Set([...kin].flatMap((other) => translations(other, 'en', language).flatMap((back) => contentTerms(back, language))));
  });
}

const RELATED_THROUGH_ENGLISH = new Map<string, Set<string>>();
const MAX_RELATED_KEPT = 5_000;

/**
 * A question's word that shares its stem with a different word of the material's language
 * is not that word when the dictionary knows its translations and that word is none of
 * them: German "Daten" (data) and French "date" share the stem "dat". The same word
 * written alike ("workshop" in Dutch material) stays held.
 */
function dropFalseFriends(candidates: Candidate[], translated: Map<string, Set<string>>, question: string, language: Language): void {
  const written = new Map<string, string[]>();
  for (const word of words(question)) {
    const [term] = questionTerms(word, language);
    if (term && translated.has(term) && !translated.get(term)!.has(term)) (written.get(term) ?? written.set(term, []).get(term)!).push(fold(word));
  }
  if (written.size === 0) return;
  for (const candidate of candidates) {
    const own = new Set(words(candidate.text).map(fold));
    for (const [term, forms] of written) {
      if (!candidate.terms.has(term) || forms.some((form) => own.has(form))) continue;
      dropTerm(candidate, 'terms', term);
      dropTerm(candidate, 'ownTerms', term);
    }
  }
}

/** The terms of a question's names (a capitalised word after its first, "QuickBooks", "Yirgacheffe") and numbers. */
function namesAndNumbers(question: string, language: Language): Set<string> {
  const named = words(question)
    .flatMap((word, i) => word.split('-').map((part, j) => ({ part, first: i === 0 && j === 0 })))
    .filter(({ part, first }) => /\d/.test(part) || (!first && /^\p{Lu}/u.test(part)))
    .map(({ part }) => part);
  return new Set(named.flatMap((word) => questionTerms(word, language)));
}

function nearlyAlike(a: string, b: string): boolean {
  if (a.length < 4 || b.length < 4 || /\d/.test(a) || /\d/.test(b)) return false;
  return editDistance(a, b) <= Math.floor(Math.max(a.length, b.length) / 3);
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The question's topic: its heaviest term that is neither an asked kind nor a verb (in English: nor mostly not a noun). */
function topicTerm(weights: Map<string, number>, notNouns: Set<string>): string | undefined {
  let topic: string | undefined;
  for (const [term, weight] of weights) if (!term.startsWith('#') && !notNouns.has(term) && (topic === undefined || weight > weights.get(topic)!)) topic = term;
  return topic;
}

/** Letters the material's word may add to the question's after their common start: an inflection ("factures", "treated"), not a derivation ("paiements" of "paie"). */
const INFLECTION_LETTERS = 3;

/**
 * Whether the chosen sentences hold the question's term only through words of its stem that
 * extend the question's word into another one: "Proposez-vous un logiciel de paie ?" is not
 * answered by "suivi des paiements" (one stem, in Snowball's French stemmer too). The
 * material's word may be shorter ("treat" for "treatments": the question's word holds it),
 * and a term held by a synonym or a longer or shorter form (addForms) is held.
 */
function heldByAnotherWord(term: string, chosen: Candidate[], question: string, language: Language): boolean {
  const asked = words(question).filter((word) => questionTerms(word, language).includes(term)).map(fold);
  const holding = chosen.filter((c) => c.terms.has(term));
  if (asked.length === 0 || holding.length === 0 || holding.some((c) => c.formed.has(term))) return false;
  const parts = (text: string) => words(text).flatMap((word) => fold(word).split(/['’-]/));
  const isAsked = (word: string) => asked.some((own) => sameWord(own, word)) && contentTerms(word, language).includes(term);
  return !holding.some((c) => parts(`${c.text}\n${c.context}`).some(isAsked));
}

/** Whether the material's word is the question's, or the question's with at most an inflection: "factures" for "facture", "treat" for "treatments". */
function sameWord(asked: string, material: string): boolean {
  let common = 0;
  while (common < asked.length && common < material.length && asked[common] === material[common]) common++;
  return material.length - common <= INFLECTION_LETTERS;
}

function sum(weights: Map<string, number>): number {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  return total;
}

/** A sentence that holds a question's word only by a word one sense more specific holds this share of its weight: "GP" is a doctor, "solicitor" a lawyer, but not every doctor is a GP. */
const NARROWER_SHARE = 0.5;

/** The share of the question's weight the chosen sentences hold, a term held only by a more specific word counting NARROWER_SHARE. */
function heldShare(weights: Map<string, number>, chosen: Candidate[]): number {
  let total = 0;
  let held = 0;
  for (const [term, weight] of weights) {
    total += weight;
    if (chosen.some((c) => c.terms.has(term))) held += weight;
    else if (chosen.some((c) => c.narrower.has(term))) held += NARROWER_SHARE * weight;
  }
  return total > 0 ? held / total : 0;
}

/** The terms of an English question's words that are mostly not nouns (knowledge/english-wordnet.ts). */
function englishNotNouns(question: string, lexicon: EnglishLexicon): Set<string> {
  return new Set(
    words(question)
      .map((word) => word.toLowerCase())
      .filter((word) => lexicon.notNoun(word))
      .map(englishStem),
  );
}

/**
 * The stems of each question term's related words, for English (knowledge/english-wordnet.ts):
 * its synonyms ("operation" holds "surgery", "started" "began") or its related words
 * ("doctor" holds "gp"; a verb of one doer, a sister noun its definition names: "monitor"
 * holds "screen").
 */
function relatedStems(question: string, kept: Map<string, ReadonlySet<string>>, related: (word: string) => readonly string[]): Map<string, ReadonlySet<string>> {
  const out = new Map<string, ReadonlySet<string>>();
  for (const word of words(question)) {
    const found = stemsOfRelated(word.toLowerCase(), kept, related);
    if (found.size === 0) continue;
    const term = englishStem(word);
    const before = out.get(term);
    // The kept set itself when one word gives the term (most): never written to, as every answer shares it.
    out.set(term, before === undefined ? found : new Set([...before, ...found]));
  }
  return out;
}

/**
 * A word's related words' stems, kept by word (the lexicon is the process's, read once): a question's words
 * recur across questions, and a word's related words are many (the profile had their stemming at 1.3%, and
 * copying them into a set for every answer at 1.7%: docs/performance.md, Capacity, twelfth round).
 */
function stemsOfRelated(word: string, kept: Map<string, ReadonlySet<string>>, related: (word: string) => readonly string[]): ReadonlySet<string> {
  return keptOrMade(kept, word, MAX_WORDS_RELATED, () => new Set(related(word).map(englishStem)));
}

/** Kept stems of the words' synonyms and of their other related words (relatedStems); bounded, cleared when full. */
const SYNONYM_STEMS = new Map<string, ReadonlySet<string>>();
const RELATED_STEMS = new Map<string, ReadonlySet<string>>();
const MAX_WORDS_RELATED = 10_000;

/**
 * The question's terms and asked kinds, weighted by how rare they are among the candidate
 * sentences (a term every sentence holds tells them apart least). A follow-up's own terms
 * come first; the question it follows up adds its own at half weight.
 */
function termWeights(
  candidates: Candidate[],
  language: Language,
  notNoun: (term: string) => boolean,
  questions: Array<{ asked: ReturnType<typeof askedFor>; factor: number }>,
): Map<string, number> {
  const weights = new Map<string, number>();
  const n = candidates.length;
  for (const { asked, factor } of questions) {
    for (const term of [...questionTerms(asked.rest, language), ...asked.kinds.map((kind) => `#${kind}`)]) {
      if (weights.has(term)) continue;
      const df = candidates.filter((c) => c.terms.has(term)).length;
      // A verb, adjective or adverb no sentence holds is likely said in other words ("offer", "late", "afrekenen"); a noun is what is asked about.
      const said = df === 0 && notNoun(term) ? ABSENT_NOT_NOUN : 1;
      weights.set(term, said * factor * Math.log(1 + (n + 1) / (df + 0.5)));
    }
  }
  // The business's address, phone number or e-mail address is what such a question asks for, whatever else it names
  // ("Où se trouvent vos bureaux ?"): the kind weighs as much as the question's heaviest word.
  const heaviest = Math.max(0, ...[...weights].filter(([term]) => !term.startsWith('#')).map(([, weight]) => weight));
  for (const kind of CONTACT_KINDS) if (weights.has(kind)) weights.set(kind, Math.max(weights.get(kind)!, heaviest));
  return weights;
}

const CONTACT_KINDS = ['#address', '#phone', '#email', '#name'];

/** The weight's share left to a question word no sentence holds that is mostly not a noun (English, by WordNet) or is the question's verb (the other languages, by word order: text.ts, questionVerbs). */
const ABSENT_NOT_NOUN = 0.25;

/**
 * Greedy choice: the sentence that holds most of the question's weight (passage rank
 * breaking near-ties), then sentences that add at least LATER_GAIN of it, up to three.
 * Around a chosen sentence, as room allows:
 * - the next one in its passage joins when the chosen one introduces it (ends in ":"),
 *   was chosen mostly for its passage's title, or when it goes on about the question
 *   (holds a question term or asked kind of its own: "…closed on Sundays");
 * - the one before joins when the chosen one opens by referring back ("They…", "It…").
 */
function chooseSentences(candidates: Candidate[], weights: Map<string, number>): Candidate[] {
  const chosen: Candidate[] = [];
  const covered = new Set<string>();
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  // The weights as two arrays, in the map's order: gainOf runs for every candidate several times, and an entry pair a term was most of what the choice allocated.
  const asked = [...weights.keys()];
  const weighed = [...weights.values()];
  const gainOf = (c: Candidate, own = false) => {
    const terms = own ? c.ownTerms : c.terms;
    let gain = 0;
    for (let i = 0; i < asked.length; i++) {
      const term = asked[i];
      if (covered.has(term)) continue;
      if (terms.has(term)) gain += weighed[i];
      else if (c.narrower.has(term)) gain += NARROWER_SHARE * weighed[i];
    }
    return gain / total;
  };
  const take = (c: Candidate | undefined) => {
    if (!c || chosen.includes(c) || chosen.length >= MAX_SENTENCES) return;
    chosen.push(c);
    for (const t of c.terms) covered.add(t);
    for (const t of c.narrower) covered.add(t);
  };
  const neighbour = (c: Candidate, step: number) => candidates.find((other) => other.passage === c.passage && other.position === c.position + step);
  while (chosen.length < MAX_SENTENCES) {
    let best: Candidate | undefined;
    let bestValue = 0;
    for (const candidate of candidates) {
      if (chosen.includes(candidate)) continue;
      const gain = gainOf(candidate);
      if (gain <= 0 || (chosen.length > 0 && gain < LATER_GAIN)) continue;
      // Near-ties go to the sentence that says the words itself, not by its title or heading (its own terms are among its terms: own gain <= gain).
      const base = gain + 0.05 * candidate.passageScore - candidate.penalty;
      if (base + 0.1 * gain + DENSITY_TIE <= bestValue) continue;
      const value = base + 0.1 * gainOf(candidate, true);
      if (value > bestValue + DENSITY_TIE || (value > bestValue - DENSITY_TIE && densityWins(candidate, best, value, bestValue, weights))) [best, bestValue] = [candidate, value];
    }
    if (!best) break;
    // Two sources that answer alike (the shop's price and the wholesale list's) are both quoted: the question does not say which it means.
    const rival = chosen.length === 0 ? alike(best, candidates, gainOf, weights) : undefined;
    const mostlyTitle = gainOf(best, true) < gainOf(best) / 2;
    // An address is written over lines: the postal code's line brings the street's before it (a line with a house number).
    const before = neighbour(best, -1);
    if (REFERS_BACK.test(best.text) || (best.ownTerms.has('#address') && before && /\d/.test(before.text) && !before.ownTerms.has('#address'))) take(before);
    take(best);
    const next = neighbour(best, 1);
    if (next && (best.text.trimEnd().endsWith(':') || mostlyTitle || goesOn(best, next, weights))) take(next);
    take(rival);
  }
  takeAskedKind(candidates, weights, chosen, gainOf, take);
  return chosen;
}

/**
 * A question asking for a kind of fact (a price, a time, a number) is not answered by
 * sentences that hold its words without that fact: when the chosen ones hold every word of
 * the question (by itself or a related word) but none holds an asked kind, the sentence
 * that holds it and adds most is taken although it adds less than LATER_GAIN, provided it
 * also holds a word of the question (in its own words or by a synonym, not by its title or
 * heading), or a related word (a narrower or broader noun, a translation). What it holds
 * counts towards the share the answer needs. A question word no chosen sentence holds is
 * what the material lacks ("How much does parking cost at the first appointment?"): then
 * nothing is added. "Wat kost de eerste
 * afspraak?" quotes "…bring … to your first appointment" and then the fee's row
 * ("Initial assessment — …; Price: £65"), which adds only the amount.
 */
function takeAskedKind(candidates: Candidate[], weights: Map<string, number>, chosen: Candidate[], gainOf: (c: Candidate, own?: boolean) => number, take: (c: Candidate) => void): void {
  const kinds = [...weights.keys()].filter((term) => term.startsWith('#') && !CONTACT_KINDS.includes(term));
  if (chosen.length === 0 || chosen.length >= MAX_SENTENCES || kinds.length === 0) return;
  const missing = kinds.filter((kind) => !chosen.some((c) => c.ownTerms.has(kind)));
  const words = [...weights.keys()].filter((term) => !term.startsWith('#'));
  if (missing.length === 0 || !words.every((term) => chosen.some((c) => c.terms.has(term) || c.narrower.has(term)))) return;
  const ownWord = (c: Candidate) => words.some((term) => c.ownTerms.has(term) || c.narrower.has(term));
  let best: Candidate | undefined;
  let bestGain = 0;
  for (const candidate of candidates) {
    if (chosen.includes(candidate) || !missing.some((kind) => candidate.ownTerms.has(kind)) || !ownWord(candidate)) continue;
    const gain = gainOf(candidate);
    if (gain > bestGain) [best, bestGain] = [candidate, gain];
  }
  if (best) take(best);
}

/**
 * A page that answers the question may also say it in the asked form: a sentence whose label
 * asks what the question asks, and which holds that kind of fact after it ("Kies hoe vaak:
 * elke 2 weken of elke 4 weken." under "Met een abonnement krijg je elke twee of vier weken
 * vers gebrande koffie…", for "Hoe vaak komt de koffie bij een abonnement?"), is quoted too
 * when there is room: from a source already quoted, holding a word of the question (by
 * itself, its title or heading, or a related word). Not a table's row, whose every row
 * labels its columns alike, nor the contact kinds, which weigh as the heaviest word already.
 * Taken once the answer is decided: it never turns a decline into an answer.
 */
function takeLabelled(candidates: Candidate[], weights: Map<string, number>, chosen: Candidate[]): void {
  const kinds = [...weights.keys()].filter((term) => term.startsWith('#') && !CONTACT_KINDS.includes(term)).map((term) => term.slice(1));
  if (chosen.length === 0 || chosen.length >= MAX_SENTENCES || kinds.length === 0) return;
  const labelled = (c: Candidate) => !TABLE_ROW.test(c.text) && labelAsks(c.text).some((kind) => kinds.includes(kind) && c.ownTerms.has(`#${kind}`));
  if (chosen.some(labelled)) return;
  const sources = new Set(chosen.map((c) => c.sourceName));
  const words = [...weights.keys()].filter((term) => !term.startsWith('#'));
  const best = candidates
    .filter((c) => !chosen.includes(c) && sources.has(c.sourceName) && words.some((term) => c.terms.has(term) || c.narrower.has(term)) && labelled(c))
    .sort((a, b) => b.passageScore - a.passageScore || a.passage - b.passage || a.position - b.position)[0];
  if (best) chosen.push(best);
}

/** A table's row as the crawl writes it when a header names the columns: "Solo — Prix: 9 € HT par mois; Utilisateurs: 1" (crawl/extract.ts, tableRowLine). */
const TABLE_ROW = /^[^—\n]+ — [^:\n]+: /;

/**
 * Whether the sentence after a chosen one goes on about the question: it holds a question
 * term or asked kind of its own. The next row of a table holds its columns' names and
 * kinds as every row does: it goes on only with a term the chosen row lacks ("un seul
 * utilisateur" is the Solo row, not the Équipe row under it).
 */
function goesOn(chosen: Candidate, next: Candidate, weights: Map<string, number>): boolean {
  const rows = TABLE_ROW.test(chosen.text) && TABLE_ROW.test(next.text);
  return [...next.ownTerms].some((t) => weights.has(t) && !(rows && chosen.ownTerms.has(t)));
}

/**
 * The best sentence of another source that answers as `best` does: the question asks for a
 * kind of fact (a price, a time), both hold it, and the same share of the question, by
 * their own words as much.
 */
function alike(best: Candidate, candidates: Candidate[], gainOf: (c: Candidate, own?: boolean) => number, weights: Map<string, number>): Candidate | undefined {
  const kinds = [...weights.keys()].filter((term) => term.startsWith('#'));
  if (kinds.length === 0 || !kinds.every((kind) => best.ownTerms.has(kind))) return undefined;
  const [gain, own] = [gainOf(best), gainOf(best, true)];
  return candidates
    .filter((c) => c.sourceName !== best.sourceName && kinds.every((kind) => c.ownTerms.has(kind)))
    .filter((c) => Math.abs(gainOf(c) - gain) < 1e-9 && Math.abs(gainOf(c, true) - own) < 1e-9)
    .sort((a, b) => b.passageScore - a.passageScore)[0];
}

/**
 * A near-tie between sentences of two passages (their values at most this far apart: two
 * passages 0.04 apart in score weigh as much) goes to the sentence with fewer other words
 * than the question's: it is more about them ("Maandag: gesloten" over "We branden en
 * versturen op maandag; dinsdag of woensdag ligt je koffie op de mat."). Within one passage
 * the writer's order decides, as it did.
 */
const DENSITY_TIE = 0.002;

function densityWins(candidate: Candidate, best: Candidate | undefined, value: number, bestValue: number, weights: Map<string, number>): boolean {
  if (!best) return value > bestValue;
  if (candidate.passage === best.passage) return value > bestValue;
  const [mine, theirs] = [density(candidate, weights), density(best, weights)];
  return mine !== theirs ? mine > theirs : value > bestValue;
}

/** The share of a sentence's own words that are the question's. */
function density(candidate: Candidate, weights: Map<string, number>): number {
  const own = [...candidate.ownTerms].filter((term) => !term.startsWith('#'));
  return own.length === 0 ? 0 : own.filter((term) => weights.has(term)).length / own.length;
}

/** Long sentences hold more words by chance: a small cost per word past forty. */
function lengthPenalty(text: string): number {
  const count = text.split(/\s+/).length;
  return count > 40 ? (count - 40) * 0.005 : 0;
}

/** A streamed answer's pieces: sentence by sentence, as a model would deliver them. */
export function offlineDeltas(text: string): string[] {
  return text.match(/[^\s].*?(?:[.!?:](?=\s)|\n+|$)\s*/gs) ?? [text];
}

/** The offline model as an AI SDK model: one path for every model in the answering service. */
export function offlineLanguageModel(modelId: string): LanguageModelV3 {
  const answer = (options: LanguageModelV3CallOptions) => {
    const context = contextOf(options);
    return context.composed === undefined ? composeOfflineAnswer(context) : { text: context.composed };
  };
  return {
    specificationVersion: 'v3',
    provider: OFFLINE_PROVIDER,
    modelId,
    supportedUrls: {},
    async doGenerate(options): Promise<LanguageModelV3GenerateResult> {
      const { text } = answer(options);
      return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(options, text), warnings: [] };
    },
    async doStream(options) {
      const { text } = answer(options);
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: '0' },
        ...offlineDeltas(text).map((delta) => ({ type: 'text-delta' as const, id: '0', delta })),
        { type: 'text-end', id: '0' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(options, text) },
      ];
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

/** The structured context when the answering service gave it; otherwise the last question and no material. */
function contextOf(options: LanguageModelV3CallOptions): OfflineContext {
  const given = options.providerOptions?.[OFFLINE_PROVIDER] as unknown as OfflineContext | undefined;
  if (given?.passages) return given;
  const lastUser = [...options.prompt].reverse().find((m) => m.role === 'user');
  const question = lastUser && Array.isArray(lastUser.content) ? lastUser.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ') : '';
  return { question, followsUp: null, language: 'en', passages: [] };
}

/** Tokens estimated as four characters each: the model has no tokenizer, and nothing is billed by them. */
function usage(options: LanguageModelV3CallOptions, text: string) {
  let promptChars = 0;
  for (const message of options.prompt) {
    if (typeof message.content === 'string') promptChars += message.content.length;
    else for (const part of message.content) if (part.type === 'text') promptChars += part.text.length;
  }
  const [input, output] = [Math.ceil(promptChars / 4), Math.ceil(text.length / 4)];
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}
