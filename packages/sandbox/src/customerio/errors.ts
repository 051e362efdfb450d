/**
 * Customer.io's error bodies: the v1 endpoints answer `{ meta: { error } }`, the v2 entity and batch
 * endpoints `{ errors: [{ reason, field, message }] }`.
 */
import type { RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { TrackError } from './context.js';

const V2_OPERATIONS = new Set(['entity', 'batch']);

/** `operation`, once routing found it, decides the shape. */
export function renderTrackError(error: unknown, operation: string | undefined): EmulatorResponse {
  if (error instanceof TrackError) return errorResponse(error.status, error.message, error.field, operation);
  if (error instanceof EmulatorError) return errorResponse(error.status, error.message, error.issue?.field, operation, error.issue?.code);
  // A fault in the emulator itself; say so plainly rather than pass it off as Customer.io's.
  return { status: 500, body: { meta: { error: `emulator fault: ${error instanceof Error ? error.message : String(error)}` } } };
}

function errorResponse(status: number, message: string, field: string | undefined, label: string | undefined, code?: string): EmulatorResponse {
  if (label && V2_OPERATIONS.has(label)) {
    return { status, body: { errors: [{ reason: (code ?? 'invalid').toLowerCase(), ...(field && { field }), message }] } };
  }
  return { status, body: { meta: { error: message } } };
}

/**
 * The Track API's fair-use limit is per second; over it, a bare 429 in the v1 error shape: Customer.io
 * documents no rate-limit header and no Retry-After.
 */
export const trackRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 1_000 },
  refusal: () => ({ status: 429, body: { meta: { error: 'Too many requests: slow down.' } } }),
};
