/** Admin API keys: create (the key is in this one answer only), list, revoke. */
import { checkedScope, createApiKey, findActiveKey, listApiKeys, revokeApiKey, ROLES, type Role } from '../../security/api-keys.js';
import type { Routes } from '../app.js';
import { audited } from '../audit.js';
import { invalid, notFound } from '../../errors.js';
import { page, pageOf, pageQuery, type PageRequest } from '../page.js';

const keyInfo = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'service', 'user'] },
    user_id: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
    revoked_at: { type: ['string', 'null'] },
  },
} as const;

export const apiKeyRoutes: Routes = (app, engine) => {
  app.get<{ Querystring: PageRequest }>(
    '/v1/admin/api_keys',
    {
      schema: {
        operationId: 'api-keys-list',
        summary: 'List API keys (never the keys themselves)',
        querystring: { type: 'object', properties: pageQuery },
        response: { 200: pageOf(keyInfo) },
      },
    },
    async (request) => page(await listApiKeys(engine.store.db), request.query),
  );

  app.post<{ Body: { name: string; role?: Role; user_id?: string } }>(
    '/v1/admin/api_keys',
    {
      config: { audit: 'api_key.created' },
      schema: {
        operationId: 'api-keys-create',
        summary: 'Create an API key; the answer is the only time the key is shown',
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            role: { type: 'string', enum: [...ROLES], description: 'admin (default), service, or user (with user_id).' },
            user_id: { type: 'string', minLength: 1, description: 'The one user a user key acts as.' },
          },
        },
        response: { 201: { type: 'object', properties: { key: { type: 'string' }, ...keyInfo.properties } } },
      },
    },
    async (request, reply) => {
      const scope = { role: request.body.role, userId: request.body.user_id };
      try {
        checkedScope(scope);
      } catch (error) {
        throw invalid((error as Error).message);
      }
      const { key, info } = await createApiKey(engine.store.db, request.body.name, scope);
      audited(request, info.id, { name: info.name, prefix: info.prefix, role: info.role, user_id: info.user_id });
      return reply.status(201).send({ key, ...info });
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/admin/api_keys/:id',
    {
      config: { audit: 'api_key.revoked' },
      schema: {
        operationId: 'api-keys-revoke',
        summary: 'Revoke an API key (by id or prefix); not the key making the request',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      // Revocation takes an id or a prefix; either may name the key making this request.
      const key = await findActiveKey(engine.store.db, request.params.id);
      if (!key) throw notFound(`API key ${request.params.id}`);
      if (key.id === request.apiKeyId) throw invalid('this request is made with that key: revoke it with another key');
      if (!(await revokeApiKey(engine.store.db, key.id))) throw notFound(`API key ${request.params.id}`);
      audited(request, key.id, { name: key.name, prefix: key.prefix, role: key.role, user_id: key.user_id });
      return reply.status(204).send();
    },
  );
};
