/**
 * API keys: random, shown once, stored as SHA-256 hashes. A key is looked up by its hash, so a
 * leaked database yields no usable key. Each key has a role:
 *   admin    everything, the administration routes included
 *   service  tools, executions and authorizations for any user id; no administration
 *   user     bound to one user id: it acts as that user only
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql, type Kysely } from 'kysely';
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
  /** The key's own requests a minute and tool calls in flight (0: no limit); null: its role's (limits/settings.ts). */
  rpm: number | null;
  concurrency: number | null;
}

export interface ApiKeyInfo extends ApiKeyIdentity {
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

/** Keys revoked, or their limits changed, in this process: its verifiers forget at once rather than at the next poll. */
const revocations = new EventEmitter().setMaxListeners(0);

export interface KeyScope {
  /** Default admin, as every key was before roles. */
  role?: Role;
  /** Required for a user key, refused for the others. */
  userId?: string;
}

/** A key's own limits; null gives it back its role's, absent leaves it as it is. */
export interface KeyLimits {
  rpm?: number | null;
  concurrency?: number | null;
}

/** Limits are whole numbers from 0 (0: no limit), or null for the role's. */
export function checkedLimits(limits: KeyLimits): KeyLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && value !== null && !(Number.isInteger(value) && value >= 0)) {
      throw new RangeError(`${name} must be a whole number from 0 (0: no limit), or null for the role's default, not ${JSON.stringify(value)}`);
    }
  }
  return limits;
}

const identityColumns = ['id', 'name', 'prefix', 'role', 'user_id', 'limit_rpm', 'limit_concurrency'] as const;

type IdentityRow = { role: string; limit_rpm: number | null; limit_concurrency: number | null };

/** A row as the API shows it: its role typed, its limits named as the API names them. */
function identityOf<Row extends IdentityRow>(row: Row): Omit<Row, keyof IdentityRow> & Pick<ApiKeyIdentity, 'role' | 'rpm' | 'concurrency'> {
  const { limit_rpm, limit_concurrency, role, ...rest } = row;
  return { ...rest, role: role as Role, rpm: limit_rpm, concurrency: limit_concurrency };
}

/** The role and user of a new key, checked: a user key names its user, and only a user key does. */
export function checkedScope({ role = 'admin', userId }: KeyScope): { role: Role; user_id: string | null } {
  if (!ROLES.includes(role)) throw new RangeError(`the role must be one of ${ROLES.join(', ')}, not '${role}'`);
  const user = userId?.trim();
  if (role === 'user' && !user) throw new RangeError('a user key is bound to one user: give the user id');
  if (role !== 'user' && userId !== undefined) throw new RangeError(`a ${role} key acts for any user: a user id is for user keys only`);
  return { role, user_id: role === 'user' ? user! : null };
}

export async function createApiKey(
  db: Kysely<Database>,
  name: string,
  scope: KeyScope = {},
  limits: KeyLimits = {},
): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = `qk_${randomBytes(24).toString('base64url')}`;
  const { rpm = null, concurrency = null } = checkedLimits(limits);
  const info: ApiKeyInfo = {
    id: randomUUID(),
    name,
    prefix: key.slice(0, 10),
    ...checkedScope(scope),
    rpm,
    concurrency,
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  const { rpm: limit_rpm, concurrency: limit_concurrency, ...columns } = info;
  await db
    .insertInto('api_keys')
    .values({ ...columns, limit_rpm, limit_concurrency, updated_at: info.created_at, key_hash: hash(key) })
    .execute();
  return { key, info };
}

export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select([...identityColumns, 'created_at', 'last_used_at', 'revoked_at'])
    .orderBy('created_at')
    .execute();
  return rows.map(identityOf);
}

/** The active key with this id or prefix, if any. */
export async function findActiveKey(db: Kysely<Database>, idOrPrefix: string): Promise<ApiKeyIdentity | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(identityColumns)
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && identityOf(row);
}

/**
 * Changes an active key's own limits (by id or prefix): the key as it was and as it is, or undefined when
 * no active key has that id or prefix. Every engine process sees the change as it sees a revocation.
 */
export async function updateApiKeyLimits(
  db: Kysely<Database>,
  idOrPrefix: string,
  limits: KeyLimits,
): Promise<{ before: ApiKeyIdentity; after: ApiKeyIdentity } | undefined> {
  checkedLimits(limits);
  const before = await findActiveKey(db, idOrPrefix);
  if (!before) return undefined;
  const row = await db
    .updateTable('api_keys')
    .set({
      ...(limits.rpm !== undefined && { limit_rpm: limits.rpm }),
      ...(limits.concurrency !== undefined && { limit_concurrency: limits.concurrency }),
      updated_at: new Date().toISOString(),
      // Named, unchanged, so that PostgreSQL's change trigger on api_keys (migration 0011, `update of
      // revoked_at`) tells every process at once, as for a revocation.
      revoked_at: sql<null>`revoked_at`,
    })
    .where('id', '=', before.id)
    .where('revoked_at', 'is', null)
    .returning(identityColumns)
    .executeTakeFirst();
  if (!row) return undefined;
  revocations.emit('revoked', db);
  return { before, after: identityOf(row) };
}

/**
 * Revokes by id or by prefix; true when a key was revoked. What was signed in with the key ends with it:
 * the MCP clients' grants it allowed (their tokens stop working at once) and the browser sign-in it left.
 */
export async function revokeApiKey(db: Kysely<Database>, idOrPrefix: string): Promise<boolean> {
  const now = new Date().toISOString();
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: now, updated_at: now })
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

  /**
   * Who the key is, when this process knows it already (verified since the last revocation): answered
   * without a promise, which is every request but a key's first. Undefined says only that it must be verified.
   */
  knownIdentity(key: string): ApiKeyIdentity | undefined {
    // Known by the key itself, which every request carries anyway: a hit costs no hashing.
    const identity = this.known.get(key);
    if (identity) this.used.note(identity.id);
    return identity;
  }

  /** Who the key is, when it is valid and not revoked. */
  async verify(key: string): Promise<ApiKeyIdentity | undefined> {
    return this.knownIdentity(key) ?? this.lookUp(key);
  }

  /** A key this process does not know (yet), read from the database by its hash, then known. */
  private async lookUp(key: string): Promise<ApiKeyIdentity | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .select([...identityColumns, 'last_used_at'])
      .where('key_hash', '=', hash(key))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    if (this.known.size >= this.maxKnown) this.known.clear();
    const { last_used_at: _lastUse, ...identityRow } = row;
    const identity = identityOf(identityRow);
    this.known.set(key, identity);
    this.used.known(row.id, row.last_used_at);
    this.used.note(identity.id);
    return identity;
  }
}
