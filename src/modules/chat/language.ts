/**
 * The language of an answer (spec 4.7): the one asked for when it is one of the
 * five, else the question's own, else the agent's. Detection (knowledge/languages.ts)
 * uses eld's small n-gram set narrowed to the five languages; a shorter text counts
 * only when one language clearly leads.
 */
import type { Language } from '../agents/schemas.ts';
import { detectLanguage, isLanguage } from '../knowledge/languages.ts';

export { detectLanguage, isLanguage };

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
