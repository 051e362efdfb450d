/**
 * Assembles what a command runs on: the built-in toolkits and those its toolkit paths loaded (the one list every
 * command takes its toolkits from), the configuration layers and, on request, the sandbox.
 */
import {
  builtinSource,
  localDispatcher,
  toolkitNeeds,
  traceFields,
  ServingPolicy,
  ToolCatalog,
  UpstreamClient,
  type CallRecord,
  type Dispatcher,
  type ServingOptions,
  type Tool,
  type Toolkit,
} from '@quiver/core';
import { builtinToolkitsFor, toolkits } from '@quiver/toolkits';
import { emptyConfig, envName, isHttpUrl, mergeConfig, type QuiverConfig, type Settings } from './config.js';
import { logStream } from './log-format.js';
import { UsageError } from './usage-error.js';
import type { SandboxHandle } from './sandbox-session.js';

export interface SetupOptions {
  /** The resolved settings (see config.ts). */
  settings: Settings;
  /** Start the local emulators and point every toolkit at them, or use a sandbox already running. */
  sandbox?: boolean | SandboxHandle;
  /** Upstream settings from command-line flags; they win over everything else. */
  overrides?: QuiverConfig;
}

export interface Setup {
  config: QuiverConfig;
  /** The sandbox's token and secrets, when the sandbox runs: every emulator has issued them. */
  sandbox?: SandboxHandle;
  close(): Promise<void>;
}

/** Every built-in toolkit and tool (nothing is stored). */
export const listedToolkits: readonly Toolkit[] = toolkits;
export const listedTools: readonly Tool[] = toolkits.flatMap((toolkit) => toolkit.tools);

/** Every toolkit the commands that list and describe tools show: the built-in ones, then those the settings' toolkit paths loaded. */
export const listingToolkits = (settings?: Settings): Toolkit[] => [...toolkits, ...loadedOf(settings)];
export const listingTools = (settings?: Settings): Tool[] => listingToolkits(settings).flatMap((toolkit) => toolkit.tools);

/** Those toolkits as a catalog, for the commands that look tools up without running them. */
export const listingCatalog = (settings?: Settings) => new ToolCatalog([builtinSource(listingToolkits(settings), new UpstreamClient())]);

/** A toolkit by name, in any case. */
export const listedToolkit = (name: string, settings?: Settings): Toolkit | undefined =>
  listingToolkits(settings).find((toolkit) => toolkit.name.toLowerCase() === name.toLowerCase());

/** The toolkits a command runs: CommerceTools keeps its store in the data directory; then the loaded ones. */
export const runnableToolkits = (settings: Settings): Toolkit[] => [...builtinToolkitsFor({ dataDir: settings.dataDir }), ...loadedOf(settings)];

const loadedOf = (settings: Settings | undefined): Toolkit[] => (settings?.loadedToolkits ?? []).map((loaded) => loaded.toolkit);

/** Configuration from every layer, with the sandbox started (or attached to) and layered in when asked for. */
export async function openSetup(options: SetupOptions): Promise<Setup> {
  let sandboxLayer = emptyConfig();
  let sandbox: SandboxHandle | undefined;
  if (options.sandbox) {
    // Loaded only on request: the emulators are never part of the runtime proper.
    const { startLocalSandbox, withToolkitEmulators } = await import('./sandbox-session.js');
    sandbox = typeof options.sandbox === 'object' ? options.sandbox : await startLocalSandbox(options.settings.sandboxPorts, options.settings.loadedToolkits);
    // Imported toolkits (a folder with openapi.json) get an emulator of their own, built from their document.
    sandbox = await withToolkitEmulators(sandbox, options.settings.loadedToolkits);
    sandboxLayer = sandboxConfig(sandbox, listingToolkits(options.settings));
  }
  const config = mergeConfig(options.settings.upstream, sandboxLayer, options.overrides ?? emptyConfig());
  return { config, sandbox, close: async () => sandbox?.close() };
}

/** Base URLs the configuration sets, by toolkit. */
/** The toolkits' configured base URLs; one that is no absolute http(s) URL is a usage error, not an upstream that cannot be reached. */
export function configuredBaseUrls(config: QuiverConfig): Record<string, string> {
  const urls = Object.entries(config.toolkits).flatMap(([name, settings]) => (settings.baseUrl ? [[name, settings.baseUrl] as const] : []));
  for (const [name, url] of urls) {
    if (!isHttpUrl(url)) {
      throw new UsageError(
        `the base URL of ${name} is '${url}', not an absolute http:// or https:// URL (given by --base-url, QUIVER_BASE_URL_${envName(name)} or toolkits.${name}.baseUrl in the config file)`,
      );
    }
  }
  return Object.fromEntries(urls);
}

export interface App {
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

/**
 * The dispatcher for local calls (`call`, `mcp`): the built-in toolkits at their configured base URLs,
 * with the configuration's tokens and secrets, under the server's policy when there is one.
 */
export async function openApp(options: SetupOptions & { logCalls?: boolean; serving?: ServingOptions }): Promise<App> {
  const setup = await openSetup(options);
  const client = new UpstreamClient(options.settings.upstreamLimits);
  const log = logStream(options.settings.logFormat);
  // Written while the call's span is active: the line names its trace when spans are recorded.
  const record = options.logCalls
    ? (call: CallRecord) => log.write(`${JSON.stringify({ time: new Date().toISOString(), msg: 'tool executed', ...call, ...traceFields() })}\n`)
    : undefined;
  const dispatcher = localDispatcher(runnableToolkits(options.settings), {
    client,
    baseUrls: configuredBaseUrls(setup.config),
    tokens: setup.config.tokens,
    secrets: setup.config.secrets,
    // A call without its provider's token says how to give one here (`--token` is `call`'s alone).
    tokenHint: (provider) =>
      `Pass one with --token (quiver call) or the QUIVER_TOKEN_${envName(provider)} environment variable (or tokens.${provider} in the config file), or try the tool with --sandbox.`,
    secretHint: (keys) => {
      const several = keys.length > 1;
      const flags = keys.map((key) => `--secret ${key}=VALUE`).join(' ');
      const entries = keys.map((key) => `secrets.${key}`).join(' and ');
      return `Pass ${several ? 'each' : 'it'} with ${flags} (quiver call) or ${several ? 'environment variables of those names' : 'an environment variable of that name'} (or ${entries} in the config file), or try the tool with --sandbox.`;
    },
    policy: options.serving && new ServingPolicy(options.serving),
    record,
  });
  return {
    dispatcher,
    async close() {
      await client.close();
      await setup.close();
    },
  };
}

function sandboxConfig(
  { baseUrls, token, secrets }: { baseUrls: Record<string, string>; token: string; secrets: Record<string, string> },
  toolkits: readonly Toolkit[],
): QuiverConfig {
  const config = emptyConfig();
  for (const [toolkit, baseUrl] of Object.entries(baseUrls)) config.toolkits[toolkit] = { baseUrl };
  Object.assign(config.secrets, secrets);
  for (const toolkit of toolkits) for (const provider of toolkitNeeds(toolkit).providers) config.tokens[provider] = token;
  return config;
}

/**
 * OpenTelemetry for a command, when its settings ask for it (or `prometheus`, for the engine's /metrics).
 * Only then is the SDK loaded: a command with telemetry off starts as fast as before.
 */
export async function openTelemetry(settings: Settings, options: { prometheus?: boolean } = {}) {
  if (!settings.telemetry.traces && !settings.telemetry.metrics && !options.prometheus) return undefined;
  const { startTelemetry } = await import('@quiver/engine/telemetry');
  return startTelemetry(settings.telemetry, options);
}
