/**
 * Registered workers, kept in the `workers` table: the settings as JSON, the secret and the MCP
 * headers sealed by the vault. Every worker is a source of the engine's dispatcher, ahead of the
 * built-in toolkits: a toolkit a worker serves is run by that worker (the first registered, when two
 * serve it). A disabled worker keeps its toolkits, and their calls are refused naming it, until it is
 * enabled again or deleted. Changes made by any engine process sharing the database reach the others
 * through the change watcher.
 */
import { qualifiedName, toolError, type CredentialResolver, type Invocation, type Tool, type ToolError, type ToolSource } from '@quiver/core';
import type { Kysely } from 'kysely';
import type { Vault } from '../security/vault.js';
import type { ChangeWatcher } from '../store/changes.js';
import type { Database, WorkerTable } from '../store/schema.js';
import { httpWorkerSource } from './http.js';
import { mcpWorkerSource } from './mcp.js';
import type { WorkerSettings, WorkerSource, WorkerType } from './types.js';

export interface WorkerRegistryDeps {
  db: Kysely<Database>;
  vault: Vault;
  changes: ChangeWatcher;
}

/** The parts of the settings that are not sealed. */
interface StoredConfig {
  uri: string;
  timeout: number;
  retry: number;
  /** Absent in workers registered before it existed: they may receive none. */
  allowedSecrets?: string[];
}

/** What the vault seals. */
interface Sealed {
  secret?: string;
  headers?: Record<string, string>;
}

