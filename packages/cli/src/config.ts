/**
 * Every setting of the `quiver` command, resolved once from (highest first) command-line flags, the
 * environment, the config file and the defaults, into one typed object that the commands pass down.
 * No other module reads the environment or the config file: the engine's settings among these are handed
 * to it resolved, over the defaults it declares (@quiver/engine/config).
 *
 * Config file (the first that exists: --config, QUIVER_CONFIG, quiver.config.json in the working directory,
 * config.json in the platform's configuration directory):
 *   { "dataDir": "...", "database": "postgres://...", "publicUrl": "https://...", "logLevel": "info", "logFormat": "json",
 *     "toolkits": { "CrmMarketingApi": { "baseUrl": "https://api.hubapi.com" } },
 *     "tokens":   { "hubspot": "<OAuth access token>" },
 *     "secrets":  { "SOME_KEY": "<value>" },
 *     "authProviders": [ { "id": "github", "client_id": "...", "client_secret": "..." } ],
 *     "toolkitPaths": [ "./toolkits/billing", "@acme/quiver-toolkit" ],
 *     "sandboxPorts": 9400 }
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { editDistance, isRecord, switchSetting, toolkitNeeds, upstreamSettings, type Toolkit, type UpstreamClientOptions } from '@quiver/core';
// Only the engine's small settings modules: its HTTP stack stays out of commands that do not run it.
import { defaultDatabase, engineDefaults, type EngineConfig } from '@quiver/engine/config';
import { limitSettings } from '@quiver/engine/limit-settings';
import {
  authorizationServerDefaults,
  defaultIdentityProviderScopes,
  defaultRateLimits,
  type AuthorizationServerSettings,
  type IdentityProviderSettings,
  type RateLimits,
} from '@quiver/engine/settings';
import { telemetrySettings, type TelemetrySettings } from '@quiver/engine/telemetry-settings';
import type { LoadedToolkit, ToolkitPath } from './toolkit-paths.js';
import { UsageError } from './usage-error.js';

/** Where each toolkit's upstream is and which credentials local calls (`call`, `mcp`, `worker`) use. */
export interface QuiverConfig {
  toolkits: Record<string, { baseUrl?: string }>;
  tokens: Record<string, string>;
  secrets: Record<string, string>;
}

/**
 * The engine's settings (data directory, database, master key, public URL, project name, origins, proxies,
 * Redis, limits, audit retention, call data, drain, sign-in) go to it as they are resolved here; the address it
 * listens on comes from `serve`'s flags.
 */
export interface Settings extends Omit<EngineConfig, 'host' | 'port'> {
  /** The config file that was read, if any. */
  configFile?: string;
  /**
   * Limits of every upstream call, the engine's, a worker's and a local call's: the deadline covering all
   * attempts, the largest answer read, the longest wait for a spent rate-limit budget.
   */
  upstreamLimits: UpstreamClientOptions;
  /** Log level of the engine's lines on standard error. */
  logLevel: string;
  /** JSON lines, or lines for a person at a terminal. */
  logFormat: LogFormat;
  /** OpenTelemetry: where traces and metrics go over OTLP, the service's name, the sampler (see Observability in the README). */
  telemetry: TelemetrySettings;
  /** The secret the engine signs worker calls with (`quiver worker`); the variable it came from names it in errors. */
  workerSecret: { variable: string; value?: string };
  /** Base URLs, tokens and secrets from the config file and the environment (flags of `call` are layered on later). */
  upstream: QuiverConfig;
  /** The config file's `authProviders`, as written: the engine checks and completes them. */
  authProviders: unknown[];
  /** The command search path (PATH): `mcp --print-config` tells whether `quiver` on it is this installation. */
  searchPath: string;
  /** Toolkits to load besides the built-in ones: the config file's, then QUIVER_TOOLKIT_PATHS's, then the flags'. */
  toolkitPaths: ToolkitPath[];
  /** The toolkits those paths hold, once loaded (toolkit-paths.ts); empty until then. */
  loadedToolkits: readonly LoadedToolkit[];
  /** The sandbox's emulators on consecutive ports from this one, rather than ports the system picks. */
  sandboxPorts?: SandboxPorts;
}

/** The first of the sandbox's fixed ports, and where it was given (`--sandbox-ports`, ...), for messages. */
export interface SandboxPorts {
  first: number;
  from: string;
}

