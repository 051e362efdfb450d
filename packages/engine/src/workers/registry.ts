/**
 * Registered workers, kept in the `workers` table: the settings as JSON, the secret and the MCP
 * headers sealed by the vault. An enabled worker is a source in the engine's tool catalog; the registry
 * keeps the two in step, and `loadWorkers` puts the persisted ones back on start.
 */
import type { Kysely } from 'kysely';
import type { Vault } from '../security/vault.js';
import type { Database, WorkerTable } from '../store/schema.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { httpWorkerSource } from './http.js';
import { mcpWorkerSource } from './mcp.js';
import type { WorkerSettings, WorkerSource, WorkerType } from './types.js';

export interface WorkerRegistryDeps {
  store: { db: Kysely<Database> };
  vault: Vault;
  catalog: ToolCatalog;
}

/** The parts of the settings that are not sealed. */
interface StoredConfig {
  uri: string;
  timeout: number;
  retry: number;
}

/** What the vault seals. */
interface Sealed {
  secret?: string;
  headers?: Record<string, string>;
}

export class WorkerRegistry {
  private readonly db: Kysely<Database>;

  constructor(private readonly deps: WorkerRegistryDeps) {
    this.db = deps.store.db;
  }

  async list(): Promise<WorkerSettings[]> {
    const rows = await this.db.selectFrom('workers').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => this.settingsOf(row));
  }

  async get(id: string): Promise<WorkerSettings | undefined> {
    const row = await this.db.selectFrom('workers').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.settingsOf(row);
  }

  /** Undefined when a worker with this id exists already. */
  async create(worker: WorkerSettings): Promise<WorkerSettings | undefined> {
    if (await this.get(worker.id)) return undefined;
    const now = new Date().toISOString();
    await this.db.insertInto('workers').values({ ...this.rowOf(worker), created_at: now, updated_at: now }).execute();
    this.sync(worker);
    return worker;
  }

  async update(worker: WorkerSettings): Promise<WorkerSettings> {
    await this.db.updateTable('workers').set({ ...this.rowOf(worker), updated_at: new Date().toISOString() }).where('id', '=', worker.id).execute();
    this.sync(worker);
    return worker;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('workers').where('id', '=', id).executeTakeFirst();
    this.deps.catalog.remove(id);
    return Number(result.numDeletedRows) > 0;
  }

  /** Puts every enabled worker in the catalog. A worker whose row cannot be read is left out. */
  async load(): Promise<void> {
    const rows = await this.db.selectFrom('workers').selectAll().where('enabled', '=', 1).execute();
    for (const row of rows) {
      try {
        this.sync(this.settingsOf(row));
      } catch {
        // Sealed with another master key, or damaged: the worker's health route reports it.
      }
    }
  }

  private sync(worker: WorkerSettings): void {
    this.deps.catalog.remove(worker.id);
    if (worker.enabled) this.deps.catalog.add(workerSource(worker));
  }

  private rowOf(worker: WorkerSettings): Omit<WorkerTable, 'created_at' | 'updated_at'> {
    const config: StoredConfig = { uri: worker.uri, timeout: worker.timeout, retry: worker.retry };
    const sealed: Sealed = { ...(worker.secret !== undefined && { secret: worker.secret }), ...(worker.headers && { headers: worker.headers }) };
    return {
      id: worker.id,
      type: worker.type,
      enabled: worker.enabled ? 1 : 0,
      config: JSON.stringify(config),
      secret_ciphertext: Object.keys(sealed).length ? this.deps.vault.seal(JSON.stringify(sealed)) : null,
    };
  }

  private settingsOf(row: WorkerTable): WorkerSettings {
    const config = JSON.parse(row.config) as StoredConfig;
    const sealed: Sealed = row.secret_ciphertext ? JSON.parse(this.deps.vault.open(row.secret_ciphertext)) : {};
    return { id: row.id, type: row.type as WorkerType, enabled: row.enabled === 1, ...config, ...sealed };
  }
}

export function workerSource(worker: WorkerSettings): WorkerSource {
  return worker.type === 'mcp' ? mcpWorkerSource(worker) : httpWorkerSource(worker);
}

/** Called when the engine opens: the persisted workers back in its catalog. */
export function loadWorkers(deps: WorkerRegistryDeps): Promise<void> {
  return new WorkerRegistry(deps).load();
}
