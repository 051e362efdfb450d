/** Assembles what a command runs on: the built-in toolkits, the configuration layers and, on request, the sandbox. */
import { Runtime, ServingPolicy, ToolRegistry, UpstreamClient, type CallRecord, type ServingOptions, type Tool } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { configFromEnv, contextProvider, emptyConfig, loadConfigFile, mergeConfig, type QuiverConfig } from './config.js';

export interface SetupOptions {
  /** Start the local emulators and point every toolkit at them. */
  sandbox?: boolean;
  /** Config file path (default: quiver.config.json in the working directory, or QUIVER_CONFIG). */
  configPath?: string;
  /** Settings from command-line flags; they win over everything else. */
  overrides?: QuiverConfig;
}

export interface Setup {
  registry: ToolRegistry;
  config: QuiverConfig;
  /** The sandbox's token and secrets, when the sandbox runs: every emulator has issued them. */
  sandbox?: { token: string; secrets: Record<string, string> };
  close(): Promise<void>;
}

/** The built-in toolkits, by name. */
export const builtinRegistry = () => new ToolRegistry(toolkits);

/** Configuration from every layer, with the sandbox started and layered in when asked for. */
export async function openSetup(options: SetupOptions = {}, registry = builtinRegistry()): Promise<Setup> {
  const tools = registry.tools();
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
  return { registry, config, sandbox, close: async () => sandbox?.close() };
}

/** Base URLs the configuration sets, by toolkit. */
export const configuredBaseUrls = (config: QuiverConfig): Record<string, string> =>
  Object.fromEntries(Object.entries(config.toolkits).flatMap(([name, settings]) => (settings.baseUrl ? [[name, settings.baseUrl]] : [])));

export interface App {
  registry: ToolRegistry;
  tools: Tool[];
  runtime: Runtime;
  /** What a server built on this app offers and how calls are guarded; absent for plain `call`. */
  policy?: ServingPolicy;
  close(): Promise<void>;
}

/** A runtime for local calls (`call`, `mcp`): tokens and secrets come from the configuration. */
export async function openApp(options: SetupOptions & { logCalls?: boolean; serving?: ServingOptions } = {}, registry = builtinRegistry()): Promise<App> {
  const setup = await openSetup(options, registry);
  const defaults = Object.fromEntries(registry.toolkits.map((toolkit) => [toolkit.name, toolkit.baseUrl]));
  const client = new UpstreamClient();
  const log = options.logCalls ? (record: CallRecord) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`) : undefined;
  const policy = options.serving && new ServingPolicy(options.serving);
  const runtime = new Runtime(registry, contextProvider(setup.config, defaults, client), log, policy);
  return {
    registry,
    tools: registry.tools(),
    runtime,
    policy,
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
