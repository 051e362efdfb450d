/**
 * Every failure leaves the API as JSON `{name, message}` with a fitting status: never HTML, never a
 * stack. The one mapping from the engine's problem kinds to HTTP, used by the API and by the worker server.
 */
import type { FastifyInstance } from 'fastify';
import { databaseUnavailable, Problem, RateLimited, type ProblemKind } from '../errors.js';
import { isDatabaseUnavailable } from '../store/outage.js';

const wire: Record<ProblemKind, { status: number; name: string; headers?: Record<string, string> }> = {
  invalid: { status: 400, name: 'bad_request' },
  unauthorized: { status: 401, name: 'unauthorized' },
  forbidden: { status: 403, name: 'forbidden' },
  not_found: { status: 404, name: 'not_found' },
  conflict: { status: 409, name: 'conflict' },
  invalid_state: { status: 400, name: 'invalid_state' },
  authorization_failed: { status: 400, name: 'authorization_failed' },
  worker_unavailable: { status: 502, name: 'worker_unavailable' },
  rate_limited: { status: 429, name: 'too_many_requests' },
  database_unavailable: { status: 503, name: 'database_unavailable', headers: { 'retry-after': '5' } },
  // The connection closes with the answer, so that the client's next request opens one to another process.
  shutting_down: { status: 503, name: 'shutting_down', headers: { 'retry-after': '1', connection: 'close' } },
};

/** Retry-After in whole seconds, never 0: a caller told 0 would come back at once. */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export const errorSchema = {
  type: 'object',
  required: ['name', 'message'],
  properties: { name: { type: 'string' }, message: { type: 'string' } },
} as const;

/** Fastify's words for a request it refused, and for a body of a type the API does not read, the type it does. */
function clientMessage(error: Error & { code?: string }, url: string): string {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && url.startsWith('/v1/'))
    return `${error.message}: send the body as JSON, with content-type: application/json`;
  return error.message;
}

/** The error and not-found handlers of a Fastify server that speaks this API's errors. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    // A query that failed because the database is away is an outage to wait out, not an internal error.
    const error: typeof thrown = isDatabaseUnavailable(thrown) ? databaseUnavailable() : thrown;
    if (error instanceof Problem) {
      const { status, name, headers } = wire[error.kind];
      if (error instanceof RateLimited) reply.header('retry-after', String(retryAfterSeconds(error.retryAfterMs)));
      return reply
        .status(status)
        .headers(headers ?? {})
        .send({ name, message: error.message });
    }
    if (error.validation) return reply.status(400).send({ name: 'bad_request', message: error.message });
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'unhandled error');
    return reply
      .status(status)
      .send({ name: status === 500 ? 'internal_error' : 'bad_request', message: status === 500 ? 'Internal error.' : clientMessage(error, request.url) });
  });
  app.setNotFoundHandler((request, reply) => reply.status(404).send({ name: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}` }));
}
