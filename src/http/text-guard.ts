import type { FastifySchemaCompiler, RouteOptions } from 'fastify';
import { errors } from '../domain/errors.ts';

/** How an error names each part of a request whose value is itself unstorable text. */
const PART_NAMES: Record<string, string> = { params: 'path', querystring: 'query', body: 'body' };

const NUL_MESSAGE = 'Text may not contain the NUL character (\\u0000).';
const SURROGATE_MESSAGE = 'Text may not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair).';

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

/** Why a text breaks the rule, or undefined when it keeps it. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes('\0')) return NUL_MESSAGE;
  if (!text.isWellFormed()) return SURROGATE_MESSAGE;
  return undefined;
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

/** Every line break a mail program or a log reader may honour. */
const LINE_BREAK = /[\r\n\v\f\u0085\u2028\u2029]/;
export const ONE_LINE_MESSAGE = 'must be one line: no line breaks (CR, LF)';

/**
 * For a zod refinement of single-line fields (names, company, phone, subjects):
 * such a field is written on one line of a plain-text mail or into a mail
 * header, where a line break would forge lines or headers of the writer's
 * choosing. Refused (400 naming the field) rather than mended: what the visitor
 * sees refused is what is stored.
 */
export function isOneLine(text: string): boolean {
  return !LINE_BREAK.test(text);
}

/** The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * A name (a visitor's name or company, a visitor file's name) without
 * bidirectional controls: U+202E shows "invoice\u202Efdp.exe" as "invoiceexe.pdf"
 * to the owner who reads it. Stripped, not refused: the visitor meant the letters.
 */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
