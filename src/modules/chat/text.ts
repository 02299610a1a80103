/**
 * Words and sentences as the answering code compares them: pure functions, no
 * database. Matching is deliberately light (accents folded, a few common endings
 * cut, stop words of the five languages dropped): it ranks sentences that the
 * search index already chose, so it only has to tell the best of a few dozen apart.
 */

const STOP_WORDS = new Set(
  [
    // en
    'a an and are as at be been but by can could do does did for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to us was we were what when where which who why will with would you your yours about also any just may might please tell',
    // nl
    'de het een en van in is op te dat die voor met zijn er aan ook als bij of om nog wat wie waar hoe wanneer kan kun kunt je jij u uw we wij ik mijn ons onze zij ze hun niet geen wel naar dan door maar over uit worden wordt was',
    // fr
    'le la les un une des et de du en est sont au aux ce cet cette ces que qui quoi quand comment pour par sur dans avec sans pas ne ou je tu il elle nous vous ils elles mon ma mes votre vos notre nos leur leurs se sa son ses y a peut puis',
    // de
    'der die das ein eine einen einem einer und oder ist sind war in im am an auf aus bei mit nach von vor zu zum zur für über um wie wo was wer wann warum ich du er sie es wir ihr mein dein unser euer ihre nicht kein keine auch noch nur kann können den dem des',
    // es
    'el la los las un una unos unas y o de del en es son al que qué cómo como cuándo cuando dónde donde quién por para con sin no se su sus mi mis tu tus nuestro nuestra usted ustedes lo le les me te nos hay puedo puede',
  ]
    .join(' ')
    .split(/\s+/)
    .map(fold),
);

/** Lower case without accents: "Öffnungszeiten" and "offnungszeiten" are one word. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

const ENDINGS = ['ations', 'ation', 'ments', 'ment', 'ingen', 'ungen', 'ing', 'ung', 'ies', 'ied', 'es', 'en', 'ed', 'er', 'ly', 's', 'e', 'n'];

/** A light stem: the word folded, one common ending cut when enough is left, at most seven letters. */
export function stem(word: string): string {
  let w = fold(word);
  if (/^\d/.test(w)) return w;
  for (const ending of ENDINGS) {
    if (w.length - ending.length >= 4 && w.endsWith(ending)) {
      w = w.slice(0, -ending.length);
      break;
    }
  }
  return w.slice(0, 7);
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’.,:-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** The words of a text, numbers kept whole ("9:00", "4.95"), split on everything else. */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The stems of a text's words that carry meaning (stop words and single letters dropped). */
export function contentTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
    const folded = fold(word);
    if (folded.length < 2 && !/\d/.test(folded)) continue;
    if (STOP_WORDS.has(folded)) continue;
    terms.push(stem(folded.replace(/['’]/g, '')));
  }
  return terms;
}

/**
 * Sentences of a passage: split after . ! ? (not inside numbers such as 4.95 or
 * abbreviations of one letter) and at line breaks; bullet marks dropped.
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const clean = line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim();
    if (!clean) continue;
    for (const part of clean.split(/(?<=[^\s.!?]{2}[.!?]["')\]]?)\s+(?=["'(\[]?[\p{Lu}\p{N}])/u)) {
      const sentence = part.trim();
      if (sentence) out.push(sentence);
    }
  }
  return out;
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
