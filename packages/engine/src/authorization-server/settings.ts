/**
 * The authorization server's settings, from the environment:
 *
 *   QUIVER_OIDC_ISSUER            the OpenID Connect identity provider people sign in with (its issuer URL)
 *   QUIVER_OIDC_CLIENT_ID         the engine's client id at that provider
 *   QUIVER_OIDC_CLIENT_SECRET     its client secret (unset: a public client, PKCE only)
 *   QUIVER_OIDC_SCOPES            the scopes asked of the provider (default `openid`)
 *   QUIVER_OIDC_NAME              the provider's name on the sign-in page (default: its host)
 *   QUIVER_AUTH_KEY_USER          signing in with an API key signs in as this user id (unset: off)
 *   QUIVER_AUTH_ACCESS_TOKEN_TTL  access token lifetime in seconds (default 600)
 *   QUIVER_AUTH_REFRESH_TOKEN_TTL refresh token lifetime in seconds (default 30 days)
 *   QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS  `1` accepts client metadata documents over http on
 *                                 loopback addresses and from any address (development only)
 *   QUIVER_AUTH_RATE_LIMIT        requests per minute per client address at each endpoint, e.g.
 *                                 `register:10,authorize:60,token:60` (the default); 0 turns one off
 */

export interface IdentityProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes: string[];
  name: string;
}

export interface AuthorizationServerSettings {
  identityProvider?: IdentityProviderSettings;
  /** Until API keys carry their own user: the user a key signs in as (single-person setups). */
  keyUser?: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  insecureClientDocuments: boolean;
  /** Requests per minute per client address at the unauthenticated endpoints; 0: no limit. */
  rateLimits: RateLimits;
}

export interface RateLimits {
  register: number;
  authorize: number;
  token: number;
}

export const defaultRateLimits: RateLimits = { register: 10, authorize: 60, token: 60 };

export function authorizationServerSettings(env: NodeJS.ProcessEnv, overrides: Partial<AuthorizationServerSettings> = {}): AuthorizationServerSettings {
  const issuer = env.QUIVER_OIDC_ISSUER?.trim();
  const clientId = env.QUIVER_OIDC_CLIENT_ID?.trim();
  if (issuer && !clientId) throw new Error('QUIVER_OIDC_CLIENT_ID is required with QUIVER_OIDC_ISSUER');
  const identityProvider: IdentityProviderSettings | undefined =
    issuer && clientId
      ? {
          issuer,
          clientId,
          clientSecret: env.QUIVER_OIDC_CLIENT_SECRET || undefined,
          scopes: (env.QUIVER_OIDC_SCOPES ?? 'openid').split(/[\s,]+/).filter(Boolean),
          name: env.QUIVER_OIDC_NAME || hostOf(issuer, 'QUIVER_OIDC_ISSUER'),
        }
      : undefined;
  return {
    identityProvider,
    keyUser: env.QUIVER_AUTH_KEY_USER?.trim() || undefined,
    accessTokenTtl: seconds(env, 'QUIVER_AUTH_ACCESS_TOKEN_TTL', 600),
    refreshTokenTtl: seconds(env, 'QUIVER_AUTH_REFRESH_TOKEN_TTL', 30 * 24 * 3600),
    insecureClientDocuments: env.QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS === '1',
    rateLimits: rateLimits(env.QUIVER_AUTH_RATE_LIMIT),
    ...overrides,
  };
}

/** `register:10,authorize:60,token:60`: the endpoints named are set, the others keep their default. */
function rateLimits(setting: string | undefined): RateLimits {
  const limits = { ...defaultRateLimits };
  for (const part of (setting ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name, value] = part.split(':').map((item) => item.trim());
    const perMinute = Number(value);
    if (!name || !(name in limits) || value === undefined || !Number.isInteger(perMinute) || perMinute < 0) {
      throw new Error(`QUIVER_AUTH_RATE_LIMIT must look like register:10,authorize:60,token:60 (requests per minute, 0 for none), got '${setting}'`);
    }
    limits[name as keyof RateLimits] = perMinute;
  }
  return limits;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a whole number of seconds, got '${value}'`);
  return parsed;
}

function hostOf(url: string, name: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new Error(`${name} must be a URL, got '${url}'`);
  }
}
