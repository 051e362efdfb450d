/**
 * Connections: a user's tokens for one auth provider, sealed at rest, with the scopes granted and the
 * expiry. One row per (user, provider).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Vault } from '../security/vault.js';
import type { ConnectionTable, Database } from '../store/schema.js';
import type { Grant } from './oauth-client.js';

/** A token that expires sooner than this is refreshed first. */
const REFRESH_MARGIN_MS = 60_000;

export interface ConnectionFilter {
  user_id?: string;
  provider_id?: string;
}

export const scopesOf = (connection: Pick<ConnectionTable, 'scopes'>) => JSON.parse(connection.scopes) as string[];
export const expiring = (connection: Pick<ConnectionTable, 'expires_at'>) =>
  connection.expires_at !== null && Date.parse(connection.expires_at) - Date.now() < REFRESH_MARGIN_MS;
/** A token that is valid, or that can be refreshed. */
export const usable = (connection: Pick<ConnectionTable, 'expires_at' | 'refresh_token_ciphertext'>) =>
  !expiring(connection) || connection.refresh_token_ciphertext !== null;

export class ConnectionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
    /** Told of every change, so that tokens kept in memory are forgotten. */
    private readonly changed: () => void,
  ) {}

  get(userId: string, providerId: string): Promise<ConnectionTable | undefined> {
    return this.db.selectFrom('connections').selectAll().where('user_id', '=', userId).where('provider_id', '=', providerId).executeTakeFirst();
  }

  byId(id: string): Promise<ConnectionTable | undefined> {
    return this.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
  }

  ofUser(userId: string): Promise<ConnectionTable[]> {
    return this.db.selectFrom('connections').selectAll().where('user_id', '=', userId).execute();
  }

  accessToken(connection: ConnectionTable): string {
    return this.vault.open(connection.access_token_ciphertext);
  }

  refreshToken(connection: ConnectionTable): string | undefined {
    return connection.refresh_token_ciphertext ? this.vault.open(connection.refresh_token_ciphertext) : undefined;
  }

  /** The grant as the user's connection; a new grant without a refresh token keeps the one the user had. */
  async save(userId: string, providerId: string, grant: Grant, tx: Kysely<Database> = this.db): Promise<void> {
    const now = new Date().toISOString();
    const sealed = {
      scopes: JSON.stringify(grant.scopes),
      access_token_ciphertext: this.vault.seal(grant.access_token),
      expires_at: grant.expires_at,
      updated_at: now,
    };
    const refresh = grant.refresh_token ? { refresh_token_ciphertext: this.vault.seal(grant.refresh_token) } : {};
    await tx
      .insertInto('connections')
      .values({ id: randomUUID(), user_id: userId, provider_id: providerId, refresh_token_ciphertext: null, created_at: now, ...sealed, ...refresh })
      .onConflict((oc) => oc.columns(['user_id', 'provider_id']).doUpdateSet({ ...sealed, ...refresh }))
      .execute();
  }

  /** After a refresh: the new tokens, and the scopes when the provider named them. */
  async refreshed(id: string, grant: Omit<Grant, 'scopes'> & { scopes?: string[] }): Promise<void> {
    await this.db
      .updateTable('connections')
      .set({
        access_token_ciphertext: this.vault.seal(grant.access_token),
        ...(grant.refresh_token && { refresh_token_ciphertext: this.vault.seal(grant.refresh_token) }),
        expires_at: grant.expires_at,
        ...(grant.scopes && { scopes: JSON.stringify(grant.scopes) }),
        updated_at: new Date().toISOString(),
      })
      .where('id', '=', id)
      .execute();
    this.changed();
  }

  /** The grant is gone: the next call goes straight to a new authorization. */
  async forgetRefreshToken(id: string): Promise<void> {
    await this.db.updateTable('connections').set({ refresh_token_ciphertext: null, updated_at: new Date().toISOString() }).where('id', '=', id).execute();
    this.changed();
  }

  /** Whose connection to which provider was deleted; undefined when there was none with this id. */
  async delete(id: string): Promise<{ user_id: string; provider_id: string } | undefined> {
    const deleted = await this.db.deleteFrom('connections').where('id', '=', id).returning(['user_id', 'provider_id']).executeTakeFirst();
    this.changed();
    return deleted;
  }

  /** The UserConnectionResponse list: never a token. */
  async list(filter: ConnectionFilter) {
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
      scopes: scopesOf(c),
      user_id: c.user_id,
    }));
  }
}
