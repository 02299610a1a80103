/**
 * Spec 9.3: responses may gain fields within /api/v1 and clients must ignore
 * the ones they do not know, while requests stay strict. zod describes every
 * object it outputs as closed (additionalProperties: false); a client generated
 * from that would reject the next added field, so response schemas are opened
 * here. Request bodies keep theirs.
 */
export function openResponseSchemas<T extends Record<string, any>>(document: T): T {
  for (const [name, schema] of Object.entries<unknown>(document.components?.schemas ?? {})) {
    if (!name.endsWith('Input')) removeClosedObjects(schema);
  }
  for (const item of Object.values<any>(document.paths ?? {})) {
    for (const operation of Object.values<any>(item)) {
      if (operation && typeof operation === 'object' && operation.responses) removeClosedObjects(operation.responses);
    }
  }
  withoutSafeIntegerBounds(document);
  withNumberExamples(document);
  return document;
}

/**
 * zod bounds every int() with ±Number.MAX_SAFE_INTEGER. In a document those
 * bounds say nothing a JSON integer does not, and readers of the document
 * take them for meaning: API renderers show -9007199254740991 as the example
 * of a count, MCP clients warn about them. They are dropped, in place.
 */
export function withoutSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(withoutSafeIntegerBounds);
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  if (object.minimum === Number.MIN_SAFE_INTEGER) delete object.minimum;
  if (object.maximum === Number.MAX_SAFE_INTEGER) delete object.maximum;
  Object.values(object).forEach(withoutSafeIntegerBounds);
}

/**
 * Every number in the document gets an example the API accepts (spec 9.3's
 * reference at /docs): 0, or the bound nearest to it. Without one a renderer
 * makes its own from the bounds, which need not be a value anyone sends.
 */
function withNumberExamples(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(withNumberExamples);
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  const numeric = object.type === 'integer' || object.type === 'number';
  if (numeric && !('examples' in object || 'example' in object || 'const' in object || 'enum' in object)) {
    object.examples = [numberExample(object)];
  }
  Object.values(object).forEach(withNumberExamples);
}

function numberExample(schema: Record<string, unknown>): number {
  const step = schema.type === 'integer' ? 1 : 0.5;
  const low = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + step : -Infinity;
  const high = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - step : Infinity;
  const near = Math.min(Math.max(0, low), high);
  return schema.type === 'integer' ? Math.ceil(near) : near;
}

/** Drops every `additionalProperties: false` in a JSON schema, in place. */
export function removeClosedObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(removeClosedObjects);
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  if (object.additionalProperties === false) delete object.additionalProperties;
  Object.values(object).forEach(removeClosedObjects);
}