/** Flags that change settings; each command has the ones that concern it. */
export interface SettingFlags {
  config?: string;
  dataDir?: string;
  secret?: string;
  secretEnv?: string;
  /** `--toolkit-path`, repeatable. */
  toolkitPath?: string[];
  /** `--sandbox-ports <first>`. */
  sandboxPorts?: string;
}

/** Everything settings are resolved from, so that a test can give its own. */
export interface SettingSources {
  flags: SettingFlags;
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: NodeJS.Platform;
  home: string;
  /** The toolkits whose base URL, token and secret variables are looked up. */
  toolkits: readonly Toolkit[];
  /** Whether standard error is a terminal: the log format's default follows it. */
  terminal?: boolean;
}

export type LogFormat = 'json' | 'pretty';

interface SettingDoc {
  setting: string;
  flag?: string;
  env?: string;
  file?: string;
  default: string;
}

/** The documented settings, as the README's tables show them (a test checks the README against this list). */
export const settingDocs: ReadonlyArray<SettingDoc> = [
  {
    setting: 'config file',
    flag: '--config',
    env: 'QUIVER_CONFIG',
    default: '`quiver.config.json` in the working directory, else `config.json` in the configuration directory',
  },
  {
    setting: 'data directory',
    flag: '--data-dir',
    env: 'QUIVER_DATA_DIR',
    file: 'dataDir',
    default: 'the platform data directory (see below); a relative `dataDir` is relative to the config file',
  },
  {
    setting: 'database: a `postgres://` or `postgresql://` URL, or the absolute path of a SQLite file (anything else stops the engine at start)',
    env: 'DATABASE_URL',
    file: 'database',
    default: `SQLite file \`${engineDefaults.databaseFile}\` in the data directory`,
  },
  {
    setting: 'master key sealing secrets and tokens (64 hex characters, or 32 bytes base64)',
    env: 'QUIVER_MASTER_KEY',
    default: 'key file `master.key` in the data directory, mode 0600',
  },
  {
    setting: "the engine's http(s) address as browsers see it (OAuth callbacks, the URLs of the tools' icons)",
    env: 'QUIVER_PUBLIC_URL',
    file: 'publicUrl',
    default: '`http://<host>:<port>`',
  },
  {
    setting: 'log level (lines on standard error): `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
    env: 'QUIVER_LOG_LEVEL',
    file: 'logLevel',
    default: '`info`',
  },
  {
    setting: 'log format: `json` lines, or `pretty` lines for a person',
    env: 'QUIVER_LOG_FORMAT',
    file: 'logFormat',
    default: '`pretty` when standard error is a terminal, `json` otherwise',
  },
  {
    setting: 'OpenTelemetry traces and metrics over OTLP/HTTP (see [Observability](#observability))',
    env: '`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`, `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`, `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_SDK_DISABLED`',
    default: 'off until an endpoint is set; then `http/protobuf`, service `quiver`, sampler `parentbased_always_on`, metrics every 60 s',
  },
  {
    setting: "the user id on a tool call's span (`user.id`)",
    env: 'QUIVER_TELEMETRY_USER_ID',
    default: 'off (`on`, `true` or `1` turns it on)',
  },
  {
    setting: 'project name',
    env: 'QUIVER_PROJECT_NAME',
    file: 'projectName',
    default: `\`${engineDefaults.projectName}\``,
  },
  {
    setting: 'origins of web pages allowed to call the API and `/v1/mcp`, besides loopback ones and the public URL',
    env: 'QUIVER_ALLOWED_ORIGINS',
    default: 'none (comma-separated, e.g. `https://console.example.com`)',
  },
  {
    setting: 'proxies whose `X-Forwarded-For` names the client address (for the rate limits of sign-in)',
    env: 'QUIVER_TRUSTED_PROXIES',
    default: 'none: the peer address counts (comma-separated addresses or CIDR ranges, e.g. `10.0.0.0/8`)',
  },
  {
    setting: 'Redis shared by engine processes for limits and upstream budgets (see [Many replicas](#many-replicas))',
    env: 'REDIS_URL',
    default: 'none: each process counts alone',
  },
  {
    setting: 'what the engine puts before each of its keys in that Redis (deployments sharing one Redis)',
    env: 'QUIVER_REDIS_PREFIX',
    default: `\`${engineDefaults.redisPrefix}\``,
  },
  {
    setting:
      'requests a minute per API key: one number, or by role (see [Limits](#limits); `0` turns a limit off; a key may have its own, `quiver keys update --rpm`)',
    env: 'QUIVER_LIMIT_KEY_RPM',
    default: '`admin:1200,service:6000,user:600`',
  },
  {
    setting: 'tool calls in flight per API key: one number, or by role (a key may have its own, `--concurrency`)',
    env: 'QUIVER_LIMIT_KEY_CONCURRENCY',
    default: '`admin:50,service:200,user:10`',
  },
  {
    setting: 'requests a minute per user acted for (executions and MCP requests), whichever key acts for them',
    env: 'QUIVER_LIMIT_USER_RPM',
    default: '`300`',
  },
  {
    setting: 'tool calls in flight per user acted for',
    env: 'QUIVER_LIMIT_USER_CONCURRENCY',
    default: '`10`',
  },
  {
    setting: 'requests a minute per client address without a valid API key (health, readiness and the authorization server apart)',
    env: 'QUIVER_LIMIT_ADDRESS_RPM',
    default: '`600`',
  },
  {
    setting: "one upstream call's deadline in milliseconds, every retry included",
    env: 'QUIVER_UPSTREAM_DEADLINE_MS',
    default: '`60000`',
  },
  {
    setting: 'the largest upstream answer read, in bytes',
    env: 'QUIVER_UPSTREAM_MAX_RESPONSE_BYTES',
    default: '`10485760` (10 MB)',
  },
  {
    setting:
      "the longest a call waits, in milliseconds and within its deadline, for its credential's spent upstream rate-limit budget (see [Errors and retries](#errors-and-retries))",
    env: 'QUIVER_UPSTREAM_WAIT_MS',
    default: '`0`: the call fails at once, nothing sent',
  },
  {
    setting: 'days the audit trail of administrative changes is kept (`0` keeps it for ever)',
    env: 'QUIVER_AUDIT_RETENTION_DAYS',
    default: `\`${engineDefaults.auditRetentionDays}\``,
  },
  {
    setting:
      "whether an immediate call's record keeps, for the day it is kept, the call's input (credentials redacted) and its result, up to 64 KB each (see [The engine](#the-engine))",
    env: 'QUIVER_RECORD_CALL_DATA',
    default: '`on` (`off`, `false` or `0` keeps the outcome and error kind only)',
  },
  {
    setting: 'seconds a stopping engine keeps serving everything while `GET /v1/ready` answers 503, so that load balancers stop sending requests (0 to 300)',
    env: 'QUIVER_DRAIN_SECONDS',
    default: `\`${engineDefaults.drainSeconds}\``,
  },
  {
    setting: 'then seconds the requests and scheduled executions in flight have to finish while new requests get 503; past it they are cut (0 to 600)',
    env: 'QUIVER_DRAIN_TIMEOUT_SECONDS',
    default: `\`${engineDefaults.drainTimeoutSeconds}\``,
  },
  {
    setting: 'worker secret (`quiver worker`)',
    flag: '`--secret`, `--secret-env NAME`',
    env: 'QUIVER_WORKER_SECRET',
    default: 'none: required',
  },
  {
    setting: 'base URL of a toolkit',
    flag: '`--base-url` (`call`)',
    env: '`QUIVER_BASE_URL_<TOOLKIT>`, e.g. `QUIVER_BASE_URL_CRM_MARKETING_API`',
    file: 'toolkits.<Toolkit>.baseUrl',
    default: "the toolkit's (below)",
  },
  {
    setting: 'OAuth access token of a provider (`call`, `mcp`)',
    flag: '`--token` (`call`)',
    env: '`QUIVER_TOKEN_<PROVIDER>`, e.g. `QUIVER_TOKEN_GITHUB`',
    file: 'tokens.<provider>',
    default: 'none',
  },
  {
    setting: 'a secret a tool declares (`call`, `mcp`; the engine keeps its own)',
    flag: '`--secret KEY=VALUE` (`call`)',
    env: "the secret's own key, e.g. `GIT_SERVER_URL`",
    file: 'secrets.<KEY>',
    default: 'none',
  },
  {
    setting: 'OAuth providers (the engine)',
    file: 'authProviders',
    default: 'none',
  },
  {
    setting:
      'more toolkits: folders (a `catalog.json`, or a module exporting a toolkit) or npm package names; the three lists add up (see [Adding a toolkit](#adding-a-toolkit))',
    flag: '`--toolkit-path PATH` (repeatable; `serve`, `mcp`, `call`, `worker`, `tools`, `sandbox`)',
    env: 'QUIVER_TOOLKIT_PATHS',
    file: 'toolkitPaths',
    default: 'none (comma-separated; a folder is relative to the working directory, or in the config file to that file)',
  },
  {
    setting:
      "the sandbox's emulators on consecutive ports from this one (1024 and up): the built-in ones', then one for each imported toolkit's (see [Sandbox](#sandbox))",
    flag: '`--sandbox-ports FIRST` (`serve`, `mcp`, `call`, `worker`, `sandbox`)',
    env: 'QUIVER_SANDBOX_PORTS',
    file: 'sandboxPorts',
    default: 'ports the system picks',
  },
  {
    setting: 'sign-in of remote MCP clients (see [Signing people in](#signing-people-in-the-engine-as-an-oauth-21-authorization-server))',
    env: '`QUIVER_OIDC_ISSUER`, `QUIVER_OIDC_CLIENT_ID`, `QUIVER_OIDC_CLIENT_SECRET`, `QUIVER_OIDC_SCOPES`, `QUIVER_OIDC_NAME`, `QUIVER_AUTH_KEY_USER`, `QUIVER_AUTH_ACCESS_TOKEN_TTL`, `QUIVER_AUTH_REFRESH_TOKEN_TTL`, `QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS`, `QUIVER_AUTH_RATE_LIMIT`',
    default: 'user keys only, until an identity provider is set',
  },
];

