/**
 * The interface's language: the person's own (GET /app/api/me), else the browser's first
 * of en and nl, else English. Each language's catalogue is a chunk of its own, loaded when the
 * language is first used (the page's HTML preloads the one it knows is needed), so a page
 * downloads one language's texts, not both. t() looks a text up in the chosen catalogue; dates,
 * numbers and sizes are written with Intl in that language.
 */
import { LANGUAGES, type Language } from '../types.ts';
import type { MessageKey } from './en.ts';

export type { MessageKey };
export { LANGUAGES };
type Catalogue = Record<MessageKey, string>;

/** Literal import() paths, so esbuild makes each catalogue its own chunk (src/dashboard/build.ts finds them by these modules). */
const LOADERS: Record<Language, () => Promise<Catalogue>> = {
  en: async () => (await import('./en.ts')).en,
  nl: async () => (await import('./nl.ts')).nl,
};
const catalogues: Partial<Record<Language, Catalogue>> = {};

let language: Language = 'en';
let catalogue: Catalogue | undefined;
let dateFormat: Intl.DateTimeFormat;
let numberFormat: Intl.NumberFormat;
formatsFor(language);

export function browserLanguage(): Language {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0] as Language;
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

/** The person's language when it is one the dashboard speaks, else the browser's. */
export function languageFor(personLanguage: string | undefined): Language {
  return LANGUAGES.includes(personLanguage as Language) ? (personLanguage as Language) : browserLanguage();
}

/**
 * Switches the texts to a language, its catalogue loaded first when it is not yet (the texts
 * change at once when it is). Rejects when the catalogue cannot be loaded: the language in use stays.
 */
export async function changeLanguage(next: Language): Promise<void> {
  catalogue = catalogues[next] ??= await LOADERS[next]();
  language = next;
  document.documentElement.lang = next;
  formatsFor(next);
}

function formatsFor(next: Language): void {
  dateFormat = new Intl.DateTimeFormat(next, { dateStyle: 'medium', timeStyle: 'short' });
  numberFormat = new Intl.NumberFormat(next);
}

export function currentLanguage(): Language {
  return language;
}

/** The text for a key, with {name} parts filled in (the key itself before any catalogue is in: see main.tsx). */
export function t(key: MessageKey, values: Record<string, string | number> = {}): string {
  const text = catalogue?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateFormat.format(new Date(iso)) : '';
}

export function formatNumber(value: number): string {
  return numberFormat.format(value);
}

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return new Intl.NumberFormat(language, { style: 'unit', unit: UNITS[unit], unitDisplay: 'short', maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value);
}
