/**
 * Runs in the bounded reader process (read-file.ts): turns a stored file's bytes into
 * text. A PDF of more pages than a source may have is refused (file_too_complex).
 */
import { FileTooComplexError } from '../../platform/inflate-guard.ts';
import { pdfPageText } from '../../platform/pdf-text.ts';

/** Pages of a PDF source, at most (docs/knowledge.md). */
export const MAX_SOURCE_PAGES = 2_000;

interface Input {
  kind: 'pdf' | 'docx' | 'markdown' | 'text';
  bytes: Uint8Array;
}

export async function read({ kind, bytes }: Input): Promise<string> {
  if (kind === 'pdf') return readPdf(bytes);
  if (kind === 'docx') {
    const mammoth = (await import('mammoth')).default;
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
    return value;
  }
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

async function readPdf(bytes: Uint8Array): Promise<string> {
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    if (pdf.numPages > MAX_SOURCE_PAGES) throw new FileTooComplexError(`the PDF has ${pdf.numPages} pages, more than ${MAX_SOURCE_PAGES}`);
    const pages: string[] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      pages.push(pdfPageText(content.items));
      page.cleanup();
    }
    return pages.filter(Boolean).join('\n\n');
  } finally {
    await pdf.destroy();
  }
}
