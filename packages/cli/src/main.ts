#!/usr/bin/env node
/** The `quiver` command. Exit codes: 0 success, 1 a tool error, 2 a usage error. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { createToolIndex, didYouMean, formatNames, formatTool, qualifiedName, ServingPolicy, suggestToolNames, type FormatName, type ToolRegistry } from '@quiver/core';
import { builtinRegistry, configuredBaseUrls, openApp, openSetup } from './app.js';
import { configFile, emptyConfig, UsageError, type QuiverConfig } from './config.js';
import type { TokenFormat } from './tokens.js';
import { addServingOptions, servingOptions, unmatchedNames, type ServingFlags } from './serving.js';

const program = new Command('quiver')
  .description('Serve real API tools to language-model agents over MCP and HTTP.')
  .version('0.1.0')
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) });

const sandboxOption = new Option('--sandbox', 'start the local upstream emulators and point every toolkit at them');
const configOption = new Option('--config <path>', 'config file (default: quiver.config.json, or QUIVER_CONFIG)');

addServingOptions(program.command('mcp'))
  .description('serve the tools over MCP on standard input and output')
  .addOption(sandboxOption)
  .addOption(configOption)
  .action(async (options: { sandbox?: boolean; config?: string } & ServingFlags) => {
    const serving = servingOptions(options);
    const registry = builtinRegistry();
    const unmatched = unmatchedNames(serving, registry.tools());
    if (unmatched) throw new UsageError(unmatched);
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    // The MCP server alone: the engine's HTTP stack stays out of a stdio server's start-up.
    const { createMcpServer } = await import('@quiver/engine/mcp');
    const app = await openApp({ sandbox: options.sandbox, configPath: options.config, serving }, registry);
    const server = createMcpServer(() => app.tools, (name, args) => app.runtime.call(name, args), { policy: app.policy, discovery: options.discovery });
    const transport = new StdioServerTransport();
    transport.onclose = () => void app.close();
    await server.connect(transport);
  });

addServingOptions(program.command('serve'))
  .description('run the engine: the HTTP API under /v1 and MCP streamable HTTP at /v1/mcp and /mcp')
  .option('--port <port>', 'port to listen on', '9099')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .addOption(sandboxOption)
  .addOption(configOption)
  .action(async (options: { port: string; host: string; sandbox?: boolean; config?: string } & ServingFlags) => {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got '${options.port}'`);
    const serving = servingOptions(options);
    // Only a warning: a worker registered later may bring the tools named.
    const unmatched = unmatchedNames(serving, builtinRegistry().tools());
    if (unmatched) console.error(`quiver: warning: ${unmatched} among the built-in tools`);
    const { applyAuthProviders, engineConfig, loadAuthProviders, sandboxCredentials, startEngine } = await import('@quiver/engine');
    const setup = await openSetup({ sandbox: options.sandbox, configPath: options.config });
    const config = engineConfig(process.env, { host: options.host, port });
    const running = await startEngine({
      config,
      // JSON lines on standard error; requests are logged without headers, so no key or token appears.
      logger: { level: process.env.QUIVER_LOG_LEVEL ?? 'info', stream: process.stderr },
      baseUrls: configuredBaseUrls(setup.config),
      ...(setup.sandbox && { credentials: () => sandboxCredentials(setup.sandbox!.token), defaultSecrets: setup.sandbox.secrets }),
      serving,
      discovery: options.discovery,
    });
    const file = configFile(options.config);
    if (file) await applyAuthProviders(running.engine, loadAuthProviders(file));
    const mode = options.sandbox ? ' (sandbox: every toolkit points at the local emulators)' : '';
    const tools = (await running.engine.catalog.list()).length;
    const listing = options.discovery ? ' (discovery mode: search, describe and call meta-tools)' : '';
    console.error(`quiver: ${tools} tools; API ${running.url}/v1, MCP ${running.url}/v1/mcp${listing}${mode}`);
    console.error(`quiver: data in ${config.dataDir}; every route but /v1/health and /v1/openapi needs an API key (quiver keys create)`);
    const stop = () => void running.close().then(() => setup.close()).then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('worker')
  .description('serve toolkits to an engine over the worker protocol (register with POST /v1/workers)')
  .requiredOption('--toolkits <names>', 'comma-separated toolkits to serve, e.g. CrmMarketingApi')
  .option('--port <port>', 'port to listen on', '8002')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--secret-env <name>', 'environment variable holding the secret the engine signs with', 'QUIVER_WORKER_SECRET')
  .option('--secret <secret>', 'the secret itself (visible in the process list: prefer --secret-env)')
  .addOption(sandboxOption)
  .addOption(configOption)
  .action(async (options: { toolkits: string; port: string; host: string; secretEnv: string; secret?: string; sandbox?: boolean; config?: string }) => {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got '${options.port}'`);
    const { selectToolkits, startWorkerServer, workerSecret } = await import('@quiver/engine');
    const registry = builtinRegistry();
    let toolkits, secret;
    try {
      toolkits = selectToolkits(options.toolkits, registry.toolkits);
      secret = workerSecret(options);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const setup = await openSetup({ sandbox: options.sandbox, configPath: options.config }, registry);
    const worker = await startWorkerServer({ toolkits, secret, host: options.host, port, baseUrls: configuredBaseUrls(setup.config) });
    const mode = options.sandbox ? ' (sandbox: every toolkit points at the local emulators)' : '';
    console.error(`quiver: worker serving ${worker.tools.length} tools of ${toolkits.map((t) => t.name).join(', ')} at ${worker.url}${mode}`);
    console.error(`quiver: register it with the engine: POST /v1/workers {"id": "...", "type": "http", "http": {"uri": "${worker.url}", "secret": "<the same secret>"}}`);
    const stop = () => void worker.close().then(() => setup.close()).then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

const keys = program.command('keys').description("manage the engine's API keys (in the data directory's database, or DATABASE_URL)");

keys
  .command('create')
  .description('create an API key and print it (it is shown only this once)')
  .option('--name <name>', 'a name to recognise the key by', 'default')
  .action(async (options: { name: string }) => {
    await withStore(async (db, { createApiKey }) => {
      const { key, info } = await createApiKey(db, options.name);
      console.log(key);
      console.error(`created API key ${info.prefix}… (${info.name}, id ${info.id}); it is not shown again`);
    });
  });

keys
  .command('list')
  .description('list API keys (never the keys themselves)')
  .action(async () => {
    await withStore(async (db, { listApiKeys }) => {
      for (const key of await listApiKeys(db)) {
        console.log(`${key.id}  ${key.prefix}…  ${key.name}  created ${key.created_at}${key.revoked_at ? `  revoked ${key.revoked_at}` : ''}`);
      }
    });
  });

keys
  .command('revoke')
  .description('revoke an API key by id or prefix')
  .argument('<key>', 'the id or prefix `quiver keys list` shows')
  .action(async (idOrPrefix: string) => {
    await withStore(async (db, { revokeApiKey }) => {
      if (!(await revokeApiKey(db, idOrPrefix))) throw new UsageError(`no active API key with id or prefix '${idOrPrefix}'`);
      console.error(`revoked ${idOrPrefix}`);
    });
  });

/** Opens the engine's store (as `serve` would) for one command. */
async function withStore(work: (db: import('@quiver/engine').Store['db'], engine: typeof import('@quiver/engine')) => Promise<void>): Promise<void> {
  const engine = await import('@quiver/engine');
  const store = await engine.openStore(engine.engineConfig().database);
  try {
    await work(store.db, engine);
  } finally {
    await store.close();
  }
}

