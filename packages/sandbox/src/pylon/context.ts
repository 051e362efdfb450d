import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';

/**
 * The contract between the Pylon emulator's HTTP layer and its domain modules. The HTTP layer has
 * already matched the operation, checked the token, and validated path, query and body.
 */
export interface PylonRequest {
  /** Operation label from operations.json, e.g. "GetIssues". */
  operation: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /** Parsed JSON body, already valid against the operation's schema, or undefined. */
  body: any;
  /** Who the API token belongs to. */
  account: ServiceAccount;
}

/** Pylon API tokens belong to service accounts, not to people. */
export interface ServiceAccount {
  id: string;
  name: string;
}

export interface PylonResponse {
  status: number;
  body?: unknown;
}

export interface PylonContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = (req: PylonRequest, ctx: PylonContext) => PylonResponse;

/** Thrown by handlers; rendered as Pylon's error body `{ errors: [message], request_id }`. */
export class PylonError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new PylonError(404, `${what} not found`);
export const badRequest = (message: string) => new PylonError(400, message);

/** Pylon's success envelope. */
export const ok = (data: unknown, extra: Record<string, unknown> = {}): PylonResponse => ({ status: 200, body: { data, ...extra, request_id: requestId() } });

let requests = 0;
export const requestId = (): string => `req_${(++requests).toString(36).padStart(8, '0')}`;
