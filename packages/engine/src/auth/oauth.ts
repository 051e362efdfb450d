/**
 * OAuth 2.0 for the engine's users: the authorization code grant with PKCE through the engine's OAuth
 * client (oauth-client.ts), tokens sealed at rest per (user, provider) in the connection store,
 * refresh before expiry, and session verification of the browser that completes a flow. This module
 * is the flow; the stores keep the rows and the protocol lives in oauth-client.ts.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { Problem } from '../errors.js';
import type { Vault } from '../security/vault.js';
import type { ChangeWatcher } from '../store/changes.js';
import type { AuthorizationTable, ConnectionTable, Database } from '../store/schema.js';
import { AuthorizationStore, expired, scopesAsked } from './authorizations.js';
import { ConnectionStore, expiring, scopesOf, usable, type ConnectionFilter } from './connections.js';
import type { AuthorizationResponse, Credentials } from './credentials.js';
import { authorizationUrl, type OAuthFailure, redeemCode, refreshGrant, type Grant } from './oauth-client.js';
import { AuthProviders, type AuthProvider, type AuthProviderInput, type ProviderDirectory } from './providers.js';
import { listensBeyondLoopback, SessionVerificationSetting } from './session-verification.js';

/** How often a long poll looks at the database, for completions in other engine processes. */
const POLL_MS = 1_000;

/** What the callback answers the browser. */
export type CallbackOutcome = { redirect: string } | { text: string };

export interface OAuthDependencies {
  db: Kysely<Database>;
  vault: Vault;
  changes: ChangeWatcher;
  /** The engine's address as browsers reach it (known only once it listens, when none is configured). */
  publicUrl: () => string;
  /** The address the engine listens on: beyond loopback, session verification is on by default. */
  host?: string;
  /** Where the flow finds providers, given the configured ones (the sandbox puts its own beside them); by default those alone. */
  providers?: (configured: ProviderDirectory) => ProviderDirectory;
}

export class OAuth implements Credentials {
  /** The configured providers, which the admin API manages. */
  readonly providers: AuthProviders;
  readonly connections: ConnectionStore;
  readonly sessionVerification: SessionVerificationSetting;
  private readonly authorizations: AuthorizationStore;
  private readonly db: Kysely<Database>;
  private readonly directory: ProviderDirectory;
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly refreshing = new Map<string, Promise<string | undefined>>();
  /** Connections on first use under way, by user and provider: calls arriving together share one. */
  private readonly connecting = new Map<string, Promise<ConnectionTable | undefined>>();
  /**
   * Opened tokens by user and provider key, for calls that need no database: dropped whenever a
   * connection or a provider changes, in this process or another sharing the database.
   */
  private readonly tokens = new Map<string, { token: string; scopes: string[]; expiresAt: string | null }>();

  constructor(private readonly deps: OAuthDependencies) {
    const { db, vault, changes } = deps;
    this.db = db;
    this.providers = new AuthProviders(
      db,
      vault,
      () => this.redirectUri,
      () => changes.changed('auth_providers'),
    );
    this.directory = deps.providers?.(this.providers) ?? this.providers;
    this.connections = new ConnectionStore(db, vault, () => changes.changed('connections'));
    this.authorizations = new AuthorizationStore(db, vault);
    this.sessionVerification = new SessionVerificationSetting(db, deps.host !== undefined && listensBeyondLoopback(deps.host));
    const forget = () => this.tokens.clear();
    changes.on('connections', forget);
    changes.on('auth_providers', forget);
  }

  /** The callback every provider redirects to; it follows the engine's public URL. */
  get redirectUri(): string {
    return `${this.deps.publicUrl()}/v1/oauth/callback`;
  }

  // ---- Credentials ----------------------------------------------------------------------------

  async token(
    userId: string,
    providerKey: string,
    scopes: string[],
  ): Promise<{ token: string } | { authorization: AuthorizationResponse } | { unconfigured: string }> {
    const cacheKey = `${userId}\n${providerKey}`;
    const known = this.tokens.get(cacheKey);
    if (known && covers(known.scopes, scopes) && !expiring({ expires_at: known.expiresAt })) return { token: known.token };
    const provider = await this.directory.resolve(providerKey);
    if (!provider) return { unconfigured: unconfigured(providerKey) };
    const connection = (await this.connections.get(userId, provider.id)) ?? (await this.connectOnFirstUse(userId, provider, scopes));
    if (connection && covers(scopesOf(connection), scopes)) {
      const token = await this.freshToken(connection, provider);
      if (token) {
        if (!expiring(connection)) this.tokens.set(cacheKey, { token, scopes: scopesOf(connection), expiresAt: connection.expires_at });
        return { token };
      }
    }
    return { authorization: await this.authorize(userId, provider, scopes, undefined, { force: true }) };
  }

