/**
 * The language of an answer (spec 4.7): the one asked for when it is one of the
 * five, else the question's own, else the agent's. Detection uses eld's small
 * n-gram set narrowed to the five languages (reliable on questions of two or
 * three words; about 10-20 µs a question); it is loaded on first use. A shorter
 * text counts only when one language clearly leads.
 */
import { LANGUAGES, type Language } from '../agents/schemas.ts';

type Detector = { detect(text: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> } };

/** An unreliable detection (a word or two) counts when its language leads the next by this much (scores 0..1). */
const CLEAR_LEAD = 0.1;
let detector: Promise<Detector> | undefined;

function loadDetector(): Promise<Detector> {
  detector ??= import('eld/small').then(({ eld }) => {
    eld.setLanguageSubset([...LANGUAGES]);
    return eld;
  });
  return detector;
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The question's language, or undefined when it shows none (digits only, another
 * language, or a word or two that could be several: "Hello" scores Spanish and German
 * alike, "Kosten?" German and Dutch).
 */
export async function detectLanguage(text: string): Promise<Language | undefined> {
  const result = (await loadDetector()).detect(text);
  if (!isLanguage(result.language)) return undefined;
  if (result.isReliable()) return result.language;
  const [first = 0, second = 0] = Object.values(result.getScores()).sort((a, b) => b - a);
  return first - second >= CLEAR_LEAD ? result.language : undefined;
}

export async function answerLanguage(requested: string | undefined, question: string, agentLanguage: Language): Promise<Language> {
  if (isLanguage(requested)) return requested;
  return (await detectLanguage(question)) ?? agentLanguage;
}

export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', nl: 'Dutch', fr: 'French', de: 'German', es: 'Spanish' };

/** The offline model's own sentences, in each of the five languages. */
export const PHRASES: Record<Language, { decline: string; source: string; sources: string }> = {
  en: {
    decline: "I'm sorry, I don't have information about that in my material, so I can't answer it reliably.",
    source: 'Source',
    sources: 'Sources',
  },
  nl: {
    decline: 'Sorry, daarover staat niets in mijn informatie, dus daar kan ik geen betrouwbaar antwoord op geven.',
    source: 'Bron',
    sources: 'Bronnen',
  },
  fr: {
    decline: "Désolé, je n'ai pas d'information à ce sujet dans ma documentation, je ne peux donc pas y répondre de façon fiable.",
    source: 'Source',
    sources: 'Sources',
  },
  de: {
    decline: 'Entschuldigung, dazu habe ich in meinen Unterlagen keine Informationen, daher kann ich das nicht zuverlässig beantworten.',
    source: 'Quelle',
    sources: 'Quellen',
  },
  es: {
    decline: 'Lo siento, no tengo información sobre eso en mi material, así que no puedo responder de forma fiable.',
    source: 'Fuente',
    sources: 'Fuentes',
  },
};
