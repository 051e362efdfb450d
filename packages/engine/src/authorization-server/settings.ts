/**
 * The authorization server's settings and their defaults. The `quiver` command resolves them from its
 * environment (QUIVER_OIDC_*, QUIVER_AUTH_*); the engine receives them resolved.
 */

export interface IdentityProviderSettings {
  issuer: string;
  clientId: string;
  /** None: a public client, PKCE only. */
  clientSecret?: string;
  /** The scopes asked of the provider. */
  scopes: string[];
  /** The provider's name on the sign-in page. */
  name: string;
}

export interface AuthorizationServerSettings {
  /** The OpenID Connect provider people sign in with; none: user keys only. */
  identityProvider?: IdentityProviderSettings;
  /** Until API keys carry their own user: the user a key signs in as (single-person setups). */
  keyUser?: string;
  /** Access token lifetime, in seconds. */
  accessTokenTtl: number;
  /** Refresh token lifetime, in seconds. */
  refreshTokenTtl: number;
  /** Client metadata documents accepted over http on loopback addresses and from any address (development only). */
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

/** The scopes asked of an identity provider when none are given. */
export const defaultIdentityProviderScopes: readonly string[] = ['openid'];

/** What the authorization server uses where it is given nothing (besides `defaultRateLimits`): no identity provider, no key user. */
export const authorizationServerDefaults = {
  accessTokenTtl: 600,
  refreshTokenTtl: 30 * 24 * 3600,
  insecureClientDocuments: false,
} as const;

/** The settings given, the defaults filling in the rest. */
export function authorizationServerSettings(settings: Partial<AuthorizationServerSettings> = {}): AuthorizationServerSettings {
  return { ...authorizationServerDefaults, rateLimits: { ...defaultRateLimits }, ...settings };
}
