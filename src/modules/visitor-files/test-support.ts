/**
 * Helpers of the visitor-file tests (not loaded by the service): pictures of text
 * drawn here, with a real font's outlines filled by a scanline rasteriser, encoded
 * as PNG, and a "scanned" PDF that holds such pictures and no text at all.
 */
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { encodeGrayPng, type GrayImage } from '../../platform/png.ts';

type PathCommand = { command: string; args: number[] };
interface Font {
  unitsPerEm: number;
  layout(text: string): { glyphs: Array<{ path: { commands: PathCommand[] } }>; positions: Array<{ xAdvance: number; xOffset: number; yOffset: number }> };
}

let font: Font | undefined;

/** DejaVu Sans, read by fontkit (pdfkit's font reader). */
async function loadFont(): Promise<Font> {
  if (font) return font;
  // fontkit has no type declarations: imported by a name TypeScript does not resolve.
  const fontkitName = 'fontkit';
  const fontkit = await import(fontkitName);
  const fontPath = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
  font = fontkit.openSync(fontPath) as Font;
  return font;
}

/** Black lines of text on a white page, `size` pixels to the em, with a margin. */
export async function renderText(lines: string[], size = 48): Promise<GrayImage> {
  const face = await loadFont();
  const scale = size / face.unitsPerEm;
  const lineHeight = Math.round(size * 1.5);
  const margin = size;
  const laidOut = lines.map((line) => face.layout(line));
  const lineWidth = (run: ReturnType<Font['layout']>) => run.positions.reduce((sum, p) => sum + p.xAdvance, 0) * scale;
  const width = Math.ceil(Math.max(...laidOut.map(lineWidth)) + 2 * margin);
  const height = lineHeight * lines.length + 2 * margin;
  const edges: Edge[] = [];
  laidOut.forEach((run, row) => {
    const baseline = margin + row * lineHeight + size;
    let penX = margin;
    run.glyphs.forEach((glyph, i) => {
      const position = run.positions[i];
      const toPixel = (x: number, y: number): [number, number] => [penX + (x + position.xOffset) * scale, baseline - (y + position.yOffset) * scale];
      edges.push(...outlineEdges(glyph.path.commands, toPixel));
      penX += position.xAdvance * scale;
    });
  });
  return { width, height, pixels: fillNonZero(edges, width, height) };
}

