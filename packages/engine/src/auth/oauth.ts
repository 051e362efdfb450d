/**
 * OAuth 2.0 for the engine's users: the authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636)
 * through oauth4webapi, tokens sealed at rest per (user, provider), refresh before expiry (RFC 6749
 * §6), and session verification of the browser that completes a flow.
 *
 * An authorization is a row in `authorizations`: its `state` is the only handle the browser brings
 * back, its PKCE code verifier is sealed, and it lives for AUTHORIZATION_TTL_MS. A connection is a
 * row in `connections`: the user's sealed access and refresh tokens for one auth provider, with the
 * scopes granted and the expiry.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import * as oauth from 'oauth4webapi';
import type { EngineBase } from '../engine.js';
import { HttpError } from '../http/errors.js';
import type { Vault } from '../security/vault.js';
import type { AuthorizationTable, ConnectionTable, Database } from '../store/schema.js';
import type { AuthorizationResponse, Credentials } from './credentials.js';
import { AuthProviders, invalid, isLoopback, type AuthProvider, type AuthProviderInput } from './providers.js';

/** How long the browser has to come back from the provider (and the verifier). */
export const AUTHORIZATION_TTL_MS = 15 * 60_000;
/** A pending authorization this recent is handed out again instead of a new one. */
const REUSE_MS = 5 * 60_000;
/** A token that expires sooner than this is refreshed first. */
const REFRESH_MARGIN_MS = 60_000;
/** How often a long poll looks at the database, for completions in other engine processes. */
const POLL_MS = 1_000;

export interface SessionVerification {
  unsafe_skip_verification: boolean;
  verifier_url: string | null;
}

/**
 * Verification is skipped until a verifier URL is set: the engine has no accounts of its own to check
 * a browser session against, so "on" needs the application's verifier (see `setSessionVerification`).
 */
export const defaultSessionVerification: SessionVerification = { unsafe_skip_verification: true, verifier_url: null };

/** What the callback answers the browser. */
export type CallbackOutcome = { redirect: string } | { text: string };

/** Tokens of one grant, as held between the callback and the user's confirmation. */
interface Grant {
  access_token: string;
  refresh_token?: string;
  expires_at: string | null;
  scopes: string[];
}

export interface ConnectionFilter {
  user_id?: string;
  provider_id?: string;
}

export class OAuth implements Credentials {
  readonly providers: AuthProviders;
  private readonly db: Kysely<Database>;
  private readonly vault: Vault;
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly refreshing = new Map<string, Promise<string | undefined>>();

  constructor(private readonly engine: EngineBase) {
    this.db = engine.store.db;
    this.vault = engine.vault;
    this.providers = new AuthProviders(this.db, this.vault, () => this.redirectUri);
  }

  /** The callback every provider redirects to; it follows the engine's public URL. */
  get redirectUri(): string {
    return `${this.engine.config.publicUrl ?? this.engine.address.url}/v1/oauth/callback`;
  }

  // ---- Credentials ----------------------------------------------------------------------------

  async token(userId: string, providerKey: string, scopes: string[]): Promise<{ token: string } | { authorization: AuthorizationResponse }> {
    const provider = await this.providers.resolve(providerKey);
    if (!provider) return { authorization: { id: '', status: 'failed', scopes, provider_id: providerKey, user_id: userId } };
    const connection = await this.connection(userId, provider.id);
    if (connection && covers(scopesOf(connection), scopes)) {
      const token = await this.freshToken(connection, provider);
      if (token) return { token };
    }
    return { authorization: await this.authorize(userId, provider, scopes, undefined, { force: true }) };
  }

  async grants(userId: string): Promise<(providerId: string, scopes: string[]) => boolean> {
    const [resolve, connections] = await Promise.all([
      this.providers.resolver(),
      this.db.selectFrom('connections').selectAll().where('user_id', '=', userId).execute(),
    ]);
    return (providerKey, scopes) => {
      const provider = resolve(providerKey);
      const connection = provider && connections.find((c) => c.provider_id === provider.id);
      return !!connection && usable(connection) && covers(scopesOf(connection), scopes);
    };
  }

  // ---- Authorization ----------------------------------------------------------------------------

