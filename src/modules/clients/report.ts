/**
 * What a monthly report says and how it is sent (docs/clients.md): the month's figures
 * from analytics beside the month before's, two charts, top questions and start pages,
 * as a PDF and as a mail with the charts inline; with transcripts on, the month's
 * conversations as a second PDF drawn by the conversations export's own renderer.
 */
import type { Context } from '../../context.ts';
import type { MailAttachment } from '../../platform/mail.ts';
import type { Language } from '../agents/schemas.ts';
import { periodFigures, type AgentFigures } from '../analytics/service.ts';
import { withMessagesOf } from '../chat/conversations.ts';
import { EXPORT_MAX_CONVERSATIONS, renderOffThread } from '../chat/export.ts';
import { countConversations, latestConversations, type ConversationFilter } from '../chat/store.ts';
import { escapeHtml } from '../mail/compose.ts';
import { bandsChart, conversationsChart, toPng } from './charts.ts';
import { renderReportPdf } from './report-pdf.ts';
import { languageOr, archiveLink } from './service.ts';
import * as store from './store.ts';
import { monthName, REPORT_TEXTS, type ReportTexts } from './texts.ts';

/** Conversations drawn into the transcripts PDF at a time. */
const TRANSCRIPT_BATCH = 25;

export interface Chart {
  png: Buffer;
  /** height / width, to place it without reading the PNG back. */
  aspect: number;
  title: string;
}

export interface ReportContent {
  language: Language;
  texts: ReportTexts;
  clientName: string;
  agentName: string;
  month: string;
  monthLabel: string;
  intro: string;
  signature: string;
  figures: Array<{ label: string; current: string; previous: string; change: string }>;
  charts: { conversations: Chart; bands: Chart };
  topQuestions: Array<{ text: string; count: number }>;
  startPages: Array<{ url: string; title: string | null; conversations: number }>;
  archiveLink: string;
}

/** First and last UTC day of a month (YYYY-MM). */
export function monthPeriod(month: string): { from: string; to: string } {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/** The month before a month (YYYY-MM). */
export function monthBefore(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const at = new Date(Date.UTC(year, monthNumber - 2, 1));
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

export async function reportContent(ctx: Context, client: store.Client, month: string): Promise<ReportContent> {
  const language = languageOr(client.language);
  const texts = REPORT_TEXTS[language];
  const period = monthPeriod(month);
  const previousPeriod = monthPeriod(monthBefore(month));
  const [current, previous, tickets, previousTickets, agentName] = await Promise.all([
    periodFigures(ctx, client.workspace_id, client.agent_id, period),
    periodFigures(ctx, client.workspace_id, client.agent_id, previousPeriod),
    store.countTickets(ctx.db, client.agent_id, period.from, period.to),
    store.countTickets(ctx.db, client.agent_id, previousPeriod.from, previousPeriod.to),
    store.agentName(ctx.db, client.agent_id),
  ]);
  const number = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const percent = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 0 });
  const count = (label: string, a: number, b: number) => ({ label, current: number.format(a), previous: number.format(b), change: signed(number, a - b) });
  const measure = (label: string, a: number | null, b: number | null, format: Intl.NumberFormat) => ({
    label,
    current: a === null ? '–' : format.format(a),
    previous: b === null ? '–' : format.format(b),
    change: a === null || b === null ? '–' : signed(format, a - b),
  });
  const conversationsTitle = texts.chartConversations;
  const bandsTitle = texts.chartBands;
  return {
    language,
    texts,
    clientName: client.name,
    agentName,
    month,
    monthLabel: monthName(language, month),
    intro: client.intro,
    signature: client.signature,
    figures: [
      count(texts.conversations, current.conversations, previous.conversations),
      count(texts.questions, current.questions, previous.questions),
      count(texts.helpful, current.helpful, previous.helpful),
      count(texts.notHelpful, current.notHelpful, previous.notHelpful),
      measure(texts.averageConfidence, current.averageConfidence, previous.averageConfidence, number),
      measure(texts.weakShare, current.weakShare, previous.weakShare, percent),
      count(texts.leads, current.widget.leads, previous.widget.leads),
      count(texts.tickets, tickets, previousTickets),
    ],
    charts: {
      conversations: chart(conversationsChart(conversationsTitle, current.series), conversationsTitle),
      bands: chart(bandsChart(bandsTitle, bandsOf(current, texts), texts.answers), bandsTitle),
    },
    topQuestions: current.topQuestions,
    startPages: current.widget.startPages,
    archiveLink: archiveLink(ctx, client.link_token),
  };
}

