import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';

/** Who calls: each issued token is one account. */
export interface DropboxCaller {
  accountId: number;
}

export type DropboxRequest<Body = unknown> = EmulatorRequest<DropboxCaller, Body>;

export interface DropboxContext {
  db: Database.Database;
  clock: Clock;
}

export type Handler = ServiceHandler<DropboxCaller, DropboxContext>;

/**
 * A route-specific error: 409 with `{ error_summary, error }`, the error a tagged union
 * (`{".tag": "path", "path": {".tag": "not_found"}}`), or 401 for auth.
 */
export class DropboxError extends Error {
  constructor(
    readonly status: number,
    readonly error: Record<string, unknown>,
  ) {
    super(summary(error));
  }
}

/** Dropbox's error_summary: the tags from the outside in, each followed by a slash, then a random suffix. */
function summary(error: unknown): string {
  const tags: string[] = [];
  for (let node = error as Record<string, unknown> | undefined; node && typeof node['.tag'] === 'string'; ) {
    const tag = node['.tag'] as string;
    tags.push(tag);
    node = node[tag] as Record<string, unknown> | undefined;
  }
  return `${tags.join('/')}/`;
}

/** A malformed request: Dropbox answers 400 with plain text naming the route. */
export class DropboxBadInput extends Error {
  constructor(
    readonly route: string,
    message: string,
  ) {
    super(message);
  }
}

export const lookupError = (tag: 'not_found' | 'not_file' | 'not_folder' | 'malformed_path') =>
  new DropboxError(409, { '.tag': 'path', path: { '.tag': tag } });
