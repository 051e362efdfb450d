/** Admin secrets: set, list and delete. A value goes in and never comes out. */
import type { Routes } from '../app.js';
import { audited } from '../audit.js';
import { notFound } from '../../errors.js';

const secretInfo = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    key: { type: 'string' },
    description: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    last_accessed_at: { type: ['string', 'null'] },
  },
} as const;

export const secretRoutes: Routes = (app, engine) => {
  app.get(
    '/v1/admin/secrets',
    {
      schema: {
        operationId: 'secrets-list',
        summary: 'List secrets (never their values)',
        response: { 200: { type: 'object', properties: { items: { type: 'array', items: secretInfo } } } },
      },
    },
    async () => ({ items: await engine.secrets.list() }),
  );

  app.post<{ Params: { key: string }; Body: { value: string; description?: string } }>(
    '/v1/admin/secrets/:key',
    {
      config: { audit: 'secret.set' },
      schema: {
        operationId: 'secrets-upsert',
        summary: 'Create or replace a secret',
        params: { type: 'object', required: ['key'], properties: { key: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } } },
        body: {
          type: 'object',
          required: ['value'],
          additionalProperties: false,
          properties: { value: { type: 'string', writeOnly: true }, description: { type: 'string' } },
        },
        // The response schema is the filter that keeps the value out of every answer.
        response: { 200: secretInfo },
      },
    },
    async (request) => {
      const { key } = request.params;
      const replaced = Boolean(await engine.store.db.selectFrom('secrets').select('id').where('key', '=', key).executeTakeFirst());
      const info = await engine.secrets.put(key, request.body.value, request.body.description);
      // The key and whether it was new: never the value, nor anything of it (its length included).
      audited(request, key, { description: info.description, replaced });
      return info;
    },
  );

  app.delete<{ Params: { secret_id: string } }>(
    '/v1/admin/secrets/:secret_id',
    {
      config: { audit: 'secret.deleted' },
      schema: {
        operationId: 'secrets-delete',
        summary: 'Delete a secret',
        params: { type: 'object', required: ['secret_id'], properties: { secret_id: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const key = await engine.secrets.delete(request.params.secret_id);
      if (!key) throw notFound(`secret ${request.params.secret_id}`);
      audited(request, key, { id: request.params.secret_id });
      return reply.status(204).send();
    },
  );
};
