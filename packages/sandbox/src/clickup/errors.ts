/** ClickUp's error body, `{ err, ECODE }`, for refusals of the shared layer and of the handlers. */
import { resetSeconds, type RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { ClickupError } from './context.js';

export function renderClickupError(error: unknown): EmulatorResponse {
  if (error instanceof ClickupError) return { status: error.status, body: { err: error.message, ECODE: error.code } };
  if (error instanceof EmulatorError) {
    const code = error.status === 404 ? 'ROUTE_NOT_FOUND' : error.status === 405 ? 'METHOD_NOT_ALLOWED' : `INPUT_${error.issue?.code ?? 'INVALID'}`;
    return { status: error.status, body: { err: error.message, ECODE: code } };
  }
  // A fault in the emulator itself: say so rather than pass it off as ClickUp's answer.
  return { status: 500, body: { err: error instanceof Error ? error.message : String(error), ECODE: 'EMULATOR_FAULT' } };
}

/**
 * ClickUp's limit per token and minute: X-RateLimit-Limit, -Remaining and -Reset (epoch seconds) on every
 * answer; over it, 429 `{ err, ECODE }`.
 */
export const clickupRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 60_000 },
  headers: (window) => ({
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(window.remaining),
    'x-ratelimit-reset': String(resetSeconds(window)),
  }),
  refusal: () => ({ status: 429, body: { err: 'Rate limit reached', ECODE: 'APP_002' } }),
};
