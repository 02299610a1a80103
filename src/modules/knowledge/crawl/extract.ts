/**
 * What the crawler takes from one HTML page: title, canonical address, links,
 * main text, and whether the page is a login wall.
 */
import { Readability } from '@mozilla/readability';
import * as cheerio from 'cheerio';
import type { AnyNode } from 'domhandler';
import { parseHTML } from 'linkedom';
import { hasContactDetails, hasOpeningHours } from './contact-details.ts';

export interface ExtractedPage {
  title: string;
  /** The page's <link rel=canonical>, resolved; null when absent or unusable. */
  canonical: string | null;
  /** Every <a href> resolved against the page (or its <base>), not yet filtered. */
  links: string[];
  text: string;
  /** A form with a password field and little else. */
  isLoginForm: boolean;
  /** <meta name=robots content=noindex>: the site asks not to keep this page. */
  noindex: boolean;
  /** <meta name=robots content=nofollow>: the site asks not to follow its links. */
  nofollow: boolean;
  /**
   * What the site says in its header or footer when that holds contact details or
   * opening hours (kept once per site by the crawler; the main text leaves it out).
   */
  siteFacts: string | null;
  /** The page's <html lang>, lower case ('' when absent). */
  language: string;
}

/** A page with a password field and less main text than this is a login wall. */
const LOGIN_TEXT_LIMIT = 600;
const BLOCKS = new Set([
  'p', 'div', 'section', 'article', 'main', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'pre', 'blockquote', 'table', 'tr', 'br', 'hr', 'figure', 'figcaption', 'header', 'footer', 'details', 'summary',
  'address', 'aside', 'nav', 'form', 'fieldset', 'legend', 'caption', 'option',
]);
const CHROME = 'script, style, noscript, template, nav, header, footer, aside, form, iframe, svg, button, [role=navigation], [aria-hidden=true]';

export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const $ = cheerio.load(html);
  const base = baseOf($, pageUrl);
  const robots = ($('meta[name="robots" i]').attr('content') ?? '').toLowerCase();
  const text = mainText($);
  return {
    title: titleOf($),
    canonical: resolve($('link[rel~="canonical" i]').first().attr('href'), base),
    links: $('a[href]')
      .toArray()
      .filter((a) => !/\bnofollow\b/i.test($(a).attr('rel') ?? ''))
      .map((a) => resolve($(a).attr('href'), base))
      .filter((href): href is string => href !== null),
    text,
    isLoginForm: $('form input[type="password" i]').length > 0 && text.length < LOGIN_TEXT_LIMIT,
    noindex: /\b(noindex|none)\b/.test(robots),
    nofollow: /\b(nofollow|none)\b/.test(robots),
    siteFacts: siteFactsOf($),
    language: ($('html').attr('lang') ?? '').trim().toLowerCase(),
  };
}

const CHROME_PARTS = 'header, footer, [role=banner], [role=contentinfo]';
/** Inside a header or footer: menus, buttons and forms carry no facts. */
const CHROME_NOISE = 'script, style, noscript, template, nav, form, iframe, svg, button, select, [role=navigation], [aria-hidden=true]';

/**
 * The header and footer text that holds contact details or opening hours. Links
 * other than mailto: and tel: are left out: in a footer they are menus ("Privacy").
 */
function siteFactsOf($: cheerio.CheerioAPI): string | null {
  const parts = $(CHROME_PARTS)
    .toArray()
    .filter((element) => $(element).parents(`${CHROME_PARTS}, article, main`).length === 0);
  const facts: string[] = [];
  for (const part of parts) {
    const clone = $(part).clone();
    clone.find(CHROME_NOISE).remove();
    clone.find('a').each((_, link) => {
      if (!/^(mailto|tel):/i.test($(link).attr('href') ?? '')) $(link).remove();
    });
    const text = htmlToText(clone);
    if (text && (hasContactDetails(text) || hasOpeningHours(text)) && !facts.includes(text)) facts.push(text);
  }
  return facts.length > 0 ? facts.join('\n\n') : null;
}


function titleOf($: cheerio.CheerioAPI): string {
  const og = $('meta[property="og:title" i]').attr('content')?.trim();
  const title = $('title').first().text().trim();
  return collapse(og || title || $('h1').first().text());
}

function baseOf($: cheerio.CheerioAPI, pageUrl: string): string {
  return resolve($('base[href]').first().attr('href'), pageUrl) ?? pageUrl;
}

