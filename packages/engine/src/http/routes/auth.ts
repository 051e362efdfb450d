/**
 * Users' authorizations: start one (for scopes, or for a tool), wait for it, confirm the user behind
 * the browser, and the OAuth callback the provider redirects that browser to (public: no API key).
 */
import { qualifiedName } from '@quiver/core';
import type { Routes } from '../app.js';
import { invalid, notFound } from '../../errors.js';
import { actingUser, anyRole, policyFor, serviceRoles } from '../access.js';
import { errorSchema } from '../errors.js';
import { offeredEntry } from './tools.js';

const authorizationResponse = {
  type: 'object',
  required: ['id', 'status', 'scopes', 'provider_id', 'user_id'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['not_started', 'pending', 'completed', 'failed'] },
    url: { type: 'string', description: 'Where the user grants access, while pending.' },
    scopes: { type: 'array', items: { type: 'string' } },
    provider_id: { type: 'string' },
    user_id: { type: 'string' },
  },
} as const;

const responses = { 200: authorizationResponse, 400: errorSchema, 404: errorSchema };

interface AuthorizeBody {
  auth_requirement: { id?: string; provider_id?: string; provider_type?: string; oauth2?: { scopes?: string[] } };
  user_id: string;
  next_uri?: string;
}

export const authRoutes: Routes = (app, engine) => {
  const { oauth } = engine;

  app.post<{ Body: AuthorizeBody }>(
    '/v1/auth/authorize',
    {
      config: anyRole,
      schema: {
        operationId: 'auth-authorize',
        summary: "Start an authorization of the user with a provider, for scopes (answers completed when the user's token covers them)",
        body: {
          type: 'object',
          required: ['auth_requirement', 'user_id'],
          properties: {
            auth_requirement: {
              type: 'object',
              properties: {
                id: { type: 'string', description: "The auth provider's id (one of id or provider_id)." },
                provider_id: { type: 'string', description: 'The service, e.g. github.' },
                provider_type: { type: 'string', enum: ['oauth2'], default: 'oauth2' },
                oauth2: { type: 'object', properties: { scopes: { type: 'array', items: { type: 'string' }, default: [] } } },
              },
            },
            user_id: { type: 'string', minLength: 1 },
            next_uri: { type: 'string', description: 'Where the browser goes once the authorization completes.' },
          },
        },
        response: responses,
      },
    },
    async (request) => {
      const { auth_requirement: requirement, next_uri } = request.body;
      const user_id = actingUser(request, request.body.user_id)!;
      const key = requirement.id ?? requirement.provider_id;
      if (!key) throw invalid('auth_requirement needs an id or a provider_id');
      return oauth.authorize(user_id, key, requirement.oauth2?.scopes ?? [], checkedNextUri(next_uri));
    },
  );

  app.post<{ Body: { tool_name: string; tool_version?: string; user_id?: string; next_uri?: string } }>(
    '/v1/tools/authorize',
    {
      config: anyRole,
      schema: {
        operationId: 'tool-authorize',
        summary: 'Start the authorization a tool needs for the user',
        body: {
          type: 'object',
          required: ['tool_name'],
          properties: {
            tool_name: { type: 'string', minLength: 1 },
            tool_version: { type: 'string' },
            user_id: { type: 'string' },
            next_uri: { type: 'string' },
          },
        },
        response: responses,
      },
    },
    async (request) => {
      const { tool_name, tool_version, next_uri } = request.body;
      const user_id = actingUser(request, request.body.user_id);
      const entry = await offeredEntry(engine, tool_name, tool_version, policyFor(engine, request.caller!.role));
      const requirement = entry.tool.requirements.oauth2;
      if (!requirement) return { id: '', status: 'completed', scopes: [], provider_id: '', user_id: user_id ?? '' };
      if (!user_id) throw invalid(`${qualifiedName(entry.tool)} acts for a user: pass user_id`);
      return oauth.authorize(user_id, requirement.provider, requirement.scopes, checkedNextUri(next_uri));
    },
  );

  app.get<{ Querystring: { id: string; wait?: number } }>(
    '/v1/auth/status',
    {
      config: anyRole,
      schema: {
        operationId: 'auth-status',
        summary: 'The state of an authorization; with wait, answers once it completes or fails, or after wait seconds (at most 59)',
        querystring: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string', minLength: 1 }, wait: { type: 'integer', minimum: 0, description: 'Seconds to wait (at most 59).' } },
        },
        response: responses,
      },
    },
    async (request) => {
      const authorization = await oauth.status(request.query.id, request.query.wait ?? 0);
      // A user key sees its own user's authorizations only; another's is not found, as if absent.
      const ownUser = request.caller!.role !== 'user' || authorization?.user_id === request.caller!.user_id;
      if (!authorization || !ownUser) throw notFound(`authorization ${request.query.id}`);
      return authorization;
    },
  );

  app.post<{ Body: { flow_id: string; user_id: string } }>(
    '/v1/auth/confirm_user',
    {
      // Only the application, which knows who is signed in, vouches for a browser: never a user key.
      config: serviceRoles,
      schema: {
        operationId: 'auth-confirm-user',
        summary: "Session verification: the application confirms that its signed-in user is the authorization's user",
        body: {
          type: 'object',
          required: ['flow_id', 'user_id'],
          properties: { flow_id: { type: 'string', minLength: 1 }, user_id: { type: 'string', minLength: 1 } },
        },
        response: {
          200: { type: 'object', required: ['auth_id'], properties: { auth_id: { type: 'string' }, next_uri: { type: 'string' } } },
          403: errorSchema,
          404: errorSchema,
        },
      },
    },
    async (request) => oauth.confirmUser(request.body.flow_id, request.body.user_id),
  );

  app.get(
    '/v1/oauth/callback',
    {
      config: { public: true },
      schema: { operationId: 'oauth-callback', summary: "The provider's redirect back to the engine, in the user's browser", security: [] },
    },
    async (request, reply) => {
      const query = new URL(request.url, 'http://engine').searchParams;
      const outcome = await oauth.callback(query);
      reply.header('cache-control', 'no-store');
      if ('redirect' in outcome) return reply.redirect(outcome.redirect, 303);
      return reply.type('text/plain; charset=utf-8').send(outcome.text);
    },
  );
};

/** Only a web address: anything else (javascript:, data:) never reaches a redirect. */
function checkedNextUri(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // fall through
  }
  throw invalid(`next_uri must be an http(s) URL, got '${value}'`);
}
