/** The widget's own interface texts in the five widget languages, and how it picks its language. */
import type { Language } from '../modules/agents/schemas.ts';

export interface WidgetTexts {
  welcome: string;
  open: string;
  close: string;
  /** Leaves a form for the chat. */
  back: string;
  placeholder: string;
  send: string;
  newChat: string;
  sources: string;
  helpful: string;
  notHelpful: string;
  error: string;
  busy: string;
  leaveDetails: string;
  skip: string;
  name: string;
  email: string;
  phone: string;
  company: string;
  privacy: string;
  book: string;
  poweredBy: string;
  person: string;
  attach: string;
  removeFile: string;
  question: string;
  /** {n}: the ticket's number. */
  ticketSent: string;
  /** When tickets.answerTime is empty: the standard sentence, as in the ticket's confirmation mail. */
  answerTime: string;
}

export const WIDGET_TEXTS: Record<Language, WidgetTexts> = {
  en: {
    welcome: 'Hello! How can I help you?',
    open: 'Open chat', close: 'Close chat', back: 'Back to the chat', placeholder: 'Type your question…', send: 'Send', newChat: 'New conversation',
    sources: 'Sources', helpful: 'Helpful', notHelpful: 'Not helpful', error: 'Sorry, something went wrong. Please try again.',
    busy: 'Writing an answer…', leaveDetails: 'Leave your details', skip: 'Skip', name: 'Name', email: 'E-mail', phone: 'Phone',
    company: 'Company', privacy: 'Privacy notice', book: 'Book a meeting', poweredBy: 'Powered by Parley',
    person: 'Talk to a person', question: 'Your question', ticketSent: 'Thank you! Your ticket number is #{n}.',
    answerTime: 'We will reply to this e-mail address as soon as we can.',
    attach: 'Attach a file', removeFile: 'Remove',
  },
  nl: {
    welcome: 'Hallo! Waarmee kan ik u helpen?',
    open: 'Chat openen', close: 'Chat sluiten', back: 'Terug naar de chat', placeholder: 'Typ uw vraag…', send: 'Versturen', newChat: 'Nieuw gesprek',
    sources: 'Bronnen', helpful: 'Nuttig', notHelpful: 'Niet nuttig', error: 'Er ging iets mis. Probeer het opnieuw.',
    busy: 'Antwoord wordt geschreven…', leaveDetails: 'Laat uw gegevens achter', skip: 'Overslaan', name: 'Naam', email: 'E-mail',
    phone: 'Telefoon', company: 'Bedrijf', privacy: 'Privacyverklaring', book: 'Afspraak maken', poweredBy: 'Mogelijk gemaakt door Parley',
    person: 'Met een medewerker praten', question: 'Uw vraag', ticketSent: 'Dank u wel! Uw ticketnummer is #{n}.',
    answerTime: 'We antwoorden zo snel mogelijk op dit e-mailadres.',
    attach: 'Bestand toevoegen', removeFile: 'Verwijderen',
  },
  fr: {
    welcome: 'Bonjour ! Comment puis-je vous aider ?',
    open: 'Ouvrir la discussion', close: 'Fermer la discussion', back: 'Retour à la discussion', placeholder: 'Posez votre question…', send: 'Envoyer',
    newChat: 'Nouvelle conversation', sources: 'Sources', helpful: 'Utile', notHelpful: 'Pas utile',
    error: 'Désolé, une erreur est survenue. Veuillez réessayer.', busy: 'Réponse en cours…', leaveDetails: 'Laissez vos coordonnées',
    skip: 'Passer', name: 'Nom', email: 'E-mail', phone: 'Téléphone', company: 'Entreprise', privacy: 'Politique de confidentialité',
    book: 'Prendre rendez-vous', poweredBy: 'Propulsé par Parley',
    person: 'Parler à une personne', question: 'Votre question', ticketSent: 'Merci ! Votre numéro de ticket est le {n}.',
    answerTime: 'Nous vous répondrons à cette adresse e-mail dans les meilleurs délais.',
    attach: 'Joindre un fichier', removeFile: 'Retirer',
  },
  de: {
    welcome: 'Hallo! Wie kann ich Ihnen helfen?',
    open: 'Chat öffnen', close: 'Chat schließen', back: 'Zurück zum Chat', placeholder: 'Ihre Frage…', send: 'Senden', newChat: 'Neues Gespräch',
    sources: 'Quellen', helpful: 'Hilfreich', notHelpful: 'Nicht hilfreich', error: 'Leider ist ein Fehler aufgetreten. Bitte versuchen Sie es erneut.',
    busy: 'Antwort wird geschrieben…', leaveDetails: 'Kontaktdaten hinterlassen', skip: 'Überspringen', name: 'Name', email: 'E-Mail',
    phone: 'Telefon', company: 'Firma', privacy: 'Datenschutzerklärung', book: 'Termin buchen', poweredBy: 'Bereitgestellt von Parley',
    person: 'Mit einem Menschen sprechen', question: 'Ihre Frage', ticketSent: 'Vielen Dank! Ihre Ticketnummer lautet {n}.',
    answerTime: 'Wir antworten Ihnen so bald wie möglich an diese E-Mail-Adresse.',
    attach: 'Datei anhängen', removeFile: 'Entfernen',
  },
  es: {
    welcome: '¡Hola! ¿En qué puedo ayudarle?',
    open: 'Abrir chat', close: 'Cerrar chat', back: 'Volver al chat', placeholder: 'Escriba su pregunta…', send: 'Enviar', newChat: 'Nueva conversación',
    sources: 'Fuentes', helpful: 'Útil', notHelpful: 'No útil', error: 'Lo sentimos, algo salió mal. Inténtelo de nuevo.',
    busy: 'Escribiendo una respuesta…', leaveDetails: 'Deje sus datos', skip: 'Omitir', name: 'Nombre', email: 'Correo electrónico',
    phone: 'Teléfono', company: 'Empresa', privacy: 'Política de privacidad', book: 'Reservar una cita', poweredBy: 'Con la tecnología de Parley',
    person: 'Hablar con una persona', question: 'Su pregunta', ticketSent: '¡Gracias! Su número de ticket es el {n}.',
    answerTime: 'Le responderemos a esta dirección de correo electrónico lo antes posible.',
    attach: 'Adjuntar un archivo', removeFile: 'Quitar',
  },
};

/** The first of the browser's languages the agent speaks (de-AT counts as de), else the agent's own language. */
export function pickLanguage(browser: readonly string[], agentLanguages: readonly Language[], agentLanguage: Language): Language {
  for (const tag of browser) {
    const base = tag.toLowerCase().split('-')[0] as Language;
    if (agentLanguages.includes(base)) return base;
  }
  return agentLanguage;
}
