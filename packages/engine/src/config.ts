/**
 * Engine settings, from the environment with embedded defaults: SQLite and a key file under the data
 * directory, the HTTP API on 127.0.0.1:9099.
 *
 *   QUIVER_DATA_DIR     data directory (default .quiver in the working directory)
 *   DATABASE_URL        postgres://... to use PostgreSQL instead of SQLite
 *   QUIVER_MASTER_KEY   the 256-bit key that seals secrets and tokens (default: a key file, mode 0600)
 *   QUIVER_PUBLIC_URL   the engine's address as browsers reach it, for OAuth callbacks
 *   QUIVER_PROJECT_NAME the name of the engine's one project (default Quiver)
 *
 * The authorization server of the MCP endpoint reads its own settings (authorization-server/settings.ts).
 */
import { resolve } from 'node:path';
import { authorizationServerSettings, type AuthorizationServerSettings } from './authorization-server/settings.js';

export interface EngineConfig {
  dataDir: string;
  /** A SQLite file path, or a postgres:// URL. */
  database: string;
  masterKey?: string;
  host: string;
  port: number;
  publicUrl: string;
  /** The engine is one project; the project routes show it under this name. */
  projectName: string;
  /** How people sign in to MCP clients (OAuth 2.1 for the MCP endpoint). */
  authorizationServer: AuthorizationServerSettings;
}

export function engineConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<EngineConfig> = {}): EngineConfig {
  const dataDir = resolve(overrides.dataDir ?? env.QUIVER_DATA_DIR ?? '.quiver');
  const host = overrides.host ?? '127.0.0.1';
  const port = overrides.port ?? 9099;
  return {
    dataDir,
    database: overrides.database ?? env.DATABASE_URL ?? resolve(dataDir, 'quiver.db'),
    masterKey: overrides.masterKey ?? env.QUIVER_MASTER_KEY,
    host,
    port,
    publicUrl: (overrides.publicUrl ?? env.QUIVER_PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    projectName: overrides.projectName ?? env.QUIVER_PROJECT_NAME ?? 'Quiver',
    authorizationServer: overrides.authorizationServer ?? authorizationServerSettings(env),
  };
}