program
  .command('call')
  .description('call one tool and print {"value": ...} or {"error": {...}} as JSON')
  .argument('<tool>', 'tool name, e.g. CrmMarketingApi.GetMarketingCampaigns')
  .option('--input <json>', 'tool input as a JSON object, or @file.json', '{}')
  .option('--base-url <url>', "base URL of the tool's upstream")
  .option('--token <token>', "OAuth access token for the tool's provider")
  .option('--secret <KEY=VALUE>', 'a secret the tool declares (repeatable)', collect, [])
  .addOption(sandboxOption)
  .addOption(configOption)
  .action(async (name: string, options: { input: string; baseUrl?: string; token?: string; secret: string[]; sandbox?: boolean; config?: string }) => {
    const input = parseInput(options.input);
    const registry = builtinRegistry();
    const tool = registry.get(name);
    if (!tool) throw unknownTool(name, registry);
    const overrides = flagConfig(tool.toolkit.name, tool.requirements.oauth2?.provider, options);
    // `fields` as over MCP; the whole result, uncapped, since a terminal takes any size.
    const app = await openApp({ sandbox: options.sandbox, configPath: options.config, overrides, serving: { maxResponseTokens: 0 } }, registry);
    try {
      const result = await app.runtime.call(name, input);
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      process.exitCode = 'error' in result ? 1 : 0;
    } finally {
      await app.close();
    }
  });

const tools = program.command('tools').description('list and inspect tools');

