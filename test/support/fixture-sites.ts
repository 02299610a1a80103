/**
 * The quality corpus's websites (test/fixtures/sites/<name>), served on 127.0.0.1
 * as a real small-business site would be: every page in the site's layout (header,
 * navigation, footer with the contact facts), and each `*.pdf.txt` served as the
 * PDF it describes. The service must run with PARLEY_ALLOW_PRIVATE_URLS=1.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import type { Language } from '../../src/modules/agents/schemas.ts';

const SITES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/sites');

export interface SiteQuestion {
  q: string;
  /** The question's language when it is not the site's. */
  language?: Language;
  /** Facts the answer must hold, each as written on the site. */
  expect?: string[];
}

export interface SiteQuestions {
  language: Language;
  answerable: SiteQuestion[];
  otherLanguage: SiteQuestion[];
  uncovered: SiteQuestion[];
}

export interface FixtureSite {
  name: string;
  origin: string;
  questions: SiteQuestions;
  close(): Promise<void>;
}

export function fixtureSiteNames(): string[] {
  return readdirSync(SITES_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
}

function pdfFromText(text: string): Promise<Buffer> {
  const fontDir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const doc = new PDFDocument({ size: 'A4', margin: 56 });
  doc.registerFont('body', path.join(fontDir, 'DejaVuSans.ttf'));
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  const [title, ...lines] = text.trim().split('\n');
  doc.font('body').fontSize(16).text(title).moveDown();
  doc.fontSize(11);
  for (const line of lines) doc.text(line);
  doc.end();
  return done;
}

/** `/`, `/x` and `/x/y` are index.html, x.html and x/y.html in the site's layout; `/x.pdf` is built from x.pdf.txt. */
async function render(dir: string, urlPath: string): Promise<{ type: string; body: Buffer | string } | undefined> {
  const clean = path.normalize(decodeURIComponent(urlPath.split('?')[0])).replace(/^(\.\.[/\\])+/, '');
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  try {
    if (clean.endsWith('.pdf')) return { type: 'application/pdf', body: await pdfFromText(read(`${clean}.txt`)) };
    if (clean === '/robots.txt') return { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
    const fragment = read(clean === '/' ? 'index.html' : `${clean.replace(/\/$/, '')}.html`);
    const title = /<!-- title: (.*?) -->/.exec(fragment)?.[1] ?? '';
    const page = read('layout.html').replace('{{title}}', title).replace('{{content}}', fragment.replace(/<!-- title: .*? -->\n?/, ''));
    return { type: 'text/html; charset=utf-8', body: page };
  } catch {
    return undefined;
  }
}

export async function serveFixtureSite(name: string): Promise<FixtureSite> {
  const dir = path.join(SITES_DIR, name);
  const server = http.createServer((request, response) => {
    render(dir, request.url ?? '/').then((found) => {
      if (!found) response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not found</h1></body></html>');
      else response.writeHead(200, { 'content-type': found.type }).end(found.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    questions: JSON.parse(readFileSync(path.join(dir, 'questions.json'), 'utf8')) as SiteQuestions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
