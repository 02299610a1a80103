/**
 * Draws the conversations export as a PDF: a cover (agent, period, channel, counts),
 * then each conversation with its time, channel and messages, answers with their
 * confidence and grounding, and a page number on every page. The text is set in DejaVu
 * Sans, shipped with the project (the PDF's built-in fonts drop letters outside
 * Latin-1), so all five languages' letters render.
 *
 * The document streams: each page leaves as soon as the next one starts, and the
 * conversations are read in batches as the drawing needs them. This module runs in a
 * worker thread (export-pdf.worker.ts): drawing 500 conversations takes about a second
 * of CPU that the service's event loop does not pay.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import type { withMessagesOf } from './conversations.ts';
import type { Channel } from './store.ts';

export type ExportedConversation = Awaited<ReturnType<typeof withMessagesOf>>[number];
type ExportedMessage = ExportedConversation['messages'][number];

export interface ExportCover {
  agentName: string;
  period: { from: string; to: string };
  /** null: every channel the reader may see. */
  channel: Channel | null;
  /** The inbox's other filters in words (confidence band, feedback, search); null without any. */
  filters?: string | null;
  /** Whether test conversations (playground) could be in it: never for a key tied to one agent. */
  testsIncluded: boolean;
  /** Conversations in the PDF. */
  conversations: number;
  /** Conversations of the period and channel; more than `conversations` when the cap cut it. */
  inPeriod: number;
  questions: number;
  madeAt: Date;
}

interface Style {
  font: 'regular' | 'bold';
  size: number;
  color: string;
}

const INK = '#1a1a1a';
const MUTED = '#5f6368';
const RULE = '#d0d4d9';
const STYLES = {
  title: { font: 'bold', size: 24, color: INK },
  agent: { font: 'bold', size: 16, color: INK },
  coverLabel: { font: 'bold', size: 10.5, color: INK },
  coverValue: { font: 'regular', size: 10.5, color: INK },
  heading: { font: 'bold', size: 12, color: INK },
  meta: { font: 'regular', size: 8.5, color: MUTED },
  label: { font: 'bold', size: 9, color: MUTED },
  body: { font: 'regular', size: 10, color: INK },
  footer: { font: 'regular', size: 8, color: MUTED },
} satisfies Record<string, Style>;

const MARGIN = 56;
const FOOTER_OFFSET = 36;
/** Room a conversation's heading needs with its first lines; less than this left on a page starts a new one. */
const HEADING_ROOM = 90;
const LABEL_ROOM = 36;

let fonts: { regular: Buffer; bold: Buffer } | undefined;

/** The DejaVu fonts, found through their package (not a fixed path), read once. */
export function dejaVu(): { regular: Buffer; bold: Buffer } {
  if (!fonts) {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    fonts = { regular: readFileSync(path.join(dir, 'DejaVuSans.ttf')), bold: readFileSync(path.join(dir, 'DejaVuSans-Bold.ttf')) };
  }
  return fonts;
}

/** The PDF as a stream; it is drawn while it is read. A failure while drawing destroys the stream with the error. */
export function renderConversationsPdf(cover: ExportCover, batches: AsyncIterable<ExportedConversation[]>): PDFKit.PDFDocument {
  const { regular, bold } = dejaVu();
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN + 8, left: MARGIN, right: MARGIN },
    autoFirstPage: false,
    info: { Title: `Conversations of ${cover.agentName}, ${cover.period.from} to ${cover.period.to}`, Creator: 'Parley' },
    lang: 'en',
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const pen = new Pen(doc);
  draw(pen, cover, batches).catch((error: unknown) => doc.destroy(error as Error));
  return doc;
}

async function draw(pen: Pen, cover: ExportCover, batches: AsyncIterable<ExportedConversation[]>): Promise<void> {
  pen.doc.addPage();
  drawCover(pen, cover);
  let number = 0;
  for await (const batch of batches) {
    for (const conversation of batch) {
      if (pen.doc.destroyed) return;
      if (number === 0) pen.doc.addPage();
      drawConversation(pen, conversation, ++number, cover.conversations);
    }
  }
  if (pen.doc.destroyed) return;
  pen.doc.end();
}

function drawCover(pen: Pen, cover: ExportCover): void {
  const { doc } = pen;
  doc.moveDown(6);
  pen.write(STYLES.title, 'Conversations');
  doc.moveDown(0.3);
  pen.write(STYLES.agent, cover.agentName);
  doc.moveDown(2);
  const capped = cover.inPeriod > cover.conversations;
  const rows: Array<[string, string]> = [
    ['Period', `${cover.period.from} to ${cover.period.to} (UTC days, on each conversation's last message)`],
    ['Channel', cover.channel ?? 'all channels'],
    ...(cover.filters ? [['Filter', cover.filters] as [string, string]] : []),
    ['Conversations', capped ? `${cover.conversations} (the most recent of ${cover.inPeriod})` : String(cover.conversations)],
    ['Questions', String(cover.questions)],
    ['Test conversations', cover.testsIncluded ? 'included (channel playground)' : 'not included'],
    ['Made', formatTime(cover.madeAt)],
  ];
  for (const [label, value] of rows) {
    pen.write(STYLES.coverLabel, `${label}: `, { continued: true });
    pen.write(STYLES.coverValue, value);
    doc.moveDown(0.4);
  }
  doc.moveDown(1.5);
  pen.write(STYLES.meta, 'Most recent first. Each answer shows its confidence (0 to 100) and grounding: whether its sentences are supported by the sources it used.');
  if (cover.conversations === 0) {
    doc.moveDown(1);
    pen.write(STYLES.body, 'There are no conversations in this period.');
  }
}

