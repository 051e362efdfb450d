import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';

/**
 * The contract between the Customer.io emulator's HTTP layer and its domain modules. The HTTP layer
 * has already authenticated the workspace, matched the operation and validated path, query and body.
 */
export interface TrackRequest {
  /** Operation label from operations.json, e.g. "identify". */
  operation: string;
  /** Path parameters by upstream name, URL-decoded. */
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /** Parsed JSON body, valid against the operation's request schema; undefined when none was sent. */
  body: any;
  /** The environment id of the workspace the credentials belong to. */
  workspace: number;
}

export interface TrackResponse {
  status: number;
  body?: unknown;
}

export interface TrackContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = (req: TrackRequest, ctx: TrackContext) => TrackResponse;

/** Thrown by handlers; rendered as Customer.io's error body. */
export class TrackError extends Error {
  /** The operation that refused, set by the HTTP layer: the error's shape depends on it. */
  operation?: string;

  constructor(
    readonly status: number,
    message: string,
    /** The offending field, when there is one (v2 errors name it). */
    readonly field?: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new TrackError(404, `${what} not found`);
export const badRequest = (message: string, field?: string) => new TrackError(400, message, field);

/** The Track API answers a write with 200 and no data. */
export const accepted: TrackResponse = { status: 200 };

/** Unix seconds on the emulator's clock, the Track API's unit of time. */
export const unixNow = (ctx: TrackContext): number => Math.floor(ctx.clock.now() / 1000);
