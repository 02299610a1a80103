import { createRequire } from 'node:module';
import type fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { z } from 'zod';
import { removeClosedObjects } from './openapi.ts';

type SerializerCompiler = FastifySerializerCompiler<z.ZodType>;

/**
 * Responses are written by a serializer compiled from each response schema
 * (fast-json-stringify, Fastify's own): it writes only the fields the schema
 * declares, so a field a handler adds by mistake never leaves the service. It
 * does not check types, which is most of what it saves.
 *
 * zod closes every object (additionalProperties: false). fast-json-stringify
 * leaves out undeclared fields of an open object just the same, but it picks
 * the branch of a union by validating against it, and a closed object with an
 * extra field would match no branch: so the objects are opened first.
 */
export const compiledSerializer: SerializerCompiler = ({ schema }) => {
  const jsonSchema = z.toJSONSchema(schema, { io: 'output', target: 'draft-7' });
  removeClosedObjects(jsonSchema);
  const fastJson = fastJsonAtFirstUse();
  return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
};

let fastJson: typeof fastJsonStringify | undefined;

/**
 * fast-json-stringify (and the Ajv it requires for its unions, with Ajv's formats and fast-uri) is loaded by the
 * first serializer compiled, that is by the first response: an idle process holds none of it (docs/performance.md,
 * Memory). It is CommonJS, so it is required, which keeps the compiler synchronous as Fastify calls it.
 */
function fastJsonAtFirstUse(): typeof fastJsonStringify {
  return (fastJson ??= createRequire(import.meta.url)('fast-json-stringify') as typeof fastJsonStringify);
}

/**
 * For tests: every response is parsed with its zod schema first (a response
 * that breaks its contract fails the request), and the compiled serializer
 * must write exactly what zod's output would be.
 *
 * Each route's serializer is compiled by its first response, as in production (src/app.ts): compiling all of them
 * (about a thousand) took 2 to 4 s of CPU at every test service's start, most of it for routes the test file never
 * calls. A schema that cannot be compiled still fails a test: compileEverySerializer, called by openapi.test.ts.
 */
export const checkingSerializer: SerializerCompiler = (route) => {
  let compiled: ((data: unknown) => string) | undefined;
  const compile = () => {
    uncompiled.delete(compile);
    return (compiled ??= compiledSerializer(route));
  };
  uncompiled.set(compile, `${route.method} ${route.url} ${route.httpStatus}`);
  return (data) => {
    const checked = z.safeEncode(route.schema, data);
    if (!checked.success) throw new Error(`The ${route.method} ${route.url} response breaks its schema: ${z.prettifyError(checked.error)}`);
    const written = compile()(data);
    const expected = JSON.stringify(checked.data);
    if (written !== expected) throw new Error(`The compiled serializer of ${route.method} ${route.url} wrote ${written}, zod ${expected}`);
    return written;
  };
};

/** The checking serializers not compiled yet (no response written), with the route each is for. */
const uncompiled = new Map<() => unknown, string>();

/** For tests: compiles every checking serializer not compiled yet, failing with the route whose schema does not compile; returns how many. */
export function compileEverySerializer(): number {
  const pending = [...uncompiled];
  for (const [compile, route] of pending) {
    try {
      compile();
    } catch (error) {
      throw new Error(`The response serializer of ${route} does not compile: ${(error as Error).message}`, { cause: error });
    }
  }
  return pending.length;
}