/** The README's settings table, rendered from `settingDocs`. */
export function settingsTable(): string {
  const code = (text?: string) => (!text ? '' : text.includes('`') ? text : `\`${text}\``);
  const rows = settingDocs.map((doc) => `| ${doc.setting} | ${code(doc.flag)} | ${code(doc.env)} | ${code(doc.file)} | ${doc.default} |`);
  return ['| setting | flag | environment | config file | default |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The settings of this process: its flags, environment, working directory and home. */
export const loadSettings = (flags: SettingFlags, toolkits: readonly Toolkit[]): Settings =>
  resolveSettings({ flags, env: process.env, cwd: process.cwd(), platform: process.platform, home: homedir(), toolkits, terminal: process.stderr.isTTY });

export function resolveSettings({ flags, env: given, cwd, platform, home, toolkits, terminal = false }: SettingSources): Settings {
  // A variable set to the empty string (as compose files and shells often leave them) counts as unset.
  const env = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== '')) as NodeJS.ProcessEnv;
  const configFile = findConfigFile(flags.config ?? env.QUIVER_CONFIG, cwd, configHome(env, platform, home));
  const file = configFile ? readConfigFile(configFile) : {};
  const text = (key: string): string | undefined => {
    const value = file[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new UsageError(`config file ${configFile}: ${key} must be a string`);
    return value;
  };
  /** A setting from its variable, else from the config file: its value, and the name an error calls it by. */
  const fromEnvOrFile = (variable: string, key: string): Given =>
    env[variable] !== undefined ? { value: env[variable], name: variable } : { value: text(key), name: `${key} in config file ${configFile}` };
  // A folder the config file names is relative to that file, as its toolkitPaths are.
  const fileDataDir = text('dataDir');
  const dataDir = resolve(
    cwd,
    flags.dataDir ?? env.QUIVER_DATA_DIR ?? (fileDataDir && resolve(dirname(configFile!), fileDataDir)) ?? defaultDataDir(env, platform, home),
  );
  const secretVariable = flags.secretEnv ?? 'QUIVER_WORKER_SECRET';
  const authProviders = file.authProviders ?? [];
  if (!Array.isArray(authProviders)) throw new UsageError(`config file ${configFile}: authProviders must be an array`);
  const settings: Settings = {
    configFile,
    dataDir,
    database: env.DATABASE_URL ?? text('database') ?? defaultDatabase(dataDir),
    masterKey: env.QUIVER_MASTER_KEY,
    publicUrl: publicUrlOf(fromEnvOrFile('QUIVER_PUBLIC_URL', 'publicUrl')),
    logLevel: logLevelOf(fromEnvOrFile('QUIVER_LOG_LEVEL', 'logLevel')),
    logFormat: logFormatOf(fromEnvOrFile('QUIVER_LOG_FORMAT', 'logFormat'), terminal),
    telemetry: usage(() => telemetrySettings(env)),
    projectName: env.QUIVER_PROJECT_NAME ?? text('projectName') ?? engineDefaults.projectName,
    allowedOrigins: allowedOriginsOf(env.QUIVER_ALLOWED_ORIGINS),
    trustedProxies: trustedProxiesOf(env.QUIVER_TRUSTED_PROXIES),
    redisUrl: redisUrlOf(env.REDIS_URL),
    redisPrefix: env.QUIVER_REDIS_PREFIX ?? engineDefaults.redisPrefix,
    limits: usage(() => limitSettings(env)),
    upstreamLimits: usage(() => upstreamSettings(env)),
    auditRetentionDays: wholeNumber(
      'QUIVER_AUDIT_RETENTION_DAYS',
      env.QUIVER_AUDIT_RETENTION_DAYS,
      engineDefaults.auditRetentionDays,
      'days (0 keeps events for ever)',
    ),
    recordCallData: usage(() => switchSetting('QUIVER_RECORD_CALL_DATA', env.QUIVER_RECORD_CALL_DATA, engineDefaults.recordCallData)),
    drainSeconds: wholeNumber('QUIVER_DRAIN_SECONDS', env.QUIVER_DRAIN_SECONDS, engineDefaults.drainSeconds, 'seconds from 0 to 300', 300),
    drainTimeoutSeconds: wholeNumber(
      'QUIVER_DRAIN_TIMEOUT_SECONDS',
      env.QUIVER_DRAIN_TIMEOUT_SECONDS,
      engineDefaults.drainTimeoutSeconds,
      'seconds from 0 to 600',
      600,
    ),
    workerSecret: { variable: secretVariable, value: flags.secret ?? env[secretVariable] },
    upstream: mergeConfig(upstreamOf(file), configFromEnv(env, toolkits)),
    authProviders,
    searchPath: env.PATH ?? '',
    authorizationServer: authorizationServerFromEnv(env),
    toolkitPaths: toolkitPathsOf(file.toolkitPaths, configFile, env.QUIVER_TOOLKIT_PATHS, flags.toolkitPath, cwd),
    loadedToolkits: [],
    sandboxPorts: sandboxPortsOf(flags.sandboxPorts, env.QUIVER_SANDBOX_PORTS, file.sandboxPorts, configFile),
  };
  // With toolkit paths, the names are known once those toolkits are loaded: the loader's caller checks then.
  if (!settings.toolkitPaths.length) checkConfiguredToolkits(settings, toolkits);
  return settings;
}

/**
 * Refuses a config file's `toolkits` entry that names no toolkit (`RepohostApi`, `Github`): its base URL would
 * go unused without a word, and the toolkit it was meant for would call its real host.
 */
export function checkConfiguredToolkits(settings: Settings, toolkits: readonly Toolkit[]): void {
  const names = toolkits.map((toolkit) => toolkit.name);
  const stray = Object.keys(settings.upstream.toolkits).filter((name) => !names.includes(name));
  if (!stray.length) return;
  const named = stray.map((name) => `'${name}'${meant(name, names)}`).join(', ');
  throw new UsageError(`config file ${settings.configFile}: toolkits names no toolkit ${named}; the toolkits are ${names.join(', ')}`);
}

/**
 * How people sign in to remote MCP clients, from the environment:
 *
 *   QUIVER_OIDC_ISSUER            the OpenID Connect identity provider people sign in with (its issuer URL)
 *   QUIVER_OIDC_CLIENT_ID         the engine's client id at that provider
 *   QUIVER_OIDC_CLIENT_SECRET     its client secret (unset: a public client, PKCE only)
 *   QUIVER_OIDC_SCOPES            the scopes asked of the provider (default `openid`)
 *   QUIVER_OIDC_NAME              the provider's name on the sign-in page (default: its host)
 *   QUIVER_AUTH_KEY_USER          signing in with an API key signs in as this user id (unset: off)
 *   QUIVER_AUTH_ACCESS_TOKEN_TTL  access token lifetime in seconds (default 600)
 *   QUIVER_AUTH_REFRESH_TOKEN_TTL refresh token lifetime in seconds (default 30 days)
 *   QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS  on (`1`, `true`) accepts client metadata documents over
 *                                 http, on loopback addresses and from any address (development only)
 *   QUIVER_AUTH_RATE_LIMIT        requests per minute per client address at each endpoint, e.g.
 *                                 `register:10,authorize:60,token:60` (the default); 0 turns one off
 */
export function authorizationServerFromEnv(env: NodeJS.ProcessEnv): AuthorizationServerSettings {
  const issuer = env.QUIVER_OIDC_ISSUER?.trim();
  const clientId = env.QUIVER_OIDC_CLIENT_ID?.trim();
  if (issuer && !clientId) throw new UsageError('QUIVER_OIDC_CLIENT_ID is required with QUIVER_OIDC_ISSUER');
  const identityProvider: IdentityProviderSettings | undefined =
    issuer && clientId
      ? {
          issuer,
          clientId,
          clientSecret: env.QUIVER_OIDC_CLIENT_SECRET,
          scopes: env.QUIVER_OIDC_SCOPES === undefined ? [...defaultIdentityProviderScopes] : env.QUIVER_OIDC_SCOPES.split(/[\s,]+/).filter(Boolean),
          name: env.QUIVER_OIDC_NAME ?? hostOf(issuer, 'QUIVER_OIDC_ISSUER'),
        }
      : undefined;
  return {
    identityProvider,
    keyUser: env.QUIVER_AUTH_KEY_USER?.trim() || undefined,
    accessTokenTtl: seconds('QUIVER_AUTH_ACCESS_TOKEN_TTL', env.QUIVER_AUTH_ACCESS_TOKEN_TTL, authorizationServerDefaults.accessTokenTtl),
    refreshTokenTtl: seconds('QUIVER_AUTH_REFRESH_TOKEN_TTL', env.QUIVER_AUTH_REFRESH_TOKEN_TTL, authorizationServerDefaults.refreshTokenTtl),
    insecureClientDocuments: usage(() => switchSetting('QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS', env.QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS, false)),
    rateLimits: rateLimitsOf(env.QUIVER_AUTH_RATE_LIMIT),
  };
}

/** QUIVER_AUTH_RATE_LIMIT, `register:10,authorize:60,token:60`: the endpoints named are set, the others keep their default. */
function rateLimitsOf(setting: string | undefined): RateLimits {
  const limits = { ...defaultRateLimits };
  for (const part of (setting ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name, value] = part.split(':').map((item) => item.trim());
    const perMinute = Number(value);
    if (!name || !(name in limits) || value === undefined || !Number.isInteger(perMinute) || perMinute < 0) {
      throw new UsageError(`QUIVER_AUTH_RATE_LIMIT must look like register:10,authorize:60,token:60 (requests per minute, 0 for none), got '${setting}'`);
    }
    limits[name as keyof RateLimits] = perMinute;
  }
  return limits;
}

/** A positive whole number of seconds, or the default when unset. */
function seconds(name: string, setting: string | undefined, fallback: number): number {
  if (setting === undefined) return fallback;
  const value = Number(setting);
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`${name} must be a whole number of seconds, got '${setting}'`);
  return value;
}

