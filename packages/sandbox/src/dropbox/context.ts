import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';

/**
 * The contract between the Dropbox emulator's HTTP layer and its domain modules. The layer has matched
 * the route, identified the account and validated the JSON body before a handler runs.
 */
export interface DropboxRequest {
  body: any;
  headers: Record<string, string>;
  accountId: number;
}

export interface DropboxContext {
  db: Database.Database;
  clock: Clock;
}

export interface DropboxResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (request: DropboxRequest, ctx: DropboxContext) => DropboxResponse;

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

export const lookupError = (tag: 'not_found' | 'not_file' | 'not_folder' | 'malformed_path') => new DropboxError(409, { '.tag': 'path', path: { '.tag': tag } });
