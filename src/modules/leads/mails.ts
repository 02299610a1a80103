/** The notice of a new lead to the people chosen for it (docs/people.md, "Notifications"), in the workspace's language (text and HTML from one content). */
import type { Language } from '../agents/schemas.ts';
import { compose, type ComposedMail } from '../mail/compose.ts';

interface NoticeTexts {
  subject: (agentName: string, contact: string) => string;
  opening: (agentName: string) => string;
  labels: { name: string; email: string; phone: string; company: string; marketing: string; page: string; language: string; conversation: string };
  openIt: string;
  yes: string;
  no: string;
  none: string;
}

const NOTICE: Record<Language, NoticeTexts> = {
  en: {
    subject: (agent, contact) => `New lead from ${agent}: ${contact}`,
    opening: (agent) => `A visitor left their details with ${agent}.`,
    labels: { name: 'Name', email: 'E-mail', phone: 'Phone', company: 'Company', marketing: 'News and offers', page: 'Page', language: 'Language', conversation: 'Conversation' },
    openIt: 'Open it in the dashboard:',
    yes: 'yes',
    no: 'no',
    none: '(none)',
  },
  nl: {
    subject: (agent, contact) => `Nieuwe lead via ${agent}: ${contact}`,
    opening: (agent) => `Een bezoeker heeft zijn gegevens achtergelaten bij ${agent}.`,
    labels: { name: 'Naam', email: 'E-mail', phone: 'Telefoon', company: 'Bedrijf', marketing: 'Nieuws en aanbiedingen', page: 'Pagina', language: 'Taal', conversation: 'Gesprek' },
    openIt: 'Open de lead in het dashboard:',
    yes: 'ja',
    no: 'nee',
    none: '(geen)',
  },
  fr: {
    subject: (agent, contact) => `Nouveau contact via ${agent} : ${contact}`,
    opening: (agent) => `Un visiteur a laissé ses coordonnées à ${agent}.`,
    labels: { name: 'Nom', email: 'E-mail', phone: 'Téléphone', company: 'Entreprise', marketing: 'Actualités et offres', page: 'Page', language: 'Langue', conversation: 'Conversation' },
    openIt: 'Ouvrez-le dans le tableau de bord :',
    yes: 'oui',
    no: 'non',
    none: '(aucun)',
  },
  de: {
    subject: (agent, contact) => `Neuer Lead über ${agent}: ${contact}`,
    opening: (agent) => `Ein Besucher hat bei ${agent} seine Kontaktdaten hinterlassen.`,
    labels: { name: 'Name', email: 'E-Mail', phone: 'Telefon', company: 'Firma', marketing: 'Neuigkeiten und Angebote', page: 'Seite', language: 'Sprache', conversation: 'Gespräch' },
    openIt: 'Im Dashboard öffnen:',
    yes: 'ja',
    no: 'nein',
    none: '(keine)',
  },
  es: {
    subject: (agent, contact) => `Nuevo contacto a través de ${agent}: ${contact}`,
    opening: (agent) => `Un visitante ha dejado sus datos a ${agent}.`,
    labels: { name: 'Nombre', email: 'Correo electrónico', phone: 'Teléfono', company: 'Empresa', marketing: 'Novedades y ofertas', page: 'Página', language: 'Idioma', conversation: 'Conversación' },
    openIt: 'Ábralo en el panel:',
    yes: 'sí',
    no: 'no',
    none: '(ninguno)',
  },
};

export interface LeadNoticeInput {
  agentName: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  marketing: boolean;
  pageUrl: string | null;
  language: string;
  conversationId: string | null;
  /** The dashboard's page of the lead. */
  leadUrl: string;
}

export function leadNoticeMail(language: Language, input: LeadNoticeInput): ComposedMail {
  const t = NOTICE[language];
  const { labels } = t;
  const contact = input.email ?? input.phone ?? input.name ?? t.none;
  return compose(language, {
    subject: t.subject(input.agentName, contact),
    blocks: [
      { text: t.opening(input.agentName) },
      {
        fields: [
          [labels.name, input.name ?? t.none],
          [labels.email, input.email ?? t.none],
          [labels.phone, input.phone ?? t.none],
          [labels.company, input.company ?? t.none],
          [labels.marketing, input.marketing ? t.yes : t.no],
          [labels.page, input.pageUrl ?? t.none],
          [labels.language, input.language],
          [labels.conversation, input.conversationId ?? t.none],
        ],
      },
      // The dashboard's page: a signed-in person opens it; never an API call.
      { text: t.openIt, link: input.leadUrl },
    ],
  });
}
