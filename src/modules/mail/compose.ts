/**
 * One content, two parts: every mail the product sends is written as a list of
 * blocks and rendered here as plain text and as HTML, so the two never say
 * different things. Every text that goes into the HTML is escaped here, and only
 * http(s) addresses become links: what a visitor typed can never become markup.
 */
import type { Language } from '../agents/schemas.ts';

export type Block =
  /** A paragraph; its line breaks are kept. With `link`, the address follows the text. */
  | { text: string; link?: string }
  /** Words quoted from someone (a visitor's question), set apart. */
  | { quote: string }
  /** Labelled values, one a line. */
  | { fields: Array<[label: string, value: string]> };

export interface MailContent {
  subject: string;
  blocks: Block[];
}

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

export function compose(language: Language, content: MailContent): ComposedMail {
  // A header is one line: a line break in a name the subject quotes must not start another header.
  const subject = content.subject.replace(/\s+/g, ' ').trim();
  return { subject, text: textOf(content.blocks), html: htmlOf(language, subject, content.blocks) };
}

function oneLine(value: string): string {
  return value.replace(/[\r\n\v\f\u0085\u2028\u2029]+/g, ' ');
}

function textOf(blocks: Block[]): string {
  const parts = blocks.map((block) => {
    if ('quote' in block) return block.quote.split(/\r?\n/).map((line) => `> ${line}`).join('\n');
    // A value is one line of its own: a line break in it would forge the next label.
    if ('fields' in block) return block.fields.map(([label, value]) => `${label}: ${oneLine(value)}`).join('\n');
    return block.link ? `${block.text} ${block.link}` : block.text;
  });
  return `${parts.join('\n\n')}\n`;
}

const FONT = "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";

function htmlOf(language: Language, subject: string, blocks: Block[]): string {
  const body = blocks
    .map((block) => {
      if ('quote' in block) {
        return `<blockquote style="margin:0 0 16px;padding:8px 12px;border-left:3px solid #d0d7de;color:#3d444d;white-space:pre-wrap">${escapeHtml(block.quote)}</blockquote>`;
      }
      if ('fields' in block) {
        const rows = block.fields
          .map(([label, value]) => `<tr><th style="text-align:left;vertical-align:top;padding:2px 16px 2px 0;font-weight:600">${escapeHtml(label)}</th><td style="padding:2px 0;white-space:pre-wrap">${escapeHtml(value)}</td></tr>`)
          .join('');
        return `<table role="presentation" style="border-collapse:collapse;margin:0 0 16px">${rows}</table>`;
      }
      const link = block.link ? ` ${linkHtml(block.link)}` : '';
      return `<p style="margin:0 0 16px;white-space:pre-wrap">${escapeHtml(block.text)}${link}</p>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9">
<div style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff;border-radius:8px;font-family:${FONT};font-size:15px;line-height:1.5;color:#1f2328">
${body}
</div>
</body>
</html>
`;
}

/** An address becomes a link only when it is http or https; anything else is shown as text. */
function linkHtml(address: string): string {
  const shown = escapeHtml(address);
  return /^https?:\/\//i.test(address) ? `<a href="${shown}" style="color:#2563eb">${shown}</a>` : shown;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
