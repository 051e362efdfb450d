/** The engine: its store, vault, tool catalog and services, opened together and closed together. */
import { ServingPolicy, UpstreamClient, type ServingOptions, type Toolkit } from '@quiver/core';
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
  /** Secret values for keys the store does not hold (the sandbox's credentials). */
  defaultSecrets?: Record<string, string>;
  scheduler?: SchedulerOptions;
  /** Which tools the engine offers, and how calls are guarded and shaped (`quiver serve` flags). */
  serving?: ServingOptions;
  /** The MCP endpoint lists the discovery meta-tools unless a request asks otherwise (`?discovery=false`). */
  discovery?: boolean;
}

/** What the engine's parts are built from. */
export type EngineBase = Omit<Engine, 'credentials' | 'scheduler' | 'policy' | 'discovery'>;

export interface Engine {
  config: EngineConfig;
  /** Where the HTTP API listens, once it does (the port is known only then when the configured one is 0). */
  address: { url: string };
  store: Store;
  vault: Vault;
  client: UpstreamClient;
  catalog: ToolCatalog;
  secrets: SecretStore;
  credentials: Credentials;
  scheduler: Scheduler;
  policy: ServingPolicy;
  discovery: boolean;
  close(): Promise<void>;
}

export async function openEngine(options: EngineOptions): Promise<Engine> {
  const { config } = options;
  const vault = new Vault(loadMasterKey(config.masterKey, resolve(config.dataDir, 'master.key')));
  const store = await openStore(config.database);
  const client = new UpstreamClient();
  const policy = new ServingPolicy(options.serving);
  const catalog = new ToolCatalog([builtinSource(options.toolkits ?? builtinToolkits, options.baseUrls ?? {}, client)], (tool) => policy.offers(tool));
  await loadWorkers({ store, vault, catalog });
  const secrets = new SecretStore(store.db, vault, options.defaultSecrets);
  let scheduler: Scheduler | undefined;
  const base: EngineBase = {
    config,
    address: { url: `http://${config.host}:${config.port}` },
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
  scheduler = new Scheduler(store.db, store.dialect, catalog, { credentials, secrets, policy }, options.scheduler);
  return { ...base, credentials, scheduler, policy, discovery: options.discovery ?? false };
}
