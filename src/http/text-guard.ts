import type { FastifySchemaCompiler, RouteOptions } from 'fastify';
import { errors } from '../domain/errors.ts';
import { unstorableTextReason } from '../domain/text.ts';

/** How an error names each part of a request whose value is itself unstorable text. */
const PART_NAMES: Record<string, string> = { params: 'path', querystring: 'query', body: 'body' };


/**
 * One rule for every text the API accepts, in path, query and body alike:
 * it is well-formed Unicode without U+0000. PostgreSQL text cannot hold NUL,
 * and a lone surrogate (which JSON.parse makes of an escape such as "\udfff")
 * either breaks PostgreSQL's json parser or is silently stored as U+FFFD.
 * Such a part is refused as 400 naming the field. The check is the first step
 * of validating each part against its schema, so it costs no hook of its own
 * on every request; a part without a schema is not read by its route, except
 * path parameters, which every route must therefore declare
 * (requireDeclaredParams).
 */
export function rejectingUnstorableText<Schema>(compile: FastifySchemaCompiler<Schema>): FastifySchemaCompiler<Schema> {
  return (route) => {
    const validate = compile(route);
    const part = PART_NAMES[route.httpPart ?? ''];
    if (!part) return validate;
    return (data) => {
      const found = firstUnstorableText(data);
      if (found === undefined) return validate(data);
      return { error: errors.invalidField(found.path || part, found.message) };
    };
  };
}

/** An onRoute hook: a route with path parameters and no schema for them would pass unstorable text on unchecked. */
export function requireDeclaredParams(route: RouteOptions): void {
  if (/[:*]/.test(route.url) && !route.schema?.params) throw new Error(`${route.method} ${route.url} has path parameters without a params schema`);
}

/** The dotted path ('' for the value itself) of the first string or key breaking the rule, walked without recursion. */
function firstUnstorableText(root: unknown): { path: string; message: string } | undefined {
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const message = unstorableTextReason(value);
      if (message) return { path, message };
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        const message = unstorableTextReason(key);
        if (message) return { path: childPath, message };
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}
