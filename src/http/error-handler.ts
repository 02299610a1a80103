import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ApiError, errors, type ErrorDetail } from './errors.ts';

export function renderError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.status).send({ error: { code: error.code, message: error.message, details: error.details } });
}

/** The one place errors become responses: every failure leaves as the spec's error body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    return renderError(reply, apiError);
  });
  app.setNotFoundHandler(notFound);
}

export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return renderError(reply, errors.routeNotFound(request.method, request.url.split('?')[0]));
}

/**
 * Errors the router raises before any hook runs (a malformed %-escape, an
 * over-long path parameter): without this Fastify answers with its own body.
 */
export function renderFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') return renderError(reply, errors.invalidField('path', 'The address has a malformed %-escape.'));
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return renderError(reply, errors.notFound());
  request.log.error({ err: error }, 'framework error');
  return renderError(reply, errors.internal());
}

function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const details = error.validation.flatMap((entry) => detailsOfIssue(where, entry as unknown as ValidationEntry));
    return errors.invalid(`The request ${where} is not valid: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, details);
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
interface ValidationEntry {
  keyword: string;
  instancePath: string;
  message?: string;
  params: { keys?: unknown };
}

function detailsOfIssue(where: string, entry: ValidationEntry): ErrorDetail[] {
  const base = entry.instancePath.split('/').filter(Boolean).join('.');
  const keys = entry.params?.keys;
  if (entry.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
    return keys.map((key) => ({ field: base ? `${base}.${key}` : String(key), message: 'unknown field' }));
  }
  return [{ field: base || where, message: entry.message ?? 'invalid' }];
}
