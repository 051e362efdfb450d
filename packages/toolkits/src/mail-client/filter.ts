/** One property condition as an OData `$filter` expression, the way Graph reads it. */

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const FUNCTIONS = new Set(['startsWith', 'endsWith', 'contains']);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function propertyFilter(property: string, operator: string, value: string): { filter: string } | { problem: string } {
  if (property === 'receivedDateTime') {
    if (!COMPARISONS.has(operator)) return { problem: `operator '${operator}' does not apply to receivedDateTime; use eq, ne, gt, ge, lt or le` };
    // OData date-time literals stand unquoted; a bare date means its midnight, UTC.
    const instant = DATE.test(value) ? `${value}T00:00:00Z` : value;
    if (!DATE_TIME.test(instant) || Number.isNaN(Date.parse(instant))) {
      return { problem: `value '${value}' is not an ISO 8601 date (2025-01-31) or date-time with a time zone (2025-01-31T09:00:00Z)` };
    }
    return { filter: `${property} ${operator} ${instant}` };
  }
  const literal = `'${value.replaceAll("'", "''")}'`;
  if (FUNCTIONS.has(operator)) return { filter: `${operator}(${property},${literal})` };
  return { filter: `${property} ${operator} ${literal}` };
}