function hostOf(url: string, name: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new UsageError(`${name} must be a URL, got '${url}'`);
  }
}

/**
 * The first of the sandbox's fixed ports: `--sandbox-ports`, QUIVER_SANDBOX_PORTS or the config file's
 * `sandboxPorts`, a port from 1024 (below it needs privileges). Whether the emulators fit below 65536 is checked
 * where their number is known, as they start (sandbox-session.ts).
 */
function sandboxPortsOf(flag: string | undefined, inEnv: string | undefined, inFile: unknown, configFile: string | undefined): SandboxPorts | undefined {
  const [given, from] =
    flag !== undefined
      ? [flag, '--sandbox-ports']
      : inEnv !== undefined
        ? [inEnv, 'QUIVER_SANDBOX_PORTS']
        : [inFile, `config file ${configFile}: sandboxPorts`];
  if (given === undefined) return undefined;
  const first = typeof given === 'number' || typeof given === 'string' ? Number(given) : Number.NaN;
  if ((typeof given === 'string' && !given.trim()) || !Number.isInteger(first) || first < 1024 || first > 65535) {
    throw new UsageError(`${from} must be the first of the sandbox's ports, a whole number from 1024 to 65535, not '${String(given)}'`);
  }
  return { first, from };
}

/**
 * The toolkits to load, in order: the config file's `toolkitPaths` (folders relative to the file), then
 * QUIVER_TOOLKIT_PATHS (comma-separated) and `--toolkit-path` (folders relative to the working directory).
 */
