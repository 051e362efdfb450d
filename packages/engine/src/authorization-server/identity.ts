/**
 * How a person proves who they are before consenting: an OpenID Connect identity provider (the
 * engine is its relying party: authorization code with PKCE, state and nonce, through oauth4webapi
 * as the engine's other OAuth client code), or, for a single-person setup, a user API key.
 *
 * The user id of the engine's tokens is the ID token's `sub`: the identity provider's stable,
 * never reassigned identifier of the person (an email address can change hands; `sub` cannot). One
 * engine trusts one identity provider, so `sub` alone is unique.
 */
import type { Kysely } from 'kysely';
import * as oauth from 'oauth4webapi';
import { codeFlowUrl, requestOptions } from '../auth/oauth-client.js';
import type { ApiKeyVerifier } from '../security/api-keys.js';
import type { Vault } from '../security/vault.js';
import type { Database } from '../store/schema.js';
import { DatabaseAdapter } from './adapter.js';
import type { IdentityProviderSettings } from './settings.js';

/** How long the person has at the identity provider. */
const SIGN_IN_TTL_S = 10 * 60;
/** How long a request to the identity provider may take. */
const TIMEOUT_MS = 15_000;

/** A sign-in under way: which interaction it belongs to, and the secrets the callback checks. */
interface PendingSignIn {
  uid: string;
  nonce: string;
  verifierCiphertext: string;
}

export class IdentityProvider {
  private discovered?: Promise<oauth.AuthorizationServer>;
  private readonly pending: DatabaseAdapter;
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;

  constructor(
    readonly settings: IdentityProviderSettings,
    db: Kysely<Database>,
    private readonly vault: Vault,
    private readonly redirectUri: () => string,
  ) {
    this.pending = new DatabaseAdapter(db, vault, 'SignIn');
    this.client = { client_id: settings.clientId };
    this.auth = settings.clientSecret ? oauth.ClientSecretBasic(settings.clientSecret) : oauth.None();
  }

  /** Where to send the browser to sign in for interaction `uid`, and the state its cookie must carry back. */
  async start(uid: string): Promise<{ url: string; state: string }> {
    const as = await this.metadata();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const verifier = oauth.generateRandomCodeVerifier();
    const signIn: PendingSignIn = { uid, nonce, verifierCiphertext: this.vault.seal(verifier) };
    await this.pending.upsert(state, { ...signIn }, SIGN_IN_TTL_S);
    const url = await codeFlowUrl(as.authorization_endpoint!, {
      params: { nonce },
      clientId: this.client.client_id,
      redirectUri: this.redirectUri(),
      scope: this.settings.scopes.join(' '),
      state,
      codeVerifier: verifier,
    });
    return { url, state };
  }

  /**
   * The identity provider's redirect back: `browserState` is the state the browser's cookie holds, so
   * a response cannot be replayed into another browser. Answers the interaction and the person's subject.
   */
  async finish(query: URLSearchParams, browserState: string | undefined): Promise<{ uid: string; subject: string }> {
    const state = query.get('state') ?? '';
    const stored = state ? ((await this.pending.find(state)) as (PendingSignIn & { consumed?: number }) | undefined) : undefined;
    if (!stored || stored.consumed) throw new SignInError('This sign-in is unknown or was used already: start again from the client.');
    await this.pending.consume(state);
    if (browserState !== state) throw new SignInError('This sign-in was started in another browser: start again from the client.');
    const as = await this.metadata();
    const options = requestOptions(new URL(as.issuer), TIMEOUT_MS);
    try {
      const params = oauth.validateAuthResponse(as, this.client, query, state);
      const verifier = this.vault.open(stored.verifierCiphertext);
      const response = await oauth.authorizationCodeGrantRequest(as, this.client, this.auth, params, this.redirectUri(), verifier, options);
      const result = await oauth.processAuthorizationCodeResponse(as, this.client, response, { expectedNonce: stored.nonce, requireIdToken: true });
      const subject = oauth.getValidatedIdTokenClaims(result)?.sub;
      if (!subject) throw new SignInError('The identity provider did not say who signed in.');
      return { uid: stored.uid, subject };
    } catch (error) {
      if (error instanceof SignInError) throw error;
      throw new SignInError(`Signing in with ${this.settings.name} failed: ${describe(error)}.`);
    }
  }

  private metadata(): Promise<oauth.AuthorizationServer> {
    this.discovered ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(issuer, TIMEOUT_MS) });
      return oauth.processDiscoveryResponse(issuer, response);
    })().catch((error: unknown) => {
      this.discovered = undefined;
      throw new SignInError(`${this.settings.name} could not be reached: ${describe(error)}.`);
    });
    return this.discovered;
  }
}

/** A sign-in that cannot go on; its message is for the person in the browser. */
export class SignInError extends Error {}

/** Who an API key speaks for. */
export interface KeyIdentity {
  keyId: string;
  role: 'admin' | 'service' | 'user';
  userId?: string;
}

/**
 * Who signs in with an API key: a user key's own user. For a single-person setup, an admin key signs
 * in as the user QUIVER_AUTH_KEY_USER (`keyUser`) names, when it is set; service keys never sign in.
 */
export async function verifyApiKey(keys: ApiKeyVerifier, key: string, keyUser: string | undefined): Promise<KeyIdentity | undefined> {
  const identity = await keys.verify(key);
  if (!identity) return undefined;
  const keyId = identity.id;
  if (identity.role === 'user' && identity.user_id) return { keyId, role: 'user', userId: identity.user_id };
  if (identity.role === 'admin' && keyUser) return { keyId, role: 'user', userId: keyUser };
  return { keyId, role: identity.role };
}

function describe(error: unknown): string {
  if (error instanceof oauth.AuthorizationResponseError || error instanceof oauth.ResponseBodyError) return error.error_description ?? error.error;
  return (error as Error)?.message ?? 'unknown error';
}
