/**
 * The words of reports, report mails and the archive page in the five languages a
 * client can have (spec 4.12). Months are named by Intl in the same language.
 */
import type { Language } from '../agents/schemas.ts';

export interface ReportTexts {
  subject: (agent: string, month: string) => string;
  title: string;
  /** "Report of May 2026 for Bakkerij Jansen". */
  heading: (month: string, client: string) => string;
  agent: string;
  greeting: (client: string) => string;
  figures: string;
  thisMonth: string;
  monthBefore: string;
  change: string;
  conversations: string;
  questions: string;
  helpful: string;
  notHelpful: string;
  averageConfidence: string;
  weakShare: string;
  leads: string;
  tickets: string;
  chartConversations: string;
  chartBands: string;
  bands: { high: string; medium: string; low: string };
  answers: string;
  topQuestions: string;
  startPages: string;
  none: string;
  transcripts: (count: number) => string;
  transcriptsCapped: (count: number, all: number) => string;
  pdfAttached: string;
  archiveLink: string;
  archiveTitle: (client: string) => string;
  archiveIntro: string;
  archiveEmpty: string;
  download: (month: string) => string;
  gone: string;
  page: (n: number) => string;
}

export const REPORT_TEXTS: Record<Language, ReportTexts> = {
  en: {
    subject: (agent, month) => `${agent}: your report for ${month}`,
    title: 'Monthly report',
    heading: (month, client) => `${month} · ${client}`,
    agent: 'Chat assistant',
    greeting: (client) => `Dear ${client},`,
    figures: 'The month in figures',
    thisMonth: 'This month',
    monthBefore: 'Month before',
    change: 'Change',
    conversations: 'Conversations',
    questions: 'Questions',
    helpful: 'Answers marked helpful',
    notHelpful: 'Answers marked not helpful',
    averageConfidence: 'Average confidence (0 to 100)',
    weakShare: 'Weak answers',
    leads: 'Leads',
    tickets: 'Tickets',
    chartConversations: 'Conversations per day',
    chartBands: 'Answers by confidence',
    bands: { high: 'High (80 to 100)', medium: 'Medium (50 to 79)', low: 'Low (0 to 49)' },
    answers: 'answers',
    topQuestions: 'Most asked questions',
    startPages: 'Pages where conversations started',
    none: 'None this month.',
    transcripts: (count) => `The month's ${count} conversations are attached as a PDF.`,
    transcriptsCapped: (count, all) => `The ${count} most recent of the month's ${all} conversations are attached as a PDF.`,
    pdfAttached: 'This report is attached as a PDF.',
    archiveLink: 'All your reports:',
    archiveTitle: (client) => `Reports for ${client}`,
    archiveIntro: 'Every monthly report of your chat assistant, newest first.',
    archiveEmpty: 'There are no reports yet.',
    download: (month) => `Report of ${month} (PDF)`,
    gone: 'This link does not work (any more). Ask for the current link.',
    page: (n) => `Page ${n}`,
  },
  nl: {
    subject: (agent, month) => `${agent}: uw rapport over ${month}`,
    title: 'Maandrapport',
    heading: (month, client) => `${month} · ${client}`,
    agent: 'Chatassistent',
    greeting: (client) => `Beste ${client},`,
    figures: 'De maand in cijfers',
    thisMonth: 'Deze maand',
    monthBefore: 'Maand ervoor',
    change: 'Verschil',
    conversations: 'Gesprekken',
    questions: 'Vragen',
    helpful: 'Antwoorden als nuttig gemarkeerd',
    notHelpful: 'Antwoorden als niet nuttig gemarkeerd',
    averageConfidence: 'Gemiddelde zekerheid (0 tot 100)',
    weakShare: 'Zwakke antwoorden',
    leads: 'Leads',
    tickets: 'Tickets',
    chartConversations: 'Gesprekken per dag',
    chartBands: 'Antwoorden naar zekerheid',
    bands: { high: 'Hoog (80 tot 100)', medium: 'Middel (50 tot 79)', low: 'Laag (0 tot 49)' },
    answers: 'antwoorden',
    topQuestions: 'Meest gestelde vragen',
    startPages: "Pagina's waar gesprekken begonnen",
    none: 'Geen deze maand.',
    transcripts: (count) => `De ${count} gesprekken van deze maand zijn bijgevoegd als pdf.`,
    transcriptsCapped: (count, all) => `De ${count} meest recente van de ${all} gesprekken van deze maand zijn bijgevoegd als pdf.`,
    pdfAttached: 'Dit rapport is bijgevoegd als pdf.',
    archiveLink: 'Al uw rapporten:',
    archiveTitle: (client) => `Rapporten voor ${client}`,
    archiveIntro: 'Elk maandrapport van uw chatassistent, het nieuwste eerst.',
    archiveEmpty: 'Er zijn nog geen rapporten.',
    download: (month) => `Rapport over ${month} (pdf)`,
    gone: 'Deze link werkt niet (meer). Vraag om de huidige link.',
    page: (n) => `Pagina ${n}`,
  },
  fr: {
    subject: (agent, month) => `${agent} : votre rapport de ${month}`,
    title: 'Rapport mensuel',
    heading: (month, client) => `${month} · ${client}`,
    agent: 'Assistant de chat',
    greeting: (client) => `Bonjour ${client},`,
    figures: 'Le mois en chiffres',
    thisMonth: 'Ce mois-ci',
    monthBefore: 'Mois précédent',
    change: 'Évolution',
    conversations: 'Conversations',
    questions: 'Questions',
    helpful: 'Réponses jugées utiles',
    notHelpful: 'Réponses jugées inutiles',
    averageConfidence: 'Confiance moyenne (0 à 100)',
    weakShare: 'Réponses faibles',
    leads: 'Contacts',
    tickets: 'Tickets',
    chartConversations: 'Conversations par jour',
    chartBands: 'Réponses par niveau de confiance',
    bands: { high: 'Élevée (80 à 100)', medium: 'Moyenne (50 à 79)', low: 'Faible (0 à 49)' },
    answers: 'réponses',
    topQuestions: 'Questions les plus posées',
    startPages: 'Pages où les conversations ont commencé',
    none: 'Aucune ce mois-ci.',
    transcripts: (count) => `Les ${count} conversations du mois sont jointes en PDF.`,
    transcriptsCapped: (count, all) => `Les ${count} plus récentes des ${all} conversations du mois sont jointes en PDF.`,
    pdfAttached: 'Ce rapport est joint en PDF.',
    archiveLink: 'Tous vos rapports :',
    archiveTitle: (client) => `Rapports pour ${client}`,
    archiveIntro: 'Tous les rapports mensuels de votre assistant de chat, du plus récent au plus ancien.',
    archiveEmpty: "Il n'y a pas encore de rapport.",
    download: (month) => `Rapport de ${month} (PDF)`,
    gone: "Ce lien ne fonctionne pas (ou plus). Demandez le lien actuel.",
    page: (n) => `Page ${n}`,
  },
  de: {
    subject: (agent, month) => `${agent}: Ihr Bericht für ${month}`,
    title: 'Monatsbericht',
    heading: (month, client) => `${month} · ${client}`,
    agent: 'Chat-Assistent',
    greeting: (client) => `Guten Tag ${client},`,
    figures: 'Der Monat in Zahlen',
    thisMonth: 'Dieser Monat',
    monthBefore: 'Vormonat',
    change: 'Veränderung',
    conversations: 'Gespräche',
    questions: 'Fragen',
    helpful: 'Als hilfreich markierte Antworten',
    notHelpful: 'Als nicht hilfreich markierte Antworten',
    averageConfidence: 'Durchschnittliche Sicherheit (0 bis 100)',
    weakShare: 'Schwache Antworten',
    leads: 'Leads',
    tickets: 'Tickets',
    chartConversations: 'Gespräche pro Tag',
    chartBands: 'Antworten nach Sicherheit',
    bands: { high: 'Hoch (80 bis 100)', medium: 'Mittel (50 bis 79)', low: 'Niedrig (0 bis 49)' },
    answers: 'Antworten',
    topQuestions: 'Häufigste Fragen',
    startPages: 'Seiten, auf denen Gespräche begannen',
    none: 'Keine in diesem Monat.',
    transcripts: (count) => `Die ${count} Gespräche des Monats liegen als PDF bei.`,
    transcriptsCapped: (count, all) => `Die ${count} neuesten der ${all} Gespräche des Monats liegen als PDF bei.`,
    pdfAttached: 'Dieser Bericht liegt als PDF bei.',
    archiveLink: 'Alle Ihre Berichte:',
    archiveTitle: (client) => `Berichte für ${client}`,
    archiveIntro: 'Alle Monatsberichte Ihres Chat-Assistenten, der neueste zuerst.',
    archiveEmpty: 'Es gibt noch keine Berichte.',
    download: (month) => `Bericht für ${month} (PDF)`,
    gone: 'Dieser Link funktioniert nicht (mehr). Fragen Sie nach dem aktuellen Link.',
    page: (n) => `Seite ${n}`,
  },
  es: {
    subject: (agent, month) => `${agent}: su informe de ${month}`,
    title: 'Informe mensual',
    heading: (month, client) => `${month} · ${client}`,
    agent: 'Asistente de chat',
    greeting: (client) => `Estimado/a ${client}:`,
    figures: 'El mes en cifras',
    thisMonth: 'Este mes',
    monthBefore: 'Mes anterior',
    change: 'Cambio',
    conversations: 'Conversaciones',
    questions: 'Preguntas',
    helpful: 'Respuestas marcadas como útiles',
    notHelpful: 'Respuestas marcadas como no útiles',
    averageConfidence: 'Confianza media (0 a 100)',
    weakShare: 'Respuestas débiles',
    leads: 'Contactos',
    tickets: 'Tickets',
    chartConversations: 'Conversaciones por día',
    chartBands: 'Respuestas según confianza',
    bands: { high: 'Alta (80 a 100)', medium: 'Media (50 a 79)', low: 'Baja (0 a 49)' },
    answers: 'respuestas',
    topQuestions: 'Preguntas más frecuentes',
    startPages: 'Páginas donde empezaron las conversaciones',
    none: 'Ninguna este mes.',
    transcripts: (count) => `Las ${count} conversaciones del mes van adjuntas en PDF.`,
    transcriptsCapped: (count, all) => `Las ${count} más recientes de las ${all} conversaciones del mes van adjuntas en PDF.`,
    pdfAttached: 'Este informe va adjunto en PDF.',
    archiveLink: 'Todos sus informes:',
    archiveTitle: (client) => `Informes para ${client}`,
    archiveIntro: 'Todos los informes mensuales de su asistente de chat, del más reciente al más antiguo.',
    archiveEmpty: 'Todavía no hay informes.',
    download: (month) => `Informe de ${month} (PDF)`,
    gone: 'Este enlace no funciona (o ya no funciona). Pida el enlace actual.',
    page: (n) => `Página ${n}`,
  },
};

