/**
 * The API reference in each language (docs/api-conventions.md, "OpenAPI in Dutch"):
 * /docs reads the English document, /docs/nl the Dutch one, and each page carries
 * its language and a link to the other. Scalar's chrome (search, buttons) stays
 * in English: the renderer has no Dutch of its own.
 */
import type { FastifyInstance } from 'fastify';

export interface Reference {
  /** Where the page is served; its script is at `${prefix}/js/scalar.js`. */
  prefix: `/${string}`;
  /** The OpenAPI document the page reads. */
  document: `/${string}`;
  lang: 'en' | 'nl';
  pageTitle: string;
  /** The link to the reference in the other language. */
  switchTo: { href: string; lang: 'en' | 'nl'; label: string };
}

export const DOCS_PATH = '/docs' as const;
export const OPENAPI_PATH = '/api/v1/openapi.json' as const;
export const DUTCH_DOCS_PATH = '/docs/nl' as const;
export const DUTCH_OPENAPI_PATH = '/api/v1/openapi.nl.json' as const;

export const REFERENCES: Reference[] = [
  { prefix: DOCS_PATH, document: OPENAPI_PATH, lang: 'en', pageTitle: 'Parley API reference', switchTo: { href: `${DUTCH_DOCS_PATH}/`, lang: 'nl', label: 'Nederlands' } },
  { prefix: DUTCH_DOCS_PATH, document: DUTCH_OPENAPI_PATH, lang: 'nl', pageTitle: 'Parley API-referentie', switchTo: { href: `${DOCS_PATH}/`, lang: 'en', label: 'English' } },
];

// A plain link, fixed at the top right above the rendered reference; no script, so the page's policy is unchanged.
const SWITCH_STYLE = 'position:fixed;top:.5rem;right:.75rem;z-index:10000;padding:.25rem .6rem;border:1px solid #d1d5db;border-radius:999px;background:#fff;color:#1f2937;font:13px/1.4 system-ui,sans-serif;text-decoration:none';

/** The page with its language on <html> and the link to the other language first in <body>. */
export function withLanguage(html: string, reference: Reference): string {
  const { href, lang, label } = reference.switchTo;
  const link = `<a id="parley-language-switch" href="${href}" hreflang="${lang}" lang="${lang}" style="${SWITCH_STYLE}">${label}</a>`;
  const withLang = /<html[^>]*\slang=/i.test(html) ? html.replace(/(<html[^>]*\slang=")[^"]*"/i, `$1${reference.lang}"`) : html.replace(/<html/i, `<html lang="${reference.lang}"`);
  return withLang.replace(/<body([^>]*)>/i, `<body$1>${link}`);
}

/** Rewrites each reference page of the docs app (its HTML only) for its language. */
export function addLanguageSwitch(docs: FastifyInstance): void {
  docs.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !/^text\/html/.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    const path = new URL(request.url, 'http://docs').pathname;
    // The longest prefix first: /docs/nl/ is also under /docs/.
    const reference = [...REFERENCES].sort((a, b) => b.prefix.length - a.prefix.length).find((candidate) => path === `${candidate.prefix}/` || path === candidate.prefix);
    return reference ? withLanguage(payload, reference) : payload;
  });
}
