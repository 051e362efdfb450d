/** The engine: its store, vault, dispatcher and services, opened together and closed together. */
import {
  builtinSource,
  DEFAULT_DEADLINE_MS,
  Dispatcher,
  ServingPolicy,
  ToolCatalog,
  UpstreamClient,
  type BaseUrl,
  type CallData,
  type CallRecord,
  type ServingOptions,
  type Toolkit,
} from '@quiver/core';
import { toolkits as builtinToolkitsInMemory } from '@quiver/toolkits';
import { isIPv6 } from 'node:net';
import { resolve } from 'node:path';
import { AuditTrail } from './audit.js';
import { engineCredentials, type Credentials } from './auth/credentials.js';
import { OAuth } from './auth/oauth.js';
import { SandboxAuthorization } from './auth/sandbox-authorization.js';
import { AuthorizationServer } from './authorization-server/authorization-server.js';
import type { EngineConfig } from './config.js';
import { ExecutionLog } from './executions.js';
import { Limits } from './limits/limits.js';
import { SecretStore } from './secrets.js';
import { ApiKeyVerifier } from './security/api-keys.js';
import { checkMasterKey, loadMasterKey, Vault } from './security/vault.js';
import { ChangeWatcher } from './store/changes.js';
import { Readiness } from './readiness.js';
import { localStore, openSharedStore, type SharedStore, type SharedStoreLog } from './store/redis.js';
import { openStore, type Store } from './store/db.js';
import { upstreamBudgets } from './store/upstream-budgets.js';
import { Scheduler, type SchedulerOptions } from './scheduler.js';
import { WorkerRegistry } from './workers/registry.js';

export interface EngineOptions {
  config: EngineConfig;
  /**
   * Base URL per built-in toolkit, where it differs from the toolkit's default. ToolEngineApi, unless
   * named here, calls this engine itself: its public URL, or where it listens.
   */
  baseUrls?: Record<string, string>;
  /** Where users' OAuth tokens come from; the engine's OAuth by default (tests put fixed tokens here). */
  credentials?: () => Credentials;
  /** The toolkits served; by default the built-in ones, CommerceTools keeping what it creates in memory. */
  toolkits?: Toolkit[];
  /** Secret values for keys the store does not hold (the sandbox's credentials). */
  defaultSecrets?: Record<string, string>;
  scheduler?: SchedulerOptions;
  /** Which tools the engine offers, and how calls are guarded and shaped (`quiver serve` flags). */
  serving?: ServingOptions;
  /** The MCP endpoint lists the discovery meta-tools unless a request asks otherwise (`?discovery=false`). */
  discovery?: boolean;
  /**
   * The sandbox: every OAuth provider exists, served by the engine's own consent page and token
   * endpoint, which grant the token the sandbox's emulators accept.
   */
  sandbox?: { token: string };
  /**
   * How often another process's changes (keys, secrets, tokens, workers) are looked for while nothing
   * notifies them: always on SQLite, on PostgreSQL only while its LISTEN connection is lost. Default 500 ms.
   */
  changePollMs?: number;
  /** This process's metrics in the Prometheus text format (the telemetry module's scrape), served at GET /metrics. */
  metrics?: () => Promise<string>;
}

export interface Engine {
  config: EngineConfig;
  /** Where the HTTP API listens, once it does (the port is known only then when the configured one is 0). */
  address: EngineAddress;
  /** Where clients and browsers reach the engine: its public URL (`QUIVER_PUBLIC_URL`), else the address it listens on. */
  publicUrl: () => string;
  store: Store;
  vault: Vault;
  changes: ChangeWatcher;
  /** Present in the sandbox: the authorization server of every provider. */
  sandbox?: SandboxAuthorization;
  apiKeys: ApiKeyVerifier;
  secrets: SecretStore;
  /** Users' authorizations, connections and auth providers. */
  oauth: OAuth;
  /** The OAuth 2.1 authorization server of the MCP endpoint, for MCP clients that sign people in. */
  authorizationServer: AuthorizationServer;
  /** Where calls get users' tokens: the OAuth above, unless the engine was opened with others. */
  credentials: Credentials;
  /** The one path of every tool call: the HTTP API, MCP, the scheduler. */
  dispatcher: Dispatcher;
  workers: WorkerRegistry;
  scheduler: Scheduler;
  executions: ExecutionLog;
  /** The record of administrative changes. */
  audit: AuditTrail;
  /** Whether this process can take traffic (GET /v1/ready); not from the moment it starts closing. */
  readiness: Readiness;
  /** What every process counts together (limits, upstream budgets): Redis when `REDIS_URL` names one, else this process alone. */
  shared: SharedStore;
  /** Requests a minute and calls in flight per API key, per user and per client address. */
  limits: Limits;
  policy: ServingPolicy;
  discovery: boolean;
  /** This process's metrics in the Prometheus text format, when they are collected. */
  metrics?: () => Promise<string>;
  /** Where finished calls, and changes of state (database lost and back, change notifications lost and back), are logged (the HTTP server's logger once it runs). */
  log?: { info(record: object, message: string): void; warn(record: object, message: string): void };
  close(): Promise<void>;
}