/** "May 2026" in the client's language. */
export function monthName(language: Language, month: string): string {
  return new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00.000Z`));
}

/** The notice that a report waits for review, to the people chosen for the agent who may release it; in the workspace's language. */
export const HELD_NOTICE: Record<Language, { subject: (client: string, month: string) => string; body: (client: string, month: string) => string; review: string }> = {
  en: {
    subject: (client, month) => `The report of ${month} for ${client} waits for your review`,
    body: (client, month) => `The monthly report of ${month} for ${client} is made. Reports for this client are held for review: it is not sent until you send it from the dashboard.`,
    review: 'Review it in the dashboard:',
  },
  nl: {
    subject: (client, month) => `Het rapport over ${month} voor ${client} wacht op uw controle`,
    body: (client, month) => `Het maandrapport over ${month} voor ${client} is gemaakt. Rapporten voor deze klant worden vastgehouden: het wordt pas verstuurd als u het vanuit het dashboard verstuurt.`,
    review: 'Bekijk het in het dashboard:',
  },
  fr: {
    subject: (client, month) => `Le rapport de ${month} pour ${client} attend votre relecture`,
    body: (client, month) => `Le rapport mensuel de ${month} pour ${client} est prêt. Les rapports de ce client sont retenus pour relecture : il ne sera envoyé que lorsque vous l'enverrez depuis le tableau de bord.`,
    review: 'Relisez-le dans le tableau de bord\u00a0:',
  },
  de: {
    subject: (client, month) => `Der Bericht für ${month} für ${client} wartet auf Ihre Prüfung`,
    body: (client, month) => `Der Monatsbericht für ${month} für ${client} ist erstellt. Berichte für diesen Kunden werden zur Prüfung zurückgehalten: Er wird erst versendet, wenn Sie ihn im Dashboard senden.`,
    review: 'Im Dashboard prüfen:',
  },
  es: {
    subject: (client, month) => `El informe de ${month} para ${client} espera su revisión`,
    body: (client, month) => `El informe mensual de ${month} para ${client} está listo. Los informes de este cliente se retienen para revisión: no se envía hasta que usted lo envíe desde el panel.`,
    review: 'Revíselo en el panel:',
  },
};
