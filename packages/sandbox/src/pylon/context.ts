import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';
import type { EmulatorResponse } from '../emulator/server.js';

/** Pylon API tokens belong to service accounts, not to people. */
export interface ServiceAccount {
  id: string;
  name: string;
}

/** Who calls: the service account the API token belongs to. */
export interface PylonCaller {
  account: ServiceAccount;
}

export type PylonRequest<Body = unknown> = EmulatorRequest<PylonCaller, Body>;
export type PylonResponse = EmulatorResponse;

export interface PylonContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = ServiceHandler<PylonCaller, PylonContext>;

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
