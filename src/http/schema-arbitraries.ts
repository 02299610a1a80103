/**
 * For the property tests (property.test.ts): fast-check arbitraries of request
 * values drawn from the JSON schemas of the OpenAPI document, which is
 * generated from the same zod schemas the routes validate with. `valid` draws
 * values the schema accepts (as far as JSON Schema can say: refinements in
 * code are not in it); `mutated` damages one of them the way careless or
 * hostile clients do. Only tests import this (fast-check is a dev dependency).
 */
import fc, { type Arbitrary } from 'fast-check';

export type JsonSchema = Record<string, any>;

/** Generated strings stay short; lengths at and over a schema's maximum come from `boundaryStrings`. */
const MAX_GENERATED_LENGTH = 40;
const MAX_GENERATED_ITEMS = 4;
const MAX_OPTIONAL_MEMBERS = 3;
/** Longer maximums are not written out in full (a 900,000-character text costs time, not coverage). */
const MAX_BOUNDARY_LENGTH = 25_000;

/**
 * Addresses for fields that take one: never a real host, so a run fetches
 * nothing from the internet (private and loopback addresses are refused as
 * unsafe_url; .invalid never resolves).
 */
export const ADDRESSES = [
  'https://127.0.0.1/a.png',
  'http://localhost:8080/',
  'https://[::1]/',
  'https://10.0.0.1/file.pdf',
  'https://169.254.169.254/latest/meta-data/',
  'https://parley-test.invalid/page',
  'https://*.parley-test.invalid',
  'https://*.com',
  'ftp://parley-test.invalid/file.txt',
  'javascript:alert(1)',
  'mailto:someone@parley-test.invalid',
  'tel:+31201234567',
  'https://',
  '//parley-test.invalid',
];

/** Values that have broken services before: wrong types, edges of numbers, text PostgreSQL cannot store, paths, injections. */
export const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53,
  '',
  ' ',
  '\u0000',
  'x\u0000y',
  'x\udfffy',
  '\ud800',
  '\udc00\ud800',
  '😀',
  '\u202e\u200b',
  'a'.repeat(10_001),
  [],
  {},
  [[[[[]]]]],
  { a: { b: { c: { d: {} } } } },
  '../../etc/passwd',
  "'; drop table agents; --",
  '<script>alert(1)</script>',
  '%ZZ',
  '0000-01-01T00:00:00.000Z',
  '+275760-09-13T00:00:00.000Z',
  ...ADDRESSES.slice(0, 3),
];

export const oddValue: Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...ODD_VALUES), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
);

/** Resolves `$ref`s of an OpenAPI document (`#/components/schemas/…`) and of a schema's own `$defs`. */
export function resolverOf(document: JsonSchema): (schema: JsonSchema) => JsonSchema {
  const resolve = (schema: JsonSchema): JsonSchema => {
    let current = schema;
    for (let hops = 0; typeof current?.$ref === 'string' && hops < 20; hops++) {
      const target = current.$ref.replace(/^#\//, '').split('/').reduce((node: any, key: string) => node?.[decodeURIComponent(key)], document);
      if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
      current = target;
    }
    return current;
  };
  return resolve;
}

/** Values the schema accepts. */
export function valid(schema: JsonSchema, resolve: (schema: JsonSchema) => JsonSchema, name = '', depth = 0): Arbitrary<unknown> {
  const s = resolve(schema ?? {});
  if (depth > 8) return fc.constant(null);
  const inner = (child: JsonSchema, childName = name) => valid(child, resolve, childName, depth + 1);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((alternative: JsonSchema) => inner(alternative)));
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return inner(s.allOf[0]);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type: string) => inner({ ...s, type })));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerIn(s);
    case 'number':
      return numberIn(s);
    case 'string':
      return stringOf(s, name);
    case 'array':
      return arrayOf(s, inner);
    case 'object':
      return objectOf(s, inner);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * A valid value damaged once: a member dropped (a required one, if any), an
 * unknown member added, or one value anywhere in it replaced by an odd one.
 */
export function mutated(validValue: Arbitrary<unknown>): Arbitrary<unknown> {
  return fc
    .tuple(validValue, fc.nat(), fc.constantFrom('replace', 'drop', 'add'), oddValue, fc.string({ minLength: 1, maxLength: 12 }))
    .map(([value, pick, how, odd, unknownKey]) => damage(value, pick, how, odd, unknownKey));
}

function damage(value: unknown, pick: number, how: string, odd: unknown, unknownKey: string): unknown {
  const copy = structuredClone(value);
  const places = placesIn(copy);
  const place = places[pick % places.length]!;
  if (place.parent === undefined) return how === 'add' && isObject(copy) ? { ...copy, [unknownKey]: odd } : odd;
  const { parent, key } = place;
  if (how === 'drop') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete (parent as Record<string, unknown>)[key];
  } else if (how === 'add' && isObject(parent)) {
    (parent as Record<string, unknown>)[unknownKey] = odd;
  } else {
    (parent as Record<string, unknown>)[key] = odd;
  }
  return copy;
}

