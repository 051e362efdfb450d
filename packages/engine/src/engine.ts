/** The engine: its store, vault, tool catalog and services, opened together and closed together. */
import { UpstreamClient, type Toolkit } from '@quiver/core';
import { toolkits as builtinToolkits } from '@quiver/toolkits';
import { resolve } from 'node:path';
import type { Credentials } from './auth/credentials.js';
import { oauthCredentials } from './auth/oauth.js';
import type { EngineConfig } from './config.js';
import { SecretStore } from './secrets.js';
import { loadMasterKey, Vault } from './security/vault.js';
import { openStore, type Store } from './store/db.js';
import { ToolCatalog } from './tools/catalog.js';
import { builtinSource } from './tools/source.js';
import { Scheduler, type SchedulerOptions } from './scheduler.js';
import { loadWorkers } from './workers/registry.js';

export interface EngineOptions {
  config: EngineConfig;
  /** Base URL per built-in toolkit, where it differs from the toolkit's default. */
  baseUrls?: Record<string, string>;
  /** Where users' OAuth tokens come from; the OAuth module by default. */
  credentials?: (engine: EngineBase) => Credentials;
  toolkits?: Toolkit[];
  scheduler?: SchedulerOptions;
}

/** What the engine's parts are built from. */
export type EngineBase = Omit<Engine, 'credentials' | 'scheduler'>;

export interface Engine {
  config: EngineConfig;
  store: Store;
  vault: Vault;
  client: UpstreamClient;
  catalog: ToolCatalog;
  secrets: SecretStore;
  credentials: Credentials;
  scheduler: Scheduler;
  close(): Promise<void>;
}

export async function openEngine(options: EngineOptions): Promise<Engine> {
  const { config } = options;
  const vault = new Vault(loadMasterKey(config.masterKey, resolve(config.dataDir, 'master.key')));
  const store = await openStore(config.database);
  const client = new UpstreamClient();
  const catalog = new ToolCatalog([builtinSource(options.toolkits ?? builtinToolkits, options.baseUrls ?? {}, client)]);
  await loadWorkers({ store, vault, catalog });
  const secrets = new SecretStore(store.db, vault);
  let scheduler: Scheduler | undefined;
  const base: EngineBase = {
    config,
    store,
    vault,
    client,
    catalog,
    secrets,
    async close() {
      await scheduler?.stop();
      await client.close();
      await store.close();
    },
  };
  const credentials = (options.credentials ?? oauthCredentials)(base);
  scheduler = new Scheduler(store.db, store.dialect, catalog, { credentials, secrets }, options.scheduler);
  return { ...base, credentials, scheduler };
}
