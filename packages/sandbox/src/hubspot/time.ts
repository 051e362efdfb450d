import { badRequest } from './context.js';

export const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/** The same instant `months` calendar months later, in UTC (Jan 31 + 1 month rolls into March). */
export function addMonths(epochMs: number, months: number): number {
  const date = new Date(epochMs);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.getTime();
}

/** A query date (`2024-05-01` or a full ISO date-time) as epoch milliseconds. */
export function parseDate(value: string, name: string): number {
  const epochMs = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  if (Number.isNaN(epochMs))
    throw badRequest(`${name} must be a date such as 2024-05-01`, [{ message: `${name} is not a date`, in: 'query', code: 'INVALID_FORMAT' }]);
  return epochMs;
}
