/** Admin API keys: create (the key is in this one answer only), list, change a key's limits, revoke. */
import {
  checkedLimits,
  checkedScope,
  createApiKey,
  findActiveKey,
  listApiKeys,
  revokeApiKey,
  ROLES,
  updateApiKeyLimits,
  type KeyLimits,
  type Role,
} from '../../security/api-keys.js';
import type { Routes } from '../app.js';
import { audited, differences } from '../audit.js';
import { invalid, notFound } from '../../errors.js';
import { MAX_KEY_LIMIT } from '../../limits/settings.js';
import { page, pageOf, pageQuery, type PageRequest } from '../pagination.js';

const keyInfo = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'service', 'user'] },
    user_id: { type: ['string', 'null'] },
    rpm: { type: ['integer', 'null'], description: "The key's own requests a minute (0: no limit); null: its role's default." },
    concurrency: { type: ['integer', 'null'], description: "The key's own tool calls in flight (0: no limit); null: its role's default." },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
    revoked_at: { type: ['string', 'null'] },
  },
} as const;

/** A key's own limits in a request body: a whole number (0: no limit), or null for its role's default. */
const limitProperties = {
  rpm: {
    type: ['integer', 'null'],
    minimum: 0,
    maximum: MAX_KEY_LIMIT,
    description: "Requests a minute for this key (0: no limit); null or absent: its role's default.",
  },
  concurrency: {
    type: ['integer', 'null'],
    minimum: 0,
    maximum: MAX_KEY_LIMIT,
    description: "Tool calls in flight for this key (0: no limit); null or absent: its role's default.",
  },
} as const;

/** What an audit event says of a key: never the key itself. */
const keyView = (key: { name: string; prefix: string; role: Role; user_id: string | null; rpm: number | null; concurrency: number | null }) => ({
  name: key.name,
  prefix: key.prefix,
  role: key.role,
  user_id: key.user_id,
  rpm: key.rpm,
  concurrency: key.concurrency,
});

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

  app.post<{ Body: { name: string; role?: Role; user_id?: string } & KeyLimits }>(
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
            ...limitProperties,
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
      const { key, info } = await createApiKey(engine.store.db, request.body.name, scope, { rpm: request.body.rpm, concurrency: request.body.concurrency });
      audited(request, info.id, keyView(info));
      return reply.status(201).send({ key, ...info });
    },
  );

  app.patch<{ Params: { id: string }; Body: KeyLimits }>(
    '/v1/admin/api_keys/:id',
    {
      config: { audit: 'api_key.updated' },
      schema: {
        operationId: 'api-keys-update',
        summary: "Change an API key's own limits (by id or prefix); every engine process applies them within a second",
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        body: { type: 'object', additionalProperties: false, minProperties: 1, properties: limitProperties },
        response: { 200: keyInfo },
      },
    },
    async (request) => {
      const limits = checkedLimits(request.body);
      const changed = await updateApiKeyLimits(engine.store.db, request.params.id, limits);
      if (!changed) throw notFound(`API key ${request.params.id}`);
      engine.changes.changed('api_keys');
      audited(request, changed.after.id, differences(keyView(changed.before), keyView(changed.after)));
      const [info] = (await listApiKeys(engine.store.db)).filter((key) => key.id === changed.after.id);
      return info;
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
      audited(request, key.id, keyView(key));
      return reply.status(204).send();
    },
  );
};
