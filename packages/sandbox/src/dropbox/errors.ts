/**
 * Dropbox's error answers: 400 plain text `Error in call to API function "<route>": <what>` for a
 * request it cannot read, 401 and 409 JSON `{ error_summary, error }` for auth and route errors.
 */
import { randomBytes } from 'node:crypto';
import { retryAfterSeconds, type RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { DropboxBadInput, DropboxError } from './context.js';

const text = (status: number, message: string): EmulatorResponse => ({ status, body: message, headers: { 'content-type': 'text/plain; charset=utf-8' } });

export function renderDropboxError(error: unknown): EmulatorResponse {
  if (error instanceof DropboxError) {
    return { status: error.status, body: { error_summary: `${error.message}${randomBytes(3).toString('hex')}`, error: error.error } };
  }
  if (error instanceof DropboxBadInput) return text(400, `Error in call to API function "${error.route}": ${error.message}`);
  if (error instanceof EmulatorError) {
    const at = error.label ?? 'unknown';
    if (error.status === 404) return text(404, `Unknown API function: ${error.message}`);
    if (error.status === 415) return text(400, `Error in call to API function "${at}": Bad HTTP "Content-Type" header: expecting "application/json".`);
    const part = error.issue?.in === 'body' ? 'request body: ' : '';
    return text(error.status, `Error in call to API function "${at}": ${part}${error.issue?.message ?? error.message}`);
  }
  // A fault in the emulator itself: say so rather than pass it off as Dropbox's answer.
  return text(500, `emulator fault: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Dropbox says nothing of its limits until it refuses: 429 with Retry-After and a RateLimitError body
 * (`too_many_requests`, `retry_after` in seconds). Dropbox publishes no numbers; the window is a minute.
 */
export const dropboxRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 60_000 },
  refusal: (window) => {
    const seconds = retryAfterSeconds(window);
    return {
      status: 429,
      headers: { 'retry-after': String(seconds) },
      body: { error_summary: `too_many_requests/${randomBytes(3).toString('hex')}`, error: { reason: { '.tag': 'too_many_requests' }, retry_after: seconds } },
    };
  },
};
