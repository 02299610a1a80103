/**
 * The interface's language: the person's own (GET /app/api/me), else the browser's first
 * of en and nl, else English. t() looks a text up in the chosen catalogue; dates, numbers
 * and sizes are written with Intl in that language.
 */
import type { Language } from '../types.ts';
import { en, type MessageKey } from './en.ts';
import { nl } from './nl.ts';

export type { MessageKey };
export const LANGUAGES: Language[] = ['en', 'nl'];
const CATALOGUES: Record<Language, Record<MessageKey, string>> = { en, nl };

let language: Language = 'en';
let dateFormat: Intl.DateTimeFormat;
let numberFormat: Intl.NumberFormat;
setLanguage(browserLanguage());

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

export function setLanguage(next: Language): void {
  language = next;
  document.documentElement.lang = next;
  dateFormat = new Intl.DateTimeFormat(next, { dateStyle: 'medium', timeStyle: 'short' });
  numberFormat = new Intl.NumberFormat(next);
}

export function currentLanguage(): Language {
  return language;
}

/** The text for a key, with {name} parts filled in. */
export function t(key: MessageKey, values: Record<string, string | number> = {}): string {
  const text = CATALOGUES[language][key] ?? en[key];
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
