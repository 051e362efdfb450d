import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';

/**
 * The contract between the ClickUp emulator's HTTP layer and its domain modules. The layer has matched
 * the operation, identified the user and validated path, query and body before a handler runs.
 */
export interface ClickupRequest {
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: any;
  /** The calling user's id (each distinct token is one user). */
  userId: number;
}

export interface ClickupContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = (request: ClickupRequest, ctx: ClickupContext) => { status: number; body?: unknown };

/** ClickUp's error: `{ err, ECODE }` with an HTTP status. */
export class ClickupError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new ClickupError(400, code, message);
export const notFound = (code: string, what: string) => new ClickupError(404, code, `${what} not found`);
