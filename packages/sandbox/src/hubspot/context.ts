import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';
import type { EmulatorResponse } from '../emulator/server.js';

/** The calling app: HubSpot tells apps apart by their access token. */
export interface HubspotCaller {
  appId: number;
}

export type HubspotRequest<Body = unknown> = EmulatorRequest<HubspotCaller, Body>;
export type HubspotResponse = EmulatorResponse;

export interface HubspotContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = ServiceHandler<HubspotCaller, HubspotContext>;

/** Thrown by handlers; the HTTP layer renders it as a HubSpot-style JSON error. */
export class HubspotError extends Error {
  constructor(
    readonly status: number,
    readonly category: string,
    message: string,
    readonly errors: Array<{ message: string; in?: string; code?: string }> = [],
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new HubspotError(404, 'OBJECT_NOT_FOUND', `${what} not found`);
export const badRequest = (message: string, errors?: HubspotError['errors']) => new HubspotError(400, 'VALIDATION_ERROR', message, errors);