function signed(format: Intl.NumberFormat, difference: number): string {
  if (difference === 0) return '0';
  return difference > 0 ? `+${format.format(difference)}` : format.format(difference);
}

function bandsOf(figures: AgentFigures, texts: ReportTexts) {
  return (['high', 'medium', 'low'] as const).map((key) => ({ key, label: texts.bands[key], answers: figures.bands[key].answers }));
}

function chart(svg: string, title: string): Chart {
  const size = /width="(\d+)" height="(\d+)"/.exec(svg)!;
  return { png: toPng(svg), aspect: Number(size[2]) / Number(size[1]), title };
}

export interface Transcripts {
  pdf: Buffer;
  conversations: number;
  inMonth: number;
}

/**
 * The month's conversations (test conversations left out), at most the export's 500
 * most recent, drawn by the conversations export's PDF code.
 */
export async function transcriptsPdf(ctx: Context, client: store.Client, month: string, agentName: string): Promise<Transcripts> {
  const filter: ConversationFilter = { agentId: client.agent_id, includeTests: false, ...monthPeriod(month) };
  const conversations = await latestConversations(ctx.db, filter, EXPORT_MAX_CONVERSATIONS);
  const inMonth = conversations.length < EXPORT_MAX_CONVERSATIONS ? conversations.length : await countConversations(ctx.db, filter);
  const ids = conversations.map((c) => c.id);
  const questions = ids.length === 0
    ? 0
    : Number(
        (
          await ctx.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('conversation_id', 'in', ids)
            .where('role', '=', 'user')
            .executeTakeFirstOrThrow()
        ).n,
      );
  async function* batches() {
    for (let start = 0; start < conversations.length; start += TRANSCRIPT_BATCH) {
      yield await withMessagesOf(ctx, client.agent_id, conversations.slice(start, start + TRANSCRIPT_BATCH));
    }
  }
  // Drawn by the export's renderer in a worker thread: seconds of CPU for 500 conversations that the event loop does not pay.
  const pdf = renderOffThread(
    {
      agentName,
      period: monthPeriod(month),
      channel: null,
      testsIncluded: false,
      conversations: conversations.length,
      inPeriod: inMonth,
      questions,
      madeAt: ctx.clock.now(),
    },
    batches(),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of pdf) chunks.push(chunk as Buffer);
  return { pdf: Buffer.concat(chunks), conversations: conversations.length, inMonth };
}

const CHART_IDS = { conversations: 'conversations-chart@parley', bands: 'confidence-chart@parley' } as const;

/** The client's mail: the report in text and HTML (charts inline by cid), the report PDF and the transcripts attached. */
export function reportMail(report: ReportContent, pdf: Buffer, transcripts: Transcripts | null): { subject: string; text: string; html: string; attachments: MailAttachment[] } {
  const t = report.texts;
  const subject = t.subject(report.agentName, report.monthLabel).replace(/\s+/g, ' ').trim();
  const notes = [t.pdfAttached];
  if (transcripts) notes.push(transcripts.conversations < transcripts.inMonth ? t.transcriptsCapped(transcripts.conversations, transcripts.inMonth) : t.transcripts(transcripts.conversations));
  const lines: string[] = [t.greeting(report.clientName), ''];
  if (report.intro.trim()) lines.push(report.intro, '');
  lines.push(`${t.figures} (${report.monthLabel})`);
  lines.push(...report.figures.map((f) => `${f.label}: ${f.current} (${t.monthBefore}: ${f.previous})`), '');
  lines.push(t.topQuestions, ...(report.topQuestions.length ? report.topQuestions.map((q, i) => `${i + 1}. ${q.text} (${q.count})`) : [t.none]), '');
  lines.push(t.startPages, ...(report.startPages.length ? report.startPages.map((p) => `${p.title ?? p.url} (${p.conversations}) ${p.url}`) : [t.none]), '');
  lines.push(...notes, '', `${t.archiveLink} ${report.archiveLink}`);
  if (report.signature.trim()) lines.push('', report.signature);
  const attachments: MailAttachment[] = [
    { fileName: 'conversations.png', contentType: 'image/png', contentId: CHART_IDS.conversations, content: report.charts.conversations.png },
    { fileName: 'confidence.png', contentType: 'image/png', contentId: CHART_IDS.bands, content: report.charts.bands.png },
    { fileName: `report-${report.month}.pdf`, contentType: 'application/pdf', content: pdf },
  ];
  if (transcripts) attachments.push({ fileName: `conversations-${report.month}.pdf`, contentType: 'application/pdf', content: transcripts.pdf });
  return { subject, text: `${lines.join('\n')}\n`, html: reportHtml(report, subject, notes), attachments };
}