tools
  .command('list')
  .description('list tools, one per line')
  .option('--toolkit <name>', 'only this toolkit')
  .action(async (options: { toolkit?: string }) => {
    const registry = builtinRegistry();
    if (options.toolkit && !registry.toolkit(options.toolkit)) {
      throw new UsageError(`unknown toolkit '${options.toolkit}'; toolkits: ${registry.toolkits.map((t) => t.name).join(', ')}`);
    }
    const selected = registry.tools(options.toolkit);
    const width = Math.max(...selected.map((tool) => qualifiedName(tool).length));
    for (const tool of selected) console.log(`${qualifiedName(tool).padEnd(width)}  ${firstSentence(tool.description)}`);
    console.error(`${selected.length} tools`);
  });

tools
  .command('show')
  .description("print one tool's definition")
  .argument('<tool>', 'tool name, e.g. CrmMarketingApi.CreateMarketingCampaign')
  .addOption(new Option('--format <format>', 'output format').choices(formatNames).default('arcade'))
  .action(async (name: string, options: { format: FormatName }) => {
    const registry = builtinRegistry();
    const tool = registry.get(name);
    if (!tool) throw unknownTool(name, registry);
    console.log(JSON.stringify(formatTool(tool, options.format), null, 2));
  });

tools
  .command('search')
  .description('find tools by what they do, best match first: name, score and first sentence')
  .argument('<query>', 'what you want to do, e.g. "close the issue about the login bug"')
  .option('--limit <n>', 'at most this many tools', '10')
  .option('--toolkit <name>', 'only this toolkit')
  .action(async (query: string, options: { limit: string; toolkit?: string }) => {
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, got '${options.limit}'`);
    if (!query.trim()) throw new UsageError('the query is empty');
    const registry = builtinRegistry();
    if (options.toolkit && !registry.toolkit(options.toolkit)) {
      throw new UsageError(`unknown toolkit '${options.toolkit}'; toolkits: ${registry.toolkits.map((t) => t.name).join(', ')}`);
    }
    const hits = (await createToolIndex(registry.tools())).search(query, { limit, toolkit: options.toolkit });
    const width = Math.max(0, ...hits.map(({ tool }) => qualifiedName(tool).length));
    for (const { tool, score } of hits) console.log(`${qualifiedName(tool).padEnd(width)}  ${score.toFixed(2).padStart(6)}  ${firstSentence(tool.description)}`);
    console.error(`${hits.length} tools`);
  });

addServingOptions(tools.command('tokens'), { listingOnly: true })
  .description('tokens (o200k_base) of each tool, each toolkit and the whole tools/list, with every tool and in discovery mode')
  .addOption(new Option('--format <format>', 'the format the definitions are sent in').choices(['mcp', 'openai', 'openai-strict', 'anthropic', 'gemini']).default('mcp'))
  .action(async (options: { format: TokenFormat } & ServingFlags) => {
    const { formatTokenReport, tokenReport } = await import('./tokens.js');
    const serving = servingOptions(options);
    const all = builtinRegistry().tools();
    const unmatched = unmatchedNames(serving, all);
    if (unmatched) throw new UsageError(unmatched);
    console.log(formatTokenReport(await tokenReport(all, new ServingPolicy(serving), options.format)));
  });

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseInput(text: string): unknown {
  const source = text.startsWith('@') ? readInputFile(text.slice(1)) : text;
  let input: unknown;
  try {
    input = JSON.parse(source);
  } catch (cause) {
    throw new UsageError(`--input is not valid JSON: ${(cause as Error).message}`);
  }
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new UsageError('--input must be a JSON object');
  return input;
}

function readInputFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`cannot read input file ${path}`);
  }
}

function flagConfig(toolkit: string, provider: string | undefined, options: { baseUrl?: string; token?: string; secret: string[] }): QuiverConfig {
  const config = emptyConfig();
  if (options.baseUrl) config.toolkits[toolkit] = { baseUrl: options.baseUrl };
  if (options.token) {
    if (!provider) throw new UsageError(`--token given, but ${toolkit} tools use no OAuth provider`);
    config.tokens[provider] = options.token;
  }
  for (const pair of options.secret) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--secret must look like KEY=VALUE`);
    config.secrets[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return config;
}

const unknownTool = (name: string, registry: ToolRegistry) =>
  new UsageError(`unknown tool '${name}'.${didYouMean(suggestToolNames(name, registry.tools()))} (see: quiver tools list)`);

const firstSentence = (text: string) => text.split(/(?<=\.)\s/)[0] ?? text;

async function main(argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2;
    } else if (error instanceof UsageError) {
      console.error(`quiver: ${error.message}`);
      process.exitCode = 2;
    } else {
      console.error(`quiver: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}

await main(process.argv);
