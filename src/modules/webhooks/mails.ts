/** The notice that a webhook was switched off, to the people chosen for its agents who may handle webhooks (docs/people.md, "Notifications"), in the workspace's language. */
import type { Language } from '../agents/schemas.ts';
import { compose, type ComposedMail } from '../mail/compose.ts';

interface SwitchOffTexts {
  subject: (host: string) => string;
  failed: (webhookId: string, host: string) => string;
  nothingMore: string;
  howToResume: string;
}

const SWITCHED_OFF: Record<Language, SwitchOffTexts> = {
  en: {
    subject: (host) => `Webhook switched off: ${host}`,
    failed: (id, host) => `Deliveries to your webhook ${id} at ${host} failed for almost a day (7 attempts), so it has been switched off.`,
    nothingMore: 'Nothing more is sent to it, and the leads and tickets of that time will not be sent later.',
    howToResume: 'Once the receiver answers again, switch the webhook on again in the dashboard:',
  },
  nl: {
    subject: (host) => `Webhook uitgeschakeld: ${host}`,
    failed: (id, host) => `Leveringen aan uw webhook ${id} op ${host} mislukten bijna een dag lang (7 pogingen), daarom is hij uitgeschakeld.`,
    nothingMore: 'Er wordt niets meer naartoe gestuurd, en de leads en tickets van die tijd worden later niet alsnog verstuurd.',
    howToResume: 'Zodra de ontvanger weer antwoordt, zet u de webhook weer aan in het dashboard:',
  },
  fr: {
    subject: (host) => `Webhook désactivé : ${host}`,
    failed: (id, host) => `Les envois vers votre webhook ${id} sur ${host} ont échoué pendant près d’un jour (7 tentatives) : il a été désactivé.`,
    nothingMore: 'Plus rien ne lui est envoyé, et les leads et tickets de cette période ne seront pas envoyés plus tard.',
    howToResume: 'Dès que le destinataire répond à nouveau, réactivez le webhook dans le tableau de bord\u00a0:',
  },
  de: {
    subject: (host) => `Webhook abgeschaltet: ${host}`,
    failed: (id, host) => `Zustellungen an Ihren Webhook ${id} unter ${host} sind fast einen Tag lang fehlgeschlagen (7 Versuche), daher wurde er abgeschaltet.`,
    nothingMore: 'Es wird nichts mehr an ihn gesendet, und die Leads und Tickets dieser Zeit werden nicht nachträglich gesendet.',
    howToResume: 'Sobald der Empfänger wieder antwortet, schalten Sie den Webhook im Dashboard wieder ein:',
  },
  es: {
    subject: (host) => `Webhook desactivado: ${host}`,
    failed: (id, host) => `Los envíos a su webhook ${id} en ${host} fallaron durante casi un día (7 intentos), por lo que se ha desactivado.`,
    nothingMore: 'Ya no se le envía nada, y los leads y tickets de ese tiempo no se enviarán más tarde.',
    howToResume: 'Cuando el receptor vuelva a responder, active el webhook de nuevo en el panel:',
  },
};

/** `page`: the dashboard's page of the webhook, where it is switched on again. */
export function switchedOffMail(language: Language, webhook: { id: string; host: string; page: string }): ComposedMail {
  const t = SWITCHED_OFF[language];
  return compose(language, {
    subject: t.subject(webhook.host),
    blocks: [{ text: t.failed(webhook.id, webhook.host) }, { text: t.nothingMore }, { text: t.howToResume, link: webhook.page }],
  });
}
