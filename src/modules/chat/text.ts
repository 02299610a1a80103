/**
 * Words and sentences as the answering code compares them: pure functions, no
 * database. Matching is deliberately light (accents folded, a few common endings
 * cut, Spanish verb endings too when the text is Spanish, stop words of the five
 * languages dropped): it ranks sentences that the search index already chose, so it
 * only has to tell the best of a few dozen apart.
 */
import { LANGUAGES, type Language } from '../agents/schemas.ts';
import { EMAIL, POSTAL_CODES } from '../knowledge/crawl/contact-details.ts';
import { fold, stem } from '../knowledge/stemming.ts';
import { englishLexicon } from '../knowledge/english-wordnet.ts';
import { keptOrMade } from '../../platform/kept.ts';

export { fold, stem };

/**
 * Each language's stop words. A text of unknown language drops all five languages'; so does
 * a text in Dutch, French, German or Spanish (a question's language is detected, and a
 * mixed or misread one, "Wanneer is de workshop latte art?" read as English, still loses
 * "wanneer" and "de"). An English text keeps another language's stop word that English
 * uses as a word (WordNet's tagged texts use it: knowledge/english-wordnet.ts): "son" is a
 * French possessive but an English noun ("my 14 year old son"), "die" a Dutch and German
 * article but an English verb.
 */
const STOP_WORDS_BY_LANGUAGE: Record<Language, Set<string>> = {
  en: foldedSet('a an and are as at be been but by can could do does did for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to us was we were what when where which who whom whose why will with would you your yours about also any just may might please tell'),
  nl: foldedSet('de het een en van in is op te dat die voor met zijn er aan ook als bij of om nog wat wie waar hoe wanneer welk welke kan kun kunt je jij jullie u uw we wij ik mijn ons onze zij ze hun niet geen wel naar dan door maar over uit worden wordt was heb hebt heeft hebben'),
  fr: foldedSet('le la les un une des et de du en est sont au aux ce cet cette ces que qui quoi quand comment quel quelle quels quelles lequel laquelle pour par sur dans avec sans chez pas ne ou je tu il elle on nous vous ils elles mon ma mes votre vos notre nos leur leurs se sa son ses y a peut puis suis es etes sommes ai as avez avons ont'),
  de: foldedSet('der die das ein eine einen einem einer und oder ist sind war in im am an auf aus bei mit nach von vor zu zum zur für über um wie wo was wer wann warum welche welcher welches welchen ich du er sie es wir ihr ihnen ihm ihn uns euch mich mir dich dir mein meine meinen meinem meiner dein unser euer ihre nicht kein keine auch noch nur kann können den dem des habe hast hat haben habt werde wird werden'),
  es: foldedSet('el la los las un una unos unas y o de del en es son al que qué cómo como cuándo cuando dónde donde quién cuál cuáles por para con sin no se su sus mi mis tu tus nuestro nuestra usted ustedes lo le les me te nos hay puedo puede'),
};
/** The five languages' stop words together. */
const STOP_WORDS = new Set(Object.values(STOP_WORDS_BY_LANGUAGE).flatMap((set) => [...set]));
let englishStopWords: Set<string> | undefined;

/** English's stop words, and the other languages' that English does not use as words (made on the first English text). */
function englishStops(): Set<string> {
  const lexicon = englishLexicon();
  englishStopWords ??= new Set([...STOP_WORDS].filter((word) => STOP_WORDS_BY_LANGUAGE.en.has(word) || !lexicon.known(word)));
  return englishStopWords;
}

function foldedSet(list: string): Set<string> {
  return new Set(list.split(/\s+/).map(fold));
}

/**
 * Words a question uses whatever it is about ("can I bring…", "what is wrong…", "how do I
 * get…"): dropped from a question's terms, so that the words left are what it asks about.
 * Answer sentences keep them (they are not stop words).
 */
