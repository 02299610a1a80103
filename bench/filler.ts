/** The words of generated passages, shared by the benches that fill an agent with material (chat, capacity). */
import { WORKSHOP_CORPUS } from '../src/modules/chat/quality-corpus.ts';

/** A repeatable pseudo-random sequence in [0, 1) (a linear congruential generator), so every run fills the same text. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** The workshop corpus's words, each as often as it occurs there: drawn from, they give a question's words long posting lists. */
export const CORPUS_WORDS = WORKSHOP_CORPUS.flatMap((p) => `${p.title} ${p.text}`.toLowerCase().match(/[a-z]+/g) ?? []);
const SYLLABLES = 'ba ko mi ru te lan dor vi sel pa gu nor fe tal zi mo ker ul ven has'.split(' ');
/** Made-up words of two syllables (400), the other half of a generated passage. */
export const MADE_UP = SYLLABLES.flatMap((a) => SYLLABLES.map((b) => `${a}${b}`));

/**
 * Words drawn as Zipf's law (s = 1) has word frequencies in text: the word of rank r as often as 1/r.
 * Returns a function that draws one word with the given random source.
 */
export function zipfSampler(vocabulary: readonly string[]): (random: () => number) => string {
  let total = 0;
  const sums = vocabulary.map((_, rank) => (total += 1 / (rank + 1)));
  const cumulative = Float64Array.from(sums, (sum) => sum / total);
  return (random) => {
    const target = random();
    let [lo, hi] = [0, cumulative.length - 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo]!;
  };
}
