import { createRequire } from 'node:module';
import { errors } from '../../domain/errors.ts';

type Tldts = typeof import('tldts');
let tldts: Tldts | undefined;
/**
 * The public suffix list (tldts, about 2 MB in memory) loads with the first wildcard origin, not at start-up
 * (docs/performance.md, Memory); required, not imported (tldts ships CommonJS), so the rules stay synchronous.
 */
function publicSuffixes(): Tldts {
  tldts ??= createRequire(import.meta.url)('tldts') as Tldts;
  return tldts;
}

const ORIGIN = /^(https?):\/\/(\*\.)?([a-z0-9.-]+)(?::(\d{1,5}))?$/;
// github.io, blogspot.com and the like are suffixes too: *.github.io would open the agent to every user's site.
const SUFFIX_OPTIONS = { allowPrivateDomains: true };

/**
 * Spec 4.5 rule 4. Each entry is a site origin, scheme://host[:port], or a
 * wildcard over the subdomains of one registrable domain (https://*.example.com).
 * Entries are lower-cased, duplicates dropped, order kept.
 */
export function normaliseAllowedOrigins(entries: string[]): string[] {
  const out: string[] = [];
  entries.forEach((entry, index) => {
    const origin = normaliseOrigin(entry, `allowedOrigins.${index}`);
    if (!out.includes(origin)) out.push(origin);
  });
  return out;
}

function normaliseOrigin(entry: string, field: string): string {
  const text = entry.trim().toLowerCase().replace(/\/$/, '');
  const match = ORIGIN.exec(text);
  if (!match) throw errors.invalidField(field, `"${entry}" is not a site origin such as https://www.example.com or https://*.example.com (no path).`);
  const [, , wildcard, host, port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw errors.invalidField(field, `"${entry}" has an impossible port.`);
  if (host.startsWith('.') || host.endsWith('.') || host.includes('..')) throw errors.invalidField(field, `"${entry}" is not a valid host.`);
  if (wildcard && coversPublicSuffix(host)) {
    throw errors.invalidField(field, `"${entry}" would cover every site under the public suffix "${host}"; name a domain such as https://*.example.com.`);
  }
  return text;
}

/** `*.X` is refused when X has no registrable domain: it is itself a public suffix (com, co.uk, github.io) or not a domain at all. */
function coversPublicSuffix(host: string): boolean {
  const { getDomain, getPublicSuffix } = publicSuffixes();
  const domain = getDomain(host, SUFFIX_OPTIONS);
  return domain === null || getPublicSuffix(host, SUFFIX_OPTIONS) === host;
}