function toolkitPathsOf(inFile: unknown, configFile: string | undefined, inEnv: string | undefined, inFlags: string[] | undefined, cwd: string): ToolkitPath[] {
  if (inFile !== undefined && (!Array.isArray(inFile) || inFile.some((entry) => typeof entry !== 'string' || !entry.trim()))) {
    throw new UsageError(`config file ${configFile}: toolkitPaths must be an array of folders or npm package names`);
  }
  const fromFile = ((inFile ?? []) as string[]).map((entry) => ({ entry: entry.trim(), base: dirname(configFile!), from: `config file ${configFile}` }));
  const fromEnv = (inEnv ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => ({ entry, base: cwd, from: 'QUIVER_TOOLKIT_PATHS' }));
  const fromFlags = (inFlags ?? []).map((entry) => {
    if (!entry.trim()) throw new UsageError('--toolkit-path needs a folder or an npm package name');
    return { entry: entry.trim(), base: cwd, from: '--toolkit-path' };
  });
  return [...fromFile, ...fromEnv, ...fromFlags];
}

/** A setting's own check, failing as a usage error (exit 2) with its message. */
function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A whole number from 0 (to `max`), or the default when unset. */
function wholeNumber(name: string, setting: string | undefined, fallback: number, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (setting === undefined) return fallback;
  const value = Number(setting);
  if (!Number.isInteger(value) || value < 0 || value > max) throw new UsageError(`${name} must be a whole number of ${what}, not '${setting}'`);
  return value;
}

