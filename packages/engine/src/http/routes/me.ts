/** The caller's own API key and its role, so that a client shows only what the key may do. */
import type { Routes } from '../app.js';
import { Problem } from '../../errors.js';

export const meRoutes: Routes = (app, engine) => {
  app.get(
    '/v1/me',
    {
      schema: {
        operationId: 'me',
        summary: "The calling key's role and identity",
        response: {
          200: {
            type: 'object',
            required: ['role', 'key'],
            properties: {
              role: { type: 'string', enum: ['admin', 'service', 'user'] },
              user_id: { type: 'string' },
              key: {
                type: 'object',
                required: ['id', 'name', 'prefix'],
                properties: { id: { type: 'string' }, name: { type: 'string' }, prefix: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    async (request) => {
      const key = await engine.store.db
        .selectFrom('api_keys')
        .select(['id', 'name', 'prefix'])
        .where('id', '=', request.apiKeyId ?? '')
        .executeTakeFirst();
      if (!key) throw new Problem('unauthorized', 'Unknown or revoked API key.');
      // Every key is an admin key until keys carry roles.
      return { role: 'admin' as const, key };
    },
  );
};
