/**
 * Every failure leaves the API as JSON `{name, message}` with a fitting status: never HTML, never a
 * stack. The one mapping from the engine's problem kinds to HTTP, used by the API and by the worker server.
 */
import type { FastifyInstance } from 'fastify';
import { Problem, type ProblemKind } from '../errors.js';

const wire: Record<ProblemKind, { status: number; name: string }> = {
  invalid: { status: 400, name: 'bad_request' },
  unauthorized: { status: 401, name: 'unauthorized' },
  forbidden: { status: 403, name: 'forbidden' },
  not_found: { status: 404, name: 'not_found' },
  conflict: { status: 409, name: 'conflict' },
  invalid_state: { status: 400, name: 'invalid_state' },
  authorization_failed: { status: 400, name: 'authorization_failed' },
  worker_unavailable: { status: 502, name: 'worker_unavailable' },
};

export const errorSchema = {
  type: 'object',
  required: ['name', 'message'],
  properties: { name: { type: 'string' }, message: { type: 'string' } },
} as const;

/** The error and not-found handlers of a Fastify server that speaks this API's errors. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    if (error instanceof Problem) {
      const { status, name } = wire[error.kind];
      return reply.status(status).send({ name, message: error.message });
    }
    if (error.validation) return reply.status(400).send({ name: 'bad_request', message: error.message });
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'unhandled error');
    return reply.status(status).send({ name: status === 500 ? 'internal_error' : 'bad_request', message: status === 500 ? 'Internal error.' : error.message });
  });
  app.setNotFoundHandler((request, reply) => reply.status(404).send({ name: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}` }));
}
