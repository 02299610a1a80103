/**
 * Whether a text carries a business's contact facts. Kept apart from extract.ts so the
 * crawler can judge a page without loading the HTML parsers, which it loads at first use.
 */

/** The fragment of the site facts' address: the site's home address with it (crawler.ts, keepSiteFacts). */
export const SITE_FACTS_FRAGMENT = '#contact-details';

export const EMAIL = /[\p{L}\d._%+-]+@[\p{L}\d-]+(?:\.[\p{L}\d-]+)+/u;
/** A number written as a phone number: starting with +, 0 or (, 8 to 15 digits with spaces, dots or dashes. */
export const PHONE = /(?:\+|\(|\b0)\d[\d\s().\/-]{5,20}\d/g;
export const POSTAL_CODES = [
  /\b\d{4}\s?[A-Z]{2}\b/, // Dutch: 3511 NS
  /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b/, // British: BS7 8AE
  /\b\d{5}\s+\p{Lu}\p{Ll}+/u, // French, German, Spanish, Italian: 75011 Paris
  /\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b/, // American: CA 94103
];

/** Whether a text carries a way to reach the business: an e-mail address, a phone number or a postal address. */
export function hasContactDetails(text: string): boolean {
  if (EMAIL.test(text)) return true;
  for (const match of text.match(PHONE) ?? []) {
    const digits = match.replace(/\D/g, '').length;
    if (digits >= 8 && digits <= 15) return true;
  }
  return POSTAL_CODES.some((code) => code.test(text));
}

/** The phone number and e-mail address a text gives first, as "030 234 5678 · hallo@example.nl" (null when it gives neither). */
export function contactLine(text: string): string | null {
  const phone = (text.match(PHONE) ?? []).find((match) => {
    const digits = match.replace(/\D/g, '').length;
    return digits >= 8 && digits <= 15;
  });
  const email = text.match(EMAIL)?.[0];
  const parts = [phone?.trim(), email].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** Times of day: 09:00, 7.30, 9am, 18 h. */
export function hasOpeningHours(text: string): boolean {
  return /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|h)\b/i.test(text);
}
