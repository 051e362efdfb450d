/** How the engine gets a user's OAuth token for a tool: the contract the OAuth module fulfils. */

export interface AuthorizationResponse {
  id: string;
  status: 'not_started' | 'pending' | 'completed' | 'failed';
  url?: string;
  scopes: string[];
  provider_id: string;
  user_id: string;
  context?: { token?: string; user_info?: Record<string, unknown> };
}

export interface Credentials {
  /**
   * A valid access token of the user for the provider, covering the scopes (refreshed when close to
   * expiry); or, when there is none, a pending authorization whose URL the user must visit.
   */
  token(userId: string, providerId: string, scopes: string[]): Promise<{ token: string } | { authorization: AuthorizationResponse }>;
  /** What the user holds, read once for a whole listing: does a token cover these scopes? */
  grants(userId: string): Promise<(providerId: string, scopes: string[]) => boolean>;
}

/** The sandbox's credentials: every user holds the token its emulators accept, for every provider. */
export function sandboxCredentials(token: string): Credentials {
  return { token: async () => ({ token }), grants: async () => () => true };
}
