/** Graph's error body: `{ error: { code, message, innerError: { date, request-id, client-request-id } } }`. */
import { randomUUID } from 'node:crypto';
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
