import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';

/** Who calls: each issued token is one user. */
export interface ClickupCaller {
  userId: number;
}

export type ClickupRequest<Body = unknown> = EmulatorRequest<ClickupCaller, Body>;

export interface ClickupContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = ServiceHandler<ClickupCaller, ClickupContext>;

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