const GENERIC_WORDS = new Set(
  [
    // en
    'hi hello hey thanks thank please should shall must bring brought get gets got getting give take takes taking took make makes made go going come coming keep keeps let put see look know want need needs like use used using visit still really actually something anything thing things happen happens happened wrong kind type sort way possible able ok okay good best someone anyone there here ever',
    // nl
    'hallo hoi bedankt dank alstublieft alsjeblieft krijg krijgen krijgt neem nemen neemt breng brengen brengt maak maken maakt ga gaan gaat kom komen komt houd houden zie zien kijk kijken weet weten wil willen wilt moet moeten mag mogen nodig even graag iets soort manier mogelijk gebeurt gebeuren',
    // fr
    'bonjour salut merci svp pouvez pouvons peux faire fait prendre prends prend apporter apporte aller vais va venir viens vient voir savoir sais veux veut vouloir faut falloir besoin chose choses genre type possible encore quelque arrive',
    // de
    'hallo danke bitte bekomme bekommen bekommt nehmen nehme nimmt bringen bringe bringt gehen gehe geht kommen komme kommt machen mache macht sehen wissen weiss will wollen muss mussen brauche brauchen braucht etwas art moglich passiert gibt',
    // es
    'hola gracias favor tener tengo tiene tomar tomo toma traer traigo trae ir voy va venir vengo viene hacer hago hace ver saber se quiero quiere querer necesito necesita necesitar algo cosa tipo posible todavia pasa',
  ]
    .join(' ')
    .split(/\s+/)
    .map(fold),
);

/** The words termsOf drops: a text's content terms drop the stop words (an English text's: englishStops); a question's also the generic words. */
const CONTENT_DROPPED = [STOP_WORDS];
const QUESTION_DROPPED = [STOP_WORDS, GENERIC_WORDS];
let englishDropped: { content: Array<Set<string>>; question: Array<Set<string>> } | undefined;

