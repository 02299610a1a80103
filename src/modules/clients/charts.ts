/**
 * The report's two charts, drawn as SVG and rasterised to PNG with resvg: the same
 * PNG goes into the mail (an inline image) and into the PDF. Text is set in the
 * DejaVu Sans the project ships, so every language's letters render.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Resvg as ResvgClass } from '@resvg/resvg-js';
import { escapeHtml } from '../mail/compose.ts';

const WIDTH = 800;
const FONT = 'DejaVu Sans';
const INK = '#1f2328';
const MUTED = '#5f6368';
const GRID = '#e3e6ea';
const BAR = '#2563eb';
const BAND_COLOURS = { high: '#1a7f37', medium: '#bf8700', low: '#cf222e' } as const;

let fontFiles: string[] | undefined;

function dejaVuFiles(): string[] {
  fontFiles ??= ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((file) =>
    path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', file),
  );
  return fontFiles;
}

let resvgClass: typeof ResvgClass | undefined;

/** resvg, loaded at the first chart: a process that never draws one does not hold its native library. */
function Resvg(): typeof ResvgClass {
  resvgClass ??= (createRequire(import.meta.url)('@resvg/resvg-js') as { Resvg: typeof ResvgClass }).Resvg;
  return resvgClass;
}

/** An SVG as PNG at twice its size, sharp on high-density screens and in print. */
export function toPng(svg: string): Buffer {
  const resvg = new (Resvg())(svg, {
    font: { fontFiles: dejaVuFiles(), loadSystemFonts: false, defaultFontFamily: FONT },
    fitTo: { mode: 'zoom', value: 2 },
    background: '#ffffff',
  });
  return resvg.render().asPng();
}

/** A step for the value axis: 1, 2 or 5 times a power of ten, about four lines up to the maximum. */
function niceStep(max: number): number {
  if (max <= 4) return 1;
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough)!;
}

/** Bars of conversations per day, one per day of the month, labelled every few days. */
export function conversationsChart(title: string, series: Array<{ date: string; conversations: number }>): string {
  const height = 300;
  const left = 48;
  const right = 16;
  const top = 16;
  const bottom = 36;
  const plotWidth = WIDTH - left - right;
  const plotHeight = height - top - bottom;
  const max = Math.max(1, ...series.map((d) => d.conversations));
  const step = niceStep(max);
  const ceiling = Math.ceil(max / step) * step;
  const y = (value: number) => top + plotHeight - (value / ceiling) * plotHeight;
  const slot = plotWidth / Math.max(1, series.length);
  const parts: string[] = [];
  for (let value = 0; value <= ceiling; value += step) {
    parts.push(`<line x1="${left}" x2="${WIDTH - right}" y1="${y(value)}" y2="${y(value)}" stroke="${GRID}" stroke-width="1"/>`);
    parts.push(`<text x="${left - 8}" y="${y(value) + 4}" font-size="12" fill="${MUTED}" text-anchor="end">${value}</text>`);
  }
  series.forEach((day, index) => {
    const x = left + index * slot;
    const barHeight = (day.conversations / ceiling) * plotHeight;
    if (day.conversations > 0) {
      parts.push(`<rect x="${(x + slot * 0.15).toFixed(1)}" y="${(top + plotHeight - barHeight).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${BAR}"><title>${day.date}: ${day.conversations}</title></rect>`);
    }
    const dayOfMonth = Number(day.date.slice(8, 10));
    if (dayOfMonth === 1 || dayOfMonth % 5 === 0) {
      parts.push(`<text x="${(x + slot / 2).toFixed(1)}" y="${height - bottom + 18}" font-size="12" fill="${MUTED}" text-anchor="middle">${dayOfMonth}</text>`);
    }
  });
  return svgDocument(height, title, parts);
}

/** One horizontal bar per confidence band, with its count. */
export function bandsChart(title: string, bands: Array<{ key: keyof typeof BAND_COLOURS; label: string; answers: number }>, unit: string): string {
  const rowHeight = 40;
  const top = 8;
  const labelWidth = 200;
  const barLeft = 24 + labelWidth;
  const barSpace = WIDTH - barLeft - 140;
  const height = top + bands.length * rowHeight + 12;
  const max = Math.max(1, ...bands.map((b) => b.answers));
  const parts = bands.flatMap((band, index) => {
    const y = top + index * rowHeight;
    const width = (band.answers / max) * barSpace;
    return [
      `<text x="24" y="${y + 22}" font-size="14" fill="${INK}">${escapeHtml(band.label)}</text>`,
      `<rect x="${barLeft}" y="${y + 6}" width="${barSpace}" height="24" fill="${GRID}"/>`,
      width > 0 ? `<rect x="${barLeft}" y="${y + 6}" width="${width.toFixed(1)}" height="24" fill="${BAND_COLOURS[band.key]}"/>` : '',
      `<text x="${barLeft + barSpace + 12}" y="${y + 23}" font-size="14" fill="${INK}">${band.answers} ${escapeHtml(unit)}</text>`,
    ];
  });
  return svgDocument(height, title, parts);
}

/** The title is the image's accessible name; the report and the mail show it as a heading above the image. */
function svgDocument(height: number, title: string, parts: string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="${FONT}" role="img">
<title>${escapeHtml(title)}</title>
<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>
${parts.filter(Boolean).join('\n')}
</svg>`;
}