  async grants(userId: string): Promise<(providerId: string, scopes: string[]) => boolean> {
    const [resolve, connections, authorized] = await Promise.all([
      this.directory.resolver(),
      this.connections.ofUser(userId),
      this.directory.connectsOnFirstUse ? this.authorizations.providersOf(userId) : new Set<string>(),
    ]);
    return (providerKey, scopes) => {
      const provider = resolve(providerKey);
      if (!provider) return false;
      const connection = connections.find((c) => c.provider_id === provider.id);
      // A user who never authorized a provider that connects on first use is connected at the call.
      if (!connection) return provider.firstUse !== undefined && !authorized.has(provider.id);
      return usable(connection) && covers(scopesOf(connection), scopes);
    };
  }

  // ---- Authorization ----------------------------------------------------------------------------

  /**
   * Starts (or hands out again) an authorization for these scopes, asking for the union with what the
   * user holds already; or answers `completed` when the user's token covers them. `force` skips that
   * shortcut (the token is there but unusable).
   */
  async authorize(
    userId: string,
    providerOrKey: AuthProvider | string,
    wanted: string[],
    nextUri?: string,
    { force = false } = {},
  ): Promise<AuthorizationResponse> {
    const provider = typeof providerOrKey === 'string' ? await this.directory.resolve(providerOrKey) : providerOrKey;
    if (!provider) throw new Problem('not_found', unconfigured(String(providerOrKey)));
    const connection = (await this.connections.get(userId, provider.id)) ?? (await this.connectOnFirstUse(userId, provider, wanted));
    const held = connection ? scopesOf(connection) : [];

    if (!force && connection && usable(connection) && covers(held, wanted)) {
      return this.response(await this.authorizations.create({ userId, providerId: provider.id, scopes: held, status: 'completed', nextUri }), provider);
    }
    const scopes = union(held, provider.preset?.alwaysScopes ?? [], wanted);
    const reusable = await this.authorizations.reusable(userId, provider.id, scopes, nextUri);
    if (reusable) return this.response(reusable, provider);
    return this.response(await this.authorizations.create({ userId, providerId: provider.id, scopes, status: 'pending', nextUri }), provider);
  }

  /** The authorization, once it is no longer pending or after `waitSeconds` (at most 59). */
  async status(id: string, waitSeconds = 0): Promise<AuthorizationResponse | undefined> {
    const deadline = Date.now() + Math.min(Math.max(waitSeconds, 0), 59) * 1000;
    for (;;) {
      const row = await this.authorizations.byId(id);
      if (!row) return undefined;
      if (row.status !== 'pending' || Date.now() >= deadline) return this.response(row);
      await this.changed(id, Math.min(POLL_MS, deadline - Date.now()));
    }
  }

  /** The provider's redirect back to the engine: validates it, redeems the code, stores the tokens. */
  async callback(query: URLSearchParams): Promise<CallbackOutcome> {
    const state = query.get('state');
    const row = state ? await this.authorizations.byState(state) : undefined;
    if (!row) throw new Problem('invalid_state', 'The state does not belong to any authorization: start the authorization again.');
    if (row.status !== 'pending' || row.flow_id)
      throw new Problem('invalid_state', `This authorization is ${row.flow_id ? 'awaiting confirmation' : row.status} already.`);
    if (expired(row)) throw await this.fail(row, 'the authorization expired before the provider answered');
    // On by default beyond loopback, with nothing to verify against: the code is not even redeemed.
    const unverifiable = await this.sessionVerification.refusal();
    if (unverifiable) throw await this.fail(row, unverifiable);
    const provider = await this.directory.byId(row.provider_id);
    if (!provider) throw await this.fail(row, `the auth provider ${row.provider_id} no longer exists`);

    let grant: Grant;
    try {
      grant = await redeemCode(provider, query, {
        state: row.state,
        codeVerifier: this.authorizations.codeVerifier(row),
        scopes: scopesAsked(row),
        redirectUri: this.redirectUri,
      });
    } catch (error) {
      throw await this.fail(row, (error as OAuthFailure).message);
    }

    const verification = await this.sessionVerification.get();
    if (!verification.unsafe_skip_verification && verification.verifier_url) {
      // The tokens wait, sealed, until the application confirms the browser belongs to the user.
      const flowId = randomBytes(24).toString('base64url');
      await this.authorizations.holdForConfirmation(row, flowId, grant);
      const verifier = new URL(verification.verifier_url);
      verifier.searchParams.set('flow_id', flowId);
      return { redirect: verifier.href };
    }
    await this.complete(row, grant);
    return row.next_uri ? { redirect: row.next_uri } : { text: 'Authorization complete. You can close this window.' };
  }

  /** The application vouches that its signed-in user is the one the flow was started for. */
  async confirmUser(flowId: string, userId: string): Promise<{ auth_id: string; next_uri?: string }> {
    const row = await this.authorizations.awaitingConfirmation(flowId);
    if (!row?.grant_ciphertext) throw new Problem('not_found', 'No authorization awaits confirmation with this flow_id.');
    if (expired(row)) throw await this.fail(row, 'the authorization expired before the user was confirmed');
    if (row.user_id !== userId) {
      await this.fail(row, 'session verification failed: the browser that completed the flow belongs to another user');
      throw new Problem('forbidden', 'The user does not match the user this authorization was started for.');
    }
    await this.complete(row, this.authorizations.heldGrant(row));
    return { auth_id: row.id, ...(row.next_uri && { next_uri: row.next_uri }) };
  }