/** The words dropped from a text (`question`: a question's, generic words too): all five languages' stop words, but an English text's English ones (englishStops). */
function droppedIn(language: Language | undefined, question: boolean): Array<Set<string>> {
  if (language !== 'en') return question ? QUESTION_DROPPED : CONTENT_DROPPED;
  englishDropped ??= { content: [englishStops()], question: [englishStops(), GENERIC_WORDS] };
  return question ? englishDropped.question : englishDropped.content;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’.,:-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** The words of a text, numbers kept whole ("9:00", "4.95"), split on everything else. */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The stems of a text's words that carry meaning (stop words and single letters dropped), stemmed for `language` when given. */
export function contentTerms(text: string, language?: Language): string[] {
  return termsOf(text, language, droppedIn(language, false), oneAsDigit);
}

/**
 * The number one where a language says it unambiguously, as its digit: the word for one
 * is also the indefinite article ("un", "een", "ein", "uno", "a"; stemming.ts reads only
 * two to twelve as digits), but with the word for "single" after it, or Dutch's accented
 * "één", it is the number: "l'offre pour un seul utilisateur" holds the "1" of a table's
 * "Utilisateurs: 1". Read on the text as written ("één" folds to the article "een").
 */
export function oneAsDigit(text: string): string {
  // After an elision ("d'un seul") the digit is a word of its own.
  return ONE_MAYBE.test(text) ? text.replace(ONE, (_, elided: string | undefined) => (elided ? `${elided} 1` : '1')) : text;
}

const ONE_MAYBE = /seul|single|één|enkel|einzig|solo|sola|[uú]nic/i;
const ONE = /(?:(['’])|(?<![\p{L}\p{N}]))(?:un seul|une seule|a single|één|een enkele?|ein(?:e|en|em|er)? einzig(?:e|er|es|en|em)?|un solo|una sola|un [uú]nico|una [uú]nica)(?![\p{L}\p{N}])/giu;

/**
 * The verbs of a question, as its language's word order shows them (the terms of the
 * words, stemmed): a French verb inverted with its pronoun ("proposez-vous") and the verb
 * after a modal or auxiliary ("puis-je demander", "peut-il accéder", "sont-elles
 * stockées"); in Dutch and German, a question opening with a modal or auxiliary ends its
 * clause with the verb ("Kan ik contant afrekenen?", "Wo werden meine Daten
 * gespeichert?"; a subordinate clause after a conjunction that is nothing else, such as
 * "wanneer" or "weil", is left out: "als", "of" and "dat" are also "as", "or" and "that");
 * in Spanish the infinitive after a modal ("¿Puedo pagar…?"). English
 * has WordNet's parts of speech instead (knowledge/english-wordnet.ts). A verb the
 * material lacks is often said in other words there (chat/offline-model.ts).
 */
export function questionVerbs(question: string, language: Language): Set<string> {
  const folded = fold(question).replace(/[¿¡?!.,;:]/g, ' ');
  const found: string[] = [];
  if (language === 'fr') {
    for (const match of folded.matchAll(/\b([\p{L}]+)-(?:t-)?(?:je|tu|il|elle|on|nous|vous|ils|elles)\b(?:\s+([\p{L}]+))?/gu)) {
      found.push(match[1]);
      if (match[2] && FRENCH_AUXILIARIES.test(match[1])) found.push(match[2]);
    }
    for (const match of folded.matchAll(/\b(?:je|tu|il|elle|on|nous|vous|ils|elles)\s+([\p{L}]+)\s+([\p{L}]+)/gu)) if (FRENCH_AUXILIARIES.test(match[1])) found.push(match[2]);
  } else if (language === 'nl' || language === 'de') {
    const [clause] = folded.split(language === 'nl' ? /\b(?:wanneer|omdat|zodat|terwijl|nadat|voordat|zodra)\b/ : /\b(?:wenn|wann|weil|damit|nachdem|bevor|sobald)\b/);
    const clauseWords = clause.split(/\s+/).filter(Boolean);
    const opensWithAuxiliary = clauseWords.slice(0, 2).some((word) => (language === 'nl' ? DUTCH_AUXILIARIES : GERMAN_AUXILIARIES).test(word));
    const last = clauseWords.at(-1);
    if (opensWithAuxiliary && clauseWords.length > 2 && last && /(en|ge\p{L}+[dt])$/u.test(last)) found.push(last);
    if (language === 'nl') found.push(...dutchInvertedVerb(clauseWords));
  } else if (language === 'es') {
    for (const match of folded.matchAll(/\b(?:puedo|puede|pueden|podemos|debo|debe|deben|quiero|quiere|hay que|se puede)\s+([\p{L}]+(?:ar|er|ir))\b/gu)) found.push(match[1]);
  }
  return new Set(found.flatMap((word) => termsOf(word, language, droppedIn(language, true))));
}

/**
 * A Dutch question puts its finite verb before its subject pronoun ("Hoe halen jullie…",
 * "Met hoeveel mensen zit je…", "Verkopen jullie…"): that word is the verb. A separable
 * verb leaves its particle at the end of the clause ("Hoe halen jullie de cafeïne eruit?",
 * "Hoe meld ik me af?"): a preposition, or one joined to "er", "daar" or "hier" ("eruit",
 * "daarmee"), read as part of the verb. Auxiliaries are left to the rule above (their verb
 * ends the clause).
 */
function dutchInvertedVerb(clauseWords: string[]): string[] {
  const pronoun = clauseWords.findIndex((word, i) => i > 0 && DUTCH_SUBJECT_PRONOUNS.test(word) && !STOP_WORDS_BY_LANGUAGE.nl.has(clauseWords[i - 1]));
  if (pronoun < 0 || DUTCH_AUXILIARIES.test(clauseWords[pronoun - 1])) return [];
  const last = clauseWords.at(-1)!;
  return [clauseWords[pronoun - 1], ...(pronoun < clauseWords.length - 1 && DUTCH_PARTICLE.test(last) ? [last] : [])];
}

const DUTCH_SUBJECT_PRONOUNS = /^(ik|je|jij|u|jullie|we|wij|ze|zij|hij)$/;
const DUTCH_PREPOSITIONS = 'aan|af|bij|door|in|langs|mee|na|om|onder|op|over|tegen|toe|uit|voor|weg|terug';
const DUTCH_PARTICLE = new RegExp(`^(?:er|daar|hier)?(?:${DUTCH_PREPOSITIONS})$`);

const FRENCH_AUXILIARIES = /^(peux|peut|pouvez|pouvons|peuvent|puis|dois|doit|devez|devons|doivent|faut|veux|veut|voulez|suis|es|est|sont|sommes|etes|ai|as|a|avez|avons|ont)$/;
const DUTCH_AUXILIARIES = /^(kan|kun|kunt|kunnen|mag|mogen|moet|moeten|wil|wilt|willen|zal|zult|zullen|heb|hebt|heeft|hebben|ben|bent|is|zijn|word|wordt|worden)$/;
const GERMAN_AUXILIARIES = /^(kann|kannst|konnen|konnt|darf|darfst|durfen|muss|musst|mussen|soll|sollst|sollen|will|willst|wollen|werde|wirst|wird|werden|habe|hast|hat|haben|bin|bist|ist|sind|seid)$/;

/**
 * The terms of a question: its content terms without the words any question uses
 * (GENERIC_WORDS). A question of generic words only keeps them.
 */
export function questionTerms(text: string, language?: Language): string[] {
  const terms = termsOf(text, language, droppedIn(language, true), oneAsDigit);
  return terms.length > 0 ? terms : contentTerms(text, language);
}

/**
 * A text's terms, read as `written` rewrites it first (oneAsDigit for the callers that read the number one): a
 * longer text's are kept by the text as given, so a text read again is neither rewritten nor split again.
 */
function termsOf(text: string, language: Language | undefined, dropped: Array<Set<string>>, written?: (text: string) => string): string[] {
  if (text.length < TEXT_KEPT_FROM || text.length > TEXT_KEPT_UP_TO) return termsOfWords(written ? written(text) : text, language, dropped);
  const texts = keptTerms(language, dropped, written ? KEPT_TEXTS_REWRITTEN : KEPT_TEXTS);
  return keptOrMade(texts, text, MAX_TEXTS_KEPT, () => Object.freeze(termsOfWords(written ? written(text) : text, language, dropped)) as string[]);
}

function termsOfWords(text: string, language: Language | undefined, dropped: Array<Set<string>>): string[] {
  const known = keptTerms(language, dropped, KEPT);
  const terms: string[] = [];
  for (const word of words(text)) {
    let found = known.get(word);
    if (found === undefined) {
      if (known.size >= MAX_WORDS_KEPT) known.clear();
      known.set(word, (found = wordTerms(word, language, dropped)));
    }
    for (const term of found) terms.push(term);
  }
  return terms;
}

/**
 * Each word's terms, kept per language and list of dropped words: one answer reads the
 * same candidate passages several times (confidence, sentence picking, grounding), and
 * the next answers mostly the same words again (the capacity bench, docs/performance.md).
 * Bounded; a word's terms depend on nothing else.
 */
const KEPT = new WeakMap<Array<Set<string>>, Map<Language | 'none', Map<string, string[]>>>();
const MAX_WORDS_KEPT = 50_000;
/**
 * And each longer text's terms (frozen: the callers share them): the same passages, and their sentences, are read by
 * every answer that finds them, and looking a text up costs a hash of it where reading its words looked up each word
 * (the capacity bench's profile, docs/performance.md, seventh round). Bounded like the words.
 */
const KEPT_TEXTS = new WeakMap<Array<Set<string>>, Map<Language | 'none', Map<string, string[]>>>();
/** The same for texts read through oneAsDigit (contentTerms, questionTerms), kept by the text before it. */
const KEPT_TEXTS_REWRITTEN = new WeakMap<Array<Set<string>>, Map<Language | 'none', Map<string, string[]>>>();
const MAX_TEXTS_KEPT = 5_000;
const TEXT_KEPT_FROM = 24;
const TEXT_KEPT_UP_TO = 4_000;

function keptTerms(language: Language | undefined, dropped: Array<Set<string>>, kept: typeof KEPT): Map<string, string[]> {
  let byLanguage = kept.get(dropped);
  if (!byLanguage) kept.set(dropped, (byLanguage = new Map()));
  let known = byLanguage.get(language ?? 'none');
  if (!known) byLanguage.set(language ?? 'none', (known = new Map()));
  return known;
}

function wordTerms(word: string, language: Language | undefined, dropped: Array<Set<string>>): string[] {
  const folded = fold(word);
  if (/\p{L}['’]\p{L}/u.test(folded)) return termsOf(elided(folded), language, dropped);
  if (folded.length < 2 && !/\d/.test(folded)) return [];
  if (dropped.some((set) => set.has(folded))) return [];
  // "trade-in" and "second-hand" also match "trade in" and "second hand"; "êtes-vous", whose parts are all dropped, is dropped.
  const hyphenated = /\p{L}-\p{L}/u.test(folded);
  const parts = hyphenated ? termsOf(folded.replace(/-/g, ' '), language, dropped) : [];
  if (parts.length === 0 && hyphenated) return [];
  // "gérez-vous" and "existe-t-il" are a verb with its pronoun: the verb alone is the word.
  if (hyphenated && folded.split('-').some((part) => part.length < 2 || dropped.some((set) => set.has(part)))) return parts;
  return [stem(folded.replace(/['’]/g, ''), language), ...parts];
}

/**
 * A word with an apostrophe as its words: "l'offre" and "d'API" (elision), "what's" and
 * "clinic's" (contraction, possessive) are "offre", "API", "what" and "clinic"; a part of
 * fewer than three letters is the elided article or the contracted ending, and is dropped.
 */
function elided(word: string): string {
  return word
    .split(/['’]/)
    .filter((part) => part.length >= 3)
    .join(' ');
}

/** Abbreviations after which a full stop does not end a sentence (one-letter ones never do). */
const ABBREVIATIONS = new Set(
  'mr mrs ms dr prof st sr jr vs approx incl excl ca fig dept ave rd dhr mevr mw bijv ong mme mlle env cf bzw evtl ggf inkl str vgl sra srta dra avda aprox pag'.split(' '),
);
/** The end of a sentence read for an abbreviation before its full stop: longer than any in the lists. */
const ABBREVIATION_TAIL = 24;
/** These only before a number ("No. 5", "Tel. 050…"): "No." alone may be a whole answer. */
const NUMBER_ABBREVIATIONS = new Set('no nr nos num tel'.split(' '));

/**
 * Sentences of a passage: split after . ! ? followed by a capital or a digit (not inside
 * numbers such as 4.95 or 9:00, nor after an abbreviation: "e.g.", "Dr.", "No. 5") and at
 * line breaks; bullet marks dropped.
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const clean = line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim();
    if (!clean) continue;
    const parts = clean.split(/(?<=[^\s.!?]{2}[.!?]["')\]]?)\s+(?=["'(\[]?[\p{Lu}\p{N}])/u);
    let pending = '';
    parts.forEach((part, i) => {
      pending = pending ? `${pending} ${part}` : part;
      if (i + 1 < parts.length && endsWithAbbreviation(pending, parts[i + 1])) return;
      if (pending.trim()) out.push(pending.trim());
      pending = '';
    });
  }
  return out;
}

function endsWithAbbreviation(text: string, next: string): boolean {
  // Only the text's end is read: the pending text grows part by part, and the abbreviations are far shorter than this.
  const last = fold(text.slice(-ABBREVIATION_TAIL).match(/(\p{L}+)\.$/u)?.[1] ?? '');
  return ABBREVIATIONS.has(last) || (NUMBER_ABBREVIATIONS.has(last) && /^\d/.test(next));
}

/** The share of `terms` (weighted) that `found` holds. */
export function coverage(terms: Map<string, number>, found: Set<string>): number {
  let total = 0;
  let held = 0;
  for (const [term, weight] of terms) {
    total += weight;
    if (found.has(term)) held += weight;
  }
  return total > 0 ? held / total : 0;
}

const NUMBER_WORDS =
  'a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|half an?|een|twee|drie|vier|vijf|zes|zeven|acht|negen|tien|twaalf|un|une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|douze|ein|eine|einen|einem|zwei|drei|vier|funf|sechs|sieben|acht|neun|zehn|zwolf|uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|doce|quince';
/** The number words that are also indefinite articles. */
const ARTICLES = new Set(['a', 'an', 'half an?', 'een', 'un', 'une', 'ein', 'eine', 'einen', 'einem', 'uno', 'una']);
const WEEKDAYS =
  'mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|montags?|dienstags?|mittwochs?|donnerstags?|freitags?|samstags?|sonntags?|lunes|martes|miercoles|jueves|viernes|sabados?|domingos?';
const MONTHS =
  'january|february|march|april|june|july|august|september|october|november|december|januari|februari|maart|mei|juni|juli|augustus|oktober|janvier|fevrier|mars|avril|mai|juin|juillet|aout|septembre|octobre|novembre|decembre|januar|februar|marz|juni|juli|dezember|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre';
const TIME_UNITS =
  'minutes?|hours?|days?|weeks?|months?|years?|minuten|uur|uren|werkdagen|werkdag|dagen|dag|weken|week|maanden|maand|jaar|jaren|heures?|jours?|semaines?|mois|ans?|annees?|stunden?|werktage[n]?|werktag|arbeitstage[n]?|arbeitstag|tage[n]?|tag|wochen?|monaten?|monate|jahren?|jahre|minutos?|horas?|dias?|semanas?|meses|mes|anos?';

/**
 * What a question asks for beyond its words, and what an answer to it holds: "how much"
 * is answered by an amount, "what time" by a time of day, "how long" by a duration, "how
 * many" by a number, "how often" by a frequency, "where are you" by a postal address,
 * "e-mail address" by one, "phone number" by a number to call.
 * Matched on folded text; the asking words are not terms of the question.
 */
/** A person's name as a sentence writes it: two capitalised words, or two first names and a surname ("Sanne en Joris Bakker"). */
const NAME = /\b\p{Lu}\p{Ll}+(\s+(en|and|et|und|y|&)\s+\p{Lu}\p{Ll}+)?\s+\p{Lu}\p{Ll}+\b/u;
/** Every name of a sentence, overlapping ones too ("Our Pilates" then "Pilates Tom" is no name): each start word tried. */
const NAMES = new RegExp(`(?=(${NAME.source}))`, 'gu');
/** Dutch asks "who" with "wie", German "how": read as "who" only in a Dutch question. */
const DUTCH_WHO = /^[\s]*(wie)\b/g;

const ASKS: Array<{ kind: string; question: RegExp; answer: RegExp }> = [
  {
    kind: 'duration',
    question: /\b(how long|hoe lang|combien de temps|wie lange?|cuanto tiempo)\b/g,
    answer: new RegExp(`\\b(\\d[\\d.,]*|${NUMBER_WORDS})\\s+(\\p{L}+\\s+)?(${TIME_UNITS})\\b`, 'u'),
  },
  {
    kind: 'often',
    question: /\b(how often|how frequently|hoe vaak|combien de fois|a quelle frequence|wie oft|cada cuanto|con que frecuencia)\b/g,
    answer: /\b(every|each|per|once|twice|daily|weekly|monthly|yearly|a (day|week|month|year)|elke|iedere|keer|chaque|tous les|toutes les|fois|jede[nrs]?|alle|mal|cada|vez|veces)\b/,
  },
  {
    kind: 'clock',
    // "How late…" and "until when…" ask for the time something ends: "Friday: 7:30am – 5:00pm" answers them.
    question:
      /\b(what time|which time|how (late|early)|until (when|what time)|till (when|what time)|(tot|vanaf) hoe laat|hoe laat|(jusqu'?a|a partir de|des) quelle heure|a quelle heure|quelle heure|um wie viel uhr|wie viel uhr|uhrzeit|bis wann|ab wann|(hasta|desde) que hora|a que hora|que hora)\b/g,
    answer: /\b\d{1,2}(:\d{2}|h\d{2}|\.\d{2}\s?(uur|uhr))\b|\b\d{1,2}\s?(am|pm|uur|uhr)\b/,
  },
  {
    kind: 'when',
    question: /^[¿¡\s]*(when|wanneer|quand|wann|cuando)\b/g,
    answer: new RegExp(
      `\\b\\d{1,2}:\\d{2}\\b|\\b(1[89]|20)\\d{2}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b(${NUMBER_WORDS}|\\d+)\\s+(\\p{L}+\\s+)?(${TIME_UNITS})\\b|\\b(${WEEKDAYS}|${MONTHS}|today|tomorrow|weekdays?|weekends?|morning|evening|afternoon|night)\\b`,
      'u',
    ),
  },
  // A question that states someone's age ("my 14 year old son", "14 jaar oud", "âgé de 14 ans"; not "2 jaar", which may be a
  // contract's length) is answered by what the material says of ages ("children from the age of 12", "people over 65"):
  // the reader compares the two, the model does not.
  {
    kind: 'age',
    question:
      /\b(\d{1,3}[\s-]?(years?|yrs?)[\s-]old|aged \d{1,3}|\d{1,3} jaar oud|age de \d{1,3} ans|\d{1,3} jahre alt|\d{1,3} anos de edad)\b/g,
    answer:
      /\b(ages?( of| from)? \d{1,3}|aged \d{1,3}|\d{1,3}[\s-]?(years?|yrs?)[\s-](old|and (over|older|under))|(over|under|above|below) (the age of )?\d{1,3}\b(?! ?(%|percent|minutes|pounds|euros?|[£€$])))|leeftijd (van )?\d{1,3}|vanaf \d{1,3} jaar|\d{1,3} jaar (en ouder|of ouder)|(a partir de|des|plus de|moins de) \d{1,3} ans|\d{1,3} ans et plus|ab \d{1,3} jahren|(uber|unter) \d{1,3} jahren?|(a partir de|mayores de|menores de) \d{1,3} anos/,
  },
  {
    kind: 'number',
    question: /\b(how (many|big|large|high|heavy|far|old|wide|tall)|hoeveel|hoe (groot|hoog|zwaar|ver|oud)|combien (de\b|d')|quelle taille|wie viele|wie (gross|hoch|schwer|weit|alt)|cuantos|cuantas|que tan (grande|alto))\b/g,
    // Not the words that are also articles ("a", "een", "un"): nearly every sentence holds one.
    answer: new RegExp(`\\d|\\b(${NUMBER_WORDS.split('|').filter((word) => !ARTICLES.has(word)).join('|')})\\b`, 'u'),
  },
  {
    kind: 'money',
    question: /\b(how much|prices?|costs?|fees?|charges?|rates?|wat kost|hoeveel kost|kosten|kost|prijs|prijzen|tarief|combien coute|combien|prix|coute|coutent|couts?|tarifs?|frais|was kostet|wie viel kostet|kostet|preise?|gebuhr|cuanto cuesta|cuanto|precios?|cuesta|cuestan|costes?|tarifas?)\b/g,
    // No \b after a currency sign: "4,95 €;" has no word boundary after the sign.
    answer: /\d\s?((euros?|eur|cents?|dollars?|pounds?)\b|[€$£])|[€$£]\s?\d|\b(free|gratis|gratuite?s?|kostenlos|gratuitos?)\b/,
  },
  // Before the address: "e-mail address" asks for an e-mail address, not a postal one.
  {
    kind: 'email',
    question: /\b(e-?mail( address| adres| adresse)?|mailadres|adresse (e-?mail|mail|electronique)|courriel|correo( electronico)?)\b/g,
    answer: EMAIL,
  },
  {
    kind: 'address',
    question:
      /\b(where are you( based)?|where is your|where can i find you|located|location|(postal |street )?address|adres|adresse postale|waar (zit|zitten|zijn|vind) (je|jullie|u)|ou (se trouve|se trouvent|etes|vous trouver)|ou est (situe|votre)|wo (sind|finde ich|befindet sich) (sie|ihr|euch)|anschrift|donde (esta|estan|se encuentra)|direccion postal)\b/g,
    answer: new RegExp(POSTAL_CODES.map((code) => code.source).join('|'), 'u'),
  },
  // "Who started…", "Wie zijn de eigenaren…": answered by a person's name (two capitalised words, read on the sentence as written).
  {
    kind: 'name',
    question: /^[¿¡\s]*(who|whom|qui|wer|quien|quienes)\b/g,
    answer: NAME,
  },
  {
    kind: 'phone',
    question: /\b((tele)?phone number|number to call|telefoonnummer|numero de telephone|telefonnummer|numero de telefono)\b/g,
    answer: /\+?\d[\d ()-]{6,}\d/,
  },
];

/** The kinds of fact a question asks for (ASKS), and the question without the words that ask. */
export function askedFor(question: string, language?: Language): { kinds: string[]; rest: string } {
  let rest = fold(oneAsDigit(question));
  const kinds: string[] = [];
  for (const ask of ASKS) {
    const without = rest.replace(ask.kind === 'name' && language === 'nl' ? DUTCH_WHO : ask.question, ' ');
    if (without === rest) continue;
    kinds.push(ask.kind);
    rest = without;
  }
  return { kinds, rest };
}

/** A sentence's label: the words before its colon ("Kies hoe vaak: elke 2 weken…"; not a time's colon, "10:00"). */
const LABEL = /^([^:]{1,60}):\s/;

/**
 * The kinds of fact a sentence's label asks for, as a question's words would (ASKS): "Kies
 * hoe vaak: elke 2 weken of elke 4 weken." asks how often, and answers it after the colon.
 * Not a name: "who" opens a question, never a label.
 */
export function labelAsks(sentence: string): string[] {
  const label = fold(sentence).match(LABEL)?.[1];
  if (!label) return [];
  return ASKS.filter((ask) => ask.kind !== 'name' && label.search(ask.question) >= 0).map((ask) => ask.kind);
}

/**
 * The kinds of fact a sentence holds, among those asked for. `common` tells a word of the
 * language's vocabulary (English: WordNet's), which makes two capitalised words a place or a
 * title rather than a person's name ("Gloucester Road", "Clinical Pilates").
 */
export function heldKinds(sentence: string, asked: string[], common: (word: string) => boolean = () => false): string[] {
  // Most questions ask for no kind: every quotable sentence of every answer comes here, and folding it is not free.
  if (asked.length === 0) return [];
  const folded = fold(sentence);
  // Postal codes are told by their capitals ("3511 NS", "BS7 8AE"): read on the sentence as written.
  const holds = (ask: (typeof ASKS)[number]) =>
    ask.kind === 'address' ? ask.answer.test(sentence) || ADDRESS_LABEL.test(folded) : ask.kind === 'name' ? holdsName(sentence, common) : ask.answer.test(folded);
  return ASKS.filter((ask) => asked.includes(ask.kind) && holds(ask)).map((ask) => ask.kind);
}

/** A person's name (NAME) none of whose capitalised words is a stop word ("Our Pilates", "De Bonenbaas") or a common word. */
function holdsName(sentence: string, common: (word: string) => boolean): boolean {
  for (const match of sentence.matchAll(NAMES)) {
    const capitalised = match[1].split(/\s+/).filter((word) => /^\p{Lu}/u.test(word));
    if (!capitalised.some((word) => STOP_WORDS.has(fold(word)) || common(word.toLowerCase()))) return true;
  }
  return false;
}

/**
 * An address given under its label holds the address whatever its shape: "Delivery
 * address: Canal Street 12." states the delivery address without a postal code (not an
 * e-mail address's label). Matched on folded text.
 */
const ADDRESS_LABEL = /(?<!e-?mail[\s-]?)\b(address|adres|adresse|anschrift|lieferadresse|direccion|domicilio)\s*:\s*\S/;

let weekdays: Map<string, number> | undefined;

/**
 * The days of the week a text names, in any of the five languages (0 Monday … 6 Sunday):
 * the names as the runtime's locale data (CLDR, through Intl) writes them, folded, also
 * with a plural s ("Saturdays", "sábados", "samstags").
 */
export function weekdaysNamed(text: string): number[] {
  weekdays ??= new Map(
    LANGUAGES.flatMap((language) => Array.from({ length: 7 }, (_, day) => [fold(weekdayName(day, language)), day] as [string, number])),
  );
  const found = new Set<number>();
  for (const word of words(text)) {
    const folded = fold(word);
    const day = weekdays.get(folded) ?? weekdays.get(folded.replace(/s$/, ''));
    if (day !== undefined) found.add(day);
  }
  return [...found];
}

/** A day of the week's name in a language (0 Monday … 6 Sunday), from the runtime's locale data. */
export function weekdayName(day: number, language: Language): string {
  // 5 January 2026 is a Monday.
  return new Intl.DateTimeFormat(language, { weekday: 'long', timeZone: 'UTC' }).format(Date.UTC(2026, 0, 5 + day));
}

/** What a value made from a passage was made from: it is taken again only for the same text, title and language. */
export interface MadeFromPassage {
  text: string;
  title: string;
  language: Language | undefined;
}

/**
 * A value made from a found passage (its reading, its terms), kept by the passage's id (its text when it has none)
 * and taken again only for the same text, title and language. Each answer's strings are new, and a key of the whole
 * text was hashed at every lookup, which cost more than reading the passage did (docs/performance.md, Capacity,
 * eleventh round). A passage's text does not change under its id; were it to, what was made from the older text is
 * dropped. Bounded as the process's other caches (keptOrMade).
 */
export function keptForPassage<V extends MadeFromPassage>(
  kept: Map<string, V[]>,
  bound: number,
  passage: { id?: string; title: string; text: string },
  language: Language | undefined,
  make: () => V,
): V {
  const key = passage.id ?? passage.text;
  const made = keptOrMade(kept, key, bound, (): V[] => []);
  const found = made.find((value) => value.text === passage.text && value.title === passage.title && value.language === language);
  if (found) return found;
  const value = make();
  kept.set(key, [...made.filter((other) => other.text === passage.text && other.title === passage.title), value]);
  return value;
}