  /**
   * Starts (or hands out again) an authorization for these scopes, asking for the union with what the
   * user holds already; or answers `completed` when the user's token covers them. `force` skips that
   * shortcut (the token is there but unusable).
   */
  async authorize(userId: string, providerOrKey: AuthProvider | string, wanted: string[], nextUri?: string, { force = false } = {}): Promise<AuthorizationResponse> {
    const provider = typeof providerOrKey === 'string' ? await this.providers.resolve(providerOrKey) : providerOrKey;
    if (!provider) throw new HttpError(404, 'not_found', `No auth provider for '${String(providerOrKey)}': add one with POST /v1/admin/auth_providers.`);
    const connection = await this.connection(userId, provider.id);
    const held = connection ? scopesOf(connection) : [];
    const now = new Date().toISOString();
    const row = (scopes: string[], status: string): AuthorizationTable => ({
      id: randomUUID(),
      user_id: userId,
      provider_id: provider.id,
      scopes: JSON.stringify(scopes),
      status,
      state: oauth.generateRandomState(),
      code_verifier_ciphertext: this.vault.seal(oauth.generateRandomCodeVerifier()),
      next_uri: nextUri ?? null,
      error: null,
      flow_id: null,
      grant_ciphertext: null,
      created_at: now,
      updated_at: now,
    });

    if (!force && connection && usable(connection) && covers(held, wanted)) {
      const completed = row(held, 'completed');
      await this.db.insertInto('authorizations').values(completed).execute();
      return this.response(completed, provider);
    }

    const scopes = union(held, provider.preset?.alwaysScopes ?? [], wanted);
    const recent = await this.db
      .selectFrom('authorizations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('provider_id', '=', provider.id)
      .where('status', '=', 'pending')
      .where('flow_id', 'is', null)
      .where('created_at', '>', new Date(Date.now() - REUSE_MS).toISOString())
      .orderBy('created_at', 'desc')
      .execute();
    const reusable = recent.find((r) => sameSet(JSON.parse(r.scopes) as string[], scopes) && r.next_uri === (nextUri ?? null));
    if (reusable) return this.response(reusable, provider);

    const pending = row(scopes, 'pending');
    await this.db.insertInto('authorizations').values(pending).execute();
    return this.response(pending, provider);
  }

  /** The authorization, once it is no longer pending or after `waitSeconds` (at most 59). */
  async status(id: string, waitSeconds = 0): Promise<AuthorizationResponse | undefined> {
    const deadline = Date.now() + Math.min(Math.max(waitSeconds, 0), 59) * 1000;
    for (;;) {
      const row = await this.authorization(id);
      if (!row) return undefined;
      if (row.status !== 'pending' || Date.now() >= deadline) return this.response(row);
      await this.changed(id, Math.min(POLL_MS, deadline - Date.now()));
    }
  }

  /** The provider's redirect back to the engine: validates it, redeems the code, stores the tokens. */
  async callback(query: URLSearchParams): Promise<CallbackOutcome> {
    const state = query.get('state');
    const row = state ? await this.db.selectFrom('authorizations').selectAll().where('state', '=', state).executeTakeFirst() : undefined;
    if (!row) throw new HttpError(400, 'invalid_state', 'The state does not belong to any authorization: start the authorization again.');
    if (row.status !== 'pending' || row.flow_id) throw new HttpError(400, 'invalid_state', `This authorization is ${row.flow_id ? 'awaiting confirmation' : row.status} already.`);
    if (expired(row)) throw await this.fail(row, 'the authorization expired before the provider answered');
    const providerRow = await this.providers.row(row.provider_id);
    if (!providerRow) throw await this.fail(row, `the auth provider ${row.provider_id} no longer exists`);
    const provider = this.providers.open(providerRow);
    const { as, client, auth, options } = this.clientOf(provider, 'token');

    let params: URLSearchParams;
    try {
      // RFC 9207: an `iss` is checked against the issuer when the provider's issuer is known.
      if (!provider.oauth2.issuer) query.delete('iss');
      params = oauth.validateAuthResponse(as, client, query, row.state);
    } catch (error) {
      throw await this.fail(row, describe(error));
    }

    let grant: Grant;
    try {
      const verifier = provider.oauth2.pkce.enabled ? this.vault.open(row.code_verifier_ciphertext) : oauth.nopkce;
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, this.redirectUri, verifier, options);
      const result = await oauth.processAuthorizationCodeResponse(as, client, response);
      grant = {
        access_token: result.access_token,
        ...(result.refresh_token && { refresh_token: result.refresh_token }),
        expires_at: expiresAt(result.expires_in),
        scopes: grantedScopes(provider, JSON.parse(row.scopes) as string[], result.scope),
      };
    } catch (error) {
      throw await this.fail(row, describe(error));
    }

    const verification = await this.sessionVerification();
    if (!verification.unsafe_skip_verification && verification.verifier_url) {
      // The tokens wait, sealed, until the application confirms the browser belongs to the user.
      const flowId = randomBytes(24).toString('base64url');
      await this.db
        .updateTable('authorizations')
        .set({ flow_id: flowId, grant_ciphertext: this.vault.seal(JSON.stringify(grant)), updated_at: new Date().toISOString() })
        .where('id', '=', row.id)
        .execute();
      const verifier = new URL(verification.verifier_url);
      verifier.searchParams.set('flow_id', flowId);
      return { redirect: verifier.href };
    }
    await this.complete(row, grant);
    return row.next_uri ? { redirect: row.next_uri } : { text: 'Authorization complete. You can close this window.' };
  }

