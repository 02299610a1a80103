/**
 * What the crawler takes from one HTML page: title, canonical address, links,
 * main text, and whether the page is a login wall.
 */
import { Readability } from '@mozilla/readability';
import * as cheerio from 'cheerio';
import type { AnyNode } from 'domhandler';
import { parseHTML } from 'linkedom';

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
}

/** A page with a password field and less main text than this is a login wall. */
const LOGIN_TEXT_LIMIT = 600;
const BLOCKS = new Set([
  'p', 'div', 'section', 'article', 'main', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'pre', 'blockquote', 'table', 'tr', 'br', 'hr', 'figure', 'figcaption', 'header', 'footer', 'details', 'summary',
]);
const CHROME = 'script, style, noscript, template, nav, header, footer, aside, form, iframe, svg, button, [role=navigation], [aria-hidden=true]';

export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const $ = cheerio.load(html);
  const base = baseOf($, pageUrl);
  const robots = ($('meta[name="robots" i]').attr('content') ?? '').toLowerCase();
  const text = mainText(html, $);
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
  };
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
function mainText(html: string, $: cheerio.CheerioAPI): string {
  const article = readabilityHtml(html);
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

/** Text with one blank line between blocks, so paragraphs survive into the source. */
function htmlToText(root: cheerio.Cheerio<AnyNode>): string {
  const parts: string[] = [];
  const walk = (node: AnyNode): void => {
    if (node.type === 'text') {
      parts.push((node as unknown as { data: string }).data);
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const name = (node as unknown as { name?: string }).name?.toLowerCase() ?? '';
    if (name === 'script' || name === 'style' || name === 'noscript' || name === 'template') return;
    const block = BLOCKS.has(name);
    if (block) parts.push('\n');
    for (const child of (node as unknown as { children: AnyNode[] }).children ?? []) walk(child);
    if (block) parts.push('\n');
  };
  root.toArray().forEach(walk);
  return parts
    .join('')
    .split(/\n/)
    .map(collapse)
    .filter(Boolean)
    .join('\n\n');
}

function collapse(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}