export class WorkerRegistry {
  private readonly db: Kysely<Database>;
  /** The source of each worker, kept while its row is unchanged, so its listing is not asked again. */
  private sources = new Map<string, { updatedAt: string; source: ToolSource }>();
  /** The worker each listed tool came from, for the secrets it may receive. */
  private readonly servedBy = new WeakMap<Tool, WorkerSettings>();
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: WorkerRegistryDeps,
    /** Receives the workers' sources, in precedence order, whenever they change. */
    private readonly publish: (sources: ToolSource[]) => void,
  ) {
    this.db = deps.db;
    // A load that fails (the database away) keeps the sources as they were; the next change loads again.
    deps.changes.on('workers', () => void this.load().catch(() => undefined));
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
    await this.db
      .insertInto('workers')
      .values({ ...this.rowOf(worker), toolkits: null, created_at: now, updated_at: now })
      .execute();
    await this.changed();
    return worker;
  }

  async update(worker: WorkerSettings): Promise<WorkerSettings> {
    await this.db
      .updateTable('workers')
      .set({ ...this.rowOf(worker), updated_at: new Date().toISOString() })
      .where('id', '=', worker.id)
      .execute();
    await this.changed();
    return worker;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('workers').where('id', '=', id).executeTakeFirst();
    await this.changed();
    return Number(result.numDeletedRows) > 0;
  }

  /** The tools a worker serves now, asked of it; throws WorkerUnavailable when it does not answer. */
  tools(worker: WorkerSettings) {
    return workerSource(worker).tools();
  }

  /**
   * The engine's credentials, refusing a worker's tool that declares a secret its worker may not
   * receive before anything is looked up (no OAuth flow starts for a call that cannot run).
   */
  guard(resolver: CredentialResolver): CredentialResolver {
    return {
      resolve: async (tool, userId, call) => {
        const worker = this.servedBy.get(tool);
        const refused = worker && secretsRefusal(tool, worker, declaredKeys(tool));
        return refused ? { refused } : resolver.resolve(tool, userId, call);
      },
    };
  }

  /** Reads every worker and hands the dispatcher their sources. */
  load(): Promise<void> {
    // After a failed load too: one failure must not stop every later load.
    this.loading = this.loading
      .catch(() => undefined)
      .then(async () => {
        const rows = await this.db.selectFrom('workers').selectAll().orderBy('created_at').orderBy('id').execute();
        const next = new Map<string, { updatedAt: string; source: ToolSource }>();
        for (const row of rows) {
          const known = this.sources.get(row.id);
          next.set(row.id, known?.updatedAt === row.updated_at ? known : { updatedAt: row.updated_at, source: this.sourceOf(row) });
        }
        this.sources = next;
        this.publish([...next.values()].map((entry) => entry.source));
      });
    return this.loading;
  }

  /** A change of this process: its own dispatcher follows at once, the others at their next poll. */
  private async changed(): Promise<void> {
    this.deps.changes.changed('workers');
    await this.loading;
  }

  private sourceOf(row: WorkerTable): ToolSource {
    const toolkits = row.toolkits ? (JSON.parse(row.toolkits) as string[]) : [];
    const refusing = (disabled: string): ToolSource => ({
      id: row.id,
      label: `worker ${row.id}`,
      toolkits,
      disabled,
      tools: async () => [],
      invoke: async () => {
        throw new Error(disabled);
      },
    });
    let worker: WorkerSettings;
    try {
      worker = this.settingsOf(row);
    } catch {
      return refusing(`worker ${row.id} cannot be used: its sealed settings do not open with this engine's master key.`);
    }
    if (!worker.enabled) return refusing(`worker ${row.id} is disabled: enable it (PATCH /v1/workers/${row.id}) or delete it to serve these tools otherwise.`);
    const remote = workerSource(worker);
    return {
      ...remote,
      toolkits,
      tools: async () => {
        const tools = await remote.tools();
        for (const tool of tools) this.servedBy.set(tool, worker);
        const served = [...new Set(tools.map((tool) => tool.toolkit.name))].sort();
        if (JSON.stringify(served) !== JSON.stringify([...toolkits].sort())) {
          // Remembered for when the worker is down: its toolkits stay routed to it. Not a change of
          // settings, so updated_at stays and no process reloads for it.
          await this.db
            .updateTable('workers')
            .set({ toolkits: JSON.stringify(served) })
            .where('id', '=', row.id)
            .execute();
        }
        return tools;
      },
      // The last check before anything leaves for the worker, whatever resolved the call's credentials.
      invoke: async (tool: Tool, input: Record<string, unknown>, invocation: Invocation) => {
        const refused = secretsRefusal(tool, worker, Object.keys(invocation.secrets));
        return refused ? { error: refused } : remote.invoke(tool, input, invocation);
      },
    };
  }

  private rowOf(worker: WorkerSettings): Omit<WorkerTable, 'created_at' | 'updated_at' | 'toolkits'> {
    const config: StoredConfig = { uri: worker.uri, timeout: worker.timeout, retry: worker.retry, allowedSecrets: worker.allowedSecrets };
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
    return { id: row.id, type: row.type as WorkerType, enabled: row.enabled === 1, ...config, allowedSecrets: config.allowedSecrets ?? [], ...sealed };
  }
}

const declaredKeys = (tool: Tool) => (tool.requirements.secrets ?? []).map((secret) => secret.key);

/** Why a call of a worker's tool may not carry these secrets: the ones the worker may not receive, and how to allow them. */
function secretsRefusal(tool: Tool, worker: WorkerSettings, keys: string[]): ToolError | undefined {
  const refused = keys.filter((key) => !worker.allowedSecrets.includes(key));
  if (!refused.length) return undefined;
  const allowed = JSON.stringify({ allowed_secrets: [...worker.allowedSecrets, ...refused] });
  return toolError(
    'TOOL_REQUIREMENTS_NOT_MET',
    `${qualifiedName(tool)} runs on worker ${worker.id}, which may not receive the secret${refused.length > 1 ? 's' : ''} it declares: ${refused.join(', ')}. ` +
      `An admin can allow ${refused.length > 1 ? 'them' : 'it'} in the worker's allowed_secrets: PATCH /v1/workers/${worker.id} ${allowed}.`,
  ).error;
}

export function workerSource(worker: WorkerSettings): WorkerSource {
  return worker.type === 'mcp' ? mcpWorkerSource(worker) : httpWorkerSource(worker);
}
