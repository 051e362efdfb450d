/**
 * The engine as an OAuth 2.0 client of a provider, as small functions over oauth4webapi and apart
 * from storage: the authorization URL (RFC 6749 §4.1.1, PKCE S256 per RFC 7636), the callback's
 * validation and the code's redemption (§4.1.2-4.1.4, RFC 9207 `iss` where the issuer is known), and
 * the refresh (§6).
 */
import * as oauth from 'oauth4webapi';
import type { AuthProvider } from './providers.js';
import { isLoopback } from '@quiver/core';

/** The tokens of one grant, as the engine keeps them. */
export interface Grant {
  access_token: string;
  refresh_token?: string;
  expires_at: string | null;
  scopes: string[];
}

export const newState = () => oauth.generateRandomState();
export const newCodeVerifier = () => oauth.generateRandomCodeVerifier();

/** Where the person grants access. */
export function authorizationUrl(
  provider: AuthProvider,
  request: { state: string; codeVerifier: string; scopes: string[]; redirectUri: string },
): Promise<string> {
  const settings = provider.oauth2;
  return codeFlowUrl(settings.authorize_request.endpoint, {
    params: settings.authorize_request.params,
    clientId: settings.client_id,
    redirectUri: request.redirectUri,
    scope: request.scopes.join(settings.scope_delimiter),
    state: request.state,
    codeVerifier: settings.pkce.enabled ? request.codeVerifier : undefined,
  });
}

/**
 * An authorization request of the code flow (RFC 6749, section 4.1.1) at `endpoint`, after the server's own
 * `params`, with a PKCE challenge (RFC 7636, S256) when a verifier is given; an empty scope is left out.
 */
export async function codeFlowUrl(
  endpoint: string,
  request: { clientId: string; redirectUri: string; scope: string; state: string; codeVerifier?: string; params?: Record<string, string> },
): Promise<string> {
  const url = new URL(endpoint);
  for (const [name, value] of Object.entries(request.params ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', request.clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  if (request.scope) url.searchParams.set('scope', request.scope);
  url.searchParams.set('state', request.state);
  if (request.codeVerifier !== undefined) {
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(request.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.href;
}

/** Checks the provider's redirect and redeems its code; throws OAuthFailure with the reason in words. */
export async function redeemCode(
  provider: AuthProvider,
  query: URLSearchParams,
  expected: { state: string; codeVerifier: string; scopes: string[]; redirectUri: string },
): Promise<Grant> {
  const { as, client, auth, options } = clientOf(provider, 'token');
  try {
    // RFC 9207: an `iss` is checked against the issuer when the provider's issuer is known.
    if (!provider.oauth2.issuer) query.delete('iss');
    const params = oauth.validateAuthResponse(as, client, query, expected.state);
    const verifier = provider.oauth2.pkce.enabled ? expected.codeVerifier : oauth.nopkce;
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, expected.redirectUri, verifier, options);
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    return {
      access_token: result.access_token,
      ...(result.refresh_token && { refresh_token: result.refresh_token }),
      expires_at: expiresAt(result.expires_in),
      scopes: grantedScopes(provider, expected.scopes, result.scope),
    };
  } catch (error) {
    throw new OAuthFailure(describe(error), false);
  }
}

/** A new access token for a refresh token; OAuthFailure with `grantGone` when the provider says the grant is gone. */
export async function refreshGrant(provider: AuthProvider, refreshToken: string, held: string[]): Promise<Omit<Grant, 'scopes'> & { scopes?: string[] }> {
  const { as, client, auth, options } = clientOf(provider, 'refresh');
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, options);
    const result = await oauth.processRefreshTokenResponse(as, client, response);
    return {
      access_token: result.access_token,
      // Without a new refresh token the old one stays good (RFC 6749 §6).
      ...(result.refresh_token && { refresh_token: result.refresh_token }),
      expires_at: expiresAt(result.expires_in),
      // Without `scope` the scopes are those of the original grant (RFC 6749 §5.1).
      ...(result.scope !== undefined && { scopes: grantedScopes(provider, held, result.scope) }),
    };
  } catch (error) {
    throw new OAuthFailure(describe(error), error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant');
  }
}

/** Why a flow or a refresh failed, in words fit for the user: the server's error code, never a token. */
export class OAuthFailure extends Error {
  constructor(
    reason: string,
    /** The grant is revoked, expired or used: only a new authorization helps. */
    readonly grantGone: boolean,
  ) {
    super(reason);
  }
}

/** oauth4webapi's view of the provider, for its token endpoint or its refresh endpoint. */
function clientOf(provider: AuthProvider, use: 'token' | 'refresh') {
  const settings = provider.oauth2;
  const request = (use === 'refresh' && settings.refresh_request) || settings.token_request;
  const endpoint = new URL(request.endpoint);
  const as: oauth.AuthorizationServer = {
    issuer: settings.issuer ?? endpoint.origin,
    authorization_endpoint: settings.authorize_request.endpoint,
    token_endpoint: request.endpoint,
  };
  const client: oauth.Client = { client_id: settings.client_id };
  const secret = provider.clientSecret;
  const method = secret ? (request.auth_method ?? 'client_secret_basic') : 'none';
  const auth =
    method === 'client_secret_post' ? oauth.ClientSecretPost(secret!) : method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret!) : oauth.None();
  const options = {
    ...requestOptions(endpoint, 30_000),
    [oauth.customFetch]: tokenEndpointFetch,
    ...(request.params && { additionalParameters: request.params }),
  };
  return { as, client, auth, options };
}

/**
 * What every request of the engine's OAuth clients (to a provider, or to the identity provider) carries:
 * plain HTTP only to a server on the loopback interface, and a deadline.
 */
export function requestOptions(url: URL, timeoutMs: number) {
  return { [oauth.allowInsecureRequests]: url.protocol === 'http:' && isLoopback(url), signal: AbortSignal.timeout(timeoutMs) };
}

const expiresAt = (expiresIn: number | undefined) => (expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000).toISOString());