/** A setting's value where one is given, and what an error calls it: its variable, or its key in the config file. */
interface Given {
  value: string | undefined;
  name: string;
}

/** QUIVER_LOG_FORMAT: `json` or `pretty`; unset, pretty for a person at a terminal and JSON for whatever collects the lines. */
function logFormatOf({ value, name }: Given, terminal: boolean): LogFormat {
  if (value === undefined) return terminal ? 'pretty' : 'json';
  if (value !== 'json' && value !== 'pretty') throw new UsageError(`${name} must be json or pretty, not '${value}'`);
  return value;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevelOf({ value, name }: Given): string {
  if (value === undefined) return 'info';
  if (!logLevels.includes(value)) throw new UsageError(`${name} must be one of ${logLevels.join(', ')}, not '${value}'`);
  return value;
}

/** An absolute http:// or https:// URL, as a base URL and the public URL must be. */
export const isHttpUrl = (text: string): boolean => /^https?:$/.test(URL.parse(text)?.protocol ?? '');

/** The engine's public address: an http(s) URL, without a trailing slash. */
function publicUrlOf({ value, name }: Given): string | undefined {
  if (value === undefined) return undefined;
  if (!isHttpUrl(value)) throw new UsageError(`${name} must be the engine's http:// or https:// URL, not '${value}'`);
  return value.replace(/\/+$/, '');
}

/** QUIVER_ALLOWED_ORIGINS: comma-separated origins (scheme, host and port), each checked now rather than at the first request. */
function allowedOriginsOf(setting: string | undefined): string[] {
  const origins = (setting ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  return origins.map((origin) => {
    const url = URL.parse(origin);
    if (url?.origin !== origin.replace(/\/$/, '')) {
      throw new UsageError(`QUIVER_ALLOWED_ORIGINS: '${origin}' is not an origin (scheme, host and port only, e.g. https://app.example.com)`);
    }
    return url.origin;
  });
}

/** REDIS_URL: a redis:// or rediss:// URL, checked now rather than at the first limit. */
function redisUrlOf(setting: string | undefined): string | undefined {
  if (setting === undefined) return undefined;
  const url = URL.parse(setting);
  if (url?.protocol !== 'redis:' && url?.protocol !== 'rediss:') throw new UsageError('REDIS_URL must be a redis:// or rediss:// URL');
  return setting;
}

/** QUIVER_TRUSTED_PROXIES: comma-separated IP addresses or CIDR ranges of the proxies in front of the engine. */
function trustedProxiesOf(setting: string | undefined): string[] {
  const proxies = (setting ?? '')
    .split(',')
    .map((proxy) => proxy.trim())
    .filter(Boolean);
  for (const proxy of proxies) {
    const [address, prefix] = proxy.split('/');
    const family = isIP(address ?? '');
    const bits = Number(prefix ?? (family === 6 ? 128 : 32));
    if (!family || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
      throw new UsageError(`QUIVER_TRUSTED_PROXIES: '${proxy}' is not an IP address or CIDR range (such as 10.0.0.0/8)`);
    }
  }
  return proxies;
}

/**
 * `$XDG_DATA_HOME/quiver`, else `~/.local/share/quiver`; `~/Library/Application Support/quiver` on macOS;
 * `%LOCALAPPDATA%\quiver` on Windows.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'quiver');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'quiver');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'quiver');
}

/** The platform's configuration directory: `$XDG_CONFIG_HOME/quiver`, `~/.config/quiver`, or the macOS and Windows equivalents. */
export function configHome(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'quiver');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'quiver');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'quiver');
}