  listConnections(filter: ConnectionFilter) {
    return this.connections.list(filter);
  }

  deleteConnection(id: string): Promise<{ user_id: string; provider_id: string } | undefined> {
    return this.connections.delete(id);
  }

  /** Config-file providers: created, or updated to match. */
  applyProviders(inputs: AuthProviderInput[]): Promise<void> {
    return this.providers.apply(inputs);
  }

  // ---- Internals --------------------------------------------------------------------------------

  /**
   * A user who never authorized a provider that connects on first use (the sandbox's) is connected
   * now, with its first-use grant and the scopes asked for. Once that connection is deleted, the user
   * goes through the consent page like anyone else.
   */
  private connectOnFirstUse(userId: string, provider: AuthProvider, wanted: string[]): Promise<ConnectionTable | undefined> {
    const firstUse = provider.firstUse;
    if (!firstUse) return Promise.resolve(undefined);
    // Registered before the first await, so that a call arriving meanwhile waits for this connection
    // instead of taking its pending authorization for one the user has yet to complete.
    const key = `${userId}\n${provider.id}`;
    let connecting = this.connecting.get(key);
    if (!connecting) {
      connecting = (async () => {
        // Authorized before: the connection made then (by a call that finished just now, perhaps), or
        // none when the user deleted it, and then the consent page as for anyone else.
        if (await this.authorizations.any(userId, provider.id)) return this.connections.get(userId, provider.id);
        const scopes = union(wanted, firstUse.scopes);
        const row = await this.authorizations.create({ userId, providerId: provider.id, scopes, status: 'pending' });
        await this.complete(row, { access_token: firstUse.token, expires_at: null, scopes });
        return this.connections.get(userId, provider.id);
      })().finally(() => this.connecting.delete(key));
      this.connecting.set(key, connecting);
    }
    return connecting;
  }

  /** The access token, refreshed first when it is about to expire; undefined when that fails. */
  private freshToken(connection: ConnectionTable, provider: AuthProvider): Promise<string | undefined> {
    if (!expiring(connection)) return Promise.resolve(this.connections.accessToken(connection));
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
    const connection = await this.connections.byId(connectionId);
    if (!connection) return undefined;
    if (!expiring(connection)) return this.connections.accessToken(connection);
    const refreshToken = this.connections.refreshToken(connection);
    if (!refreshToken) return undefined;
    try {
      const grant = await refreshGrant(provider, refreshToken, scopesOf(connection));
      await this.connections.refreshed(connectionId, grant);
      return grant.access_token;
    } catch (error) {
      // The grant is gone (revoked, expired, or its refresh token used already): forget the refresh
      // token, so that the next call goes straight to a new authorization.
      if ((error as OAuthFailure).grantGone) await this.connections.forgetRefreshToken(connectionId);
      return undefined;
    }
  }

  private async complete(row: AuthorizationTable, grant: Grant): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await this.connections.save(row.user_id, row.provider_id, grant, tx);
      await this.authorizations.completed(row, grant.scopes, tx);
    });
    this.deps.changes.changed('connections');
    this.events.emit(row.id);
  }

  /** Marks the authorization failed; answers the error to throw at the browser. */
  private async fail(row: AuthorizationTable, reason: string): Promise<Problem> {
    await this.authorizations.failed(row, reason);
    this.events.emit(row.id);
    return new Problem('authorization_failed', `Authorization failed: ${reason}.`);
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
    let status = row.status as AuthorizationResponse['status'];
    if (status === 'pending' && expired(row)) {
      await this.fail(row, 'the authorization expired');
      status = 'failed';
    }
    const base: AuthorizationResponse = { id: row.id, status, scopes: scopesAsked(row), provider_id: row.provider_id, user_id: row.user_id };
    if (status !== 'pending' || row.flow_id) return base;
    const provider = known ?? (await this.directory.byId(row.provider_id));
    if (!provider) return base;
    return {
      ...base,
      url: await authorizationUrl(provider, {
        state: row.state,
        codeVerifier: this.authorizations.codeVerifier(row),
        scopes: scopesAsked(row),
        redirectUri: this.redirectUri,
      }),
    };
  }
}

// ---- Helpers ----------------------------------------------------------------------------------

/** What to do about a provider that is not configured. */
const unconfigured = (provider: string) =>
  `No auth provider '${provider}' is configured: add one with POST /v1/admin/auth_providers (an admin key), ` +
  `or under "authProviders" in the config file, e.g. {"authProviders": [{"id": "${provider}", "client_id": "...", "client_secret": "..."}]}.`;

const covers = (granted: string[], wanted: string[]) => wanted.every((scope) => granted.includes(scope));
const union = (...lists: string[][]) => [...new Set(lists.flat())];
