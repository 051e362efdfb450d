import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { Handler as ServiceHandler } from '../emulator/define.js';

export interface FigmaContext {
  db: Database.Database;
  clock: Clock;
  /** Base URL of the host that serves exported images (Figma's image CDN). */
  imagesUrl: string;
}

export interface FigmaUser {
  id: string;
  handle: string;
  email: string;
  img_url: string;
}

/** Who calls: each issued token is one user. */
export interface FigmaCaller {
  user: FigmaUser;
}

export type Handler = ServiceHandler<FigmaCaller, FigmaContext>;

/**
 * Figma answers errors in two shapes: `{ status, err }` on file, image, comment and user routes, and
 * `{ status, error: true, message }` on the library routes (components, component sets, styles).
 */
export class FigmaError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new FigmaError(404, `${what} not found`);
export const badRequest = (message: string) => new FigmaError(400, message);

export const isoTime = (ms: number) => new Date(ms).toISOString();
