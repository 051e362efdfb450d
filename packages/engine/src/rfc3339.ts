/**
 * RFC 3339 date-times, as `run_at` takes them: read by the scheduler, the HTTP API and `quiver mcp`'s tasks.
 * A module of its own so that a stdio server reads `run_at` without loading the scheduler's store (kysely).
 */

/** RFC 3339's date-time: a full date, a full time and an offset (`Z` or `±hh:mm`), nothing left to guess. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * The instant, as ISO 8601 in UTC, of an RFC 3339 date-time; undefined for anything else (a time without
 * an offset, a zone name, a bare number, an impossible date such as February 30th).
 */
export function rfc3339(text: string): string | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = match[9] === undefined || (Number(match[9]) < 24 && Number(match[10]) < 60);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60 || !offsetOk) return undefined;
  const time = Date.parse(text.replace(/^(.{10})t/, '$1T').replace(/z$/, 'Z'));
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** ISO 8601 in UTC of an RFC 3339 date-time; a RangeError for anything else. */
export function normaliseTime(text: string): string {
  const time = rfc3339(text);
  if (time === undefined) throw new RangeError(`not an RFC 3339 date-time with an offset: ${text}`);
  return time;
}
