/** Engine-wide secrets, sealed at rest; values leave the store only to run a tool that declares them. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Vault } from './security/vault.js';
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
  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
    /** Values used where the store has none (the sandbox's credentials); never listed or stored. */
    private readonly defaults: Record<string, string> = {},
  ) {}

  async put(key: string, value: string, description = ''): Promise<SecretInfo> {
    const now = new Date().toISOString();
    const sealed = this.vault.seal(value);
    const existing = await this.db.selectFrom('secrets').select('id').where('key', '=', key).executeTakeFirst();
    if (existing) {
      await this.db.updateTable('secrets').set({ value_ciphertext: sealed, description, updated_at: now }).where('id', '=', existing.id).execute();
    } else {
      await this.db.insertInto('secrets').values({ id: randomUUID(), key, description, value_ciphertext: sealed, created_at: now, updated_at: now, last_accessed_at: null }).execute();
    }
    return (await this.db.selectFrom('secrets').select(infoColumns).where('key', '=', key).executeTakeFirstOrThrow()) as SecretInfo;
  }

  list(): Promise<SecretInfo[]> {
    return this.db.selectFrom('secrets').select(infoColumns).orderBy('key').execute() as Promise<SecretInfo[]>;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('secrets').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
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
    if (!keys.length) return {};
    const fallback = Object.fromEntries(keys.filter((key) => key in this.defaults).map((key) => [key, this.defaults[key]!]));
    const rows = await this.db.selectFrom('secrets').select(['key', 'value_ciphertext']).where('key', 'in', keys).execute();
    if (rows.length) {
      await this.db.updateTable('secrets').set({ last_accessed_at: new Date().toISOString() }).where('key', 'in', rows.map((row) => row.key)).execute();
    }
    return { ...fallback, ...Object.fromEntries(rows.map((row) => [row.key, this.vault.open(row.value_ciphertext)])) };
  }
}
