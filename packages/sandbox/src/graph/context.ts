import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';

export interface GraphContext {
  db: Database.Database;
  clock: Clock;
  /** The emulator's own base URL, for the next links of paged lists. */
  baseUrl: () => string;
}

/** The signed-in user of a call (`/me`). */
export interface Mailbox {
  id: string;
  displayName: string;
  mail: string;
}

/** Who calls: the signed-in user the token belongs to. */
export interface GraphCaller {
  me: Mailbox;
}

export type GraphRequest<Body = unknown> = EmulatorRequest<GraphCaller, Body>;

export type Handler = ServiceHandler<GraphCaller, GraphContext>;

/** Graph's error: `{ error: { code, message, innerError } }` with an HTTP status. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const itemNotFound = () => new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
export const badRequest = (code: string, message: string) => new GraphError(400, code, message);

export const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
