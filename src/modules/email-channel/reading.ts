/**
 * Reading a received mail (docs/email.md): which mails are never answered, which
 * Message-IDs it names, and the visitor's own words without quoted history or signature.
 */
import type { Email } from 'postal-mime';

export type NotAnswered = 'auto_reply' | 'bounce';

/** Local parts that never belong to a person who waits for an answer. */
const ROBOT_SENDER = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|noreply|bounces?)([+.-].*)?$/i;

export function headerOf(mail: Email, name: string): string | undefined {
  return mail.headers.find((h) => h.key === name)?.value;
}

/** A bounce (a delivery report, or a mail from the mailer daemon), an auto-reply or bulk mail; undefined for a person's mail. */
export function automaticKind(mail: Email, sender: string): NotAnswered | undefined {
  const contentType = headerOf(mail, 'content-type') ?? '';
  const local = sender.split('@')[0] ?? '';
  if (/^multipart\/report/i.test(contentType) || /^mailer-daemon$/i.test(local) || sender === '') return 'bounce';
  const autoSubmitted = headerOf(mail, 'auto-submitted');
  if (autoSubmitted && autoSubmitted.trim().toLowerCase() !== 'no') return 'auto_reply';
  if (/^(bulk|list|junk|auto_reply)$/i.test(headerOf(mail, 'precedence')?.trim() ?? '')) return 'auto_reply';
  if (headerOf(mail, 'list-id') || headerOf(mail, 'list-unsubscribe')) return 'auto_reply';
  if (headerOf(mail, 'x-autoreply') || headerOf(mail, 'x-autorespond') || headerOf(mail, 'x-auto-response-suppress')?.match(/all|oof|autoreply/i)) return 'auto_reply';
  if (ROBOT_SENDER.test(local)) return 'auto_reply';
  return undefined;
}

/** The Message-IDs in a header such as References ("<a@x> <b@y>"), without their angle brackets. */
export function messageIds(value: string | undefined): string[] {
  if (!value) return [];
  const bracketed = [...value.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]!);
  return bracketed.length > 0 ? bracketed : value.split(/\s+/).filter((id) => id.includes('@'));
}

/** The Message-IDs a bounce quotes from the mail that bounced (its returned headers). */
export function bouncedMessageIds(raw: string): string[] {
  return [...raw.matchAll(/^Message-ID:\s*<([^<>\s]+)>/gim)].map((m) => m[1]!);
}

/** A line that starts the quoted history of a reply, in the five languages and the usual clients. */
const QUOTE_INTRO = [
  /^On\b.*\bwrote:?\s*$/i,
  /^Op\b.*\bschreef\b.*:?\s*$/i,
  /^Le\b.*\ba écrit\s*:?\s*$/i,
  /^Am\b.*\bschrieb\b.*:?\s*$/i,
  /^El\b.*\bescribió\s*:?\s*$/i,
  /^-{2,}\s*(Original Message|Oorspronkelijk bericht|Message d'origine|Ursprüngliche Nachricht|Mensaje original)\s*-{2,}/i,
  /^_{10,}\s*$/,
  /^From:\s.+/i,
];

/**
 * The visitor's own words: everything from the first quoted line, the line that
 * introduces the quoted history ("On … wrote:"), or the signature delimiter "-- " on
 * is cut. An intro that mail clients wrap over two lines is found by joining each line with the next.
 */
export function visitorText(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const joined = `${line.trim()} ${lines[i + 1]?.trim() ?? ''}`.trim();
    if (line.startsWith('>') || line === '-- ' || line === '--' || QUOTE_INTRO.some((rule) => rule.test(line.trim()))) {
      end = i;
      break;
    }
    if (/^(On|Op|Le|Am|El)\b/i.test(line.trim()) && QUOTE_INTRO.slice(0, 5).some((rule) => rule.test(joined))) {
      end = i;
      break;
    }
  }
  return lines.slice(0, end).join('\n').trim();
}

/** The subject of a reply: "Re: " once, before the subject without its own reply prefixes. */
export function replySubject(subject: string): string {
  const bare = subject.replace(/^\s*((re|aw|antw|sv|rv|réf|ref)\s*:\s*)+/i, '').trim();
  return `Re: ${bare || '…'}`;
}

/** The HTML read of an HTML-only mail; a question is never longer, and the rest is not read. */
export const MAX_HTML_CHARS = 256 * 1024;

/**
 * The words of an HTML-only mail: line breaks where blocks end, tags dropped, the
 * usual entities decoded. Every step is linear in the HTML's length (a mail of
 * unclosed `<style` or `<` must not make a pattern scan the rest from each one).
 */
export function textOfHtml(html: string): string {
  return withoutBlocks(html.slice(0, MAX_HTML_CHARS), ['script', 'style'])
    .replace(/<blockquote[\s\S]*$/i, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|h\d)>/gi, '\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The HTML without these elements and their content; one left open runs to the end, as a browser reads it. */
function withoutBlocks(html: string, names: string[]): string {
  const lower = html.toLowerCase();
  // Each name's next opening, searched again only once passed: every search moves forward.
  const next = new Map(names.map((name) => [name, -1]));
  let kept = '';
  let from = 0;
  for (;;) {
    let first: { name: string; at: number } | undefined;
    for (const name of names) {
      let at = next.get(name)!;
      if (at !== Infinity && at < from) {
        const found = lower.indexOf(`<${name}`, from);
        next.set(name, (at = found < 0 ? Infinity : found));
      }
      if (at !== Infinity && (!first || at < first.at)) first = { name, at };
    }
    if (!first) return kept + html.slice(from);
    kept += html.slice(from, first.at);
    const close = lower.indexOf(`</${first.name}`, first.at);
    const end = close < 0 ? -1 : lower.indexOf('>', close);
    if (end < 0) return kept;
    from = end + 1;
  }
}
