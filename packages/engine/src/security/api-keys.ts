/**
 * API keys: random, shown once, stored as SHA-256 hashes. A key is looked up by its hash, so a
 * leaked database yields no usable key. Each key has a role:
 *   admin    everything, the administration routes included
 *   service  tools, executions and authorizations for any user id; no administration
 *   user     bound to one user id: it acts as that user only
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { endSignInsOfKey } from '../authorization-server/grants.js';
import type { ChangeWatcher } from '../store/changes.js';
import { LastUse } from '../store/last-use.js';
import type { Database } from '../store/schema.js';

export const ROLES = ['admin', 'service', 'user'] as const;
export type Role = (typeof ROLES)[number];

/** Who a verified key is: what the routes check and what GET /v1/me answers. */
export interface ApiKeyIdentity {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  /** Set for user keys only: the user the key acts as. */
  user_id: string | null;
}

export interface ApiKeyInfo extends ApiKeyIdentity {
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

export interface KeyScope {
  /** Default admin, as every key was before roles. */
  role?: Role;
  /** Required for a user key, refused for the others. */
  userId?: string;
}

/** The role and user of a new key, checked: a user key names its user, and only a user key does. */
export function checkedScope({ role = 'admin', userId }: KeyScope): { role: Role; user_id: string | null } {
  if (!ROLES.includes(role)) throw new RangeError(`the role must be one of ${ROLES.join(', ')}, not '${role}'`);
  const user = userId?.trim();
  if (role === 'user' && !user) throw new RangeError('a user key is bound to one user: give the user id');
  if (role !== 'user' && userId !== undefined) throw new RangeError(`a ${role} key acts for any user: a user id is for user keys only`);
  return { role, user_id: role === 'user' ? user! : null };
}

export async function createApiKey(db: Kysely<Database>, name: string, scope: KeyScope = {}): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = `qk_${randomBytes(24).toString('base64url')}`;
  const info: ApiKeyInfo = {
    id: randomUUID(),
    name,
    prefix: key.slice(0, 10),
    ...checkedScope(scope),
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await db
    .insertInto('api_keys')
    .values({ ...info, key_hash: hash(key) })
    .execute();
  return { key, info };
}

export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'role', 'user_id', 'created_at', 'last_used_at', 'revoked_at'])
    .orderBy('created_at')
    .execute();
  return rows.map((row) => ({ ...row, role: row.role as Role }));
}

/** The active key with this id or prefix, if any. */
export async function findActiveKey(db: Kysely<Database>, idOrPrefix: string): Promise<ApiKeyIdentity | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'role', 'user_id'])
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && { ...row, role: row.role as Role };
}

/** Revocations made in this process, so that its verifiers forget at once rather than at the next poll. */
const revocations = new EventEmitter().setMaxListeners(0);

/**
 * Revokes by id or by prefix; true when a key was revoked. What was signed in with the key ends with it:
 * the MCP clients' grants it allowed (their tokens stop working at once) and the browser sign-in it left.
 */
export async function revokeApiKey(db: Kysely<Database>, idOrPrefix: string): Promise<boolean> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  for (const { id } of revoked) await endSignInsOfKey(db, id);
  revocations.emit('revoked', db);
  return revoked.length > 0;
}

/**
 * Verifies keys from memory: a key is read from the database once, then known by its hash until any
 * key is revoked (in this process or another sharing the database, seen within one poll of the
 * change watcher). Last use is written at most once a minute per key, off the request's path.
 */
export class ApiKeyVerifier {
  /** Verified keys: who they are, role included, so that no request reads the database. */
  private readonly known = new Map<string, ApiKeyIdentity>();
  private readonly used = new LastUse((id, at) => this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute());
  /** Enough for every key an engine has; past it the memory starts over rather than grow. */
  private readonly maxKnown = 10_000;

  constructor(
    private readonly db: Kysely<Database>,
    changes: ChangeWatcher,
  ) {
    changes.on('api_keys', () => this.known.clear());
    revocations.on('revoked', (of: Kysely<Database>) => of === db && this.known.clear());
  }

  /** Who the key is, when it is valid and not revoked. */
  async verify(key: string): Promise<ApiKeyIdentity | undefined> {
    // Known by the key itself, which every request carries anyway: a hit costs no hashing.
    let identity = this.known.get(key);
    if (!identity) {
      const row = await this.db
        .selectFrom('api_keys')
        .select(['id', 'name', 'prefix', 'role', 'user_id', 'last_used_at'])
        .where('key_hash', '=', hash(key))
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) return undefined;
      if (this.known.size >= this.maxKnown) this.known.clear();
      identity = { id: row.id, name: row.name, prefix: row.prefix, role: row.role as Role, user_id: row.user_id };
      this.known.set(key, identity);
      this.used.known(row.id, row.last_used_at);
    }
    this.used.note(identity.id);
    return identity;
  }
}
