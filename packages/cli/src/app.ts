/** Assembles what a command runs on: the built-in toolkits, the configuration layers and, on request, the sandbox. */
import { Runtime, ServingPolicy, ToolRegistry, UpstreamClient, type CallRecord, type ServingOptions, type Tool } from '@quiver/core';
import { builtinToolkits } from '@quiver/toolkits';
import { contextProvider, emptyConfig, mergeConfig, type QuiverConfig, type Settings } from './config.js';
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
  registry: ToolRegistry;
  config: QuiverConfig;
  /** The sandbox's token and secrets, when the sandbox runs: every emulator accepts them. */
  sandbox?: SandboxHandle;
  close(): Promise<void>;
}

/** The built-in toolkits, by name; CommerceTools keeps its store in the data directory. */
export const builtinRegistry = (dataDir: string) => new ToolRegistry(builtinToolkits({ dataDir }));

/** Configuration from every layer, with the sandbox started and layered in when asked for. */
export async function openSetup(options: SetupOptions, registry = builtinRegistry(options.settings.dataDir)): Promise<Setup> {
  const tools = registry.tools();
  let sandboxLayer = emptyConfig();
  let sandbox: SandboxHandle | undefined;
  if (options.sandbox) {
    // Loaded only on request: the emulators are never part of the runtime proper.
    sandbox = typeof options.sandbox === 'object' ? options.sandbox : await (await import('./sandbox-session.js')).startLocalSandbox();
    sandboxLayer = sandboxConfig(sandbox, tools);
  }
  const config = mergeConfig(options.settings.upstream, sandboxLayer, options.overrides ?? emptyConfig());
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
export async function openApp(options: SetupOptions & { logCalls?: boolean; serving?: ServingOptions }, registry = builtinRegistry(options.settings.dataDir)): Promise<App> {
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
