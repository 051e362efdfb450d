/**
 * Built-in OAuth 2.0 settings of the services the toolkits call: the endpoints, scope delimiter, PKCE
 * support and client authentication each provider documents. An admin brings only a client id and
 * secret; a preset fills in the rest, and anything given explicitly wins.
 */

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface EndpointRequest {
  endpoint: string;
  /** Extra parameters for the request (the authorization URL's query, or the token request's body). */
  params?: Record<string, string>;
  /** How the client authenticates at a token endpoint (RFC 6749 §2.3.1). */
  auth_method?: ClientAuthMethod;
}

/** An auth provider's OAuth 2.0 settings, without the client secret (that is sealed on its own). */
export interface OAuth2Settings {
  client_id: string;
  authorize_request: EndpointRequest;
  token_request: EndpointRequest;
  /** Where refresh tokens are redeemed, when not at the token endpoint. */
  refresh_request?: EndpointRequest;
  scope_delimiter: ' ' | ',';
  pkce: { enabled: boolean; code_challenge_method: 'S256' };
  /**
   * The authorization server's issuer identifier. When set, an `iss` parameter on the callback must
   * match it (RFC 9207, mix-up defence); when unset, `iss` is not checked.
   */
  issuer?: string;
}

export interface Preset {
  description: string;
  oauth2: Omit<OAuth2Settings, 'client_id'>;
  /** Scopes every authorization asks for, e.g. the one that yields a refresh token. */
  alwaysScopes?: string[];
  /**
   * Whose word counts for the granted scopes: the token response's `scope` (RFC 6749 §5.1, the
   * default), or the request's, for a server whose `scope` answer is written differently from what
   * was asked for.
   */
  grantedScopes?: 'response' | 'requested';
}

const pkce = (enabled: boolean) => ({ enabled, code_challenge_method: 'S256' as const });

export const presets: Record<string, Preset> = {
  // https://developers.hubspot.com/docs/api/oauth-quickstart-guide: credentials in the form body;
  // the token endpoint also redeems refresh tokens; no PKCE documented.
  hubspot: {
    description: 'HubSpot',
    oauth2: {
      authorize_request: { endpoint: 'https://app.hubspot.com/oauth/authorize' },
      token_request: { endpoint: 'https://api.hubapi.com/oauth/v1/token', auth_method: 'client_secret_post' },
      scope_delimiter: ' ',
      pkce: pkce(false),
    },
  },
  // https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps: scopes
  // space-delimited in the request (comma-delimited in the answer), credentials in the body, PKCE
  // (S256) supported; expiring user tokens of GitHub Apps refresh at the same endpoint.
  github: {
    description: 'GitHub',
    oauth2: {
      authorize_request: { endpoint: 'https://github.com/login/oauth/authorize' },
      token_request: { endpoint: 'https://github.com/login/oauth/access_token', auth_method: 'client_secret_post' },
      scope_delimiter: ' ',
      pkce: pkce(true),
    },
  },
  // https://clickup.com/api/developer-portal/authentication: no scopes, tokens that do not expire,
  // no refresh, no PKCE.
  clickup: {
    description: 'ClickUp',
    oauth2: {
      authorize_request: { endpoint: 'https://app.clickup.com/api' },
      token_request: { endpoint: 'https://api.clickup.com/api/v2/oauth/token', auth_method: 'client_secret_post' },
      scope_delimiter: ' ',
      pkce: pkce(false),
    },
  },
  // https://developers.dropbox.com/oauth-guide: PKCE (S256); a refresh token only with
  // token_access_type=offline; the token endpoint redeems refresh tokens.
  dropbox: {
    description: 'Dropbox',
    oauth2: {
      authorize_request: { endpoint: 'https://www.dropbox.com/oauth2/authorize', params: { token_access_type: 'offline' } },
      token_request: { endpoint: 'https://api.dropboxapi.com/oauth2/token', auth_method: 'client_secret_basic' },
      scope_delimiter: ' ',
      pkce: pkce(true),
    },
  },
  // https://developers.figma.com/docs/rest-api/oauth-apps: client credentials as HTTP Basic, PKCE
  // (S256), refresh tokens at their own endpoint.
  figma: {
    description: 'Figma',
    oauth2: {
      authorize_request: { endpoint: 'https://www.figma.com/oauth' },
      token_request: { endpoint: 'https://api.figma.com/v1/oauth/token', auth_method: 'client_secret_basic' },
      refresh_request: { endpoint: 'https://api.figma.com/v1/oauth/refresh', auth_method: 'client_secret_basic' },
      scope_delimiter: ' ',
      pkce: pkce(true),
    },
  },
  // https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow: PKCE (S256), a
  // refresh token only with offline_access, and a `scope` answer that names resources differently
  // from the request (and never lists offline_access).
  microsoft: {
    description: 'Microsoft',
    oauth2: {
      authorize_request: { endpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize' },
      token_request: { endpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/token', auth_method: 'client_secret_post' },
      scope_delimiter: ' ',
      pkce: pkce(true),
    },
    alwaysScopes: ['offline_access'],
    grantedScopes: 'requested',
  },
};
