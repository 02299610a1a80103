/**
 * The mails a new ticket sends, in the five languages: the visitor's confirmation
 * (in the ticket's language, with the agent's own answer-time sentence when it has
 * one) and the workspace owner's notice (in the workspace's language). The visitor is
 * addressed formally (u, vous, Sie, usted), as a business writes to a customer.
 *
 * Anyone can type any address into the ticket form, so the confirmation to an
 * address nobody vouched for carries no word the visitor typed (no name, no
 * question): the form cannot make the agent's name mail a stranger a message of
 * the sender's choosing (docs/security.md, "Mail and other abuse"). A signed-in
 * visitor's address is the site's own word, and their confirmation quotes them.
 */
import type { Language } from '../agents/schemas.ts';
import { compose, type Block, type ComposedMail } from '../mail/compose.ts';

interface ConfirmationTexts {
  subject(number: number): string;
  greeting(name: string | null): string;
  received(number: number): string;
  /** The standard sentence, used while tickets.answerTime is empty. */
  answerTime: string;
  yourQuestion: string;
  privacy: string;
  closing: string;
}

const CONFIRMATION: Record<Language, ConfirmationTexts> = {
  en: {
    subject: (n) => `We have received your question (ticket #${n})`,
    greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
    received: (n) => `Thank you for your question. We have received it as ticket #${n}.`,
    answerTime: 'We will reply to this e-mail address as soon as we can.',
    yourQuestion: 'Your question:',
    privacy: 'How we handle your details:',
    closing: 'Kind regards,',
  },
  nl: {
    subject: (n) => `We hebben uw vraag ontvangen (ticket #${n})`,
    greeting: (name) => (name ? `Beste ${name},` : 'Hallo,'),
    received: (n) => `Bedankt voor uw vraag. We hebben die ontvangen als ticket #${n}.`,
    answerTime: 'We antwoorden zo snel mogelijk op dit e-mailadres.',
    yourQuestion: 'Uw vraag:',
    privacy: 'Zo gaan we met uw gegevens om:',
    closing: 'Met vriendelijke groet,',
  },
  fr: {
    subject: (n) => `Nous avons bien reçu votre question (ticket n° ${n})`,
    greeting: (name) => (name ? `Bonjour ${name},` : 'Bonjour,'),
    received: (n) => `Merci pour votre question. Nous l’avons bien reçue sous le numéro de ticket ${n}.`,
    answerTime: 'Nous vous répondrons à cette adresse e-mail dans les meilleurs délais.',
    yourQuestion: 'Votre question\u00a0:',
    privacy: 'Comment nous traitons vos données\u00a0:',
    closing: 'Cordialement,',
  },
  de: {
    subject: (n) => `Wir haben Ihre Frage erhalten (Ticket Nr. ${n})`,
    greeting: (name) => (name ? `Guten Tag ${name},` : 'Guten Tag,'),
    // After the greeting's comma a German letter goes on in lower case.
    received: (n) => `vielen Dank für Ihre Frage. Wir haben sie als Ticket Nr. ${n} erhalten.`,
    answerTime: 'Wir antworten Ihnen so bald wie möglich an diese E-Mail-Adresse.',
    yourQuestion: 'Ihre Frage:',
    privacy: 'So gehen wir mit Ihren Daten um:',
    closing: 'Mit freundlichen Grüßen',
  },
  es: {
    subject: (n) => `Hemos recibido su pregunta (ticket n.º ${n})`,
    greeting: (name) => (name ? `Hola, ${name}:` : 'Hola:'),
    received: (n) => `Gracias por su pregunta. La hemos recibido con el número de ticket ${n}.`,
    answerTime: 'Le responderemos a esta dirección de correo electrónico lo antes posible.',
    yourQuestion: 'Su pregunta:',
    privacy: 'Cómo tratamos sus datos:',
    closing: 'Un cordial saludo,',
  },
};

export interface ConfirmationInput {
  agentName: string;
  number: number;
  /** Only for an address the site vouched for (a signed-in visitor); otherwise null: the mail then says nothing the visitor typed. */
  visitor: { name: string | null; question: string } | null;
  /** tickets.answerTime: the agent's own sentence; empty for the standard one. */
  answerTime: string;
  privacyUrl: string | null;
}

export function confirmationMail(language: Language, input: ConfirmationInput): ComposedMail {
  const t = CONFIRMATION[language];
  const { visitor } = input;
  const blocks: Block[] = [
    { text: t.greeting(visitor?.name ?? null) },
    { text: `${t.received(input.number)} ${input.answerTime.trim() || t.answerTime}` },
    ...(visitor ? [{ text: t.yourQuestion }, { quote: visitor.question }] : []),
    { text: `${t.closing}\n${input.agentName}` },
  ];
  if (input.privacyUrl) blocks.push({ text: t.privacy, link: input.privacyUrl });
  return compose(language, { subject: t.subject(input.number), blocks });
}

interface NoticeTexts {
  subject(number: number, agent: string): string;
  opened(who: string, number: number, agent: string): string;
  labels: { question: string; email: string; name: string; language: string; page: string; signedIn: string; conversation: string };
  yes: string;
  no: string;
  none: string;
  openIt: string;
}