/** The file named (which must exist), else the first default that exists. */
function findConfigFile(named: string | undefined, cwd: string, configDir: string): string | undefined {
  if (named) {
    const file = resolve(cwd, named);
    if (!existsSync(file)) throw new UsageError(`config file not found: ${file}`);
    return file;
  }
  return [resolve(cwd, 'quiver.config.json'), join(configDir, 'config.json')].find((file) => existsSync(file));
}

function readConfigFile(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new UsageError(`config file ${file} is not valid JSON: ${(cause as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`config file ${file} must hold a JSON object`);
  const settings = parsed as Record<string, unknown>;
  const unknown = Object.keys(settings).filter((key) => !fileKeys.has(key));
  if (unknown.length) {
    const named = unknown.map((key) => `'${key}'${meant(key, [...fileKeys])}`).join(', ');
    throw new UsageError(`config file ${file}: no setting is named ${named}; the settings are ${[...fileKeys].join(', ')}`);
  }
  const toolkits = settings.toolkits ?? {};
  if (!isRecord(toolkits))
    throw new UsageError(`config file ${file}: toolkits must be an object of toolkits by name, e.g. {"CrmMarketingApi": {"baseUrl": "https://…"}}`);
  for (const [name, entry] of Object.entries(toolkits)) {
    const stray = isRecord(entry) ? Object.keys(entry).filter((key) => key !== 'baseUrl') : [];
    if (!isRecord(entry) || stray.length) {
      const what = stray.length ? `has no setting ${stray.map((key) => `'${key}'${meant(key, ['baseUrl'])}`).join(', ')}` : 'must be an object';
      throw new UsageError(`config file ${file}: toolkits.${name} ${what}: a toolkit's settings are {"baseUrl": "https://…"}`);
    }
  }
  for (const key of ['tokens', 'secrets'] as const) {
    const values = settings[key] ?? {};
    if (!isRecord(values) || Object.values(values).some((value) => typeof value !== 'string')) {
      throw new UsageError(`config file ${file}: ${key} must be an object of strings by name`);
    }
  }
  return settings;
}

