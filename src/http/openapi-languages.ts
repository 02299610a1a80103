/**
 * The OpenAPI document in another language (docs/api-conventions.md, "OpenAPI in
 * Dutch"): the English document, generated from the zod schemas, with its
 * summaries, descriptions, titles and tag names replaced from a catalogue
 * (src/http/openapi.nl.ts). Nothing else changes: the same paths, schemas,
 * parameters and examples, so the two references can never describe two APIs.
 */
import { dutch } from './openapi.nl.ts';

export interface OpenApiCatalogue {
  /** English tag name → the name in this language. */
  tags: Record<string, string>;
  /** "METHOD /path" (the path as the document has it) → the operation's summary and description. */
  operations: Record<string, { summary?: string; description?: string }>;
  /** Every other description or title (fields, parameters, responses, info), by its English text. */
  texts: Record<string, string>;
}

/** A text the catalogue lacks: where it is in the English document and what it says. */
export interface MissingText {
  at: string;
  english: string;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Keywords whose values are data, not prose: an example of a field named description stays as it is. */
const LITERALS = new Set(['example', 'examples', 'default', 'enum', 'const']);
/** Keywords whose keys are names (of properties, schemas), never keywords themselves. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'schemas']);
const PROSE = new Set(['summary', 'description', 'title']);

type Holder = Record<string, unknown>;
/** One prose string of the document: its holder and key, and the operation ("GET /agents") when it is an operation's own. */
type Visit = (holder: Holder, key: string, pointer: string, operation: string | undefined) => void;

function visitProse(node: unknown, visit: Visit, trail: string[] = [], names = false): void {
  if (Array.isArray(node)) return node.forEach((child, index) => visitProse(child, visit, [...trail, String(index)]));
  if (!node || typeof node !== 'object') return;
  const holder = node as Holder;
  const operation = trail.length === 3 && trail[0] === 'paths' && METHODS.has(trail[2]!) ? `${trail[2]!.toUpperCase()} ${trail[1]}` : undefined;
  for (const [key, value] of Object.entries(holder)) {
    if (!names && LITERALS.has(key)) continue;
    const here = [...trail, key];
    if (!names && PROSE.has(key) && typeof value === 'string') {
      visit(holder, key, `#/${here.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`, operation && key !== 'title' ? operation : undefined);
    } else {
      visitProse(value, visit, here, !names && NAME_MAPS.has(key));
    }
  }
}

function operationTags(document: Holder): string[][] {
  const lists: string[][] = [];
  for (const item of Object.values((document.paths ?? {}) as Record<string, Holder>)) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const tags = (operation as Holder | undefined)?.tags;
      if (METHODS.has(method) && Array.isArray(tags)) lists.push(tags as string[]);
    }
  }
  return lists;
}

/** The document in the catalogue's language; a text the catalogue lacks stays in English (the test names it). */
export function translateDocument<T extends object>(english: T, catalogue: OpenApiCatalogue): T {
  const document = structuredClone(english) as Holder;
  visitProse(document, (holder, key, _pointer, operation) => {
    const text = holder[key] as string;
    const translated = operation === undefined ? catalogue.texts[text] : catalogue.operations[operation]?.[key as 'summary' | 'description'];
    if (translated !== undefined) holder[key] = translated;
  });
  for (const tags of operationTags(document)) tags.forEach((tag, index) => (tags[index] = catalogue.tags[tag] ?? tag));
  for (const tag of (document.tags ?? []) as Holder[]) tag.name = catalogue.tags[tag.name as string] ?? tag.name;
  return document as T;
}

/** Every summary, description, title and tag of the English document the catalogue has no translation for. */
export function untranslated(english: object, catalogue: OpenApiCatalogue): MissingText[] {
  const missing: MissingText[] = [];
  visitProse(english, (holder, key, pointer, operation) => {
    const text = holder[key] as string;
    const found = operation === undefined ? catalogue.texts[text] : catalogue.operations[operation]?.[key as 'summary' | 'description'];
    if (found === undefined) missing.push({ at: operation === undefined ? pointer : `${operation} ${key}`, english: text });
  });
  const tags = new Set([...operationTags(english as Holder).flat(), ...((english as Holder).tags as Holder[] | undefined ?? []).map((tag) => tag.name as string)]);
  for (const tag of tags) if (catalogue.tags[tag] === undefined) missing.push({ at: `tag ${tag}`, english: tag });
  return missing;
}

const translated = new WeakMap<object, object>();

/** The Dutch document of an English one, made once per English document (Fastify's swagger keeps its own). */
export function inDutch<T extends object>(english: T): T {
  let document = translated.get(english);
  if (!document) translated.set(english, (document = translateDocument(english, dutch)));
  return document as T;
}
