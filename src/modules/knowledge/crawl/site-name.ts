/**
 * The site's name in its page titles. Most sites end (or start) every page's title with
 * their name after a separator ("Over ons | Koffiebranderij De Bonenbaas", "Tarifs ·
 * Facturo"). Searched with every passage, that name is in every passage: its idf falls to
 * nothing, so a question naming the business finds no page by it, and every page is
 * "about" the name ("Working from home – Clearwater Physiotherapy, Bristol" answers
 * "Can a physio come to my house?"). So a crawl finds the part most of its pages' titles
 * share, from the titles themselves, and each page is indexed by its own part of the
 * title; the home page keeps its whole title, so the name is indexed once. The title
 * shown to people (the source's name and title) stays the page's own.
 */

/** The text a crawl's page titles share: a prefix with its separator, or a suffix with its separator. */
export interface TitleAffix {
  prefix: string | null;
  suffix: string | null;
}

export const NO_AFFIX: TitleAffix = { prefix: null, suffix: null };

/**
 * Where a title's parts meet: a bar, a middle dot, a bullet, a guillemet or a dash, with
 * or without spaces around; a hyphen, a tilde or a slash only between spaces (it joins
 * words otherwise: "e-bike"); a colon followed by a space.
 */
const SEPARATOR = /\s*[|·•»–—]\s*|\s+[-~/]\s+|:\s+/gu;

/** At least this many titles must share the part, and more than half of them. */
const MIN_SHARING = 2;

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The prefix or suffix (with its separator) that more than half of the titles share, at
 * least two of them, each with an own part left; the one most titles share, then the
 * longer. None for fewer than two titles (a one-page source is about its whole title).
 */
export function sharedTitleAffix(titles: string[]): TitleAffix {
  const all = titles.map(collapse).filter((title) => title.length > 0);
  const prefixes = new Map<string, number>();
  const suffixes = new Map<string, number>();
  for (const title of new Set(all)) {
    const seen = { prefix: new Set<string>(), suffix: new Set<string>() };
    for (const match of title.matchAll(SEPARATOR)) {
      const start = match.index;
      const end = start + match[0].length;
      // Each side of the separator must hold words: the other side is the page's own part.
      if (!/[\p{L}\p{N}]/u.test(title.slice(0, start)) || !/[\p{L}\p{N}]/u.test(title.slice(end))) continue;
      seen.prefix.add(title.slice(0, end));
      seen.suffix.add(title.slice(start));
    }
    const copies = all.filter((other) => other === title).length;
    for (const prefix of seen.prefix) prefixes.set(prefix, (prefixes.get(prefix) ?? 0) + copies);
    for (const suffix of seen.suffix) suffixes.set(suffix, (suffixes.get(suffix) ?? 0) + copies);
  }
  const needed = Math.max(MIN_SHARING, Math.floor(all.length / 2) + 1);
  let best: { affix: TitleAffix; count: number; length: number } | null = null;
  const consider = (affix: TitleAffix, text: string, count: number) => {
    if (count < needed) return;
    if (!best || count > best.count || (count === best.count && text.trim().length > best.length)) best = { affix, count, length: text.trim().length };
  };
  for (const [suffix, count] of suffixes) consider({ prefix: null, suffix }, suffix, count);
  for (const [prefix, count] of prefixes) consider({ prefix, suffix: null }, prefix, count);
  return (best as { affix: TitleAffix } | null)?.affix ?? NO_AFFIX;
}

/**
 * The page's own part of its title: the title without the site's shared prefix or
 * suffix. The home page keeps its whole title (the site's name is indexed there, once),
 * and so does a title that is nothing but the shared part.
 */
export function ownTitle(title: string, affix: TitleAffix, isHome: boolean): string {
  const whole = collapse(title);
  if (isHome) return whole;
  if (affix.suffix && whole.endsWith(affix.suffix)) {
    const own = whole.slice(0, whole.length - affix.suffix.length).trim();
    if (/[\p{L}\p{N}]/u.test(own)) return own;
  }
  if (affix.prefix && whole.startsWith(affix.prefix)) {
    const own = whole.slice(affix.prefix.length).trim();
    if (/[\p{L}\p{N}]/u.test(own)) return own;
  }
  return whole;
}

/** The site's home page: the root of its address (the crawl's start address is the caller's to add). */
export function isHomeAddress(url: string | null): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return parsed.pathname === '/' && parsed.search === '' && parsed.hash === '';
  } catch {
    return false;
  }
}

/** What a crawl knows of its site's titles: its start address and mode, and the shared part it found. */
export interface CrawlTitles {
  url: string;
  mode: string;
  title_prefix: string | null;
  title_suffix: string | null;
}

/**
 * The title a crawled page's passages are indexed and weighed by: its own part, by the
 * shared part the crawl that last read it found; the home page (the site's root, or the
 * start address of a crawl that follows links from it: not a single page's) keeps its
 * whole title.
 */
export function indexedPageTitle(title: string, url: string | null, crawl: CrawlTitles | undefined): string {
  if (!crawl) return title;
  const isHome = isHomeAddress(url) || (crawl.mode !== 'single' && url === crawl.url);
  return ownTitle(title, { prefix: crawl.title_prefix, suffix: crawl.title_suffix }, isHome);
}
