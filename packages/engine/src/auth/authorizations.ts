/**
 * Authorizations: one row per flow. Its `state` is the only handle the browser brings back, its PKCE
 * code verifier is sealed, and it lives for AUTHORIZATION_TTL_MS. Under session verification the
 * grant waits in the row, sealed, under a fresh `flow_id` until the application confirms the user.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Vault } from '../security/vault.js';
import type { AuthorizationTable, Database } from '../store/schema.js';
import { newCodeVerifier, newState, type Grant } from './oauth-client.js';

/** How long the browser has to come back from the provider (and the verifier). */
export const AUTHORIZATION_TTL_MS = 15 * 60_000;
/** A pending authorization this recent is handed out again instead of a new one. */
const REUSE_MS = 5 * 60_000;

export const expired = (row: AuthorizationTable) => Date.now() - Date.parse(row.created_at) > AUTHORIZATION_TTL_MS;
export const scopesAsked = (row: AuthorizationTable) => JSON.parse(row.scopes) as string[];

export class AuthorizationStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
  ) {}

  async create(fields: {
    userId: string;
    providerId: string;
    scopes: string[];
    status: 'pending' | 'completed';
    nextUri?: string;
  }): Promise<AuthorizationTable> {
    const now = new Date().toISOString();
    const row: AuthorizationTable = {
      id: randomUUID(),
      user_id: fields.userId,
      provider_id: fields.providerId,
      scopes: JSON.stringify(fields.scopes),
      status: fields.status,
      state: newState(),
      code_verifier_ciphertext: this.vault.seal(newCodeVerifier()),
      next_uri: fields.nextUri ?? null,
      error: null,
      flow_id: null,
      grant_ciphertext: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('authorizations').values(row).execute();
    return row;
  }

  byId(id: string): Promise<AuthorizationTable | undefined> {
    return this.db.selectFrom('authorizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byState(state: string): Promise<AuthorizationTable | undefined> {
    return this.db.selectFrom('authorizations').selectAll().where('state', '=', state).executeTakeFirst();
  }

  awaitingConfirmation(flowId: string): Promise<AuthorizationTable | undefined> {
    return this.db.selectFrom('authorizations').selectAll().where('flow_id', '=', flowId).where('status', '=', 'pending').executeTakeFirst();
  }

  /** A pending authorization of the last few minutes for exactly these scopes and next URI, to hand out again. */
  async reusable(userId: string, providerId: string, scopes: string[], nextUri: string | undefined): Promise<AuthorizationTable | undefined> {
    const recent = await this.db
      .selectFrom('authorizations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('provider_id', '=', providerId)
      .where('status', '=', 'pending')
      .where('flow_id', 'is', null)
      .where('created_at', '>', new Date(Date.now() - REUSE_MS).toISOString())
      .orderBy('created_at', 'desc')
      .execute();
    return recent.find((row) => sameSet(scopesAsked(row), scopes) && row.next_uri === (nextUri ?? null));
  }

  /** Whether the user ever started an authorization with the provider. */
  async any(userId: string, providerId: string): Promise<boolean> {
    return !!(await this.db.selectFrom('authorizations').select('id').where('user_id', '=', userId).where('provider_id', '=', providerId).executeTakeFirst());
  }

  /** The providers the user ever started an authorization with. */
  async providersOf(userId: string): Promise<Set<string>> {
    const rows = await this.db.selectFrom('authorizations').select('provider_id').distinct().where('user_id', '=', userId).execute();
    return new Set(rows.map((row) => row.provider_id));
  }

  codeVerifier(row: AuthorizationTable): string {
    return this.vault.open(row.code_verifier_ciphertext);
  }

  /** The grant waits, sealed, for the application's confirmation under a fresh flow id. */
  async holdForConfirmation(row: AuthorizationTable, flowId: string, grant: Grant): Promise<void> {
    await this.db
      .updateTable('authorizations')
      .set({ flow_id: flowId, grant_ciphertext: this.vault.seal(JSON.stringify(grant)), updated_at: new Date().toISOString() })
      .where('id', '=', row.id)
      .execute();
  }

  heldGrant(row: AuthorizationTable): Grant {
    return JSON.parse(this.vault.open(row.grant_ciphertext!)) as Grant;
  }

  async completed(row: AuthorizationTable, scopes: string[], tx: Kysely<Database> = this.db): Promise<void> {
    await tx
      .updateTable('authorizations')
      .set({ status: 'completed', scopes: JSON.stringify(scopes), grant_ciphertext: null, updated_at: new Date().toISOString() })
      .where('id', '=', row.id)
      .execute();
  }

  async failed(row: AuthorizationTable, reason: string): Promise<void> {
    await this.db
      .updateTable('authorizations')
      .set({ status: 'failed', error: reason, grant_ciphertext: null, updated_at: new Date().toISOString() })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
  }
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && b.every((scope) => a.includes(scope));