export async function openEngine(options: EngineOptions): Promise<Engine> {
  const { config } = options;
  const store = await openStore(config.database);
  const keyFile = resolve(config.dataDir, 'master.key');
  let vault: Vault;
  try {
    vault = new Vault(loadMasterKey(config.masterKey, keyFile));
    // A key that cannot open the database's sealed data refuses to start, rather than failing every call.
    await checkMasterKey(store.db, vault, config.masterKey ? 'QUIVER_MASTER_KEY' : `the key file ${keyFile}`);
  } catch (error) {
    await store.close();
    throw error;
  }
  // Called once the engine exists: its logger is the HTTP server's.
  const changes = new ChangeWatcher(store, { pollMs: options.changePollMs, log: () => engine.log });
  // Opened before the upstream client, which keeps the upstreams' rate-limit budgets in it.
  const shared = config.redisUrl
    ? await openSharedStore(config.redisUrl, () => engine.log as SharedStoreLog | undefined, { keyPrefix: config.redisPrefix })
    : localStore;
  const client = new UpstreamClient({ ...config.upstreamLimits, budgets: upstreamBudgets(shared, vault.derive('upstream budgets')) });
  const policy = new ServingPolicy(options.serving);
  const secrets = new SecretStore(store.db, vault, changes, options.defaultSecrets);
  const toolkits = options.toolkits ?? builtinToolkitsInMemory;
  // Where browsers reach the engine: its public URL, or the address it listens on (known once it does).
  const address = engineAddress(config.host, config.port);
  const publicUrl = () => config.publicUrl ?? address.url;
  // ToolEngineApi administers this engine with its admin key, so it calls this engine and nothing else:
  // the public URL when there is one, else where it listens, read at each call (port 0 is known late).
  const baseUrls: Record<string, BaseUrl> = { ToolEngineApi: () => config.publicUrl ?? address.local, ...options.baseUrls };
  const sandbox = options.sandbox && new SandboxAuthorization({ token: options.sandbox.token, publicUrl, scopes: scopesByProvider(toolkits) });
  const oauth = new OAuth({ db: store.db, vault, changes, publicUrl, providers: sandbox && ((configured) => sandbox.beside(configured)), host: config.host });
  const credentials = options.credentials?.() ?? oauth;
  const executions = new ExecutionLog(store.db);
  const builtin = builtinSource(toolkits, client, baseUrls);
  const catalog = new ToolCatalog();
  const workers = new WorkerRegistry({ db: store.db, vault, changes }, (sources) => catalog.setSources([...sources, builtin]));
  await workers.load();
  const dispatcher = new Dispatcher(catalog, {
    // A worker's tool that declares a secret its worker may not receive is refused before any lookup.
    credentials: workers.guard(engineCredentials(credentials, secrets)),
    policy,
    record: (call: CallRecord, data: CallData) => {
      // The input and result are stored, never logged; a scheduled execution's row has its input already, and keeps its run's result apart.
      executions.record(call, config.recordCallData && !scheduler.runs(call.execution_id) ? data : undefined);
      engine.log?.info(call, 'tool executed');
    },
  });
  const scheduler = new Scheduler(store.db, store.dialect, dispatcher, options.scheduler);
  const audit = new AuditTrail(store.db, config.auditRetentionDays);
  // A call holds its slots in Redis at most twice its upstream deadline, should its process die mid-call.
  const limits = await Limits.open(config.limits, { redis: shared.client, holdMs: 2 * (config.upstreamLimits?.deadlineMs ?? DEFAULT_DEADLINE_MS) });
  const readiness = new Readiness(store.db, { degraded: () => shared.degraded() ?? changes.degraded() });
  const engine: Engine = {
    config,
    address,
    publicUrl,
    store,
    vault,
    changes,
    sandbox,
    apiKeys: new ApiKeyVerifier(store.db, changes),
    secrets,
    oauth,
    authorizationServer: new AuthorizationServer({ db: store.db, vault, settings: config.authorizationServer, publicUrl, limits }),
    credentials,
    dispatcher,
    workers,
    scheduler,
    executions,
    audit,
    readiness,
    shared,
    limits,
    policy,
    discovery: options.discovery ?? false,
    metrics: options.metrics,
    async close() {
      readiness.drain();
      audit.stop();
      await scheduler.stop();
      await changes.stop();
      await executions.flush();
      // Upstream requests still open belong to calls a drain gave up on (its bound passed): not waited for.
      await Promise.race([client.close(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      await shared.close();
      await store.close();
    },
  };
  store.availability.log = () => engine.log;
  await changes.start();
  await audit.start();
  return engine;
}

export interface EngineAddress {
  /** The address the API listens on, e.g. http://127.0.0.1:9099 or http://[::]:9099. */
  url: string;
  /** Where this process reaches its own API: the same, over loopback when it listens on every address. */
  local: string;
}

export function engineAddress(host: string, port: number): EngineAddress {
  const everyAddress = host === '0.0.0.0' || (isIPv6(host) && /^[0:]+$/.test(host));
  const loopback = !everyAddress ? host : isIPv6(host) ? '::1' : '127.0.0.1';
  return { url: httpUrl(host, port), local: httpUrl(loopback, port) };
}

/** An IPv6 address goes in brackets. */
const httpUrl = (host: string, port: number) => `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;

/** Every scope the toolkits' tools ask of each OAuth provider. */
function scopesByProvider(toolkits: readonly Toolkit[]): Record<string, string[]> {
  const scopes: Record<string, Set<string>> = {};
  for (const tool of toolkits.flatMap((toolkit) => toolkit.tools)) {
    const oauth = tool.requirements.oauth2;
    if (!oauth) continue;
    scopes[oauth.provider] ??= new Set();
    for (const scope of oauth.scopes) scopes[oauth.provider]!.add(scope);
  }
  return Object.fromEntries(Object.entries(scopes).map(([provider, set]) => [provider, [...set].sort()]));
}
