/**
 * The engine's failures: a kind and a message fit for the caller. Domain code throws these; the HTTP
 * layer alone decides what each kind is on the wire (http/errors.ts).
 */
export type ProblemKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  /** An OAuth callback whose state is unknown or already used. */
  | 'invalid_state'
  /** An OAuth flow that the provider or the person ended. */
  | 'authorization_failed'
  /** A worker that did not answer. */
  | 'worker_unavailable'
  /** Over one of the engine's limits (a RateLimited says when to come back). */
  | 'rate_limited'
  /** The engine's database is away for now (store/outage.ts says which errors mean that). */
  | 'database_unavailable'
  /** The process is stopping: what it had started it finishes, anything new goes to another process. */
  | 'shutting_down';

export class Problem extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
  ) {
    super(message);
  }
}

/** Over a limit: the caller may try again in `retryAfterMs`. */
export class RateLimited extends Problem {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super('rate_limited', message);
  }
}

export const invalid = (message: string) => new Problem('invalid', message);
/** `hint`, when given, follows as sentences of its own (such as ` Did you mean A.B?`). */
export const notFound = (what: string, hint = '') => new Problem('not_found', `${what} not found${hint && `.${hint}`}`);
export const conflict = (message: string) => new Problem('conflict', message);
export const forbidden = (message: string) => new Problem('forbidden', message);
export const databaseUnavailable = () =>
  new Problem('database_unavailable', "The engine's database is unavailable for now (a restart or a lost connection); try again in a few seconds.");
export const shuttingDown = () => new Problem('shutting_down', 'This engine process is shutting down and takes no new requests; send the request again.');
