/**
 * Secret material at rest: AES-256-GCM with a 256-bit master key, a fresh 96-bit nonce per value, and
 * the authentication tag checked on every read. Sealed values read `v1.<nonce>.<tag>.<ciphertext>`
 * (base64url), so the format can change later without guessing.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export class Vault {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  seal(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /**
   * A key of its own for `purpose` (HKDF-SHA256 of the master key), never the master key itself: engines
   * that share the master key derive the same one (the upstream budgets hash credentials with it).
   */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `quiver ${purpose}`, 32));
  }

  open(sealed: string): string {
    const [version, nonce, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !nonce || !tag || ciphertext === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * The master key: QUIVER_MASTER_KEY (64 hex characters or 32 bytes in base64) when set; otherwise a
 * key file, created with mode 0600 on first start.
 */
export function loadMasterKey(fromEnv: string | undefined, keyFile: string): Buffer {
  if (fromEnv) {
    const key = /^[0-9a-f]{64}$/i.test(fromEnv) ? Buffer.from(fromEnv, 'hex') : Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new Error('QUIVER_MASTER_KEY must be 32 bytes: 64 hex characters or base64');
    return key;
  }
  if (!existsSync(keyFile)) {
    mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
    writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(keyFile, 0o600);
  return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
}

/** The setting that holds the check value, and what is sealed in it. */
const CHECK_SETTING = 'master_key_check';
const CHECK_TEXT = 'quiver master key check';

/**
 * Refuses a master key that cannot open what the database holds sealed (engines sharing a database with
 * different keys would otherwise start, and fail every call that needs a token or a secret). A check value
 * is sealed into `settings` on first start and opened on every start. A database sealed before the check
 * existed is tried on one of its sealed values first, so that a wrong key never becomes the reference.
 * `keySource` says where the key came from: QUIVER_MASTER_KEY, or the key file's path.
 */
export async function checkMasterKey(db: Kysely<Database>, vault: Vault, keySource: string): Promise<void> {
  const refuse = () => {
    throw new Error(
      `the master key from ${keySource} cannot open the data sealed in the database: it is not the key the database was first started with. ` +
        'Start with that key (QUIVER_MASTER_KEY, or the key file master.key in the data directory).',
    );
  };
  const stored = await sealedCheck(db);
  const sealed = stored ?? (await anySealedValue(db));
  if (sealed !== undefined && !opens(vault, sealed)) refuse();
  if (stored !== undefined) return;
  await db
    .insertInto('settings')
    .values({ key: CHECK_SETTING, value: JSON.stringify(vault.seal(CHECK_TEXT)) })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  // Another engine starting at the same moment may have written its own first.
  if (!opens(vault, (await sealedCheck(db))!)) refuse();
}

async function sealedCheck(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', CHECK_SETTING).executeTakeFirst();
  return row && (JSON.parse(row.value) as string);
}

/** One value sealed before the check value existed, if the database holds any. */
async function anySealedValue(db: Kysely<Database>): Promise<string | undefined> {
  const samples = await Promise.all([
    db.selectFrom('secrets').select('value_ciphertext as sealed').limit(1).executeTakeFirst(),
    db.selectFrom('connections').select('access_token_ciphertext as sealed').limit(1).executeTakeFirst(),
    db.selectFrom('auth_providers').select('client_secret_ciphertext as sealed').where('client_secret_ciphertext', 'is not', null).limit(1).executeTakeFirst(),
    db.selectFrom('workers').select('secret_ciphertext as sealed').where('secret_ciphertext', 'is not', null).limit(1).executeTakeFirst(),
  ]);
  return samples.find((sample) => sample?.sealed)?.sealed ?? undefined;
}

function opens(vault: Vault, sealed: string): boolean {
  try {
    vault.open(sealed);
    return true;
  } catch {
    return false;
  }
}
