#!/usr/bin/env node
/** The `quiver` command. Exit codes: 0 success, 1 a tool error, 2 a usage error. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { formatNames, formatTool, qualifiedName, type FormatName } from '@quiver/core';
import { builtinRegistry, openApp } from './app.js';
import { emptyConfig, UsageError, type QuiverConfig } from './config.js';

const program = new Command('quiver')
  .description('Serve real API tools to language-model agents over MCP and HTTP.')
  .version('0.1.0')
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) });

const sandboxOption = new Option('--sandbox', 'start the local upstream emulators and point every toolkit at them');
const configOption = new Option('--config <path>', 'config file (default: quiver.config.json, or QUIVER_CONFIG)');

program
  .command('mcp')
  .description('serve the tools over MCP on standard input and output')
  .addOption(sandboxOption)
  .addOption(configOption)
  .action(async (options: { sandbox?: boolean; config?: string }) => {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { createMcpServer } = await import('./mcp.js');
    const app = await openApp({ sandbox: options.sandbox, configPath: options.config });
    const server = createMcpServer(app.runtime, app.tools);
    const transport = new StdioServerTransport();
    transport.onclose = () => void app.close();
    await server.connect(transport);
  });

program
  .command('serve')
  .description('serve the tools over MCP streamable HTTP at /mcp')
  .option('--port <port>', 'port to listen on', '8080')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .addOption(sandboxOption)
  .addOption(configOption)
  .action(async (options: { port: string; host: string; sandbox?: boolean; config?: string }) => {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got '${options.port}'`);
    const { createHttpServer } = await import('./http.js');
    const app = await openApp({ sandbox: options.sandbox, configPath: options.config, logCalls: true });
    const server = createHttpServer(app.runtime, app.tools);
    server.listen(port, options.host, () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      const mode = options.sandbox ? ' (sandbox: every toolkit points at the local emulators)' : '';
      console.error(`quiver: ${app.tools.length} tools; MCP endpoint http://${options.host}:${actual}/mcp${mode}`);
    });
    const stop = () => server.close(() => void app.close().then(() => process.exit(0)));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

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
    if (!tool) throw new UsageError(`unknown tool '${name}' (see: quiver tools list)`);
    const overrides = flagConfig(tool.toolkit.name, tool.requirements.oauth2?.provider, options);
    const app = await openApp({ sandbox: options.sandbox, configPath: options.config, overrides }, registry);
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
    const tool = builtinRegistry().get(name);
    if (!tool) throw new UsageError(`unknown tool '${name}' (see: quiver tools list)`);
    console.log(JSON.stringify(formatTool(tool, options.format), null, 2));
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