function resolve(href: string | undefined, base: string): string | null {
  if (!href) return null;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return null;
  }
}

/**
 * Readability finds the article; on pages it cannot read (listings, short pages)
 * the whole body without navigation, header, footer, forms and scripts stands in.
 */
function mainText($: cheerio.CheerioAPI): string {
  // Without the site's header and footer: on a short page Readability would take the footer for the article.
  const withoutChrome = $.root().clone();
  withoutChrome.find(CHROME_PARTS).filter((_, element) => $(element).parents('article, main').length === 0).remove();
  const article = readabilityHtml($.html(withoutChrome));
  const fromArticle = article ? htmlToText(cheerio.load(article).root()) : '';
  const body: cheerio.Cheerio<AnyNode> = $('body').length > 0 ? $('body').clone() : $.root().clone();
  body.find(CHROME).remove();
  const fromBody = htmlToText(body);
  // Readability can keep a fragment of a page that is all short sections; the fuller text wins then.
  return fromArticle.length >= Math.min(200, fromBody.length * 0.5) ? fromArticle : fromBody;
}

function readabilityHtml(html: string): string | null {
  try {
    const { document } = parseHTML(html);
    const article = new Readability(document as unknown as Document, { charThreshold: 100 }).parse();
    return article?.content ?? null;
  } catch {
    return null;
  }
}

/**
 * Text with one blank line between blocks, so paragraphs survive into the source.
 * Headings become Markdown headings (the passages under them carry them as context,
 * see chunk.ts); a table row is one line with its headers, a definition list item and
 * a details block keep their question and answer together.
 */
export function htmlToText(root: cheerio.Cheerio<AnyNode>): string {
  const out = new TextWriter();
  root.toArray().forEach((node) => writeNode(node, out));
  return out.text();
}

class TextWriter {
  private blocks: string[] = [];
  private inline: string[] = [];
  /** The level of the last heading written: a details block's question sits one below it. */
  headingLevel = 1;

  word(text: string): void {
    this.inline.push(text);
  }

  /** Ends the running block: what follows never glues to what came before. */
  breakBlock(): void {
    const text = collapse(this.inline.join(''));
    this.inline = [];
    if (text) this.blocks.push(text);
  }

  block(text: string): void {
    this.breakBlock();
    const clean = collapse(text);
    if (clean) this.blocks.push(clean);
  }

  heading(level: number, text: string): void {
    const clean = collapse(text);
    if (!clean) return;
    this.block(`${'#'.repeat(level)} ${clean}`);
    this.headingLevel = level;
  }

  text(): string {
    this.breakBlock();
    return this.blocks.join('\n\n');
  }
}

type Element = AnyNode & { name: string; attribs: Record<string, string>; children: AnyNode[] };

const SKIPPED = new Set(['script', 'style', 'noscript', 'template']);

function writeNode(node: AnyNode, out: TextWriter): void {
  if (node.type === 'text') {
    out.word((node as unknown as { data: string }).data);
    return;
  }
  if (node.type !== 'tag' && node.type !== 'root') return;
  const element = node as Element;
  const name = element.name?.toLowerCase() ?? '';
  if (SKIPPED.has(name)) return;
  const heading = /^h([1-6])$/.exec(name);
  if (heading) return out.heading(Number(heading[1]), inlineText(element));
  if (name === 'table') return writeTable(element, out);
  if (name === 'dl') return writeDefinitions(element, out);
  if (name === 'details') return writeDetails(element, out);
  if (name === 'br') return out.breakBlock();
  // An address is one line: "14 Gloucester Road, Bristol BS7 8AE".
  if (name === 'address') return out.block(inlineText(element, ', '));
  const block = BLOCKS.has(name);
  if (block) out.breakBlock();
  for (const child of element.children ?? []) writeNode(child, out);
  if (block) out.breakBlock();
}

/** The text of an element on one line, with a space wherever a block or cell boundary was. */
function inlineText(node: AnyNode, lineBreak = ' '): string {
  const parts: string[] = [];
  const walk = (current: AnyNode): void => {
    if (current.type === 'text') parts.push((current as unknown as { data: string }).data);
    if (current.type !== 'tag' && current.type !== 'root') return;
    const name = (current as Element).name?.toLowerCase() ?? '';
    if (SKIPPED.has(name)) return;
    if (name === 'br') parts.push(lineBreak);
    const spaced = BLOCKS.has(name) || CELLS.has(name);
    if (spaced) parts.push(' ');
    for (const child of (current as Element).children ?? []) walk(child);
    if (spaced) parts.push(' ');
  };
  walk(node);
  return collapse(parts.join('')).replace(/\s*,(\s*,)+/g, ',').replace(/^,\s*|,\s*$/g, '');
}

