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

export function decodeCursor(cursor: string | undefined): Position | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof at === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(at))) return { at, id };
  } catch {
    // falls through to the error below
  }
  throw errors.invalidField('cursor', 'The cursor is not one this service gave out.');
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
