/**
 * API keys: random, shown once, stored as SHA-256 hashes. A key is looked up by its hash, so a
 * leaked database yields no usable key.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
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

/** Revokes by id or by prefix; true when a key was revoked. */
export async function revokeApiKey(db: Kysely<Database>, idOrPrefix: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The key's id when it is valid and not revoked. */
export async function verifyApiKey(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'last_used_at'])
    .where('key_hash', '=', hash(key))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  // Last use to the minute is enough, and spares a write on every request.
  const now = new Date();
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > 60_000) {
    await db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', row.id).execute();
  }
  return row.id;
}
