/** Figma's error bodies: `{ status, err }`, or `{ status, error: true, message }` on the library routes. */
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
