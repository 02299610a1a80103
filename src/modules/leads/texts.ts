/**
 * The lead form's standard texts in the five widget languages, used where the
 * agent's leadCapture leaves a text empty. The widget shows these same texts, so
 * what a lead records as shown is what was shown.
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
