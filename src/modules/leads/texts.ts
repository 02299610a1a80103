/**
 * The lead form's standard texts, used where the agent's leadCapture leaves a text
 * empty, and the owner's notice of a new lead, in the five widget languages.
 * The widget shows these same texts, so what a lead records as shown is what was shown.
 */
import type { Language } from '../agents/schemas.ts';

export interface FormTexts {
  intro: string;
  /** The line beside the privacy link, saying what sending the form agrees to. */
  consent: string;
  marketingLabel: string;
  button: string;
  thanks: string;
}

export const FORM_TEXTS: Record<Language, FormTexts> = {
  en: {
    intro: 'Leave your details and we will get back to you.',
    consent: 'By sending this form you agree that we use your details to contact you, as described in our privacy notice.',
    marketingLabel: 'Send me news and offers',
    button: 'Send',
    thanks: 'Thank you! We will be in touch.',
  },
  nl: {
    intro: 'Laat uw gegevens achter, dan nemen wij contact met u op.',
    consent: 'Door dit formulier te versturen gaat u ermee akkoord dat wij uw gegevens gebruiken om contact met u op te nemen, zoals beschreven in onze privacyverklaring.',
    marketingLabel: 'Stuur mij nieuws en aanbiedingen',
    button: 'Versturen',
    thanks: 'Dank u wel! Wij nemen contact met u op.',
  },
  fr: {
    intro: 'Laissez-nous vos coordonnées et nous reviendrons vers vous.',
    consent: 'En envoyant ce formulaire, vous acceptez que nous utilisions vos coordonnées pour vous contacter, comme décrit dans notre politique de confidentialité.',
    marketingLabel: 'Envoyez-moi des actualités et des offres',
    button: 'Envoyer',
    thanks: 'Merci ! Nous vous recontacterons.',
  },
  de: {
    intro: 'Hinterlassen Sie Ihre Kontaktdaten, dann melden wir uns bei Ihnen.',
    consent: 'Mit dem Absenden dieses Formulars stimmen Sie zu, dass wir Ihre Angaben verwenden, um Sie zu kontaktieren, wie in unserer Datenschutzerklärung beschrieben.',
    marketingLabel: 'Senden Sie mir Neuigkeiten und Angebote',
    button: 'Senden',
    thanks: 'Vielen Dank! Wir melden uns bei Ihnen.',
  },
  es: {
    intro: 'Déjenos sus datos y nos pondremos en contacto con usted.',
    consent: 'Al enviar este formulario, acepta que utilicemos sus datos para ponernos en contacto con usted, tal como se describe en nuestra política de privacidad.',
    marketingLabel: 'Envíenme novedades y ofertas',
    button: 'Enviar',
    thanks: '¡Gracias! Nos pondremos en contacto con usted.',
  },
};

interface NoticeTexts {
  subject: (agentName: string, contact: string) => string;
  opening: (agentName: string) => string;
  labels: { name: string; email: string; phone: string; company: string; marketing: string; page: string; language: string; conversation: string };
  yes: string;
  no: string;
  none: string;
}

/** The workspace owner's notice of a new lead, in the workspace's language. */
export const NOTICE_TEXTS: Record<Language, NoticeTexts> = {
  en: {
    subject: (agent, contact) => `New lead from ${agent}: ${contact}`,
    opening: (agent) => `A visitor left their details with ${agent}.`,
    labels: { name: 'Name', email: 'E-mail', phone: 'Phone', company: 'Company', marketing: 'News and offers', page: 'Page', language: 'Language', conversation: 'Conversation' },
    yes: 'yes',
    no: 'no',
    none: '(none)',
  },
  nl: {
    subject: (agent, contact) => `Nieuwe lead via ${agent}: ${contact}`,
    opening: (agent) => `Een bezoeker heeft zijn gegevens achtergelaten bij ${agent}.`,
    labels: { name: 'Naam', email: 'E-mail', phone: 'Telefoon', company: 'Bedrijf', marketing: 'Nieuws en aanbiedingen', page: 'Pagina', language: 'Taal', conversation: 'Gesprek' },
    yes: 'ja',
    no: 'nee',
    none: '(geen)',
  },
  fr: {
    subject: (agent, contact) => `Nouveau contact via ${agent} : ${contact}`,
    opening: (agent) => `Un visiteur a laissé ses coordonnées à ${agent}.`,
    labels: { name: 'Nom', email: 'E-mail', phone: 'Téléphone', company: 'Entreprise', marketing: 'Actualités et offres', page: 'Page', language: 'Langue', conversation: 'Conversation' },
    yes: 'oui',
    no: 'non',
    none: '(aucune)',
  },
  de: {
    subject: (agent, contact) => `Neuer Lead über ${agent}: ${contact}`,
    opening: (agent) => `Ein Besucher hat bei ${agent} seine Kontaktdaten hinterlassen.`,
    labels: { name: 'Name', email: 'E-Mail', phone: 'Telefon', company: 'Firma', marketing: 'Neuigkeiten und Angebote', page: 'Seite', language: 'Sprache', conversation: 'Gespräch' },
    yes: 'ja',
    no: 'nein',
    none: '(keine)',
  },
  es: {
    subject: (agent, contact) => `Nuevo contacto a través de ${agent}: ${contact}`,
    opening: (agent) => `Un visitante ha dejado sus datos a ${agent}.`,
    labels: { name: 'Nombre', email: 'Correo electrónico', phone: 'Teléfono', company: 'Empresa', marketing: 'Novedades y ofertas', page: 'Página', language: 'Idioma', conversation: 'Conversación' },
    yes: 'sí',
    no: 'no',
    none: '(ninguna)',
  },
};
