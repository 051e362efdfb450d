/**
 * The engine's settings and their defaults, in one place. The `quiver` command resolves its flags,
 * environment and config file over these defaults and hands the result to `engineConfig`; any other caller
 * (a test, an embedding) gives what it wants and `engineConfig` fills in the rest. Nothing here reads the
 * environment, and nothing heavy is imported: the command line reads the defaults without loading the engine.
 *
 * The authorization server of the MCP endpoint has settings of its own (authorization-server/settings.ts).
 */
import { resolve } from 'node:path';
import type { UpstreamClientOptions } from '@quiver/core';
import { DEFAULT_AUDIT_RETENTION_DAYS } from './audit.js';
import { authorizationServerSettings, type AuthorizationServerSettings } from './authorization-server/settings.js';
import { defaultLimits, type LimitSettings } from './limits/settings.js';

export interface EngineConfig {
  /** The data directory (absolute once resolved): the SQLite database and the master key file, unless given elsewhere. */
  dataDir: string;
  /** A SQLite file path, or a postgres:// URL. */
  database: string;
  /** The 256-bit key that seals secrets and tokens; a key file in the data directory when absent. */
  masterKey?: string;
  host: string;
  port: number;
  /** The engine's address as browsers reach it, for OAuth callbacks; the address it listens on when absent. */
  publicUrl?: string;
  /** The engine is one project; the project routes show it under this name. */
  projectName: string;
  /** How people sign in to MCP clients (OAuth 2.1 for the MCP endpoint). */
  authorizationServer: AuthorizationServerSettings;
  /** Origins of web pages allowed to call the API and /v1/mcp, besides loopback origins and the public URL. */
  allowedOrigins: string[];
  /**
   * Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges): a request from one of them is
   * counted, by the rate limits, as coming from the address it forwards for. None: the peer's address.
   */
  trustedProxies: string[];
  /** The Redis every engine process shares limits and upstream budgets through; each process alone when absent. */
  redisUrl?: string;
  /** Put before every key the engine keeps in that Redis (deployments sharing one Redis). Default `quiver:`. */
  redisPrefix: string;
  /** Requests a minute and calls in flight per API key, per user and per client address (limits/settings.ts). */
  limits: LimitSettings;
  /** Limits of every upstream call (deadline, largest answer); the client's defaults where absent. */
  upstreamLimits?: UpstreamClientOptions;
  /** Audit events older than this many days are deleted (0 keeps them for ever). Default 90. */
  auditRetentionDays: number;
  /**
   * An immediate call's record keeps its input (credentials redacted) and its result, for the day the record
   * is kept; off, its outcome and error kind only. Default on.
   */
  recordCallData: boolean;
  /**
   * How long a stopping engine keeps serving while GET /v1/ready answers 503, so that load balancers
   * polling it stop sending requests before it refuses them. Default 0.
   */
  drainSeconds: number;
  /**
   * Then how long the requests and scheduled executions in flight have to finish while new ones are
   * refused; what is still running after it is cut (scheduled executions are marked failed). Default 25.
   */
  drainTimeoutSeconds: number;
}

/** What the engine uses where it is given nothing: SQLite in the data directory, the HTTP API on 127.0.0.1:9099. */
export const engineDefaults = {
  host: '127.0.0.1',
  port: 9099,
  /** The SQLite file, in the data directory. */
  databaseFile: 'quiver.db',
  projectName: 'Quiver',
  redisPrefix: 'quiver:',
  auditRetentionDays: DEFAULT_AUDIT_RETENTION_DAYS,
  recordCallData: true,
  drainSeconds: 0,
  /** Within Kubernetes' default 30 s between SIGTERM and SIGKILL, with room for the rest of the close. */
  drainTimeoutSeconds: 25,
} as const;

/** The database when none is given: the SQLite file in the data directory. */
export const defaultDatabase = (dataDir: string): string => resolve(dataDir, engineDefaults.databaseFile);

/** The engine's settings from those given (other properties of `settings` are ignored), the defaults filling in the rest. */
export function engineConfig(settings: Partial<EngineConfig> & { dataDir: string }): EngineConfig {
  const dataDir = resolve(settings.dataDir);
  return {
    dataDir,
    database: settings.database ?? defaultDatabase(dataDir),
    masterKey: settings.masterKey,
    host: settings.host ?? engineDefaults.host,
    port: settings.port ?? engineDefaults.port,
    publicUrl: settings.publicUrl?.replace(/\/+$/, ''),
    projectName: settings.projectName ?? engineDefaults.projectName,
    authorizationServer: settings.authorizationServer ?? authorizationServerSettings(),
    allowedOrigins: settings.allowedOrigins ?? [],
    trustedProxies: settings.trustedProxies ?? [],
    redisUrl: settings.redisUrl,
    redisPrefix: settings.redisPrefix ?? engineDefaults.redisPrefix,
    limits: settings.limits ?? defaultLimits,
    upstreamLimits: settings.upstreamLimits,
    auditRetentionDays: settings.auditRetentionDays ?? engineDefaults.auditRetentionDays,
    recordCallData: settings.recordCallData ?? engineDefaults.recordCallData,
    drainSeconds: settings.drainSeconds ?? engineDefaults.drainSeconds,
    drainTimeoutSeconds: settings.drainTimeoutSeconds ?? engineDefaults.drainTimeoutSeconds,
  };
}
