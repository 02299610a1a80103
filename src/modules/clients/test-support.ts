/** Reading what a report mail carries: its attachments, decoded from the raw MIME message. */

export interface ReceivedAttachment {
  contentType: string;
  fileName: string | undefined;
  contentId: string | undefined;
  content: Buffer;
}

export function attachmentsOf(raw: string): ReceivedAttachment[] {
  const found: ReceivedAttachment[] = [];
  walk(raw, found);
  return found;
}

function walk(part: string, found: ReceivedAttachment[]): void {
  const end = part.search(/\r?\n\r?\n/);
  const head = (end === -1 ? part : part.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const body = end === -1 ? '' : part.slice(end).replace(/^\r?\n\r?\n/, '');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1];
  const type = header('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const sections = body.split(new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*(?:\\r?\\n|$)`));
    for (const section of sections.slice(1, -1)) walk(section, found);
    return;
  }
  if (/^text\//i.test(type) && !/attachment/i.test(header('content-disposition') ?? '')) return;
  const fileName = /filename="?([^";]+)"?/i.exec(header('content-disposition') ?? '')?.[1] ?? /name="?([^";]+)"?/i.exec(type)?.[1];
  const contentId = header('content-id')?.replace(/^<|>$/g, '');
  const content = /base64/i.test(header('content-transfer-encoding') ?? '') ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : Buffer.from(body, 'latin1');
  found.push({ contentType: type.split(';')[0]!.trim().toLowerCase(), fileName, contentId, content });
}