  /** The application vouches that its signed-in user is the one the flow was started for. */
  async confirmUser(flowId: string, userId: string): Promise<{ auth_id: string; next_uri?: string }> {
    const row = await this.db.selectFrom('authorizations').selectAll().where('flow_id', '=', flowId).where('status', '=', 'pending').executeTakeFirst();
    if (!row?.grant_ciphertext) throw new HttpError(404, 'not_found', 'No authorization awaits confirmation with this flow_id.');
    if (expired(row)) throw await this.fail(row, 'the authorization expired before the user was confirmed');
    if (row.user_id !== userId) {
      await this.fail(row, 'session verification failed: the browser that completed the flow belongs to another user');
      throw new HttpError(403, 'forbidden', 'The user does not match the user this authorization was started for.');
    }
    await this.complete(row, JSON.parse(this.vault.open(row.grant_ciphertext)) as Grant);
    return { auth_id: row.id, ...(row.next_uri && { next_uri: row.next_uri }) };
  }

  // ---- Session verification ---------------------------------------------------------------------

  async sessionVerification(): Promise<SessionVerification> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', 'session_verification').executeTakeFirst();
    return row ? { ...defaultSessionVerification, ...(JSON.parse(row.value) as SessionVerification) } : defaultSessionVerification;
  }

  /**
   * Either `unsafe_skip_verification: true`, or a `verifier_url` (which turns verification on): the
   * callback then sends the browser to `verifier_url?flow_id=...`, and the application confirms its
   * signed-in user with POST /v1/auth/confirm_user before the tokens are stored.
   */
  async setSessionVerification(change: Partial<SessionVerification>): Promise<SessionVerification> {
    const current = await this.sessionVerification();
    if (change.unsafe_skip_verification === true && change.verifier_url) throw invalid('set either unsafe_skip_verification: true or a verifier_url, not both');
    let next: SessionVerification;
    if (change.unsafe_skip_verification === true) next = { unsafe_skip_verification: true, verifier_url: null };
    else if (change.verifier_url) next = { unsafe_skip_verification: false, verifier_url: checkedVerifierUrl(change.verifier_url) };
    else if (change.unsafe_skip_verification === false) next = { ...current, unsafe_skip_verification: false };
    else next = current;
    if (!next.unsafe_skip_verification && !next.verifier_url) throw invalid('verification needs a verifier_url: the engine has no user sessions of its own to check');
    const value = JSON.stringify(next);
    await this.db
      .insertInto('settings')
      .values({ key: 'session_verification', value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
    return next;
  }

  // ---- Connections ------------------------------------------------------------------------------

  async connections(filter: ConnectionFilter) {
    let query = this.db
      .selectFrom('connections as c')
      .leftJoin('auth_providers as p', 'p.id', 'c.provider_id')
      .select(['c.id', 'c.user_id', 'c.provider_id', 'c.scopes', 'c.expires_at', 'c.refresh_token_ciphertext', 'p.description'])
      .orderBy('c.created_at')
      .orderBy('c.id');
    if (filter.user_id) query = query.where('c.user_id', '=', filter.user_id);
    if (filter.provider_id) {
      const key = filter.provider_id;
      query = query.where((eb) => eb.or([eb('c.provider_id', '=', key), eb('p.provider_id', '=', key)]));
    }
    return (await query.execute()).map((c) => ({
      id: c.id,
      connection_id: c.id,
      connection_status: usable(c) ? 'active' : 'expired',
      provider_id: c.provider_id,
      provider_description: c.description ?? c.provider_id,
      provider_type: 'oauth2',
      scopes: JSON.parse(c.scopes) as string[],
      user_id: c.user_id,
    }));
  }

  async deleteConnection(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('connections').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Config-file providers: created, or updated to match. */
  applyProviders(inputs: AuthProviderInput[]): Promise<void> {
    return this.providers.apply(inputs);
  }

  // ---- Internals --------------------------------------------------------------------------------

  private connection(userId: string, providerId: string): Promise<ConnectionTable | undefined> {
    return this.db.selectFrom('connections').selectAll().where('user_id', '=', userId).where('provider_id', '=', providerId).executeTakeFirst();
  }

  private authorization(id: string): Promise<AuthorizationTable | undefined> {
    return this.db.selectFrom('authorizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The access token, refreshed first when it is about to expire; undefined when that fails. */
  private freshToken(connection: ConnectionTable, provider: AuthProvider): Promise<string | undefined> {
    if (!expiring(connection)) return Promise.resolve(this.vault.open(connection.access_token_ciphertext));
    if (!connection.refresh_token_ciphertext) return Promise.resolve(undefined);
    // One refresh at a time per connection: a rotated refresh token is good for one use only.
    let refresh = this.refreshing.get(connection.id);
    if (!refresh) {
      refresh = this.refresh(connection.id, provider).finally(() => this.refreshing.delete(connection.id));
      this.refreshing.set(connection.id, refresh);
    }
    return refresh;
  }

  private async refresh(connectionId: string, provider: AuthProvider): Promise<string | undefined> {
    // Read again: another process may have refreshed it meanwhile.
    const connection = await this.db.selectFrom('connections').selectAll().where('id', '=', connectionId).executeTakeFirst();
    if (!connection) return undefined;
    if (!expiring(connection)) return this.vault.open(connection.access_token_ciphertext);
    if (!connection.refresh_token_ciphertext) return undefined;
    const { as, client, auth, options } = this.clientOf(provider, 'refresh');
    try {
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, this.vault.open(connection.refresh_token_ciphertext), options);
      const result = await oauth.processRefreshTokenResponse(as, client, response);
      await this.db
        .updateTable('connections')
        .set({
          access_token_ciphertext: this.vault.seal(result.access_token),
          // Without a new refresh token the old one stays good (RFC 6749 §6); with one, it replaces it.
          ...(result.refresh_token && { refresh_token_ciphertext: this.vault.seal(result.refresh_token) }),
          expires_at: expiresAt(result.expires_in),
          // Without `scope` the scopes are those of the original grant (RFC 6749 §5.1).
          ...(result.scope !== undefined && { scopes: JSON.stringify(grantedScopes(provider, scopesOf(connection), result.scope)) }),
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', connectionId)
        .execute();
      return result.access_token;
    } catch (error) {
      // The grant is gone (revoked, expired, or its refresh token used already): forget the refresh
      // token, so that the next call goes straight to a new authorization.
      if (error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant') {
        await this.db.updateTable('connections').set({ refresh_token_ciphertext: null, updated_at: new Date().toISOString() }).where('id', '=', connectionId).execute();
      }
      return undefined;
    }
  }

  /** oauth4webapi's view of the provider, for its token endpoint or its refresh endpoint. */
  private clientOf(provider: AuthProvider, use: 'token' | 'refresh') {
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
    const auth = method === 'client_secret_post' ? oauth.ClientSecretPost(secret!) : method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret!) : oauth.None();
    const options = {
      [oauth.customFetch]: tokenEndpointFetch,
      [oauth.allowInsecureRequests]: endpoint.protocol === 'http:' && isLoopback(endpoint),
      ...(request.params && { additionalParameters: request.params }),
      signal: AbortSignal.timeout(30_000),
    };
    return { as, client, auth, options };
  }

  private async complete(row: AuthorizationTable, grant: Grant): Promise<void> {
    const now = new Date().toISOString();
    const sealed = {
      scopes: JSON.stringify(grant.scopes),
      access_token_ciphertext: this.vault.seal(grant.access_token),
      expires_at: grant.expires_at,
      updated_at: now,
    };
    const refresh = grant.refresh_token ? { refresh_token_ciphertext: this.vault.seal(grant.refresh_token) } : {};
    await this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('connections')
        .values({ id: randomUUID(), user_id: row.user_id, provider_id: row.provider_id, refresh_token_ciphertext: null, created_at: now, ...sealed, ...refresh })
        // A new grant without a refresh token keeps the one the user had.
        .onConflict((oc) => oc.columns(['user_id', 'provider_id']).doUpdateSet({ ...sealed, ...refresh }))
        .execute();
      await tx
        .updateTable('authorizations')
        .set({ status: 'completed', scopes: JSON.stringify(grant.scopes), grant_ciphertext: null, updated_at: now })
        .where('id', '=', row.id)
        .execute();
    });
    this.events.emit(row.id);
  }

  /** Marks the authorization failed; answers the error to throw at the browser. */
  private async fail(row: AuthorizationTable, reason: string): Promise<HttpError> {
    await this.db
      .updateTable('authorizations')
      .set({ status: 'failed', error: reason, grant_ciphertext: null, updated_at: new Date().toISOString() })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    this.events.emit(row.id);
    return new HttpError(400, 'authorization_failed', `Authorization failed: ${reason}.`);
  }

  /** Resolves when the authorization changes in this process, or after `ms`. */
  private changed(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off(id, done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.events.once(id, done);
    });
  }

  /** The AuthorizationResponse: the URL to visit while pending; never a token. */
  private async response(row: AuthorizationTable, known?: AuthProvider): Promise<AuthorizationResponse> {
    const scopes = JSON.parse(row.scopes) as string[];
    let status = row.status as AuthorizationResponse['status'];
    if (status === 'pending' && expired(row)) {
      await this.fail(row, 'the authorization expired');
      status = 'failed';
    }
    const base: AuthorizationResponse = { id: row.id, status, scopes, provider_id: row.provider_id, user_id: row.user_id };
    if (status !== 'pending' || row.flow_id) return base;
    const providerRow = known ? undefined : await this.providers.row(row.provider_id);
    const provider = known ?? (providerRow && this.providers.open(providerRow));
    return provider ? { ...base, url: await this.authorizationUrl(row, provider) } : base;
  }

  private async authorizationUrl(row: AuthorizationTable, provider: AuthProvider): Promise<string> {
    const settings = provider.oauth2;
    const url = new URL(settings.authorize_request.endpoint);
    for (const [name, value] of Object.entries(settings.authorize_request.params ?? {})) url.searchParams.set(name, value);
    const scopes = JSON.parse(row.scopes) as string[];
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', settings.client_id);
    url.searchParams.set('redirect_uri', this.redirectUri);
    if (scopes.length) url.searchParams.set('scope', scopes.join(settings.scope_delimiter));
    url.searchParams.set('state', row.state);
    if (settings.pkce.enabled) {
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(this.vault.open(row.code_verifier_ciphertext)));
      url.searchParams.set('code_challenge_method', 'S256');
    }
    return url.href;
  }
}

