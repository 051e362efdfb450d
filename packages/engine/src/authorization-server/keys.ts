/**
 * The authorization server's own keys: the key that signs ID tokens (published at the JWKS endpoint)
 * and the keys that sign its cookies. Made once, sealed in the `settings` table, and shared by every
 * engine process on the database; the first process to store them wins.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { JWK } from 'oidc-provider';
import type { Vault } from '../security/vault.js';
import type { Database } from '../store/schema.js';

const SETTING = 'authorization_server_keys';

export interface ServerKeys {
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

export async function serverKeys(db: Kysely<Database>, vault: Vault): Promise<ServerKeys> {
  const stored = await read(db, vault);
  if (stored) return stored;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const fresh: ServerKeys = {
    jwks: { keys: [{ ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomUUID(), use: 'sig', alg: 'RS256' }] },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  await db
    .insertInto('settings')
    .values({ key: SETTING, value: JSON.stringify(vault.seal(JSON.stringify(fresh))) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await read(db, vault))!;
}

async function read(db: Kysely<Database>, vault: Vault): Promise<ServerKeys | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', SETTING).executeTakeFirst();
  return row ? (JSON.parse(vault.open(JSON.parse(row.value) as string)) as ServerKeys) : undefined;
}