interface Place {
  parent: object | undefined;
  key: string;
}

/** Every value in a JSON value, with the container holding it: the root first. */
function placesIn(root: unknown): Place[] {
  const places: Place[] = [{ parent: undefined, key: '' }];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      places.push({ parent: node, key });
      walk(child);
    }
  };
  walk(root);
  return places;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function integerIn(s: JsonSchema): Arbitrary<number> {
  const min = Math.ceil(lowerBound(s) ?? Number.MIN_SAFE_INTEGER);
  const max = Math.floor(upperBound(s) ?? Number.MAX_SAFE_INTEGER);
  const edges = [min, max].filter((edge) => Number.isSafeInteger(edge));
  const within = min >= -(2 ** 31) && max <= 2 ** 31 - 1 ? fc.integer({ min, max }) : fc.maxSafeInteger().map((n) => Math.min(max, Math.max(min, n)));
  return edges.length > 0 ? fc.oneof({ arbitrary: within, weight: 3 }, { arbitrary: fc.constantFrom(...edges), weight: 1 }) : within;
}

function numberIn(s: JsonSchema): Arbitrary<number> {
  const min = lowerBound(s) ?? -1e9;
  const max = upperBound(s) ?? 1e9;
  const within = fc.double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: 'exclusiveMinimum' in s, maxExcluded: 'exclusiveMaximum' in s });
  return fc.oneof({ arbitrary: within, weight: 3 }, { arbitrary: fc.constantFrom(min, max), weight: 1 });
}

function lowerBound(s: JsonSchema): number | undefined {
  return typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : s.minimum;
}

function upperBound(s: JsonSchema): number | undefined {
  return typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : s.maximum;
}

function stringOf(s: JsonSchema, name: string): Arbitrary<string> {
  const minLength: number = s.minLength ?? 0;
  const maxLength: number = s.maxLength ?? 10_000;
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  if (s.format === 'email') return fc.emailAddress().filter(fits);
  if (s.format === 'date-time') return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'date') return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (typeof s.pattern === 'string') {
    const matching = patternMatching(s.pattern, fits);
    if (matching) return matching;
  }
  const generated = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', minLength, maxLength: Math.max(minLength, Math.min(maxLength, MAX_GENERATED_LENGTH)) }),
    fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, Math.min(maxLength, MAX_GENERATED_LENGTH)) }),
  ).filter(fits);
  const choices = [{ arbitrary: generated, weight: 6 }, { arbitrary: boundaryStrings(minLength, maxLength), weight: 1 }];
  if (/url|website|origin|address/i.test(name)) choices.push({ arbitrary: fc.constantFrom(...ADDRESSES).filter(fits), weight: 6 });
  return fc.oneof(...choices);
}

function patternMatching(pattern: string, fits: (text: string) => boolean): Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter(fits);
  } catch {
    return undefined; // a pattern fast-check cannot generate from: plain strings instead
  }
}

/** Text exactly at the limits, and the longest made of characters outside the Basic Multilingual Plane (two UTF-16 units each). */
function boundaryStrings(minLength: number, maxLength: number): Arbitrary<string> {
  const longest = Math.min(maxLength, MAX_BOUNDARY_LENGTH);
  const texts = ['x'.repeat(minLength), 'x'.repeat(longest)];
  if (2 * Math.floor(longest / 2) >= minLength) texts.push('😀'.repeat(Math.floor(longest / 2)));
  return fc.constantFrom(...texts);
}

function arrayOf(s: JsonSchema, inner: (child: JsonSchema) => Arbitrary<unknown>): Arbitrary<unknown[]> {
  if (Array.isArray(s.prefixItems)) return fc.tuple(...s.prefixItems.map((item: JsonSchema) => inner(item)));
  const minLength: number = s.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS));
  return fc.array(inner(s.items ?? {}), { minLength, maxLength });
}

function objectOf(s: JsonSchema, inner: (child: JsonSchema, name?: string) => Arbitrary<unknown>): Arbitrary<unknown> {
  const properties: Record<string, JsonSchema> = s.properties ?? {};
  const required = new Set<string>(s.required ?? []);
  if (Object.keys(properties).length === 0 && s.additionalProperties && typeof s.additionalProperties === 'object') {
    const names: string[] | undefined = s.propertyNames?.enum;
    const key = names ? fc.constantFrom(...names) : fc.string({ minLength: 1, maxLength: 12 });
    return fc.dictionary(key, inner(s.additionalProperties), { maxKeys: MAX_GENERATED_ITEMS });
  }
  const model = Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, inner(child, key)]));
  const optional = Object.keys(model).filter((key) => !required.has(key));
  // A few optional members at a time: a value carrying all of them would nearly always break some rule
  // the schema cannot express, and the request would never get past it.
  return fc
    .shuffledSubarray(optional, { maxLength: Math.min(optional.length, MAX_OPTIONAL_MEMBERS) })
    .chain((chosen) => fc.record(Object.fromEntries([...required, ...chosen].filter((key) => key in model).map((key) => [key, model[key]!]))));
}