/** One OAuth service per engine store, shared by the credentials and the routes. */
const services = new WeakMap<object, OAuth>();

export function oauthOf(engine: EngineBase): OAuth {
  let service = services.get(engine.store);
  if (!service) services.set(engine.store, (service = new OAuth(engine)));
  return service;
}

/** The engine's default credentials: users' OAuth tokens, authorized through the engine. */
export const oauthCredentials = (engine: EngineBase): Credentials => oauthOf(engine);

/** Creates or updates the providers of the config file (see `parseAuthProviders`). */
export const applyAuthProviders = (engine: EngineBase, inputs: AuthProviderInput[]): Promise<void> => oauthOf(engine).applyProviders(inputs);

// ---- Helpers ----------------------------------------------------------------------------------

const scopesOf = (connection: Pick<ConnectionTable, 'scopes'>) => JSON.parse(connection.scopes) as string[];
const covers = (granted: string[], wanted: string[]) => wanted.every((scope) => granted.includes(scope));
const union = (...lists: string[][]) => [...new Set(lists.flat())];
const sameSet = (a: string[], b: string[]) => a.length === b.length && covers(a, b);
const expired = (row: AuthorizationTable) => Date.now() - Date.parse(row.created_at) > AUTHORIZATION_TTL_MS;
const expiring = (connection: Pick<ConnectionTable, 'expires_at'>) => connection.expires_at !== null && Date.parse(connection.expires_at) - Date.now() < REFRESH_MARGIN_MS;
/** A token that is valid, or that can be refreshed. */
const usable = (connection: Pick<ConnectionTable, 'expires_at' | 'refresh_token_ciphertext'>) => !expiring(connection) || connection.refresh_token_ciphertext !== null;
const expiresAt = (expiresIn: number | undefined) => (expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000).toISOString());

/** The response's `scope` when it has one (delimited by spaces, or by commas as GitHub answers). */
function grantedScopes(provider: AuthProvider, requested: string[], answered: string | undefined): string[] {
  if (answered === undefined || provider.preset?.grantedScopes === 'requested') return requested;
  return answered.split(/[\s,]+/).filter(Boolean);
}

function checkedVerifierUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // fall through
  }
  throw invalid(`verifier_url must be an http(s) URL, got '${value}'`);
}

/** Why a flow failed, in words fit for the user: the server's error code, never a token. */
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