/** The config file's top-level settings: the first part of each `file` of the settings table. */
const fileKeys = new Set(settingDocs.flatMap((doc) => (doc.file ? [doc.file.split('.')[0]!] : [])));

/** " (did you mean 'x'?)" for a key spelt within two edits of a known one, ignoring case; else nothing. */
function meant(key: string, known: readonly string[]): string {
  const close = known.find((name) => editDistance(key.toLowerCase(), name.toLowerCase()) <= 2);
  return close ? ` (did you mean '${close}'?)` : '';
}

const upstreamOf = (file: Partial<Record<keyof QuiverConfig, unknown>>): QuiverConfig => ({
  toolkits: (file.toolkits ?? {}) as QuiverConfig['toolkits'],
  tokens: (file.tokens ?? {}) as QuiverConfig['tokens'],
  secrets: (file.secrets ?? {}) as QuiverConfig['secrets'],
});

export const emptyConfig = (): QuiverConfig => ({ toolkits: {}, tokens: {}, secrets: {} });

/** Later layers win, key by key. */
export function mergeConfig(...layers: QuiverConfig[]): QuiverConfig {
  const out = emptyConfig();
  for (const layer of layers) {
    for (const [name, settings] of Object.entries(layer.toolkits)) out.toolkits[name] = { ...out.toolkits[name], ...settings };
    Object.assign(out.tokens, layer.tokens);
    Object.assign(out.secrets, layer.secrets);
  }
  return out;
}

/** CrmMarketingApi -> CRM_MARKETING_API */
export const envName = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

export function configFromEnv(env: NodeJS.ProcessEnv, toolkits: readonly Toolkit[]): QuiverConfig {
  const config = emptyConfig();
  for (const toolkit of toolkits) {
    const baseUrl = env[`QUIVER_BASE_URL_${envName(toolkit.name)}`];
    if (baseUrl) config.toolkits[toolkit.name] = { baseUrl };
    const { providers, secrets } = toolkitNeeds(toolkit);
    for (const provider of providers) {
      const token = env[`QUIVER_TOKEN_${envName(provider)}`];
      if (token) config.tokens[provider] = token;
    }
    for (const key of secrets) if (env[key]) config.secrets[key] = env[key]!;
  }
  return config;
}
