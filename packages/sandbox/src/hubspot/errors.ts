/** HubSpot's error body: `{ status: "error", message, correlationId, category, errors }`. */
import { randomUUID } from 'node:crypto';
import type { RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { HubspotError } from './context.js';

const CATEGORY_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'INVALID_AUTHENTICATION',
  404: 'OBJECT_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

export function renderHubspotError(error: unknown): EmulatorResponse {
  if (error instanceof HubspotError) return errorResponse(error.status, error.category, error.message, error.errors);
  if (error instanceof EmulatorError) {
    const category = CATEGORY_BY_STATUS[error.status] ?? 'VALIDATION_ERROR';
    const issue = error.issue && { message: error.issue.message, in: error.issue.in, code: error.issue.code };
    return errorResponse(error.status, category, error.message, issue ? [issue] : []);
  }
  // Anything else is a fault in the emulator itself; say so plainly rather than pass it off as HubSpot's.
  return errorResponse(500, 'INTERNAL_ERROR', error instanceof Error ? error.message : String(error), []);
}

function errorResponse(status: number, category: string, message: string, errors: HubspotError['errors']): EmulatorResponse {
  return {
    status,
    body: {
      status: 'error',
      message,
      correlationId: randomUUID(),
      category,
      errors: errors.length ? errors : [{ message }],
    },
  };
}

/**
 * HubSpot's limit as an OAuth app sees it: X-HubSpot-RateLimit-Max and -Remaining over a rolling window of
 * X-HubSpot-RateLimit-Interval-Milliseconds (10 s); no daily headers, which OAuth apps do not get. Over
 * it, 429 with the policy's name and no Retry-After.
 */
export const hubspotRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 10_000 },
  headers: (window) => ({
    'x-hubspot-ratelimit-interval-milliseconds': String(window.windowMs),
    'x-hubspot-ratelimit-max': String(window.limit),
    'x-hubspot-ratelimit-remaining': String(window.remaining),
  }),
  refusal: () => ({
    status: 429,
    body: {
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      correlationId: randomUUID(),
      policyName: 'TEN_SECONDLY_ROLLING',
    },
  }),
};
