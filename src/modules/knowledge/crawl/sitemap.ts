/** Sitemaps (https://www.sitemaps.org/protocol.html): a urlset of pages or a sitemapindex of sitemaps. */
import { XMLParser } from 'fast-xml-parser';

export interface ParsedSitemap {
  pages: string[];
  sitemaps: string[];
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: true,
  // A sitemap with one entry still gives a list.
  isArray: (name) => name === 'url' || name === 'sitemap',
});

export function parseSitemap(xml: string): ParsedSitemap {
  let doc: any;
  try {
    doc = parser.parse(xml);
  } catch {
    return { pages: [], sitemaps: [] };
  }
  const locs = (entries: unknown): string[] =>
    (Array.isArray(entries) ? entries : [])
      .map((entry) => (typeof entry?.loc === 'string' ? entry.loc.trim() : null))
      .filter((loc): loc is string => Boolean(loc));
  return { pages: locs(doc?.urlset?.url), sitemaps: locs(doc?.sitemapindex?.sitemap) };
}
