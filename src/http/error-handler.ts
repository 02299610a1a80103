import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { STATUS_CODES } from '../platform/http-status.ts';
import type { Socket } from 'node:net';
import type { Context } from '../context.ts';
import { newId } from '../platform/ids.ts';
import { authenticateUnrouted } from './auth.ts';
import { ApiError, errors, type ErrorDetail } from '../domain/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error the reply carries, for the hooks that judge a refusal by it (the visitor limits). */
    refusal?: ApiError;
  }
}

export function renderError(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.request.refusal = error;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.status).send({ error: { code: error.code, message: error.message, details: error.details } });
}

/** The one place errors become responses: every failure leaves as the spec's error body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request);
    if (apiError.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    return renderError(reply, apiError);
  });
  app.setNotFoundHandler(notFound);
}

export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return renderError(reply, errors.routeNotFound(request.method, request.url.split('?')[0]));
}

/** Paths of the public API: each of their responses follows the key check and carries the limit headers (spec 8). */
const PUBLIC_API_PATH = /^\/api\/v1(?:[/?]|$)/;

/**
 * Errors the router raises before any hook runs (a malformed %-escape, an
 * over-long path parameter): without this Fastify answers with its own body.
 * On the public API the key is checked and the request counted first, as for
 * any other path: 401 without a usable key, and the limit headers either way.
 */
export function frameworkErrorRenderer(ctx: Context) {
  const authenticateRequest = authenticateUnrouted(ctx);
  return async function renderFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.header('x-request-id', request.id);
    const refusal = refusalOfPath(error);
    if (!refusal) request.log.error({ err: error }, 'framework error');
    try {
      if (PUBLIC_API_PATH.test(request.url)) await authenticateRequest(request, reply);
      renderError(reply, refusal ?? errors.internal());
    } catch (failure) {
      renderError(reply, failure instanceof ApiError ? failure : errors.internal());
    }
  };
}

/**
 * Requests Node's HTTP parser refuses before a request exists (a request line
 * and headers over its 16 KB, broken HTTP, one that never finished arriving):
 * the spec's error body with a request id and the limit headers, counted
 * against the caller's address as no key could be read, instead of Node's or
 * Fastify's own reply.
 */
export function clientErrorRenderer(ctx: Context) {
  return async function renderClientError(error: NodeJS.ErrnoException, socket: Socket): Promise<void> {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    let refusal = clientRefusal(error);
    const headers: Record<string, string> = { 'x-request-id': newId('req') };
    try {
      const limit = await ctx.limiter.hit(`ip:${socket.remoteAddress}`);
      Object.assign(headers, { 'x-ratelimit-limit': limit.limit, 'x-ratelimit-remaining': limit.remaining, 'x-ratelimit-reset': limit.resetSeconds });
      if (!limit.allowed) refusal = errors.rateLimited(limit.resetSeconds);
    } catch {
      // the counter is unreachable: the refusal goes out without the limit headers
    }
    const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message, details: refusal.details } });
    Object.assign(headers, refusal.headers, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    if (socket.writable) socket.write(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${head}\r\n${body}`);
    socket.destroy();
  };
}

function clientRefusal(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return errors.invalidField('headers', 'The address and headers of the request are larger than the 16 KB the service reads.');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.invalid('The request did not arrive in time.');
  return errors.invalid('The request is not readable HTTP.');
}

function refusalOfPath(error: FastifyError): ApiError | undefined {
  if (error.code === 'FST_ERR_BAD_URL') return errors.invalidField('path', 'The address has a malformed %-escape.');
  // Ids are far shorter than the router's limit on a path parameter: nothing can have one this long.
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return errors.notFound();
  return undefined;
}

function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const part = partOfRequest(request, where);
    const details = error.validation.flatMap((entry) => detailsOfIssue(where, entry as unknown as ValidationEntry, part));
    return errors.invalid(`The request ${where} is not valid: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`, details);
  }
  if (isResponseSerializationError(error)) return errors.internal();
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.invalid('Requests with a body are sent with Content-Type: application/json.', [{ field: 'content-type', message: 'must be application/json' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.invalid('The request body is too large.', [{ field: 'body', message: 'too large' }]);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalid('The request body is empty but Content-Type is application/json.', [{ field: 'body', message: 'empty' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalid('The request body is not valid JSON.', [{ field: 'body', message: 'malformed JSON' }]);
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return errors.invalid('The request body is not valid JSON.', [{ field: 'body', message: 'malformed JSON' }]);
  }
  if (error.statusCode === 415) return errors.invalid('Requests with a body are sent with Content-Type: application/json.', [{ field: 'content-type', message: 'must be application/json' }]);
  if (error.statusCode === 413) return errors.invalid('The request body is too large.', [{ field: 'body', message: 'too large' }]);
  if (error.statusCode === 404) return errors.notFound();
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return errors.invalid(error.message);
  return errors.internal();
}

/** One zod issue as fastify-type-provider-zod hands it over: the issue's path as instancePath, its other members as params. */
export interface ValidationEntry {
  keyword: string;
  instancePath: string;
  message?: string;
  params: { keys?: unknown };
}

export function detailsOfIssue(where: string, entry: ValidationEntry, part: unknown): ErrorDetail[] {
  const path = entry.instancePath.split('/').filter(Boolean);
  const base = path.join('.');
  const keys = entry.params?.keys;
  if (entry.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
    return keys.map((key) => ({ field: base ? `${base}.${key}` : String(key), message: 'unknown field' }));
  }
  // zod words a missing value as a wrong one ("expected one of …"): the request itself says which it was.
  const message = isMissing(part, path) ? 'required' : (entry.message ?? 'invalid');
  return [{ field: base || where, message }];
}

/** The request part a validation error is about, as it arrived. */
function partOfRequest(request: FastifyRequest, where: string): unknown {
  if (where === 'body') return request.body;
  if (where === 'querystring') return request.query;
  if (where === 'params') return request.params;
  return undefined;
}

/** Whether the value at path is absent: the part itself, or a member its object does not have. */
function isMissing(part: unknown, path: string[]): boolean {
  if (path.length === 0) return part === undefined || part === null;
  let parent = part;
  for (const segment of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<string, unknown>)[segment];
  }
  return parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !Object.hasOwn(parent, path[path.length - 1]!);
}
