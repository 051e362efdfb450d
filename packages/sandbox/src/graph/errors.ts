/** Graph's error body: `{ error: { code, message, innerError: { date, request-id, client-request-id } } }`. */
import { randomUUID } from 'node:crypto';
import { retryAfterSeconds, type RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { GraphError } from './context.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BadRequest',
  401: 'InvalidAuthenticationToken',
  404: 'ResourceNotFound',
  405: 'MethodNotAllowed',
  415: 'UnsupportedMediaType',
};

export function renderGraphError(error: unknown, now: () => number): EmulatorResponse {
  if (error instanceof GraphError) return errorResponse(error.status, error.code, error.message, now);
  if (error instanceof EmulatorError) return errorResponse(error.status, CODE_BY_STATUS[error.status] ?? 'BadRequest', error.message, now);
  // Anything else is a fault in the emulator itself; say so plainly rather than pass it off as Graph's.
  return errorResponse(500, 'EmulatorFault', error instanceof Error ? error.message : String(error), now);
}

function errorResponse(status: number, code: string, message: string, now: () => number): EmulatorResponse {
  const id = randomUUID();
  return { status, body: { error: { code, message, innerError: { date: new Date(now()).toISOString(), 'request-id': id, 'client-request-id': id } } } };
}

/**
 * Graph throttles Outlook calls per app and mailbox (10,000 requests in 10 minutes) and says so only when
 * it does: 429 TooManyRequests with Retry-After in seconds.
 */
export const graphRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 600_000 },
  refusal: (window) => ({
    ...errorResponse(429, 'TooManyRequests', 'Please retry again later.', () => window.now),
    headers: { 'retry-after': String(retryAfterSeconds(window)) },
  }),
};
