import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';
import type { EmulatorResponse } from '../emulator/server.js';

/** Who calls: the workspace (by environment id) the credentials belong to. */
export interface TrackCaller {
  workspace: number;
}

export type TrackRequest<Body = unknown> = EmulatorRequest<TrackCaller, Body>;
export type TrackResponse = EmulatorResponse;

export interface TrackContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = ServiceHandler<TrackCaller, TrackContext>;

/** Thrown by handlers; rendered as Customer.io's error body. */
export class TrackError extends Error {
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
