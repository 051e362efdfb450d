/**
 * oidc-provider's storage in the engine's database, so that every engine process sharing the
 * database sees the same clients, grants, codes and tokens. Ids are kept only as SHA-256 hashes: the
 * id of a code or token is the code or token itself, and the payload is stored without it. A session,
 * which is also found by its uid, keeps its id sealed (it is the browser's session cookie).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Vault } from '../security/vault.js';
import type { Database } from '../store/schema.js';

const hash = (value: string) => createHash('sha256').update(value).digest('hex');
const now = () => new Date().toISOString();

/** Expired rows are deleted at most this often per process, on a write. */
const SWEEP_MS = 10 * 60_000;
let lastSweep = 0;

export class DatabaseAdapter implements Adapter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
    private readonly model: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const { jti: _id, ...rest } = payload;
    const row = {
      payload: JSON.stringify(payload.uid ? { ...rest, sealedId: this.vault.seal(id) } : rest),
      grant_id: payload.grantId ?? null,
      uid_hash: payload.uid ? hash(payload.uid) : null,
      user_code_hash: payload.userCode ? hash(payload.userCode) : null,
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      consumed_at: payload.consumed ? now() : null,
    };
    await this.db
      .insertInto('authorization_server_objects')
      .values({ model: this.model, id_hash: hash(id), ...row })
      .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(row))
      .execute();
    if (Date.now() - lastSweep > SWEEP_MS) {
      lastSweep = Date.now();
      await this.db.deleteFrom('authorization_server_objects').where('expires_at', '<', now()).execute();
    }
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('id_hash', hash(id), id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('uid_hash', hash(uid));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('user_code_hash', hash(userCode));
  }

  async consume(id: string): Promise<void> {
    await this.db
      .updateTable('authorization_server_objects')
      .set({ consumed_at: now() })
      .where('model', '=', this.model)
      .where('id_hash', '=', hash(id))
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('authorization_server_objects').where('model', '=', this.model).where('id_hash', '=', hash(id)).execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('authorization_server_objects').where('grant_id', '=', grantId).execute();
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
