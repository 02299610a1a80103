import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { errors } from './errors.ts';

/**
 * PostgreSQL text cannot hold U+0000: a path, query or body carrying it is
 * refused here as 400 instead of failing as a 500 inside a query.
 */
export function rejectNulCharacters(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // Path and query come from the URL, where U+0000 can only be written as %00: most requests skip the walk.
  const parts: Array<[string, unknown]> = request.url.includes('%00') ? [['path', request.params], ['query', request.query]] : [];
  if (request.body !== undefined) parts.push(['body', request.body]);
  for (const [where, value] of parts) {
    const field = pathToNul(value);
    if (field !== undefined) return done(errors.invalidField(field || where, 'Text may not contain the NUL character (\\u0000).'));
  }
  done();
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
