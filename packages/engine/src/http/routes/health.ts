/**
 * The routes that need no key: liveness, readiness, and the OpenAPI document built from the route schemas.
 * Liveness (`/v1/health`) asks nothing of the database: a process that serves is alive, so an orchestrator
 * does not restart engines for a database outage. Readiness (`/v1/ready`) says whether it should get
 * traffic: the database answers, the migrations are applied, and the engine is not draining.
 */
import type { Routes } from '../app.js';

export const healthRoutes: Routes = (app, engine) => {
  app.get(
    '/v1/health',
    {
      // Probes are never limited: an orchestrator must always hear the answer.
      config: { public: true, limits: false },
      schema: {
        operationId: 'engine-health',
        summary: 'Liveness: the engine process serves (200 even while its database is away; see /v1/ready)',
        security: [],
        response: { 200: { type: 'object', required: ['healthy'], properties: { healthy: { type: 'boolean' } } } },
      },
    },
    async () => ({ healthy: true }),
  );

  app.addSchema({ $id: 'ready', type: 'object', required: ['ready'], properties: { ready: { type: 'boolean' }, reason: { type: 'string' } } });
  let wasReady: boolean | undefined;
  app.get(
    '/v1/ready',
    {
      config: { public: true, limits: false },
      schema: {
        operationId: 'engine-ready',
        summary:
          'Readiness: 200 when the database answers and its migrations are applied (with a reason while Redis is away and limits are per process); 503 with the reason otherwise, and while draining',
        security: [],
        response: { 200: { $ref: 'ready#' }, 503: { $ref: 'ready#' } },
      },
    },
    async (request, reply) => {
      const { ready, reason, error } = await engine.readiness.check();
      // Said once per change, with the error behind it, which the public answer leaves out.
      if (ready !== wasReady) {
        if (ready) request.log.info('ready: taking traffic');
        else request.log.warn({ err: error, reason }, 'not ready');
        wasReady = ready;
      }
      // Ready with a reason: serving in a lesser way (Redis away, limits per process).
      return ready ? { ready, ...(reason && { reason }) } : reply.status(503).send({ ready, reason });
    },
  );

  app.get(
    '/v1/openapi',
    { config: { public: true }, schema: { operationId: 'openapi', summary: 'This API as an OpenAPI 3.1 document', security: [], hide: false } },
    async () => app.swagger(),
  );
};