const CELLS = new Set(['td', 'th', 'dt', 'dd', 'caption', 'address', 'tbody', 'thead', 'tfoot']);

function childElements(node: AnyNode, names?: string[]): Element[] {
  return ((node as Element).children ?? []).filter(
    (child): child is Element => child.type === 'tag' && (!names || names.includes((child as Element).name.toLowerCase())),
  );
}

/** The rows of a table, its own only (a nested table is read as the text of its cell). */
function rowsOf(table: Element): Element[] {
  return childElements(table).flatMap((child) => (child.name.toLowerCase() === 'tr' ? [child] : childElements(child, ['tr'])));
}

/**
 * One line per row: "Saturday: 09:00 – 17:00" for a two-column table,
 * "Initial assessment — Length: 60 minutes; Price: £65" when there are more columns
 * and a header row names them.
 */
function writeTable(table: Element, out: TextWriter): void {
  out.breakBlock();
  const caption = childElements(table, ['caption'])[0];
  if (caption) out.block(inlineText(caption));
  const rows = rowsOf(table).map((row) => ({
    cells: childElements(row, ['td', 'th']).map((cell) => inlineText(cell)),
    isHeader: childElements(row, ['td', 'th']).every((cell) => cell.name.toLowerCase() === 'th') || (row.parent as Element | null)?.name?.toLowerCase() === 'thead',
  }));
  const headerAt = rows.findIndex((row) => row.isHeader && row.cells.length > 1);
  const headers = headerAt >= 0 && rows.slice(0, headerAt).every((row) => row.isHeader) ? rows[headerAt].cells : null;
  for (const [index, row] of rows.entries()) {
    if (headers && index <= headerAt) continue;
    out.block(tableRowLine(row.cells, headers));
  }
  out.breakBlock();
}

export function tableRowLine(cells: string[], headers: string[] | null): string {
  const [label, ...rest] = cells;
  const values = rest.map((value, i) => ({ value, header: headers?.[i + 1] ?? '' })).filter((cell) => cell.value);
  if (!label) return values.map((cell) => cell.value).join('; ');
  if (values.length === 0) return label;
  if (values.length === 1 && rest.length === 1) return `${label}: ${values[0].value}`;
  const named = values.map((cell) => (cell.header ? `${cell.header}: ${cell.value}` : cell.value));
  return `${label} — ${named.join('; ')}`;
}

/** A term and its descriptions as one block: "Friday: 7:30am – 5:00pm", "Can I pay cash? Yes, ...". */
function writeDefinitions(list: Element, out: TextWriter): void {
  out.breakBlock();
  let term = '';
  let descriptions: string[] = [];
  const flush = () => {
    if (term || descriptions.length > 0) out.block(definitionLine(term, descriptions.join(' ')));
    term = '';
    descriptions = [];
  };
  // A <div> may wrap each dt/dd group (allowed in HTML).
  const items = childElements(list).flatMap((child) => (child.name.toLowerCase() === 'div' ? childElements(child) : [child]));
  for (const item of items) {
    const name = item.name.toLowerCase();
    if (name === 'dt') {
      if (descriptions.length > 0) flush();
      term = term ? `${term} / ${inlineText(item)}` : inlineText(item);
    } else if (name === 'dd') descriptions.push(inlineText(item));
  }
  flush();
}

export function definitionLine(term: string, description: string): string {
  if (!term || !description) return term || description;
  return /[?:.!]$/.test(term) ? `${term} ${description}` : `${term}: ${description}`;
}

/** An FAQ's <details>: the <summary> is the question, heading the answer below it. */
function writeDetails(details: Element, out: TextWriter): void {
  const summary = childElements(details, ['summary'])[0];
  const level = Math.min(6, out.headingLevel + 1);
  const parentLevel = out.headingLevel;
  if (summary) out.heading(level, inlineText(summary));
  else out.breakBlock();
  for (const child of details.children ?? []) if (child !== summary) writeNode(child, out);
  out.breakBlock();
  // The next details block is a sibling question, not an answer to this one.
  out.headingLevel = parentLevel;
}

function collapse(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}
