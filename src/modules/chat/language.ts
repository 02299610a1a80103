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
export const PHRASES: Record<
  Language,
  {
    decline: string;
    source: string;
    sources: string;
    /** A decline's next steps (offline-model.ts, nextSteps): the contact details, the ticket form, the lead form, the booking link. */
    reach: string;
    ticket: string;
    lead: string;
    booking: string;
    /** The line before an answer quoted from material in another language ({language}: its name, in the answer's). */
    otherLanguage: string;
    /** The five languages' names in this one. */
    names: Record<Language, string>;
  }
> = {
  en: {
    decline: "I'm sorry, I don't have information about that in my material, so I can't answer it reliably.",
    source: 'Source',
    sources: 'Sources',
    reach: 'You can reach us at {contact}.',
    ticket: 'You can also leave your question for our team with the form, and they will get back to you.',
    lead: 'Leave your details and we will get back to you.',
    booking: 'You can book an appointment here: {url}',
    otherLanguage: 'My information on this is in {language}:',
    names: { en: 'English', nl: 'Dutch', fr: 'French', de: 'German', es: 'Spanish' },
  },
  nl: {
    decline: 'Sorry, daarover staat niets in mijn informatie, dus daar kan ik geen betrouwbaar antwoord op geven.',
    source: 'Bron',
    sources: 'Bronnen',
    reach: 'Je kunt ons bereiken via {contact}.',
    ticket: 'Je kunt je vraag ook via het formulier aan ons team stellen; we nemen dan contact met je op.',
    lead: 'Laat je gegevens achter, dan nemen we contact met je op.',
    booking: 'Je kunt hier een afspraak maken: {url}',
    otherLanguage: 'Mijn informatie hierover is in het {language}:',
    names: { en: 'Engels', nl: 'Nederlands', fr: 'Frans', de: 'Duits', es: 'Spaans' },
  },
  fr: {
    decline: "Désolé, je n'ai pas d'information à ce sujet dans ma documentation, je ne peux donc pas y répondre de façon fiable.",
    source: 'Source',
    sources: 'Sources',
    reach: 'Vous pouvez nous joindre au {contact}.',
    ticket: 'Vous pouvez aussi poser votre question à notre équipe avec le formulaire ; elle vous répondra.',
    lead: 'Laissez vos coordonnées et nous vous recontacterons.',
    booking: 'Vous pouvez prendre rendez-vous ici : {url}',
    otherLanguage: 'Mes informations à ce sujet sont en {language} :',
    names: { en: 'anglais', nl: 'néerlandais', fr: 'français', de: 'allemand', es: 'espagnol' },
  },
  de: {
    decline: 'Entschuldigung, dazu habe ich in meinen Unterlagen keine Informationen, daher kann ich das nicht zuverlässig beantworten.',
    source: 'Quelle',
    sources: 'Quellen',
    reach: 'Sie erreichen uns unter {contact}.',
    ticket: 'Sie können Ihre Frage auch über das Formular an unser Team stellen; es meldet sich bei Ihnen.',
    lead: 'Hinterlassen Sie Ihre Kontaktdaten, dann melden wir uns bei Ihnen.',
    booking: 'Hier können Sie einen Termin buchen: {url}',
    otherLanguage: 'Meine Informationen dazu sind auf {language}:',
    names: { en: 'Englisch', nl: 'Niederländisch', fr: 'Französisch', de: 'Deutsch', es: 'Spanisch' },
  },
  es: {
    decline: 'Lo siento, no tengo información sobre eso en mi material, así que no puedo responder de forma fiable.',
    source: 'Fuente',
    sources: 'Fuentes',
    reach: 'Puede contactarnos en {contact}.',
    ticket: 'También puede dejar su pregunta a nuestro equipo con el formulario y le responderá.',
    lead: 'Deje sus datos y nos pondremos en contacto con usted.',
    booking: 'Puede reservar una cita aquí: {url}',
    otherLanguage: 'Mi información sobre esto está en {language}:',
    names: { en: 'inglés', nl: 'neerlandés', fr: 'francés', de: 'alemán', es: 'español' },
  },
};
