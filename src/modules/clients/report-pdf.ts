/**
 * The report as a PDF (pdfkit, DejaVu Sans as in the conversations export, so every
 * language's letters render): the agency's intro, the month's figures beside the
 * month before, the two charts as images, top questions, start pages and the
 * agency's signature, with a page number on every page.
 */
import type { ReportContent } from './report.ts';

const MARGIN = 56;
const INK = '#1a1a1a';
const MUTED = '#5f6368';
const RULE = '#d0d4d9';

export async function renderReportPdf(report: ReportContent): Promise<Buffer> {
  // Loaded at the first report: pdfkit and its fonts are not held by a process that never renders one.
  const [{ default: PDFDocument }, { dejaVu }] = await Promise.all([import('pdfkit'), import('../chat/export-pdf.ts')]);
  const { regular, bold } = dejaVu();
  const t = report.texts;
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN + 8, left: MARGIN, right: MARGIN },
    bufferPages: true,
    info: { Title: `${t.title}: ${report.monthLabel}, ${report.clientName}`, Creator: 'Parley' },
    lang: report.language,
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const width = doc.page.width - MARGIN * 2;
  const write = (font: 'regular' | 'bold', size: number, text: string, options: PDFKit.Mixins.TextOptions = {}, color = INK) =>
    doc.font(font).fontSize(size).fillColor(color).text(text, { width, ...options });
  const heading = (text: string) => {
    if (doc.page.maxY() - doc.y < 80) doc.addPage();
    doc.moveDown(1.2);
    write('bold', 13, text);
    doc.moveDown(0.4);
  };

  write('bold', 22, t.title);
  write('bold', 14, t.heading(report.monthLabel, report.clientName));
  write('regular', 10, `${t.agent}: ${report.agentName}`, {}, MUTED);
  if (report.intro.trim()) {
    doc.moveDown(1);
    write('regular', 11, report.intro);
  }

  heading(t.figures);
  drawFigures(doc, report, width);

  heading(t.chartConversations);
  placeImage(doc, report.charts.conversations.png, width, report.charts.conversations.aspect);
  heading(t.chartBands);
  placeImage(doc, report.charts.bands.png, width, report.charts.bands.aspect);

  heading(t.topQuestions);
  if (report.topQuestions.length === 0) write('regular', 10.5, t.none);
  for (const [index, question] of report.topQuestions.entries()) write('regular', 10.5, `${index + 1}. ${question.text} (${question.count})`);

  heading(t.startPages);
  if (report.startPages.length === 0) write('regular', 10.5, t.none);
  for (const page of report.startPages) {
    write('regular', 10.5, `${page.title ?? page.url} (${page.conversations})`);
    if (page.title) write('regular', 8.5, page.url, {}, MUTED);
  }

  if (report.signature.trim()) {
    doc.moveDown(1.5);
    write('regular', 11, report.signature);
  }

  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const bottom = doc.page.margins.bottom;
    // Below the bottom margin pdfkit would start yet another page.
    doc.page.margins.bottom = 0;
    doc.font('regular').fontSize(8).fillColor(MUTED).text(t.page(index + 1), MARGIN, doc.page.height - 36, { width, align: 'center', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}

function drawFigures(doc: PDFKit.PDFDocument, report: ReportContent, width: number): void {
  const t = report.texts;
  const columns = [width * 0.46, width * 0.18, width * 0.18, width * 0.18];
  const row = (cells: string[], font: 'regular' | 'bold', color = INK) => {
    doc.font(font).fontSize(10);
    const height = Math.max(...cells.map((cell, index) => doc.heightOfString(cell, { width: columns[index]! - 6 })));
    if (doc.page.maxY() - doc.y < height + 8) doc.addPage();
    const y = doc.y;
    let x = MARGIN;
    cells.forEach((cell, index) => {
      doc.font(font).fontSize(10).fillColor(color).text(cell, x, y, { width: columns[index]! - 6, align: index === 0 ? 'left' : 'right' });
      x += columns[index]!;
    });
    doc.x = MARGIN;
    doc.y = y + height + 6;
    doc.save().moveTo(MARGIN, doc.y - 3).lineTo(MARGIN + width, doc.y - 3).lineWidth(0.5).strokeColor(RULE).stroke().restore();
  };
  row(['', t.thisMonth, t.monthBefore, t.change], 'bold', MUTED);
  for (const figure of report.figures) row([figure.label, figure.current, figure.previous, figure.change], 'regular');
}

function placeImage(doc: PDFKit.PDFDocument, png: Buffer, width: number, aspect: number): void {
  const height = width * aspect;
  if (doc.page.maxY() - doc.y < height) doc.addPage();
  doc.image(png, MARGIN, doc.y, { width });
  doc.x = MARGIN;
  doc.y += height + 4;
}
