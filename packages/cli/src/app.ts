/** Assembles what a command runs on: the built-in toolkits, the configuration layers and, on request, the sandbox. */
import { builtinSource, localDispatcher, ServingPolicy, ToolCatalog, UpstreamClient, type CallRecord, type Dispatcher, type ServingOptions, type Tool, type Toolkit } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { configFromEnv, emptyConfig, loadConfigFile, mergeConfig, type QuiverConfig } from './config.js';

export interface SetupOptions {
  /** Start the local emulators and point every toolkit at them. */
  sandbox?: boolean;
  /** Config file path (default: quiver.config.json in the working directory, or QUIVER_CONFIG). */
  configPath?: string;
  /** Settings from command-line flags; they win over everything else. */
  overrides?: QuiverConfig;
}

export interface Setup {
  config: QuiverConfig;
  /** The sandbox's token and secrets, when the sandbox runs: every emulator has issued them. */
  sandbox?: { token: string; secrets: Record<string, string> };
  close(): Promise<void>;
}

export const builtinToolkits: readonly Toolkit[] = toolkits;
export const builtinTools: readonly Tool[] = toolkits.flatMap((toolkit) => toolkit.tools);

/** The built-in toolkits as a catalog, for the commands that look tools up without running them. */
export const builtinCatalog = () => new ToolCatalog([builtinSource(toolkits, new UpstreamClient())]);

/** A built-in toolkit by name, in any case. */
export const builtinToolkit = (name: string): Toolkit | undefined => toolkits.find((toolkit) => toolkit.name.toLowerCase() === name.toLowerCase());

/** Configuration from every layer, with the sandbox started and layered in when asked for. */
export async function openSetup(options: SetupOptions = {}): Promise<Setup> {
  const tools = builtinTools;
  let sandboxLayer = emptyConfig();
  let sandbox: { token: string; secrets: Record<string, string>; close(): Promise<void> } | undefined;
  if (options.sandbox) {
    // Loaded only on request: the emulators are never part of the runtime proper.
    const { startSandbox } = await import('@quiver/sandbox');
    const started = await startSandbox();
    sandboxLayer = sandboxConfig(started, tools);
    sandbox = started;
  }
  const config = mergeConfig(loadConfigFile(options.configPath), configFromEnv(process.env, tools), sandboxLayer, options.overrides ?? emptyConfig());
  return { config, sandbox, close: async () => sandbox?.close() };
}

/** Base URLs the configuration sets, by toolkit. */
export const configuredBaseUrls = (config: QuiverConfig): Record<string, string> =>
  Object.fromEntries(Object.entries(config.toolkits).flatMap(([name, settings]) => (settings.baseUrl ? [[name, settings.baseUrl]] : [])));

export interface App {
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

/**
 * The dispatcher for local calls (`call`, `mcp`): the built-in toolkits at their configured base URLs,
 * with the configuration's tokens and secrets, under the server's policy when there is one.
 */
export async function openApp(options: SetupOptions & { logCalls?: boolean; serving?: ServingOptions } = {}): Promise<App> {
  const setup = await openSetup(options);
  const client = new UpstreamClient();
  const record = options.logCalls ? (call: CallRecord) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...call })}\n`) : undefined;
  const dispatcher = localDispatcher(toolkits, {
    client,
    baseUrls: configuredBaseUrls(setup.config),
    tokens: setup.config.tokens,
    secrets: setup.config.secrets,
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

function sandboxConfig({ baseUrls, token, secrets }: { baseUrls: Record<string, string>; token: string; secrets: Record<string, string> }, tools: readonly Tool[]): QuiverConfig {
  const config = emptyConfig();
  for (const [toolkit, baseUrl] of Object.entries(baseUrls)) config.toolkits[toolkit] = { baseUrl };
  Object.assign(config.secrets, secrets);
  for (const tool of tools) {
    const provider = tool.requirements.oauth2?.provider;
    if (provider) config.tokens[provider] = token;
  }
  return config;
}
