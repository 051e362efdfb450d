/**
 * Admin of OAuth: auth providers (client credentials; the secret goes in and never comes out), users'
 * connections, and the session verification setting.
 */
import type { AuthProviderInput, AuthProviderPatch } from '../../auth/providers.js';
import type { AuthProviderTable } from '../../store/schema.js';
import type { Routes } from '../app.js';
import { audited, differences, secretChange } from '../audit.js';
import { notFound } from '../../errors.js';
import { errorSchema } from '../errors.js';
import { page, pageOf, pageQuery, type PageRequest } from '../pagination.js';

const request = (required: boolean) => ({
  type: 'object',
  ...(required && { required: ['endpoint'] }),
  properties: {
    endpoint: { type: 'string' },
    params: { type: 'object', additionalProperties: { type: 'string' } },
    auth_method: { type: 'string', enum: ['client_secret_basic', 'client_secret_post', 'none'] },
  },
});

const oauth2Body = (create: boolean) => ({
  type: 'object',
  ...(create && { required: ['client_id'] }),
  properties: {
    client_id: { type: 'string', minLength: 1 },
    client_secret: { type: 'string', writeOnly: true, description: 'Sealed at rest; never answered back.' },
    authorize_request: request(false),
    token_request: request(false),
    refresh_request: request(false),
    scope_delimiter: { type: 'string', enum: [' ', ','] },
    pkce: { type: 'object', properties: { enabled: { type: 'boolean' }, code_challenge_method: { type: 'string', enum: ['S256'] } } },
    issuer: { type: 'string', description: 'The authorization server issuer, to check the `iss` of its redirects (RFC 9207).' },
  },
});

const providerBody = (create: boolean) => ({
  type: 'object',
  ...(create && { required: ['id'] }),
  properties: {
    id: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' },
    description: { type: 'string' },
    provider_id: {
      type: 'string',
      minLength: 1,
      description: 'The service (github, hubspot, clickup, dropbox, figma, microsoft have presets). Default: the id.',
    },
    type: { type: 'string', enum: ['oauth2'] },
    oauth2: oauth2Body(create),
  },
});

const authProvider = {
  type: 'object',
  additionalProperties: true,
  properties: { id: { type: 'string' }, provider_id: { type: 'string' }, type: { type: 'string' }, description: { type: 'string' } },
} as const;

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

/** A provider's settings as the audit trail keeps them: everything but the client secret, of which only whether it is set. */
const providerSettings = (row: AuthProviderTable) => ({
  description: row.description,
  provider_id: row.provider_id,
  oauth2: JSON.parse(row.oauth2) as object,
  client_secret: row.client_secret_ciphertext ? 'set' : 'none',
});

const connection = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    connection_id: { type: 'string' },
    connection_status: { type: 'string' },
    provider_id: { type: 'string' },
    provider_description: { type: 'string' },
    provider_type: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    user_id: { type: 'string' },
  },
} as const;

const verification = {
  type: 'object',
  properties: { unsafe_skip_verification: { type: 'boolean' }, verifier_url: { type: ['string', 'null'] } },
} as const;

