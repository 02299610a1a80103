import { z } from 'zod';
import { errors } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** Query members every paged list accepts. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
  cursor: z.string().max(500).optional(),
};

/** A position in a list ordered by (createdAt, id): stable while new rows arrive. */
export interface Position {
  at: string;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

/**
 * A cursor is checked completely before it reaches SQL: it must hold a time
 * written as encodeCursor writes one, within the years PostgreSQL stores
 * (1 to 9999; JavaScript's dates reach far further), and an id as this service
 * makes them. Anything else is one this service never gave out.
 */
export function decodeCursor(cursor: string | undefined): Position | undefined {
  if (cursor === undefined) return undefined;
  const position = positionIn(cursor);
  if (position) return position;
  throw errors.invalidField('cursor', 'The cursor is not one this service gave out.');
}

/** An ISO 8601 time in UTC, years 0001 to 9999, with up to microseconds. */
const CURSOR_TIME = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;
/**
 * A time a query filters on (from, to): ISO 8601 in UTC, within the years PostgreSQL
 * stores (0001 to 9999), with up to microseconds, and a day and hour that exist;
 * anything else is 400 invalid_request before it reaches SQL.
 */
export const queryTime = z
  .string()
  .max(40)
  .refine((value) => CURSOR_TIME.test(value) && isRealTime(value), 'An ISO 8601 time in UTC, years 0001 to 9999, e.g. 2026-01-31T00:00:00Z.');

/** A day or hour that does not exist (February 30th, 24:00) moves when the date is read back. */
function isRealTime(at: string): boolean {
  const time = new Date(at);
  return !Number.isNaN(time.getTime()) && time.toISOString().slice(0, 19) === at.slice(0, 19);
}

/** A prefix and base62 characters, as platform/ids.ts makes them. */
const CURSOR_ID = /^[a-z]{1,10}_[0-9A-Za-z]{1,64}$/;

function positionIn(cursor: string): Position | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) return undefined;
  const [at, id] = decoded;
  if (typeof at !== 'string' || typeof id !== 'string' || !CURSOR_TIME.test(at) || !CURSOR_ID.test(id) || !isRealTime(at)) return undefined;
  return { at, id };
}

/**
 * Given rows fetched with limit + 1, returns the page and the next cursor.
 * `positionOf` says where a row stands in the ordering.
 */
export function pageOf<T>(rows: T[], limit: number, positionOf: (row: T) => Position): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(positionOf(items[items.length - 1])) };
}
