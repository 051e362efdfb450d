/**
 * The engine's settings, as the caller resolved them (the `quiver` command's configuration module reads
 * flags, environment and config file); only the defaults that follow from the others are filled in here:
 * SQLite in the data directory, the HTTP API on 127.0.0.1:9099.
 *
 * The authorization server of the MCP endpoint has settings of its own (authorization-server/settings.ts).
 */
import { resolve } from 'node:path';
import { authorizationServerSettings, type AuthorizationServerSettings } from './authorization-server/settings.js';
import type { UpstreamClientOptions } from '@quiver/core';
import { DEFAULT_AUDIT_RETENTION_DAYS } from './audit.js';
import { defaultLimits, type LimitSettings } from './limits/settings.js';

export interface EngineConfig {
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

/** Within Kubernetes' default 30 s between SIGTERM and SIGKILL, with room for the rest of the close. */
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 25;

export function engineConfig(settings: Partial<EngineConfig> & { dataDir: string }): EngineConfig {
  const dataDir = resolve(settings.dataDir);
  return {
    dataDir,
    database: settings.database ?? resolve(dataDir, 'quiver.db'),
    masterKey: settings.masterKey,
    host: settings.host ?? '127.0.0.1',
    port: settings.port ?? 9099,
    publicUrl: settings.publicUrl?.replace(/\/+$/, ''),
    projectName: settings.projectName ?? 'Quiver',
    authorizationServer: settings.authorizationServer ?? authorizationServerSettings({}),
    allowedOrigins: settings.allowedOrigins ?? [],
    trustedProxies: settings.trustedProxies ?? [],
    redisUrl: settings.redisUrl,
    redisPrefix: settings.redisPrefix ?? 'quiver:',
    limits: settings.limits ?? defaultLimits,
    upstreamLimits: settings.upstreamLimits,
    auditRetentionDays: settings.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS,
    recordCallData: settings.recordCallData ?? true,
    drainSeconds: settings.drainSeconds ?? 0,
    drainTimeoutSeconds: settings.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS,
  };
}
