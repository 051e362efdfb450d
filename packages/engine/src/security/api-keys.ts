/**
 * API keys: random, shown once, stored as SHA-256 hashes. A key is looked up by its hash, so a
 * leaked database yields no usable key.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { ChangeWatcher } from '../store/changes.js';
import type { Database } from '../store/schema.js';

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

export async function createApiKey(db: Kysely<Database>, name: string): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = `qk_${randomBytes(24).toString('base64url')}`;
  const info: ApiKeyInfo = { id: randomUUID(), name, prefix: key.slice(0, 10), created_at: new Date().toISOString(), last_used_at: null, revoked_at: null };
  await db.insertInto('api_keys').values({ ...info, key_hash: hash(key) }).execute();
  return { key, info };
}

export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyInfo[]> {
  return db.selectFrom('api_keys').select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at']).orderBy('created_at').execute();
}

/** Revocations made in this process, so that its verifiers forget at once rather than at the next poll. */
const revocations = new EventEmitter().setMaxListeners(0);

/** Revokes by id or by prefix; true when a key was revoked. */
export async function revokeApiKey(db: Kysely<Database>, idOrPrefix: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  revocations.emit('revoked', db);
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Verifies keys from memory: a key is read from the database once, then known until any
 * key is revoked (in this process or another sharing the database, seen within one poll of the
 * change watcher). Last use is written at most once a minute per key, off the request's path.
 */
export class ApiKeyVerifier {
  private readonly known = new Map<string, string>();
  private readonly touched = new Map<string, number>();
  /** Enough for every key an engine has; past it the memory starts over rather than grow. */
  private readonly maxKnown = 10_000;

  constructor(
    private readonly db: Kysely<Database>,
    changes: ChangeWatcher,
  ) {
    changes.on('api_keys', () => this.known.clear());
    revocations.on('revoked', (of: Kysely<Database>) => of === db && this.known.clear());
  }

  /** The key's id when it is valid and not revoked. */
  async verify(key: string): Promise<string | undefined> {
    // Known by the key itself, which every request carries anyway: a hit costs no hashing.
    let id = this.known.get(key);
    if (!id) {
      const row = await this.db.selectFrom('api_keys').select(['id', 'last_used_at']).where('key_hash', '=', hash(key)).where('revoked_at', 'is', null).executeTakeFirst();
      if (!row) return undefined;
      if (this.known.size >= this.maxKnown) this.known.clear();
      this.known.set(key, (id = row.id));
      if (row.last_used_at) this.touched.set(id, Date.parse(row.last_used_at));
    }
    this.touch(id);
    return id;
  }

  private touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < 60_000) return;
    this.touched.set(id, now);
    this.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', id)
      .execute()
      .catch(() => this.touched.delete(id));
  }
}
