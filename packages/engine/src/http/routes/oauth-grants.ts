/**
 * Grants of the engine's authorization server (admin): which person let which MCP client use the
 * engine, with what scopes, signed in how; and ending one, which stops its tokens at once.
 */
import { endGrant, listGrants } from '../../authorization-server/grants.js';
import { notFound } from '../../errors.js';
import type { Routes } from '../app.js';
import { audited } from '../audit.js';
import { page, pageOf, pageQuery, type PageRequest } from '../pagination.js';

const grantInfo = {
  type: 'object',
  required: ['id', 'client_id', 'user_id', 'scopes', 'resources', 'api_key', 'created_at'],
  properties: {
    id: { type: 'string' },
    client_id: { type: 'string' },
    client_name: { type: ['string', 'null'], description: "The registered client's name; null for a client described by a metadata document." },
    user_id: { type: 'string', description: 'The person: the identity provider subject, or the user of the key they signed in with.' },
    scopes: { type: 'array', items: { type: 'string' } },
    resources: { type: 'array', items: { type: 'string' }, description: 'The MCP endpoints the tokens are for.' },
    api_key: {
      type: ['object', 'null'],
      description: 'The API key the person signed in with; null for a sign-in at the identity provider.',
      properties: { id: { type: 'string' }, prefix: { type: 'string' }, name: { type: 'string' }, revoked: { type: 'boolean' } },
    },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'], description: 'When one of its access tokens last called the engine (to the minute).' },
    expires_at: { type: ['string', 'null'] },
  },
} as const;

export const oauthGrantRoutes: Routes = (app, engine) => {
  app.get<{ Querystring: PageRequest & { user_id?: string; client_id?: string } }>(
    '/v1/admin/oauth_grants',
    {
      schema: {
        operationId: 'oauth-grants-list',
        summary: 'List the grants people gave MCP clients, newest first',
        querystring: {
          type: 'object',
          properties: {
            ...pageQuery,
            user_id: { type: 'string', description: 'Only the grants of this user.' },
            client_id: { type: 'string', description: 'Only the grants of this client.' },
          },
        },
        response: { 200: pageOf(grantInfo) },
      },
    },
    async (request) => {
      const { user_id, client_id } = request.query;
      return page(await listGrants(engine.store.db, { user_id, client_id }), request.query);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/admin/oauth_grants/:id',
    {
      config: { audit: 'oauth_grant.ended' },
      schema: {
        operationId: 'oauth-grants-end',
        summary: 'End a grant: its access and refresh tokens stop working at once, on every engine process',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const grant = await endGrant(engine.store.db, request.params.id);
      if (!grant) throw notFound(`OAuth grant ${request.params.id}`);
      audited(request, request.params.id, grant);
      return reply.status(204).send();
    },
  );
};
