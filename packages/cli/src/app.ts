/** Assembles a runtime: the built-in toolkits, the configuration layers and, on request, the sandbox. */
import { Runtime, ToolRegistry, UpstreamClient, type CallRecord, type Tool } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { configFromEnv, contextProvider, emptyConfig, loadConfigFile, mergeConfig, type QuiverConfig } from './config.js';

export interface AppOptions {
  /** Start the local emulators and point every toolkit at them. */
  sandbox?: boolean;
  /** Config file path (default: quiver.config.json in the working directory, or QUIVER_CONFIG). */
  configPath?: string;
  /** Settings from command-line flags; they win over everything else. */
  overrides?: QuiverConfig;
  /** Write one JSON line per tool call to standard error. */
  logCalls?: boolean;
}

export interface App {
  registry: ToolRegistry;
  tools: Tool[];
  runtime: Runtime;
  close(): Promise<void>;
}

/** The built-in toolkits, by name. */
export const builtinRegistry = () => new ToolRegistry(toolkits);

export async function openApp(options: AppOptions = {}, registry = builtinRegistry()): Promise<App> {
  const tools = registry.tools();
  const defaults = Object.fromEntries(registry.toolkits.map((toolkit) => [toolkit.name, toolkit.baseUrl]));
  let sandboxLayer = emptyConfig();
  let stopSandbox = async () => {};
  if (options.sandbox) {
    // Loaded only on request: the emulators are never part of the runtime proper.
    const { startSandbox } = await import('@quiver/sandbox');
    const sandbox = await startSandbox();
    sandboxLayer = sandboxConfig(sandbox.baseUrls, sandbox.token, tools);
    stopSandbox = sandbox.close;
  }
  const config = mergeConfig(loadConfigFile(options.configPath), configFromEnv(process.env, tools), sandboxLayer, options.overrides ?? emptyConfig());
  const client = new UpstreamClient();
  const log = options.logCalls ? (record: CallRecord) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`) : undefined;
  const runtime = new Runtime(registry, contextProvider(config, defaults, client), log);
  return {
    registry,
    tools,
    runtime,
    async close() {
      await client.close();
      await stopSandbox();
    },
  };
}

function sandboxConfig(baseUrls: Record<string, string>, token: string, tools: readonly Tool[]): QuiverConfig {
  const config = emptyConfig();
  for (const [toolkit, baseUrl] of Object.entries(baseUrls)) config.toolkits[toolkit] = { baseUrl };
  for (const tool of tools) {
    const provider = tool.requirements.oauth2?.provider;
    if (provider) config.tokens[provider] = token;
  }
  return config;
}
