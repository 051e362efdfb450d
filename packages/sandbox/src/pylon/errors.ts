/** Pylon's error body: `{ errors: [message], request_id }`, with the HTTP status. */
import { retryAfterSeconds, type RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { PylonError, requestId } from './context.js';

export function renderPylonError(error: unknown): EmulatorResponse {
  if (error instanceof PylonError || error instanceof EmulatorError)
    return { status: error.status, body: { errors: [error.message], request_id: requestId() } };
  // A fault in the emulator itself; say so plainly rather than pass it off as Pylon's.
  return { status: 500, body: { errors: [`emulator fault: ${error instanceof Error ? error.message : String(error)}`], request_id: requestId() } };
}

/** Pylon's limits are per minute; over one, 429 with Retry-After in seconds and its error body. */
export const pylonRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 60_000 },
  refusal: (window) => ({
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds(window)) },
    body: { errors: ['rate limit exceeded'], request_id: requestId() },
  }),
};
