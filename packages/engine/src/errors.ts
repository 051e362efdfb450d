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
  | 'worker_unavailable';

export class Problem extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new Problem('invalid', message);
export const notFound = (what: string) => new Problem('not_found', `${what} not found`);
export const conflict = (message: string) => new Problem('conflict', message);
export const forbidden = (message: string) => new Problem('forbidden', message);
