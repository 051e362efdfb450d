/** How the engine gets a user's OAuth token for a tool: the contract the OAuth module fulfils. */
import { qualifiedName, toolError, type Authorization, type CredentialResolver } from '@quiver/core';
import type { SecretStore } from '../secrets.js';
import { isDatabaseUnavailable } from '../store/outage.js';

export type AuthorizationResponse = Authorization;

export interface Credentials {
  /**
   * A valid access token of the user for the provider, covering the scopes (refreshed when close to
   * expiry); or, when there is none, a pending authorization whose URL the user must visit; or, when
   * the provider is not configured, what to configure.
   */
  token(userId: string, providerId: string, scopes: string[]): Promise<{ token: string } | { authorization: AuthorizationResponse } | { unconfigured: string }>;
  /** What the user holds, read once for a whole listing: does a token cover these scopes? */
  grants(userId: string): Promise<(providerId: string, scopes: string[]) => boolean>;
}

/** The sandbox's credentials: every user holds the token its emulators accept, for every provider. */
export function sandboxCredentials(token: string): Credentials {
  return { token: async () => ({ token }), grants: async () => () => true };
}

/**
 * A call's credentials in the engine: the acting user's OAuth token, and the secrets the tool declares.
 * While the database is away a call that needs them is refused with a retryable error saying so, before
 * anything is sent (not taken for a bug in the tool).
 */
export function engineCredentials(credentials: Credentials, secrets: SecretStore): CredentialResolver {
  const resolver = credentialsOf(credentials, secrets);
  return {
    async resolve(tool, userId, call) {
      try {
        return await resolver.resolve(tool, userId, call);
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        const message = `${qualifiedName(tool)} cannot get its credentials: the engine's database is unavailable for now. Nothing was sent; try again in a few seconds.`;
        return { refused: toolError('NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', message, { retry_after_ms: 5_000 }).error };
      }
    },
  };
}

function credentialsOf(credentials: Credentials, secrets: SecretStore): CredentialResolver {
  return {
    async resolve(tool, userId, call) {
      const oauth = tool.requirements.oauth2;
      let token: string | undefined;
      if (oauth) {
        // The hint names the way in the call came by: `user_id` over the HTTP API, the header over MCP.
        if (!userId) {
          const message = `${qualifiedName(tool)} acts for a user: ${call?.actingUserHint ?? 'pass user_id'}.`;
          return { refused: toolError('TOOL_RUNTIME_CONTEXT_REQUIRED', message).error };
        }
        const granted = await credentials.token(userId, oauth.provider, oauth.scopes);
        if ('unconfigured' in granted) return { refused: toolError('TOOL_REQUIREMENTS_NOT_MET', granted.unconfigured).error };
        if ('authorization' in granted) {
          const { url } = granted.authorization;
          const message = `${qualifiedName(tool)} needs the user's authorization with ${oauth.provider}${url ? `: ${url}` : '.'}`;
          return { refused: toolError('TOOL_REQUIREMENTS_NOT_MET', message).error, authorization: granted.authorization };
        }
        token = granted.token;
      }
      return { token, secrets: await secrets.reveal((tool.requirements.secrets ?? []).map((secret) => secret.key)) };
    },
  };
}
