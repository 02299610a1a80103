import { z } from 'zod';
import { ERROR_CODES } from '../domain/errors.ts';

/** The three response shapes of spec 4.1. */
export function single<T extends z.ZodType>(data: T) {
  return z.object({ data });
}

export function list<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: z.object({ nextCursor: z.string().nullable() }) });
}

export const errorBody = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.array(z.object({ field: z.string(), message: z.string() })),
    }),
  })
  .meta({ id: 'Error' });

/** Error replies every authenticated route may give, for the OpenAPI document. */
export const commonErrors = {
  400: errorBody,
  401: errorBody,
  402: errorBody,
  403: errorBody,
  404: errorBody,
  429: errorBody,
};

export const timestamp = z.iso.datetime().describe('ISO 8601 time in UTC');