const FONT = "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";

function reportHtml(report: ReportContent, subject: string, notes: string[]): string {
  const t = report.texts;
  const p = (text: string) => `<p style="margin:0 0 16px;white-space:pre-wrap">${escapeHtml(text)}</p>`;
  const h = (text: string) => `<h2 style="font-size:17px;margin:24px 0 8px">${escapeHtml(text)}</h2>`;
  const cell = 'padding:4px 8px;border-bottom:1px solid #e3e6ea';
  const figureRows = report.figures
    .map((f) => `<tr><th scope="row" style="text-align:left;font-weight:400;${cell}">${escapeHtml(f.label)}</th><td style="text-align:right;${cell}">${escapeHtml(f.current)}</td><td style="text-align:right;color:#5f6368;${cell}">${escapeHtml(f.previous)}</td></tr>`)
    .join('');
  const list = (items: string[]) => (items.length ? `<ol style="margin:0 0 16px;padding-left:20px">${items.map((item) => `<li>${item}</li>`).join('')}</ol>` : p(t.none));
  const image = (id: string, chart: Chart) => `<img src="cid:${id}" alt="${escapeHtml(chart.title)}" width="512" style="display:block;width:100%;max-width:512px;height:auto;margin:0 0 16px">`;
  const link = escapeHtml(report.archiveLink);
  const body = [
    `<h1 style="font-size:20px;margin:0 0 4px">${escapeHtml(t.title)}</h1>`,
    `<p style="margin:0 0 16px;color:#5f6368">${escapeHtml(t.heading(report.monthLabel, report.clientName))} · ${escapeHtml(report.agentName)}</p>`,
    p(t.greeting(report.clientName)),
    report.intro.trim() ? p(report.intro) : '',
    h(t.figures),
    `<table style="border-collapse:collapse;width:100%;margin:0 0 16px"><thead><tr><td></td><th scope="col" style="text-align:right;${cell}">${escapeHtml(t.thisMonth)}</th><th scope="col" style="text-align:right;${cell}">${escapeHtml(t.monthBefore)}</th></tr></thead><tbody>${figureRows}</tbody></table>`,
    h(report.charts.conversations.title),
    image(CHART_IDS.conversations, report.charts.conversations),
    h(report.charts.bands.title),
    image(CHART_IDS.bands, report.charts.bands),
    h(t.topQuestions),
    list(report.topQuestions.map((q) => `${escapeHtml(q.text)} (${q.count})`)),
    h(t.startPages),
    list(report.startPages.map((page) => (/^https?:\/\//i.test(page.url) ? `<a href="${escapeHtml(page.url)}" style="color:#2563eb">${escapeHtml(page.title ?? page.url)}</a> (${page.conversations})` : `${escapeHtml(page.title ?? page.url)} (${page.conversations})`))),
    ...notes.map(p),
    `<p style="margin:0 0 16px">${escapeHtml(t.archiveLink)} <a href="${link}" style="color:#2563eb">${link}</a></p>`,
    report.signature.trim() ? p(report.signature) : '',
  ].filter(Boolean);
  return `<!doctype html>
<html lang="${report.language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9">
<div style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff;border-radius:8px;font-family:${FONT};font-size:15px;line-height:1.5;color:#1f2328">
${body.join('\n')}
</div>
</body>
</html>
`;
}

export { renderReportPdf };
