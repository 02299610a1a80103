/**
 * Splits a source's text into passages on its structure: Markdown headings first,
 * then paragraphs, then sentences (then words, for a run-on sentence). A passage is
 * about 300 tokens (~1,200 characters); consecutive passages of one section share
 * about 15% of their text so an answer that straddles a boundary is found whole.
 */
export interface ChunkOptions {
  maxChars?: number;
  overlapChars?: number;
}

export interface Chunk {
  position: number;
  /** The heading path of the section the passage comes from ('' when none). */
  heading: string;
  text: string;
}

interface Section {
  heading: string;
  paragraphs: string[];
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const maxChars = options.maxChars ?? 1200;
  const overlapChars = options.overlapChars ?? Math.round(maxChars * 0.15);
  const chunks: Chunk[] = [];
  for (const section of splitSections(text)) {
    const budget = Math.max(200, maxChars - section.heading.length - 2);
    const units = section.paragraphs.flatMap((paragraph) => splitLong(paragraph, budget));
    for (const body of pack(units, budget, overlapChars)) {
      chunks.push({ position: chunks.length, heading: section.heading, text: section.heading ? `${section.heading}\n\n${body}` : body });
    }
  }
  return chunks;
}

/** Sections by Markdown heading; a heading with no text of its own joins the next one's path. */
function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  const trail: string[] = [];
  let current: Section = { heading: '', paragraphs: [] };
  let paragraph: string[] = [];
  const endParagraph = () => {
    const joined = joinLines(paragraph);
    if (joined) current.paragraphs.push(joined);
    paragraph = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = HEADING.exec(line);
    if (heading) {
      endParagraph();
      if (current.paragraphs.length > 0) sections.push(current);
      const level = heading[1].length;
      trail.length = Math.min(trail.length, level - 1);
      trail[level - 1] = heading[2].trim();
      current = { heading: trail.filter(Boolean).join(' › '), paragraphs: [] };
    } else if (line.trim() === '') endParagraph();
    else paragraph.push(line.trim());
  }
  endParagraph();
  if (current.paragraphs.length > 0) sections.push(current);
  return sections;
}

/**
 * A line shorter than this share of its paragraph's longest line ended where its writer
 * ended it (a price list's "House blend: 21,50 euro per kilo"), not where the page's width
 * wrapped it.
 */
const SHORT_LINE = 0.6;

/**
 * A paragraph's lines as one text: a line that runs to the margin was wrapped and goes on in
 * the next (joined with a space); one that ends a sentence or stops short of the margin ends
 * there (kept as a line break), so that the lines of a list read from a PDF are not glued
 * into one sentence.
 */
function joinLines(lines: string[]): string {
  const clean = lines.map((line) => line.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const longest = Math.max(0, ...clean.map((line) => line.length));
  return clean.reduce((text, line, i) => {
    if (i === 0) return line;
    const before = clean[i - 1];
    const ended = /[.!?:;]["')\]]?$/.test(before) || before.length < SHORT_LINE * longest;
    return `${text}${ended ? '\n' : ' '}${line}`;
  }, '');
}

/** A paragraph longer than the budget, in sentence (or word) pieces that fit. */
function splitLong(paragraph: string, budget: number): string[] {
  if (paragraph.length <= budget) return [paragraph];
  return sentencesOf(paragraph).flatMap((sentence) => (sentence.length <= budget ? [sentence] : splitWords(sentence, budget)));
}

export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

function splitWords(sentence: string, budget: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const word of sentence.split(/\s+/)) {
    if (piece && piece.length + word.length + 1 > budget) {
      pieces.push(piece);
      piece = '';
    }
    // A single "word" longer than the budget (a URL, a hash) is cut where it must be.
    for (let rest = word; rest; rest = rest.slice(budget)) {
      const part = rest.slice(0, budget);
      piece = piece ? `${piece} ${part}` : part;
      if (rest.length > budget) {
        pieces.push(piece);
        piece = '';
      }
    }
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** Greedy packing of units into passages, each new passage opening with the tail of the last. */
function pack(units: string[], budget: number, overlapChars: number): string[] {
  const out: string[] = [];
  let current = '';
  let fresh = false; // whether current holds anything beyond the tail carried over
  for (const unit of units) {
    if (fresh && current.length + 2 + unit.length > budget) {
      out.push(current);
      current = tailOf(current, Math.min(overlapChars, budget - unit.length - 2));
      fresh = false;
    }
    current = current ? `${current}\n\n${unit}` : unit;
    fresh = true;
  }
  if (fresh) out.push(current);
  return out;
}

/** The end of a passage, at most maxChars, starting at a sentence (or else a word) boundary. */
export function tailOf(text: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  if (text.length <= maxChars) return text;
  const window = text.slice(text.length - maxChars);
  const sentenceStart = window.search(/(?<=[.!?…]\s+)\S/u);
  if (sentenceStart >= 0) return window.slice(sentenceStart).trim();
  const wordStart = window.indexOf(' ');
  return wordStart >= 0 ? window.slice(wordStart + 1).trim() : '';
}
