/**
 * Rules for text the service stores or writes into mails, free of HTTP: the request
 * hook that applies the first to every part of a request is http/text-guard.ts.
 */

const NUL_MESSAGE = 'Text may not contain the NUL character (\\u0000).';
const SURROGATE_MESSAGE = 'Text may not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair).';

/** Why a text breaks the rule, or undefined when it keeps it. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes('\0')) return NUL_MESSAGE;
  if (!text.isWellFormed()) return SURROGATE_MESSAGE;
  return undefined;
}

/** Every line break a mail program or a log reader may honour. */
const LINE_BREAK = /[\r\n\v\f\u0085\u2028\u2029]/;
export const ONE_LINE_MESSAGE = 'must be one line: no line breaks (CR, LF)';

/**
 * For a zod refinement of single-line fields (names, company, phone, subjects):
 * such a field is written on one line of a plain-text mail or into a mail
 * header, where a line break would forge lines or headers of the writer's
 * choosing. Refused (400 naming the field) rather than mended: what the visitor
 * sees refused is what is stored.
 */
export function isOneLine(text: string): boolean {
  return !LINE_BREAK.test(text);
}

/** The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * A name (a visitor's name or company, a visitor file's name) without
 * bidirectional controls: U+202E shows "invoice\u202Efdp.exe" as "invoiceexe.pdf"
 * to the owner who reads it. Stripped, not refused: the visitor meant the letters.
 */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
