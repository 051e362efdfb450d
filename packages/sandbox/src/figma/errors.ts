/** Figma's error bodies: `{ status, err }`, or `{ status, error: true, message }` on the library routes. */
import { retryAfterSeconds, type RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { FigmaError } from './context.js';

const LIBRARY_ROUTES = /^get(Team|File)?(Component|ComponentSet|Style)s?$/;

/** `operation`, once routing found it, decides the shape. */
export function renderFigmaError(error: unknown, operation: string | undefined): EmulatorResponse {
  if (error instanceof FigmaError || error instanceof EmulatorError) return errorResponse(error.status, error.message, operation);
  // Anything else is a fault in the emulator itself; say so plainly rather than pass it off as Figma's.
  return { status: 500, body: { status: 500, err: `emulator fault: ${error instanceof Error ? error.message : String(error)}` } };
}

function errorResponse(status: number, message: string, label: string | undefined): EmulatorResponse {
  if (label && LIBRARY_ROUTES.test(label)) return { status, body: { status, error: true, message } };
  return { status, body: { status, err: message } };
}

/**
 * Figma's limits (per user, per endpoint tier, per minute) tell nothing until they refuse: 429 with
 * Retry-After in seconds, the plan's tier and the kind of limit (a Full seat's is `high`).
 */
export const figmaRateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 60_000 },
  refusal: (window) => ({
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds(window)), 'x-figma-plan-tier': 'enterprise', 'x-figma-rate-limit-type': 'high' },
    body: { status: 429, err: 'Rate limit exceeded' },
  }),
};
