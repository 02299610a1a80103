import type { FastifySchemaCompiler, RouteOptions } from 'fastify';
import { errors } from './errors.ts';

/** How an error names each part of a request whose value holds U+0000 itself. */
const PART_NAMES: Record<string, string> = { params: 'path', querystring: 'query', body: 'body' };

/**
 * PostgreSQL text cannot hold U+0000: a path, query or body carrying it is
 * refused as 400 instead of failing as a 500 inside a query. The check is the
 * first step of validating each part against its schema, so it costs no hook
 * of its own on every request; a part without a schema is not read by its
 * route, except path parameters, which every route must therefore declare
 * (requireDeclaredParams).
 */
export function rejectingNulCharacters<Schema>(compile: FastifySchemaCompiler<Schema>): FastifySchemaCompiler<Schema> {
  return (route) => {
    const validate = compile(route);
    const part = PART_NAMES[route.httpPart ?? ''];
    if (!part) return validate;
    return (data) => {
      const field = pathToNul(data);
      if (field === undefined) return validate(data);
      return { error: errors.invalidField(field || part, 'Text may not contain the NUL character (\\u0000).') };
    };
  };
}

/** An onRoute hook: a route with path parameters and no schema for them would pass U+0000 on unchecked. */
export function requireDeclaredParams(route: RouteOptions): void {
  if (/[:*]/.test(route.url) && !route.schema?.params) throw new Error(`${route.method} ${route.url} has path parameters without a params schema`);
}

/** The dotted path of the first string or key holding U+0000 ('' for the value itself), walked without recursion. */
function pathToNul(root: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\0')) return path;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (key.includes('\0')) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}
