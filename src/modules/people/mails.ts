import { compose, type ComposedMail } from '../mail/compose.ts';

type PersonLanguage = 'en' | 'nl';

const SIGN_IN = {
  en: (workspace: string) => ({
    subject: `Sign in to ${workspace} on Parley`,
    intro: 'Open this link to sign in. It works once, for 15 minutes:',
    ignore: 'If you did not ask to sign in, ignore this mail: nothing happens without the link.',
  }),
  nl: (workspace: string) => ({
    subject: `Inloggen bij ${workspace} op Parley`,
    intro: 'Open deze link om in te loggen. Hij werkt één keer, 15 minuten lang:',
    ignore: 'Heb je niet gevraagd om in te loggen? Negeer deze mail dan: zonder de link gebeurt er niets.',
  }),
};

const INVITE = {
  en: (workspace: string, by: string) => ({
    subject: `${by} invites you to ${workspace} on Parley`,
    intro: `${by} invites you to work in ${workspace}. Open this link to accept; it works once, for 7 days:`,
  }),
  nl: (workspace: string, by: string) => ({
    subject: `${by} nodigt je uit voor ${workspace} op Parley`,
    intro: `${by} nodigt je uit om mee te werken in ${workspace}. Open deze link om de uitnodiging aan te nemen; hij werkt één keer, 7 dagen lang:`,
  }),
};

export function signInMail(language: PersonLanguage, workspace: string, link: string): ComposedMail {
  const texts = SIGN_IN[language](workspace);
  return compose(language, { subject: texts.subject, blocks: [{ text: texts.intro, link }, { text: texts.ignore }] });
}

export function inviteMail(language: PersonLanguage, workspace: string, invitedBy: string, link: string): ComposedMail {
  const texts = INVITE[language](workspace, invitedBy);
  return compose(language, { subject: texts.subject, blocks: [{ text: texts.intro, link }] });
}
