/**
 * Engine-wide secrets, sealed at rest; values leave the store only to run a tool that declares them.
 * Opened values are kept in memory until a secret changes in any process sharing the database.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Vault } from './security/vault.js';
import type { ChangeWatcher } from './store/changes.js';
import { LastUse } from './store/last-use.js';
import type { Database } from './store/schema.js';

export interface SecretInfo {
  id: string;
  key: string;
  description: string;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
}

const infoColumns = ['id', 'key', 'description', 'created_at', 'updated_at', 'last_accessed_at'] as const;

export class SecretStore {
  /** Opened values by key; null where the store has none. */
  private readonly opened = new Map<string, string | null>();
  /** Last access to the minute, written off the call's path. */
  private readonly accessed = new LastUse((key, at) => this.db.updateTable('secrets').set({ last_accessed_at: at }).where('key', '=', key).execute());

  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
    private readonly changes: ChangeWatcher,
    /** Values used where the store has none (the sandbox's credentials); never listed or stored. */
    private readonly defaults: Record<string, string> = {},
  ) {
    changes.on('secrets', () => this.opened.clear());
  }

  async put(key: string, value: string, description = ''): Promise<SecretInfo> {
    const now = new Date().toISOString();
    const sealed = this.vault.seal(value);
    const existing = await this.db.selectFrom('secrets').select('id').where('key', '=', key).executeTakeFirst();
    if (existing) {
      await this.db.updateTable('secrets').set({ value_ciphertext: sealed, description, updated_at: now }).where('id', '=', existing.id).execute();
    } else {
      await this.db
        .insertInto('secrets')
        .values({ id: randomUUID(), key, description, value_ciphertext: sealed, created_at: now, updated_at: now, last_accessed_at: null })
        .execute();
    }
    this.changes.changed('secrets');
    return (await this.db.selectFrom('secrets').select(infoColumns).where('key', '=', key).executeTakeFirstOrThrow()) as SecretInfo;
  }

  list(): Promise<SecretInfo[]> {
    return this.db.selectFrom('secrets').select(infoColumns).orderBy('key').execute() as Promise<SecretInfo[]>;
  }

  /** The key of the secret deleted; undefined when there was none with this id. */
  async delete(id: string): Promise<string | undefined> {
    const deleted = await this.db.deleteFrom('secrets').where('id', '=', id).returning('key').executeTakeFirst();
    this.changes.changed('secrets');
    return deleted?.key;
  }

  /** Which of these keys are set. */
  async present(keys: readonly string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const fallback = keys.filter((key) => key in this.defaults);
    const rows = await this.db.selectFrom('secrets').select('key').where('key', 'in', keys).execute();
    return new Set([...fallback, ...rows.map((row) => row.key)]);
  }

  /** The values of these keys (those that are set), for one tool run. */
  async reveal(keys: readonly string[]): Promise<Record<string, string>> {
    const unknown = keys.filter((key) => !this.opened.has(key));
    if (unknown.length) {
      const rows = await this.db.selectFrom('secrets').select(['key', 'value_ciphertext']).where('key', 'in', unknown).execute();
      for (const key of unknown) this.opened.set(key, null);
      for (const row of rows) this.opened.set(row.key, this.vault.open(row.value_ciphertext));
    }
    const values: Record<string, string> = {};
    for (const key of keys) {
      const value = this.opened.get(key) ?? this.defaults[key];
      if (value !== undefined) values[key] = value;
      if (this.opened.get(key) != null) this.accessed.note(key);
    }
    return values;
  }
}
