import type { FastifyRequest } from 'fastify';

/** The header a visitor sends their conversation's token in, and a new stream's token arrives in. */
export const VISITOR_TOKEN_HEADER = 'x-visitor-token';

/** The x-visitor-token header as sent (undefined when absent, or given more than once). */
export function visitorTokenOf(request: FastifyRequest): string | undefined {
  const value = request.headers[VISITOR_TOKEN_HEADER];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
