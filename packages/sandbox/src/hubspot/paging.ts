/**
 * Cursor paging as HubSpot answers it: `limit` items, and `paging.next.after` when more remain.
 * The cursor is the offset of the next item; clients only hand it back, they never read it.
 */
import type { HubspotRequest } from './context.js';
import { integer, invalid, text } from './query.js';

export interface Page<T> {
  results: T[];
  paging?: { next: { after: string } };
}

export function page<T>(items: T[], query: HubspotRequest['query'], defaultLimit: number, maxLimit = 100): Page<T> {
  const limit = integer(query, 'limit') ?? defaultLimit;
  if (limit < 1 || limit > maxLimit) throw invalid('limit', `must be between 1 and ${maxLimit}`);
  const after = text(query, 'after');
  if (after !== undefined && !/^\d+$/.test(after)) throw invalid('after', 'is not a cursor this API returned');
  const offset = after === undefined ? 0 : Number(after);
  const results = items.slice(offset, offset + limit);
  const next = offset + limit;
  return next < items.length ? { results, paging: { next: { after: String(next) } } } : { results };
}
