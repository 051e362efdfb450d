/**
 * Cursor paging as Pylon answers it: `pagination: { cursor, has_next_page }`. The cursor holds the sort
 * key of the last item sent (keyset paging), so records created meanwhile neither repeat nor skip
 * items; clients only hand it back, they never read it.
 */
import { badRequest, type PylonRequest } from './context.js';

export interface Page<T> {
  data: T[];
  pagination: { cursor: string; has_next_page: boolean };
}

export type SortKey = number[];

/** The sort key after which the page starts, or undefined for the first page. */
export function cursorKey(query: PylonRequest['query'], width: number): SortKey | undefined {
  const cursor = one(query.cursor);
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(key) && key.length === width && key.every((part) => Number.isInteger(part))) return key as SortKey;
  } catch {
    // Falls through to the refusal below.
  }
  throw badRequest('cursor is not a cursor this API returned');
}

export function pageSize(query: PylonRequest['query'], fallback: number): number {
  const limit = one(query.limit);
  return limit === undefined ? fallback : Number(limit);
}

/** `rows` holds up to `limit + 1` rows in order; the extra one only says that another page exists. */
export function page<Row, T>(rows: Row[], limit: number, keyOf: (row: Row) => SortKey, render: (row: Row) => T): Page<T> {
  const items = rows.slice(0, limit);
  const more = rows.length > limit && items.length > 0;
  return {
    data: items.map(render),
    pagination: { cursor: more ? Buffer.from(JSON.stringify(keyOf(items.at(-1)!))).toString('base64url') : '', has_next_page: more },
  };
}

export const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