/** The response's `scope` when it has one (delimited by spaces, or by commas as GitHub answers). */
function grantedScopes(provider: AuthProvider, requested: string[], answered: string | undefined): string[] {
  if (answered === undefined || provider.preset?.grantedScopes === 'requested') return requested;
  return answered.split(/[\s,]+/).filter(Boolean);
}

function describe(error: unknown): string {
  if (error instanceof oauth.AuthorizationResponseError || error instanceof oauth.ResponseBodyError) {
    return error.error_description ? `${error.error} (${error.error_description})` : error.error;
  }
  if (error instanceof oauth.OperationProcessingError) return `invalid response from the provider: ${error.message}`;
  return `the provider could not be reached (${(error as Error)?.message ?? 'unknown error'})`;
}

/**
 * Token endpoint responses as RFC 6749 §5 has them, from providers that answer otherwise: an error
 * with status 200 (GitHub) becomes a 400; a missing `token_type` (ClickUp) is `bearer`; a
 * form-encoded body is read as JSON. An ID token is dropped: the engine is an OAuth 2.0 client, not
 * an OpenID Connect relying party, and does not use it.
 */
async function tokenEndpointFetch(url: string, init: oauth.CustomFetchOptions<'POST', URLSearchParams>): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    if (/application\/x-www-form-urlencoded|text\/plain/.test(response.headers.get('content-type') ?? '')) body = Object.fromEntries(new URLSearchParams(text));
  }
  if (!body) return new Response(text, { status: response.status, headers: response.headers });
  let status = response.status;
  if (status === 200 && typeof body.error === 'string' && body.access_token === undefined) status = 400;
  if (typeof body.access_token === 'string' && body.token_type === undefined) body.token_type = 'bearer';
  delete body.id_token;
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(JSON.stringify(body), { status, headers });
}
