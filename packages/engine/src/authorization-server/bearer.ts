/**
 * Who calls the MCP endpoint: a script with an API key (the acting user in `Quiver-User-ID`, as
 * before), or a person's MCP client with an access token of this engine, whose user is the token's
 * and whose scopes narrow what the session may do. Anything else gets 401 with a `WWW-Authenticate`
 * challenge pointing at the protected-resource metadata (RFC 9728, RFC 6750 §3); a token whose scope
 * falls short of a call gets 403 `insufficient_scope`, naming the scope to ask for (the MCP
 * authorization specification's step-up).
 */
import type { ServingPolicy } from '@quiver/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine.js';
import { bearerToken } from '../http/bearer-token.js';
import { LastUse } from '../store/last-use.js';
import { grantStands, grantUsed } from './grants.js';
import { toolScopes, type AuthorizationServer, type ToolScope } from './authorization-server.js';

/** A caller signed in through the authorization server: always one user, never from a header. */
export interface UserCaller {
  role: 'user';
  userId: string;
  scopes: ToolScope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request carries an access token of the engine's authorization server. */
    oauthSession?: UserCaller;
  }
}

/** Answers the request with a Bearer challenge (RFC 6750 §3): 401 to sign in, 403 to ask for more scope. */
export function challenge(server: AuthorizationServer, request: FastifyRequest, reply: FastifyReply, status: 401 | 403, error?: string, description?: string) {
  const path = request.url.split('?')[0]!;
  const params = [`resource_metadata="${server.issuer}/.well-known/oauth-protected-resource${path}"`, `scope="${Object.keys(toolScopes).join(' ')}"`];
  if (error) params.unshift(`error="${error}"`, `error_description="${description}"`);
  return reply
    .status(status)
    .header('www-authenticate', `Bearer ${params.join(', ')}`)
    .send({ name: status === 401 ? 'unauthorized' : 'forbidden', message: description ?? 'Sign in: an access token or an API key is required.' });
}

/** The route hook of the MCP endpoint: an API key or an access token for this very path. */
export function mcpAuthentication(engine: Engine) {
  const server = engine.authorizationServer;
  const db = engine.store.db;
  const used = new LastUse((grantId, at) => grantUsed(db, grantId, at));
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const refuse = (status: 401 | 403, error?: string, description?: string) => challenge(server, request, reply, status, error, description);
    const path = request.url.split('?')[0]!;
    const header = request.headers.authorization?.trim() ?? '';
    const token = bearerToken(header);
    // An API key may come raw, as on every other route; an access token only as a bearer token.
    const key = token ?? (header || undefined);
    if (!key) return refuse(401);
    const identity = await engine.apiKeys.verify(key);
    if (identity) {
      // An API key: its role and user, as on every other route.
      request.apiKeyId = identity.id;
      request.caller = identity;
      return;
    }
    if (!token) return refuse(401, 'invalid_request', 'Send the access token as Authorization: Bearer <token>.');
    const provider = await server.provider();
    const found = await provider.AccessToken.find(token);
    if (!found || found.isExpired) return refuse(401, 'invalid_token', 'The access token is unknown, expired or revoked.');
    // RFC 8707: a token is good only for the resource it was issued for.
    const audiences = [found.aud ?? []].flat();
    if (!audiences.includes(server.resource(path))) return refuse(401, 'invalid_token', 'The access token was issued for another resource.');
    // Read on every request, so that a grant ended by an admin, a revoked key or a replay ends its tokens at once in every process.
    if (!found.grantId || !(await grantStands(db, found.grantId))) return refuse(401, 'invalid_token', 'The access token belongs to a grant that has ended.');
    const scopes = (found.scope ?? '').split(' ').filter((scope): scope is ToolScope => scope in toolScopes);
    if (!scopes.length) return refuse(403, 'insufficient_scope', 'The access token grants no tool scope.');
    used.note(found.grantId);
    request.oauthSession = { role: 'user', userId: found.accountId, scopes };
  };
}

/** The serving policy of a session: the engine's, narrowed to read-only tools unless the session holds `tools:write`. */
export function sessionPolicy(policy: ServingPolicy, caller: UserCaller | undefined): ServingPolicy {
  if (!caller || caller.scopes.includes('tools:write') || policy.options.readOnly) return policy;
  return policy.narrowed({ readOnly: true, readOnlyBecause: readScopeOnly });
}

/** Why a tools:read session may call only tools that read, and what would let it do more. */
export const readScopeOnly = {
  reason: 'this session was signed in with the tools:read scope only',
  remedy: 'the user must sign in again allowing tools:write',
};