const NOTICE: Record<Language, NoticeTexts> = {
  en: {
    subject: (n, agent) => `New ticket #${n} for ${agent}`,
    opened: (who, n, agent) => `${who} opened ticket #${n} with ${agent}.`,
    labels: { question: 'Question', email: 'E-mail', name: 'Name', language: 'Language', page: 'Page', signedIn: 'Signed in', conversation: 'Conversation' },
    yes: 'yes',
    no: 'no',
    none: '–',
    openIt: 'Open it in the dashboard:',
  },
  nl: {
    subject: (n, agent) => `Nieuw ticket #${n} voor ${agent}`,
    opened: (who, n, agent) => `${who} heeft ticket #${n} geopend bij ${agent}.`,
    labels: { question: 'Vraag', email: 'E-mailadres', name: 'Naam', language: 'Taal', page: 'Pagina', signedIn: 'Ingelogd', conversation: 'Gesprek' },
    yes: 'ja',
    no: 'nee',
    none: '–',
    openIt: 'Open het in het dashboard:',
  },
  fr: {
    subject: (n, agent) => `Nouveau ticket n° ${n} pour ${agent}`,
    opened: (who, n, agent) => `${who} a ouvert le ticket n° ${n} auprès de ${agent}.`,
    labels: { question: 'Question', email: 'Adresse e-mail', name: 'Nom', language: 'Langue', page: 'Page', signedIn: 'Connecté', conversation: 'Conversation' },
    yes: 'oui',
    no: 'non',
    none: '–',
    openIt: 'Ouvrez-le dans le tableau de bord\u00a0:',
  },
  de: {
    subject: (n, agent) => `Neues Ticket Nr. ${n} für ${agent}`,
    opened: (who, n, agent) => `${who} hat bei ${agent} das Ticket Nr. ${n} eröffnet.`,
    labels: { question: 'Frage', email: 'E-Mail-Adresse', name: 'Name', language: 'Sprache', page: 'Seite', signedIn: 'Angemeldet', conversation: 'Gespräch' },
    yes: 'ja',
    no: 'nein',
    none: '–',
    openIt: 'Im Dashboard öffnen:',
  },
  es: {
    subject: (n, agent) => `Nuevo ticket n.º ${n} para ${agent}`,
    opened: (who, n, agent) => `${who} ha abierto el ticket n.º ${n} con ${agent}.`,
    labels: { question: 'Pregunta', email: 'Correo electrónico', name: 'Nombre', language: 'Idioma', page: 'Página', signedIn: 'Sesión iniciada', conversation: 'Conversación' },
    yes: 'sí',
    no: 'no',
    none: '–',
    openIt: 'Ábralo en el panel:',
  },
};

export interface NoticeInput {
  agentName: string;
  number: number;
  email: string;
  name: string | null;
  question: string;
  language: string;
  signedIn: boolean;
  pageUrl: string | null;
  conversationId: string | null;
  /** The dashboard's page of the ticket. */
  ticketUrl: string;
}

export function ownerNoticeMail(language: Language, input: NoticeInput): ComposedMail {
  const t = NOTICE[language];
  const { labels } = t;
  return compose(language, {
    subject: t.subject(input.number, input.agentName),
    blocks: [
      { text: t.opened(input.name ?? input.email, input.number, input.agentName) },
      { quote: input.question },
      {
        fields: [
          [labels.email, input.email],
          [labels.name, input.name ?? t.none],
          [labels.language, input.language],
          [labels.signedIn, input.signedIn ? t.yes : t.no],
          [labels.page, input.pageUrl ?? t.none],
          [labels.conversation, input.conversationId ?? t.none],
        ],
      },
      // The dashboard's page: a signed-in person opens it; never an API call.
      { text: t.openIt, link: input.ticketUrl },
    ],
  });
}

interface ReplyNoticeTexts {
  subject(who: string, number: number, agent: string): string;
  replied(who: string, number: number, agent: string): string;
}

const REPLY_NOTICE: Record<Language, ReplyNoticeTexts> = {
  en: {
    subject: (who, n, agent) => `Reply from ${who} on ticket #${n} for ${agent}`,
    replied: (who, n, agent) => `${who} replied to ticket #${n} with ${agent}.`,
  },
  nl: {
    subject: (who, n, agent) => `Reactie van ${who} op ticket #${n} voor ${agent}`,
    replied: (who, n, agent) => `${who} heeft gereageerd op ticket #${n} bij ${agent}.`,
  },
  fr: {
    subject: (who, n, agent) => `Réponse de ${who} au ticket n° ${n} pour ${agent}`,
    replied: (who, n, agent) => `${who} a répondu au ticket n° ${n} auprès de ${agent}.`,
  },
  de: {
    subject: (who, n, agent) => `Antwort von ${who} auf Ticket Nr. ${n} für ${agent}`,
    replied: (who, n, agent) => `${who} hat auf das Ticket Nr. ${n} bei ${agent} geantwortet.`,
  },
  es: {
    subject: (who, n, agent) => `Respuesta de ${who} al ticket n.º ${n} para ${agent}`,
    replied: (who, n, agent) => `${who} ha respondido al ticket n.º ${n} con ${agent}.`,
  },
};

/** The notice of a visitor's reply by mail to a ticket, to the people chosen for the agent's tickets, with the reply quoted. */
export function visitorReplyNoticeMail(language: Language, input: { agentName: string; number: number; from: string; body: string; ticketUrl: string }): ComposedMail {
  const t = REPLY_NOTICE[language];
  return compose(language, {
    subject: t.subject(input.from, input.number, input.agentName),
    blocks: [{ text: t.replied(input.from, input.number, input.agentName) }, { quote: input.body }, { text: NOTICE[language].openIt, link: input.ticketUrl }],
  });
}
