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
  return document;
}

/** Drops every `additionalProperties: false` in a JSON schema, in place. */
export function removeClosedObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(removeClosedObjects);
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  if (object.additionalProperties === false) delete object.additionalProperties;
  Object.values(object).forEach(removeClosedObjects);
}
