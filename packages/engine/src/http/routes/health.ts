/** The two routes that need no key: health, and the OpenAPI document built from the route schemas. */
import { sql } from 'kysely';
import type { Routes } from '../app.js';

export const healthRoutes: Routes = (app, engine) => {
  app.addSchema({ $id: 'health', type: 'object', required: ['healthy'], properties: { healthy: { type: 'boolean' }, reason: { type: 'string' } } });
  app.get(
    '/v1/health',
    {
      config: { public: true },
      schema: {
        operationId: 'engine-health',
        summary: 'Whether the engine and its database answer',
        security: [],
        response: {
          200: { $ref: 'health#' },
          503: { $ref: 'health#' },
        },
      },
    },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(engine.store.db);
        return { healthy: true };
      } catch {
        return reply.status(503).send({ healthy: false, reason: 'the database does not answer' });
      }
    },
  );

  app.get(
    '/v1/openapi',
    { config: { public: true }, schema: { operationId: 'openapi', summary: 'This API as an OpenAPI 3.1 document', security: [], hide: false } },
    async () => app.swagger(),
  );
};
