import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';

/**
 * The contract between the HubSpot emulator's HTTP layer and its domain modules.
 * The HTTP layer has already matched the operation, checked auth, and validated the
 * path, query and body against the operation before a handler runs.
 */
export interface HubspotRequest {
  /** Upstream operation label from operations.json, e.g. "post-/marketing/v3/campaigns/{campaignGuid}/budget". */
  operation: string;
  /** Path parameters by their upstream name, URL-decoded. */
  params: Record<string, string>;
  /** Query parameters by upstream name; repeated keys become arrays. */
  query: Record<string, string | string[]>;
  /** Parsed JSON body (already valid against the operation's request schema), or undefined. */
  body: any;
  /** The calling app, derived from the bearer token (each distinct token is a distinct app). */
  appId: number;
}

export interface HubspotResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HubspotContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = (req: HubspotRequest, ctx: HubspotContext) => HubspotResponse;

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
export const badRequest = (message: string, errors?: HubspotError['errors']) =>
  new HubspotError(400, 'VALIDATION_ERROR', message, errors);