export const adminAuthRoutes: Routes = (app, engine) => {
  const { oauth } = engine;
  const { providers } = oauth;

  app.get<{ Querystring: PageRequest }>(
    '/v1/admin/auth_providers',
    {
      schema: {
        operationId: 'auth-providers-list',
        summary: 'List auth providers (client secrets never shown)',
        querystring: { type: 'object', properties: pageQuery },
        response: { 200: pageOf(authProvider) },
      },
    },
    async (request) => {
      const slice = page(await providers.list(), request.query);
      return { ...slice, items: slice.items.map((row) => providers.view(row)) };
    },
  );

  app.post<{ Body: AuthProviderInput }>(
    '/v1/admin/auth_providers',
    {
      config: { audit: 'auth_provider.created' },
      schema: {
        operationId: 'auth-providers-create',
        summary: 'Create an auth provider; a preset fills in the endpoints of known services',
        body: providerBody(true),
        response: { 200: authProvider, 400: errorSchema, 409: errorSchema },
      },
    },
    async (request) => {
      const row = await providers.create(request.body);
      audited(request, row.id, providerSettings(row));
      return providers.view(row);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/admin/auth_providers/:id',
    { schema: { operationId: 'auth-providers-get', summary: 'One auth provider', params: idParams, response: { 200: authProvider, 404: errorSchema } } },
    async (request) => {
      const row = await providers.row(request.params.id);
      if (!row) throw notFound(`auth provider ${request.params.id}`);
      return providers.view(row);
    },
  );

  app.patch<{ Params: { id: string }; Body: AuthProviderPatch }>(
    '/v1/admin/auth_providers/:id',
    {
      config: { audit: 'auth_provider.updated' },
      schema: {
        operationId: 'auth-providers-patch',
        summary: 'Change an auth provider (an empty client_secret removes it)',
        params: idParams,
        body: providerBody(false),
        response: { 200: authProvider, 400: errorSchema, 404: errorSchema },
      },
    },
    async (request) => {
      const before = await providers.row(request.params.id);
      const row = before && (await providers.update(request.params.id, request.body));
      if (!row) throw notFound(`auth provider ${request.params.id}`);
      // A new client secret changes nothing the settings show: that it was given is said on its own.
      const secret = secretChange(request.body.oauth2?.client_secret);
      audited(request, row.id, { ...differences(providerSettings(before), providerSettings(row)), ...(secret && { client_secret: secret }) });
      return providers.view(row);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/admin/auth_providers/:id',
    {
      config: { audit: 'auth_provider.deleted' },
      schema: {
        operationId: 'auth-providers-delete',
        summary: "Delete an auth provider and its users' connections",
        params: idParams,
        response: { 200: authProvider, 404: errorSchema },
      },
    },
    async (request) => {
      const row = await providers.delete(request.params.id);
      if (!row) throw notFound(`auth provider ${request.params.id}`);
      audited(request, row.id, providerSettings(row));
      return providers.view(row);
    },
  );

  app.get<{ Querystring: PageRequest & { provider_id?: string; user_id?: string } }>(
    '/v1/admin/user_connections',
    {
      schema: {
        operationId: 'auth-connections-list',
        summary: "List users' connections (never their tokens)",
        querystring: { type: 'object', properties: { ...pageQuery, provider_id: { type: 'string' }, user_id: { type: 'string' } } },
        response: { 200: pageOf(connection) },
      },
    },
    async (request) => page(await oauth.listConnections(request.query), request.query),
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/admin/user_connections/:id',
    {
      config: { audit: 'user_connection.deleted' },
      schema: {
        operationId: 'auth-connections-delete',
        summary: "Delete a user's connection: the user's tools need a new authorization",
        params: idParams,
        response: { 404: errorSchema },
      },
    },
    async (request, reply) => {
      const connection = await oauth.deleteConnection(request.params.id);
      if (!connection) throw notFound(`connection ${request.params.id}`);
      audited(request, request.params.id, connection);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/admin/settings/session_verification',
    {
      schema: {
        operationId: 'session-verification-settings-get',
        summary: 'How the engine verifies the browser session that completes an authorization',
        response: { 200: verification },
      },
    },
    async () => oauth.sessionVerification.get(),
  );

  app.put<{ Body: { unsafe_skip_verification?: boolean; verifier_url?: string } }>(
    '/v1/admin/settings/session_verification',
    {
      config: { audit: 'session_verification.updated' },
      schema: {
        operationId: 'session-verification-settings-update',
        summary: 'Skip session verification, or verify through your application at verifier_url',
        body: { type: 'object', properties: { unsafe_skip_verification: { type: 'boolean' }, verifier_url: { type: 'string' } } },
        response: { 200: verification, 400: errorSchema },
      },
    },
    async (request) => {
      const before = await oauth.sessionVerification.get();
      const next = await oauth.sessionVerification.set(request.body);
      audited(request, null, differences(before, next));
      if (next.unsafe_skip_verification)
        request.log.warn(
          { api_key_id: request.apiKeyId },
          'session verification turned off (unsafe_skip_verification): any browser may complete an authorization',
        );
      return next;
    },
  );
};
