import type Database from 'better-sqlite3';
import type { Clock } from '../emulator/clock.js';
import type { EmulatorRequest, Handler as ServiceHandler } from '../emulator/define.js';
import type { EmulatorResponse } from '../emulator/server.js';

/**
 * The contract between the GitHub emulator's HTTP layer and its domain modules. The HTTP layer has
 * already matched the ghes-3.8 operation, checked the token, and validated path, query, content type
 * and body against the operation before a handler runs.
 */
export interface GithubUser {
  login: string;
  id: number;
}

/** Who calls: the user the token acts as. */
export interface GithubCaller {
  user: GithubUser;
}

export type GithubRequest<Body = unknown> = EmulatorRequest<GithubCaller, Body>;
export type GithubResponse = EmulatorResponse;

/** A repository row as every domain module sees it. */
export interface Repository {
  id: number;
  owner: string;
  name: string;
  /** "owner/name" as created (lookups are case-insensitive). */
  fullName: string;
  private: boolean;
  defaultBranch: string;
}

export interface GithubContext {
  db: Database.Database;
  clock: Clock;
  /**
   * The repository, matched case-insensitively; throws a 404 GithubError when absent, or when it is
   * private and the requesting user has no access to it (GitHub does not admit it exists).
   */
  repository(owner: string, name: string): Repository;
  /** The user with this login, created on first mention (the emulator's users are open-ended). */
  user(login: string): GithubUser;
  /** A complete response body for the operation, from the description's example or schema, to fill in. */
  sample(operation: string, status?: number): any;
}

export type Handler = ServiceHandler<GithubCaller, GithubContext>;

/** Thrown by handlers; the HTTP layer renders it as GitHub does: `{message, errors?, documentation_url}`. */
export class GithubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Array<{ resource?: string; field?: string; code: string; message?: string }> = [],
  ) {
    super(message);
  }
}

export const notFound = () => new GithubError(404, 'Not Found');
export const validationFailed = (errors: GithubError['errors']) => new GithubError(422, 'Validation Failed', errors);