function drawConversation(pen: Pen, conversation: ExportedConversation, number: number, total: number): void {
  const { doc } = pen;
  if (number > 1) {
    if (pen.roomLeft() < HEADING_ROOM) doc.addPage();
    else {
      doc.moveDown(0.8);
      pen.rule();
      doc.moveDown(0.8);
    }
  }
  pen.write(STYLES.heading, `${formatTime(new Date(conversation.startedAt))} · ${conversation.channel}`);
  const details = [
    `Conversation ${number} of ${total}`,
    conversation.id,
    conversation.userId && `user ${conversation.userId}`,
    conversation.from && `from ${conversation.from}`,
    conversation.openedBy && `opened by ${conversation.openedBy}`,
    `${conversation.messageCount} messages`,
    `last message ${formatTime(new Date(conversation.lastMessageAt))}`,
  ];
  pen.write(STYLES.meta, details.filter(Boolean).join(' · '));
  const startDay = conversation.startedAt.slice(0, 10);
  for (const message of conversation.messages) drawMessage(pen, message, startDay);
}

function drawMessage(pen: Pen, message: ExportedMessage, startDay: string): void {
  const { doc } = pen;
  doc.moveDown(0.6);
  if (pen.roomLeft() < LABEL_ROOM) doc.addPage();
  const at = message.createdAt.slice(0, 10) === startDay ? message.createdAt.slice(11, 16) : formatTime(new Date(message.createdAt));
  const isAnswer = message.role === 'assistant';
  const label = [isAnswer ? 'Answer' : 'Question', at];
  if (message.page) label.push(`on ${message.page.title ?? message.page.url}`);
  if (message.held) label.push('draft, not sent');
  pen.write(STYLES.label, label.join(' · '));
  pen.write(STYLES.body, message.content || '(no text)');
  if (message.attachments.length > 0) pen.write(STYLES.meta, `Files: ${message.attachments.map((file) => file.fileName).join(', ')}`);
  if (!isAnswer) return;
  const facts = [
    `confidence ${message.confidence ?? 'none'}`,
    `grounding ${message.grounding ?? 'not checked'}`,
    message.model && `model ${message.model}`,
    message.feedback === 1 ? 'marked helpful' : message.feedback === -1 ? 'marked not helpful' : null,
    message.sources.length > 0 && `sources: ${message.sources.map((source) => source.name).join(', ')}`,
  ];
  pen.write(STYLES.meta, facts.filter(Boolean).join(' · '));
}

/** 2026-05-14 09:12 UTC: one form, read the same in every language. */
function formatTime(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Writes with one style at a time and numbers each page as it is added. A page can be
 * added in the middle of a paragraph (pdfkit wraps it onto the next page), so after the
 * number is drawn the style and position in use are put back.
 */
class Pen {
  readonly doc: PDFKit.PDFDocument;
  private style: Style = STYLES.body;
  private pages = 0;

  constructor(doc: PDFKit.PDFDocument) {
    this.doc = doc;
    doc.on('pageAdded', () => this.numberPage());
  }

  write(style: Style, text: string, options: PDFKit.Mixins.TextOptions = {}): void {
    this.use(style);
    this.doc.text(text, { width: this.width(), ...options });
  }

  rule(): void {
    const y = this.doc.y;
    this.doc.save().moveTo(MARGIN, y).lineTo(MARGIN + this.width(), y).lineWidth(0.5).strokeColor(RULE).stroke().restore();
  }

  roomLeft(): number {
    return this.doc.page.maxY() - this.doc.y;
  }

  private width(): number {
    return this.doc.page.width - MARGIN * 2;
  }

  private use(style: Style): void {
    this.style = style;
    this.doc.font(style.font).fontSize(style.size).fillColor(style.color);
  }

  private numberPage(): void {
    const { doc } = this;
    const { x, y } = doc;
    const margins = doc.page.margins;
    const bottom = margins.bottom;
    // Below the bottom margin pdfkit would start yet another page.
    margins.bottom = 0;
    const style = this.style;
    this.use(STYLES.footer);
    doc.text(`Page ${++this.pages}`, MARGIN, doc.page.height - FOOTER_OFFSET, { width: this.width(), align: 'center', lineBreak: false });
    margins.bottom = bottom;
    this.use(style);
    doc.x = x;
    doc.y = y;
  }
}
