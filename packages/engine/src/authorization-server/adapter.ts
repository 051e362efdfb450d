/**
 * oidc-provider's storage in the engine's database, so that every engine process sharing the
 * database sees the same clients, grants, codes and tokens. Ids are kept only as SHA-256 hashes: the
 * id of a code or token is the code or token itself, and the payload is stored without it. A session,
 * which is also found by its uid, keeps its id sealed (it is the browser's session cookie). A grant's
 * id is no credential: its row keeps it in `grant_id`, as every code and token of the grant does.
 */
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Vault } from '../security/vault.js';
import type { Database } from '../store/schema.js';
import { hashOf } from './grants.js';

const now = () => new Date().toISOString();

/** Expired rows are deleted at most this often per process, on a write. */
const SWEEP_MS = 10 * 60_000;
let lastSweep = 0;

/**
 * The API key of a browser session whose id is being replaced: oidc-provider gives a session a new id at
 * every resumed interaction (destroying the old row, then saving the new one, in one request), and the
 * key the person signed in with must stay with the session. By the session's uid hash.
 */
const carriedKeys = new Map<string, string>();

export class DatabaseAdapter implements Adapter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
    private readonly model: string,
    /** The error of a code or refresh token used twice (oidc-provider's invalid_grant). */
    private readonly usedTwice: () => Error = () => new Error('already used'),
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const { jti: _id, ...rest } = payload;
    const row = {
      payload: JSON.stringify(payload.uid ? { ...rest, sealedId: this.vault.seal(id) } : rest),
      grant_id: this.model === 'Grant' ? id : (payload.grantId ?? null),
      account_id: payload.accountId ?? null,
      client_id: payload.clientId ?? null,
      uid_hash: payload.uid ? hashOf(payload.uid) : null,
      user_code_hash: payload.userCode ? hashOf(payload.userCode) : null,
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      consumed_at: payload.consumed ? now() : null,
    };
    const carried = row.uid_hash ? carriedKeys.get(row.uid_hash) : undefined;
    if (carried) carriedKeys.delete(row.uid_hash!);
    await this.db
      .insertInto('authorization_server_objects')
      .values({ model: this.model, id_hash: hashOf(id), ...row, ...(carried && { api_key_id: carried }) })
      .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(row))
      .execute();
    if (Date.now() - lastSweep > SWEEP_MS) {
      lastSweep = Date.now();
      await this.db.deleteFrom('authorization_server_objects').where('expires_at', '<', now()).execute();
    }
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('id_hash', hashOf(id), id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('uid_hash', hashOf(uid));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('user_code_hash', hashOf(userCode));
  }

  /**
   * Marks a code or refresh token used, once: one conditional update, which only one request can win
   * however many engine processes redeem it at the same moment. Every other request is a replay: the
   * grant ends (its tokens, codes and the grant itself) and the request fails.
   */
  async consume(id: string): Promise<void> {
    if (await this.useUp(id)) return;
    const row = await this.db
      .selectFrom('authorization_server_objects')
      .select('grant_id')
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOf(id))
      .executeTakeFirst();
    if (row?.grant_id) await this.db.deleteFrom('authorization_server_objects').where('grant_id', '=', row.grant_id).execute();
    throw this.usedTwice();
  }

  /** Marks it used unless it was already; true when this call did. */
  async useUp(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('authorization_server_objects')
      .set({ consumed_at: now() })
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOf(id))
      .where('consumed_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async destroy(id: string): Promise<void> {
    const [gone] = await this.db
      .deleteFrom('authorization_server_objects')
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOf(id))
      .returning(['uid_hash', 'api_key_id'])
      .execute();
    if (this.model === 'Session' && gone?.uid_hash && gone.api_key_id) {
      if (carriedKeys.size >= 1000) carriedKeys.clear();
      carriedKeys.set(gone.uid_hash, gone.api_key_id);
    }
  }

  /** This model's objects of the grant (oidc-provider asks each model in turn; the grant itself is destroyed apart). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('authorization_server_objects').where('model', '=', this.model).where('grant_id', '=', grantId).execute();
  }

  /** Keeps the object until it is deleted (a registered client once it has been used). */
  async keep(id: string): Promise<void> {
    await this.db
      .updateTable('authorization_server_objects')
      .set({ expires_at: null })
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOf(id))
      .execute();
  }

  /** The payload, with its id restored (when looked up by id) and `consumed` as oidc-provider has it. */
  private async findWhere(column: 'id_hash' | 'uid_hash' | 'user_code_hash', value: string, id?: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('authorization_server_objects')
      .select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', this.model)
      .where(column, '=', value)
      .executeTakeFirst();
    if (!row || (row.expires_at && row.expires_at < now())) return undefined;
    const { sealedId, ...payload } = JSON.parse(row.payload) as AdapterPayload & { sealedId?: string };
    if ('kind' in payload) payload.jti = id ?? (sealedId && this.vault.open(sealedId));
    if (row.consumed_at) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
    return payload;
  }
}