interface Edge {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A glyph's outline as straight edges in pixels (curves cut into short segments). */
function outlineEdges(commands: PathCommand[], toPixel: (x: number, y: number) => [number, number]): Edge[] {
  const edges: Edge[] = [];
  let start: [number, number] = [0, 0];
  let at: [number, number] = [0, 0];
  const lineTo = (to: [number, number]) => {
    edges.push({ x0: at[0], y0: at[1], x1: to[0], y1: to[1] });
    at = to;
  };
  const STEPS = 12;
  for (const { command, args } of commands) {
    if (command === 'moveTo') {
      start = at = toPixel(args[0], args[1]);
    } else if (command === 'lineTo') {
      lineTo(toPixel(args[0], args[1]));
    } else if (command === 'quadraticCurveTo') {
      const [from, control, to] = [at, toPixel(args[0], args[1]), toPixel(args[2], args[3])];
      for (let s = 1; s <= STEPS; s++) {
        const t = s / STEPS;
        const u = 1 - t;
        lineTo([u * u * from[0] + 2 * u * t * control[0] + t * t * to[0], u * u * from[1] + 2 * u * t * control[1] + t * t * to[1]]);
      }
    } else if (command === 'bezierCurveTo') {
      const [from, c1, c2, to] = [at, toPixel(args[0], args[1]), toPixel(args[2], args[3]), toPixel(args[4], args[5])];
      for (let s = 1; s <= STEPS; s++) {
        const t = s / STEPS;
        const u = 1 - t;
        const point = (k: 0 | 1) => u * u * u * from[k] + 3 * u * u * t * c1[k] + 3 * u * t * t * c2[k] + t * t * t * to[k];
        lineTo([point(0), point(1)]);
      }
    } else if (command === 'closePath') {
      lineTo(start);
    }
  }
  return edges;
}

/** Fills the outlines by the non-zero winding rule, sampling each pixel at its centre. */
function fillNonZero(edges: Edge[], width: number, height: number): Uint8Array {
  const pixels = new Uint8Array(width * height).fill(255);
  for (let y = 0; y < height; y++) {
    const sampleY = y + 0.5;
    const crossings: Array<{ x: number; winding: number }> = [];
    for (const e of edges) {
      if (e.y0 === e.y1) continue;
      const [top, bottom] = e.y0 < e.y1 ? [e.y0, e.y1] : [e.y1, e.y0];
      if (sampleY < top || sampleY >= bottom) continue;
      const x = e.x0 + ((sampleY - e.y0) / (e.y1 - e.y0)) * (e.x1 - e.x0);
      crossings.push({ x, winding: e.y1 > e.y0 ? 1 : -1 });
    }
    crossings.sort((a, b) => a.x - b.x);
    let winding = 0;
    for (let i = 0; i < crossings.length - 1; i++) {
      winding += crossings[i].winding;
      if (winding === 0) continue;
      const from = Math.max(0, Math.ceil(crossings[i].x - 0.5));
      const to = Math.min(width - 1, Math.floor(crossings[i + 1].x - 0.5));
      for (let x = from; x <= to; x++) pixels[y * width + x] = 0;
    }
  }
  return pixels;
}

/** A PNG picture of the lines. */
export async function textPng(lines: string[], size?: number): Promise<Buffer> {
  return encodeGrayPng(await renderText(lines, size));
}

/**
 * A PDF as a scanner makes one: each page a picture of its lines, no text layer. A
 * page given as a string is typed text instead (a mixed document).
 */
export async function scannedPdf(pages: Array<string[] | string>): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ autoFirstPage: false, size: 'A4' });
  const chunks: Buffer[] = [];
  doc.on('data', (part: Buffer) => chunks.push(part));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  for (const page of pages) {
    doc.addPage({ margin: 36 });
    if (typeof page === 'string') doc.fontSize(12).text(page);
    else doc.image(await textPng(page), 36, 36, { fit: [523, 770] });
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/** Smallest real pictures of each accepted kind (1 by 1 pixel). */
export const TINY_PICTURES = {
  gif: Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'),
  webp: Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64'),
  jpeg: Buffer.from(
    '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
    'base64',
  ),
};

/**
 * A one-page PDF written by hand, as fax-like scanners make them: the page is a
 * one-bit picture (0 is black), drawn as an image or as a stencil mask filled black.
 */
export async function oneBitScanPdf(lines: string[], as: 'image' | 'mask'): Promise<Buffer> {
  const { width, height, pixels } = await renderText(lines);
  const rowBytes = Math.ceil(width / 8);
  const packed = Buffer.alloc(rowBytes * height, 0xff);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) if (pixels[y * width + x] < 128) packed[y * rowBytes + (x >> 3)] &= ~(0x80 >> (x & 7));
  }
  const data = deflateSync(packed);
  const imageDict =
    as === 'mask'
      ? `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ImageMask true /BitsPerComponent 1 /Filter /FlateDecode /Length ${data.length} >>`
      : `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode /Length ${data.length} >>`;
  const [pageWidth, pageHeight] = [width * 0.75, height * 0.75];
  const content = `q 0 g ${pageWidth} 0 0 ${pageHeight} 0 0 cm /Scan Do Q`;
  const objects: Array<string | Buffer> = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pageWidth} ${pageHeight}] /Resources << /XObject << /Scan 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    Buffer.concat([Buffer.from(`${imageDict}\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  const offsets: number[] = [];
  let at = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(at);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.from(body as string, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(object);
    at += object.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
