/**
 * A PDF page's text as pdf.js gives its items, read the same way by the knowledge sources' reader
 * (knowledge/read-file.worker.ts) and the visitors' files' reader (visitor-files/read.worker.ts).
 */

/** A gap between two lines' baselines this many times the page's usual one ends a paragraph (a title's space below it). */
const PARAGRAPH_GAP = 1.5;

interface TextItem {
  str: string;
  hasEOL: boolean;
  transform: number[];
}

/**
 * A page's text, one of its lines a line: where the space between two lines is clearly more
 * than between most lines of the page (PARAGRAPH_GAP), a blank line, as a paragraph break
 * is written in a text file. The lines of a title or a heading set apart from the text
 * below it are then a paragraph of their own (knowledge/chunk.ts), not the first sentence
 * of the paragraph under it.
 */
export function pdfPageText(content: object[]): string {
  const items = content.filter((item): item is TextItem => 'str' in item);
  const lines: Array<{ text: string; baseline: number | undefined }> = [];
  let line = { text: '', baseline: undefined as number | undefined };
  for (const item of items) {
    // The baseline of the line's first item that holds text (an empty item ending a line may stand where the next begins).
    if (line.baseline === undefined && item.str.trim()) line.baseline = item.transform[5];
    line.text += item.str;
    if (!item.hasEOL) continue;
    lines.push(line);
    line = { text: '', baseline: undefined };
  }
  lines.push(line);
  const gaps = lines.slice(1).map((next, i) => gapBetween(lines[i].baseline, next.baseline));
  const usual = median(gaps.filter((gap): gap is number => gap !== undefined));
  return lines
    .map((current, i) => {
      const gap = i > 0 ? gaps[i - 1] : undefined;
      const apart = usual !== undefined && gap !== undefined && gap > PARAGRAPH_GAP * usual;
      return `${apart ? '\n' : ''}${current.text}`;
    })
    .join('\n')
    .trim();
}

/** How far a line's baseline is below the one before it; undefined when either has no text or the next is not below (a new column). */
function gapBetween(above: number | undefined, below: number | undefined): number | undefined {
  if (above === undefined || below === undefined || below >= above) return undefined;
  return above - below;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
