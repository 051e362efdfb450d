import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';

/** Who calls: each issued token is one user. */
export interface ClickupCaller {
  userId: number;
}

export type ClickupRequest<Body = any> = EmulatorRequest<ClickupCaller, Body>;

export interface ClickupContext {
  db: Database.Database;
  clock: Clock;
}

// Bodies are not declared per handler here yet: they are read untyped.
export type Handler = ServiceHandler<ClickupCaller, ClickupContext, any>;

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
