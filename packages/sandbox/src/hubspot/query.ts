/**
 * Reading query parameters the HTTP layer has already checked against the operation. Values stay
 * text on the way in (see HubspotRequest), so these turn them into what the handler needs.
 */
import { badRequest } from './context.js';
import type { HubspotRequest } from './context.js';
import { parseDate } from './time.js';

type Query = HubspotRequest['query'];

export function text(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** An array parameter, sent as repeated keys (`properties=a&properties=b`). */
export function texts(query: Query, name: string): string[] | undefined {
  const value = query[name];
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

export function integer(query: Query, name: string): number | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw invalid(name, 'must be an integer');
  return Number(value);
}

export function boolean(query: Query, name: string): boolean | undefined {
  const value = text(query, name);
  return value === undefined ? undefined : value === 'true';
}

/** The startDate/endDate window of a report; open on either side when not given. */
export function dateWindow(query: Query): { from: number; to: number } {
  const start = text(query, 'startDate');
  const end = text(query, 'endDate');
  const from = start === undefined ? -Infinity : parseDate(start, 'startDate');
  // A bare end date includes that whole day.
  const to = end === undefined ? Infinity : parseDate(end, 'endDate') + (/^\d{4}-\d{2}-\d{2}$/.test(end) ? 86_400_000 - 1 : 0);
  if (from > to) throw invalid('startDate', 'must not be after endDate');
  return { from, to };
}

export function invalid(name: string, problem: string) {
  return badRequest(`${name} ${problem}`, [{ message: `${name} ${problem}`, in: 'query', code: 'INVALID_VALUE' }]);
}
