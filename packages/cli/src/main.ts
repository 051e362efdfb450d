#!/usr/bin/env node
/** The `quiver` command. Exit codes: 0 success, 1 a tool error, 2 a usage error. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import {
  createToolIndex,
  didYouMean,
  formatNames,
  formatTool,
  mcpClientNames,
  qualifiedName,
  ServingPolicy,
  stdioClientConfig,
  suggestToolNames,
  type FormatName,
  type McpClientName,
  type Tool,
  type ToolError,
  type Toolkit,
} from '@quiver/core';
// The engine's defaults alone: its HTTP stack loads only for the commands that run it.
import { engineDefaults } from '@quiver/engine/config';
import {
  configuredBaseUrls,
  listedToolkit,
  listedToolkits,
  listingCatalog,
  listingToolkits,
  listingTools,
  openApp,
  openSetup,
  openTelemetry,
  runnableToolkits,
} from './app.js';
import { currentLauncher, forwardedArgs } from './client-config.js';
import { checkConfiguredToolkits, emptyConfig, loadSettings, type QuiverConfig, type SettingFlags, type Settings } from './config.js';
import { dataDirProblem } from './data-dir.js';
import { checkPortFree, closeOnStop, exitOnUncaught, listenError } from './lifecycle.js';
import { logStream } from './log-format.js';
import { runningSandbox } from './sandbox-session.js';
import type { TokenFormat } from './tokens.js';
import { addServingOptions, servingOptions, unmatchedNames, type ServingFlags } from './serving.js';
import { UsageError } from './usage-error.js';

const program = new Command('quiver')
  .description('Serve real API tools to language-model agents over MCP and HTTP.')
  .version('0.1.0')
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) })
  // Given on the command line where no sandbox starts, the ports would be ignored without a word (from the
  // environment or a config file, which every command reads, they apply whenever a sandbox starts).
  .hook('preAction', (_program, command) => {
    const { sandbox, sandboxPorts } = command.opts<{ sandbox?: boolean; sandboxPorts?: string }>();
    if (sandboxPorts !== undefined && !sandbox && command.name() !== 'sandbox') {
      throw new UsageError(
        `--sandbox-ports places the sandbox's emulators: it goes with --sandbox (quiver ${command.name()} --sandbox --sandbox-ports ${sandboxPorts})`,
      );
    }
  });

const sandboxOption = new Option('--sandbox', 'start the local upstream emulators and point every toolkit at them');
const sandboxPortsOption = new Option(
  '--sandbox-ports <first>',
  "put the sandbox's emulators on consecutive ports from this one, rather than random ones (default: QUIVER_SANDBOX_PORTS, sandboxPorts)",
);
const configOption = new Option(
  '--config <path>',
  'config file (default: QUIVER_CONFIG, quiver.config.json here, or config.json in the configuration directory)',
);
const dataDirOption = new Option('--data-dir <path>', 'data directory (default: QUIVER_DATA_DIR, or the platform data directory)');
const toolkitPathOption = () =>
  new Option(
    '--toolkit-path <folder|package>',
    'also load the toolkit in this folder or npm package (repeatable; adds to QUIVER_TOOLKIT_PATHS and toolkitPaths)',
  )
    .argParser(collect)
    .default([]);

/** Settings from this command's flags, the environment and the config file (see config.ts). */
const settingsFor = (flags: SettingFlags): Settings => loadSettings(flags, listedToolkits);

/**
 * The settings with the toolkits their toolkit paths name loaded, for the commands that list or run tools:
 * the variables of the loaded tools (base URL, token, secrets) are then looked up as the built-in ones' are.
 */
async function settingsWithToolkits(flags: SettingFlags): Promise<Settings> {
  const settings = settingsFor(flags);
  if (!settings.toolkitPaths.length) return settings;
  // The loader, and the OpenAPI checks it runs, only when a toolkit path is given.
  const { loadToolkits } = await import('./toolkit-paths.js');
  const loaded = await loadToolkits(settings.toolkitPaths, listedToolkits, process.cwd());
  const toolkits = [...listedToolkits, ...loaded.map(({ toolkit }) => toolkit)];
  const withLoaded = { ...loadSettings(flags, toolkits), loadedToolkits: loaded };
  checkConfiguredToolkits(withLoaded, toolkits);
  return withLoaded;
}

/** Commands that keep data stop here when they cannot; those that only may (CommerceTools) warn and go on. */
function checkDataDir(settings: Settings, { required }: { required: boolean }): void {
  const problem = dataDirProblem(settings.dataDir);
  if (problem && required) throw new Error(problem);
  if (problem) console.error(`quiver: warning: ${problem}`);
}

addServingOptions(program.command('mcp'))
  .description('serve the tools over MCP on standard input and output')
  .addOption(sandboxOption)
  .addOption(sandboxPortsOption)
  .addOption(configOption)
  .addOption(dataDirOption)
  .addOption(toolkitPathOption())
  .addOption(new Option('--print-config <client>', "print this server's entry for the client's MCP configuration, and exit").choices(mcpClientNames))
  .action(async (options: { sandbox?: boolean; config?: string; dataDir?: string; printConfig?: McpClientName } & ServingFlags & SettingFlags) => {
    const serving = servingOptions(options);
    const settings = await settingsWithToolkits(options);
    const unmatched = unmatchedNames(serving, listingToolkits(settings));
    if (unmatched) throw new UsageError(unmatched);
    if (options.printConfig) {
      const launcher = currentLauncher(settings.searchPath);
      console.log(JSON.stringify(stdioClientConfig(options.printConfig, forwardedArgs(process.argv, process.cwd()), launcher), null, 2));
      return;
    }
    checkDataDir(settings, { required: false });
    // The MCP server alone: the engine's HTTP stack stays out of a stdio server's start-up.
    const { createMcpServer, ProcessTasks, serveStdio, StdioTransport } = await import('@quiver/engine/mcp');
    const telemetry = await openTelemetry(settings);
    const app = await openApp({ settings, sandbox: options.sandbox, serving, logCalls: true });
    // The connection's first message picks the era (`initialize` for the 2025 revisions, else 2026-07-28).
    // The end of standard input waits for the answers of the calls still running, as long as a call may take.
    const transport = new StdioTransport(process.stdin, process.stdout, settings.upstreamLimits.deadlineMs);
    // A message over the transport's limit (10 MB) makes it stop reading: rather than a silent process,
    // the client gets a JSON-RPC error naming the limit, and the process ends with status 1.
    let oversized: string | undefined;
    // Tasks live in this process: a scheduled call waits here, and says it is lost if the process stops.
    const tasks = { process: new ProcessTasks() };
    const connection = serveStdio(() => createMcpServer(app.dispatcher, { discovery: options.discovery, network: 'pipe', sendsJsonText: true, tasks }), {
      transport,
      onerror: (error) => {
        if (/exceeded maximum size/.test(error.message)) oversized = error.message;
      },
    });
    const stop = closeOnStop(() =>
      connection
        .close()
        .then(() => app.close())
        .then(() => telemetry?.shutdown()),
    );
    // The session ends when the client closes its end, once the transport has answered what it read.
    const closed = transport.onclose;
    transport.onclose = () => {
      closed?.();
      if (oversized === undefined) {
        stop();
        return;
      }
      const message = `A message was larger than the server accepts (${oversized}); the session is closed.`;
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })}\n`);
      console.error(`quiver: ${message}`);
      void app.close().finally(() => process.exit(1));
    };
  });

/** The flags of `quiver serve`. */
type ServeFlags = {
  port: string;
  host: string;
  metricsPort?: string;
  metricsHost: string;
  sandbox?: boolean;
  config?: string;
  dataDir?: string;
  toolkitPath?: string[];
} & ServingFlags;

addServingOptions(program.command('serve'))
  .description('run the engine: the HTTP API under /v1 and MCP streamable HTTP at /v1/mcp and /mcp')
  .option('--port <port>', 'port to listen on', String(engineDefaults.port))
  .option('--host <host>', 'address to listen on', engineDefaults.host)
  .option('--metrics-port <port>', 'also serve GET /metrics (Prometheus) on this port, without an API key')
  .option('--metrics-host <host>', 'address of the --metrics-port listener', engineDefaults.host)
  .addOption(sandboxOption)
  .addOption(sandboxPortsOption)
  .addOption(configOption)
  .addOption(dataDirOption)
  .addOption(toolkitPathOption())
  .action(async (options: ServeFlags) => {
    const port = portOf(options.port);
    const metricsPort = options.metricsPort === undefined ? undefined : portOf(options.metricsPort, '--metrics-port');
    const serving = servingOptions(options);
    const settings = await settingsWithToolkits(options);
    // Only a warning: a worker registered later may bring the tools named.
    const unmatched = unmatchedNames(serving, listingToolkits(settings));
    if (unmatched) console.error(`quiver: warning: ${unmatched} among the built-in tools`);
    checkDataDir(settings, { required: true });
    await checkPortFree(options.host, port);
    if (metricsPort !== undefined) await checkPortFree(options.metricsHost, metricsPort);
    const { engineConfig, parseAuthProviders, startEngine } = await import('@quiver/engine');
    // Metrics are always collected for GET /metrics; traces and OTLP export when the settings ask for them.
    const telemetry = await openTelemetry(settings, { prometheus: true });
    // A loaded toolkit's OAuth providers (its toolkit.json) fill in the endpoints of the configured entries that name them.
    const { withToolkitProviders } = await import('./toolkit-paths.js');
    const { providers, unconfigured } = withToolkitProviders(settings.authProviders, settings.loadedToolkits);
    const authProviders = parseAuthProviders(providers, settings.configFile ?? 'config file');
    for (const id of unconfigured) {
      console.error(
        `quiver: warning: OAuth provider ${id} of a loaded toolkit has no client: add {"id": "${id}", "client_id": ..., "client_secret": ...} to authProviders`,
      );
    }
    const setup = await openSetup({ settings, sandbox: options.sandbox });
    // The engine's settings are resolved already (config.ts); engineConfig takes those and leaves the command's own.
    const config = engineConfig({ ...settings, host: options.host, port });
    const running = await startEngine({
      config,
      // One line a request and one a tool call on standard error, without headers: no key or token appears.
      logger: { level: settings.logLevel, stream: logStream(settings.logFormat) },
      metrics: telemetry?.scrape,
      ...(metricsPort !== undefined && { metricsListener: { host: options.metricsHost, port: metricsPort } }),
      toolkits: runnableToolkits(settings),
      baseUrls: configuredBaseUrls(setup.config),
      // In the sandbox the engine is every provider's authorization server, granting the emulators' token.
      ...(setup.sandbox && { sandbox: { token: setup.sandbox.token }, defaultSecrets: setup.sandbox.secrets }),
      serving,
      discovery: options.discovery,
    }).catch((error: unknown) => {
      throw listenError(error, options.host, port);
    });
    closeOnStop(
      () =>
        running
          .close()
          .then(() => setup.close())
          .then(() => telemetry?.shutdown()),
      // The close limit covers the whole drain: serving while not ready, then the work in flight finishing.
      { drainMs: (settings.drainSeconds + settings.drainTimeoutSeconds) * 1000 },
    );
    if (authProviders.length) await running.engine.oauth.applyProviders(authProviders);
    const mode = options.sandbox ? ' (sandbox: every toolkit points at the local emulators)' : '';
    const tools = (await running.engine.dispatcher.list()).length;
    const listing = options.discovery ? ' (discovery mode: search, describe and call meta-tools)' : '';
    console.error(`quiver: ${tools} tools; API ${running.url}/v1, MCP ${running.url}/v1/mcp${listing}${mode}`);
    console.error(`quiver: data in ${config.dataDir}; every route but /v1/health, /v1/ready and /v1/openapi needs an API key (quiver keys create)`);
    if (running.metricsUrl) console.error(`quiver: metrics without a key at ${running.metricsUrl}`);
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
  .addOption(sandboxPortsOption)
  .addOption(configOption)
  .addOption(dataDirOption)
  .addOption(toolkitPathOption())
  .action(
    async (options: {
      toolkits: string;
      port: string;
      host: string;
      secretEnv: string;
      secret?: string;
      sandbox?: boolean;
      config?: string;
      dataDir?: string;
      toolkitPath?: string[];
    }) => {
      const port = portOf(options.port);
      const { selectToolkits, startWorkerServer } = await import('@quiver/engine');
      const settings = await settingsWithToolkits(options);
      let toolkits: Toolkit[];
      try {
        toolkits = selectToolkits(options.toolkits, runnableToolkits(settings));
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const secret = settings.workerSecret.value;
      if (!secret) throw new UsageError(`no worker secret: set ${settings.workerSecret.variable} (or pass --secret-env NAME or --secret)`);
      if (toolkits.some((toolkit) => toolkit.name === 'CommerceTools')) checkDataDir(settings, { required: false });
      await checkPortFree(options.host, port);
      const setup = await openSetup({ settings, sandbox: options.sandbox });
      const telemetry = await openTelemetry(settings);
      const worker = await startWorkerServer({
        toolkits,
        secret,
        host: options.host,
        port,
        baseUrls: configuredBaseUrls(setup.config),
        upstreamLimits: settings.upstreamLimits,
      }).catch((error: unknown) => {
        throw listenError(error, options.host, port);
      });
      closeOnStop(() =>
        worker
          .close()
          .then(() => setup.close())
          .then(() => telemetry?.shutdown()),
      );
      const mode = options.sandbox ? ' (sandbox: every toolkit points at the local emulators)' : '';
      console.error(`quiver: worker serving ${worker.tools.length} tools of ${toolkits.map((t) => t.name).join(', ')} at ${worker.url}${mode}`);
      console.error(
        `quiver: register it with the engine: POST /v1/workers {"id": "...", "type": "http", "http": {"uri": "${worker.url}", "secret": "<the same secret>"}}`,
      );
    },
  );

const keys = program.command('keys').description("manage the engine's API keys (in the data directory's database, or DATABASE_URL)");

keys
  .command('create')
  .description('create an API key and print it (it is shown only this once)')
  .option('--name <name>', 'a name to recognise the key by', 'default')
  .addOption(configOption)
  .addOption(dataDirOption)
  .addOption(
    new Option(
      '--role <role>',
      'admin: everything; service: tools and authorizations for any user; user: acts as --user only (default: admin, or user with --user)',
    ).choices(['admin', 'service', 'user']),
  )
  .option('--user <id>', 'the one user a user key acts as')
  .option('--rpm <n>', "requests a minute for this key (0: no limit; default: its role's, QUIVER_LIMIT_KEY_RPM)")
  .option('--concurrency <n>', "tool calls in flight for this key (0: no limit; default: its role's, QUIVER_LIMIT_KEY_CONCURRENCY)")
  .action(async (options: { name: string; role?: 'admin' | 'service' | 'user'; user?: string } & LimitFlags & SettingFlags) => {
    const { checkedScope } = await import('@quiver/engine');
    const scope = { role: options.role ?? (options.user === undefined ? 'admin' : 'user'), userId: options.user } as const;
    // The engine's rule, in the command's words.
    if (scope.role === 'user' && scope.userId === undefined) throw new UsageError('a user key is bound to one user: name it with --user <id>');
    try {
      checkedScope(scope);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const limits = await keyLimitsOf(options);
    await withStore(options, async (db, { createApiKey, AuditTrail, commandLineActor }) => {
      const { key, info } = await createApiKey(db, options.name, scope, limits);
      const change = { name: info.name, prefix: info.prefix, role: info.role, user_id: info.user_id, rpm: info.rpm, concurrency: info.concurrency };
      await new AuditTrail(db).record({ action: 'api_key.created', target: info.id, change }, { actor: commandLineActor() });
      console.log(key);
      const who = info.user_id ? ` for user ${info.user_id}` : '';
      console.error(`created ${info.role} API key ${info.prefix}…${who} (${info.name}, id ${info.id}); it is not shown again`);
    });
  });

keys
  .command('update')
  .description("change an API key's own limits (by id or prefix); running engines apply them within a second")
  .argument('<key>', 'the id or prefix `quiver keys list` shows', keyReference)
  .option('--rpm <n>', "requests a minute for this key (0: no limit), or `default` for its role's")
  .option('--concurrency <n>', "tool calls in flight for this key (0: no limit), or `default` for its role's")
  .addOption(configOption)
  .addOption(dataDirOption)
  .action(async (idOrPrefix: string, options: LimitFlags & SettingFlags) => {
    const limits = await keyLimitsOf(options);
    if (limits.rpm === undefined && limits.concurrency === undefined) throw new UsageError('nothing to change: give --rpm, --concurrency or both');
    await withStore(options, async (db, { updateApiKeyLimits, differences, AuditTrail, commandLineActor }) => {
      const changed = await updateApiKeyLimits(db, idOrPrefix, limits);
      if (!changed) throw new UsageError(`no active API key with id or prefix '${idOrPrefix}'`);
      const view = ({ name, prefix, role, user_id, rpm, concurrency }: typeof changed.after) => ({ name, prefix, role, user_id, rpm, concurrency });
      const change = differences(view(changed.before), view(changed.after));
      await new AuditTrail(db).record({ action: 'api_key.updated', target: changed.after.id, change }, { actor: commandLineActor() });
      const shown = (value: number | null) => (value === null ? "its role's default" : value === 0 ? 'no limit' : String(value));
      console.error(`updated ${changed.after.prefix}…: rpm ${shown(changed.after.rpm)}, concurrency ${shown(changed.after.concurrency)}`);
    });
  });

keys
  .command('list')
  .description('list API keys (never the keys themselves)')
  .addOption(configOption)
  .addOption(dataDirOption)
  .action(async (options: SettingFlags) => {
    await withStore(options, async (db, { listApiKeys }) => {
      for (const key of await listApiKeys(db)) {
        const role = key.user_id ? `${key.role}:${key.user_id}` : key.role;
        // A key's own limits, where it has them (otherwise its role's).
        const limits = `${key.rpm === null ? '' : `  rpm ${key.rpm}`}${key.concurrency === null ? '' : `  concurrency ${key.concurrency}`}`;
        console.log(
          `${key.id}  ${key.prefix}…  ${role}  ${key.name}  created ${key.created_at}${limits}${key.revoked_at ? `  revoked ${key.revoked_at}` : ''}`,
        );
      }
    });
  });

keys
  .command('revoke')
  .description('revoke an API key by id or prefix')
  .argument('<key>', 'the id or prefix `quiver keys list` shows', keyReference)
  .addOption(configOption)
  .addOption(dataDirOption)
  .action(async (idOrPrefix: string, options: SettingFlags) => {
    await withStore(options, async (db, { findActiveKey, revokeApiKey, AuditTrail, commandLineActor }) => {
      const key = await findActiveKey(db, idOrPrefix);
      if (!key || !(await revokeApiKey(db, key.id))) throw new UsageError(`no active API key with id or prefix '${idOrPrefix}'`);
      const change = { name: key.name, prefix: key.prefix, role: key.role, user_id: key.user_id, rpm: key.rpm, concurrency: key.concurrency };
      await new AuditTrail(db).record({ action: 'api_key.revoked', target: key.id, change }, { actor: commandLineActor() });
      console.error(`revoked ${idOrPrefix}`);
    });
  });

/** A key's id or prefix, as given: the prefix pasted from `keys list` ends with the ellipsis it prints. */
function keyReference(text: string): string {
  return text.trim().replace(/(?:…|\.{3})$/, '');
}

type LimitFlags = { rpm?: string; concurrency?: string };

/** `--rpm` and `--concurrency`: a whole number from 0 (0: no limit) to the largest the engine keeps, or `default` for the role's (null). */
async function keyLimitsOf(options: LimitFlags): Promise<{ rpm?: number | null; concurrency?: number | null }> {
  const { MAX_KEY_LIMIT } = await import('@quiver/engine');
  const limit = (flag: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    if (text === 'default') return null;
    if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number (0: no limit) or 'default', got '${text}'`);
    if (Number(text) > MAX_KEY_LIMIT) throw new UsageError(`${flag} must be at most ${MAX_KEY_LIMIT}, got '${text}'`);
    return Number(text);
  };
  return { rpm: limit('--rpm', options.rpm), concurrency: limit('--concurrency', options.concurrency) };
}

/** Opens the engine's store (as `serve` would) for one command. */
async function withStore(
  flags: SettingFlags,
  work: (db: import('@quiver/engine').Store['db'], engine: typeof import('@quiver/engine')) => Promise<void>,
): Promise<void> {
  const settings = settingsFor(flags);
  checkDataDir(settings, { required: true });
  const engine = await import('@quiver/engine');
  const store = await engine.openStore(settings.database);
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
  .option('--include-error-stacktrace', 'print where an unexpected failure happened (its stack trace) with its error')
  .addOption(sandboxOption)
  .addOption(sandboxPortsOption)
  .addOption(configOption)
  .addOption(dataDirOption)
  .addOption(toolkitPathOption())
  .action(
    async (
      name: string,
      options: {
        input: string;
        baseUrl?: string;
        token?: string;
        secret: string[];
        includeErrorStacktrace?: boolean;
        sandbox?: boolean;
        sandboxPorts?: string;
        config?: string;
        dataDir?: string;
        toolkitPath?: string[];
      },
    ) => {
      const input = parseInput(options.input);
      const { config, dataDir, toolkitPath, sandboxPorts } = options;
      const settings = await settingsWithToolkits({ config, dataDir, toolkitPath, sandboxPorts });
      const tool = await listedTool(name, settings);
      const overrides = flagConfig(tool.toolkit.name, tool.requirements.oauth2?.provider, options);
      if (tool.toolkit.name === 'CommerceTools') checkDataDir(settings, { required: false });
      const telemetry = await openTelemetry(settings);
      // `fields` as over MCP; the whole result, uncapped, since a terminal takes any size.
      const running = options.sandbox ? await attachedSandbox(settings) : undefined;
      const app = await openApp({ settings, sandbox: options.sandbox && (running ?? true), overrides, serving: { maxResponseTokens: 0 } });
      try {
        const result = await app.dispatcher.call(name, input);
        const printed = 'error' in result && !options.includeErrorStacktrace ? { error: withoutStacktrace(result.error) } : result;
        process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
        process.exitCode = 'error' in result ? 1 : 0;
        // An id another call created or listed is unknown to a sandbox started for this call alone.
        if ('error' in result && result.error.kind === 'UPSTREAM_RUNTIME_NOT_FOUND' && options.sandbox && !running) {
          console.error('quiver: this call started the sandbox afresh, with its demo data only: run `quiver sandbox` to keep state between calls.');
        }
      } finally {
        await app.close();
        // The call's spans are exported before the process ends.
        await telemetry?.shutdown();
      }
    },
  );

const tools = program.command('tools').description('list and inspect tools');

tools
  .command('list')
  .description('list tools, one per line')
  .option('--toolkit <name>', 'only this toolkit')
  .addOption(configOption)
  .addOption(toolkitPathOption())
  .action(async (options: { toolkit?: string } & SettingFlags) => {
    const settings = await settingsWithToolkits(options);
    const selected = options.toolkit ? knownToolkit(options.toolkit, settings).tools : listingTools(settings);
    const width = Math.max(...selected.map((tool) => qualifiedName(tool).length));
    for (const tool of selected) console.log(`${qualifiedName(tool).padEnd(width)}  ${firstSentence(tool.description)}`);
    console.error(`${selected.length} tools`);
  });

tools
  .command('show')
  .description("print one tool's definition")
  .argument('<tool>', 'tool name, e.g. CrmMarketingApi.CreateMarketingCampaign')
  .addOption(new Option('--format <format>', 'output format').choices(formatNames).default('arcade'))
  .addOption(configOption)
  .addOption(toolkitPathOption())
  .action(async (name: string, options: { format: FormatName } & SettingFlags) => {
    const tool = await listedTool(name, await settingsWithToolkits(options));
    console.log(JSON.stringify(formatTool(tool, options.format), null, 2));
  });

tools
  .command('search')
  .description('find tools by what they do, best match first: name, score and first sentence')
  .argument('<query>', 'what you want to do, e.g. "close the issue about the login bug"')
  .option('--limit <n>', 'at most this many tools', '10')
  .option('--toolkit <name>', 'only this toolkit')
  .addOption(configOption)
  .addOption(toolkitPathOption())
  .action(async (query: string, options: { limit: string; toolkit?: string } & SettingFlags) => {
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, got '${options.limit}'`);
    if (!query.trim()) throw new UsageError('the query is empty');
    const settings = await settingsWithToolkits(options);
    if (options.toolkit) knownToolkit(options.toolkit, settings);
    const hits = (await createToolIndex(listingTools(settings))).search(query, { limit, toolkit: options.toolkit });
    const width = Math.max(0, ...hits.map(({ tool }) => qualifiedName(tool).length));
    for (const { tool, score } of hits)
      console.log(`${qualifiedName(tool).padEnd(width)}  ${score.toFixed(2).padStart(6)}  ${firstSentence(tool.description)}`);
    console.error(`${hits.length} tools`);
  });

addServingOptions(tools.command('tokens'), { listingOnly: true })
  .description('tokens (o200k_base) of each tool, each toolkit and the whole tools/list, with every tool and in discovery mode')
  .addOption(
    new Option('--format <format>', 'the format the definitions are sent in').choices(['mcp', 'openai', 'openai-strict', 'anthropic', 'gemini']).default('mcp'),
  )
  .addOption(configOption)
  .addOption(toolkitPathOption())
  .action(async (options: { format: TokenFormat } & ServingFlags & SettingFlags) => {
    const { formatTokenReport, tokenReport } = await import('./tokens.js');
    const serving = servingOptions(options);
    const settings = await settingsWithToolkits(options);
    const unmatched = unmatchedNames(serving, listingToolkits(settings));
    const all = listingTools(settings);
    if (unmatched) throw new UsageError(unmatched);
    console.log(formatTokenReport(await tokenReport(all, new ServingPolicy(serving), options.format)));
  });

const toolkit = program.command('toolkit').description('make toolkits of your own: load them with --toolkit-path (or toolkitPaths)');

toolkit
  .command('init')
  .description('write a toolkit folder to start from: one tool with a handler, its test (node --test) and a README')
  .argument('<name>', 'the toolkit name, PascalCase, e.g. Greeter')
  .option('--out <dir>', 'the folder to write (default: ./<name>)')
  .action(async (name: string, options: { out?: string }) => {
    const { initToolkit } = await import('./toolkit-init.js');
    const { folder, files } = initToolkit({ name, out: options.out, cwd: process.cwd(), engineVersion: program.version() ?? '0.1.0' });
    console.error(`quiver: wrote ${files.join(', ')} in ${folder}`);
    console.error(`quiver: try it: quiver call ${name}.SayHello --input '{"name": "Ada"}' --toolkit-path ${options.out ?? name}`);
  });

toolkit
  .command('import')
  .description('make a toolkit folder from an OpenAPI document (3.0, 3.1 or Swagger 2.0; file or URL; JSON or YAML), and print its report')
  .argument('<document>', 'path or URL of the OpenAPI document')
  .requiredOption('--name <name>', 'the toolkit name, PascalCase, e.g. PetStore')
  .option('--out <dir>', 'the folder to write (default: ./<name>)')
  .option('--force', 'write into a folder that is not empty (files of the same names are replaced)')
  .action(async (document: string, options: { name: string; out?: string; force?: boolean }) => {
    const { importToolkit } = await import('./toolkit-import.js');
    await importToolkit({ document, name: options.name, out: options.out, force: options.force === true, cwd: process.cwd() });
  });

program
  .command('sandbox')
  .description(
    'run the local emulators (and one for each imported toolkit loaded) until stopped; `quiver call --sandbox` uses them meanwhile, so state carries from call to call',
  )
  .addOption(sandboxPortsOption)
  .addOption(configOption)
  .addOption(dataDirOption)
  .addOption(toolkitPathOption())
  .action(async (options: SettingFlags) => {
    const settings = await settingsWithToolkits(options);
    checkDataDir(settings, { required: true });
    const { runSandbox } = await import('./sandbox-command.js');
    await runSandbox(settings);
  });

/** The sandbox a running `quiver sandbox` offers, said on standard error so that nobody wonders where state went. */
async function attachedSandbox(settings: Settings) {
  const running = await runningSandbox(settings.dataDir);
  if (running) console.error(`quiver: using the running sandbox (quiver sandbox, process ${running.pid})`);
  return running;
}

/** A tool (built in, or of a loaded toolkit) by any of its names; a usage error otherwise. */
async function listedTool(name: string, settings: Settings): Promise<Tool> {
  const found = await listingCatalog(settings).resolve(name);
  if (!found || !('tool' in found)) {
    const tools = listingTools(settings);
    const index = await createToolIndex(tools);
    const suggestions = await suggestToolNames(name, tools, { search: (query, options) => index.search(query, options) });
    throw new UsageError(`unknown tool '${name}'.${didYouMean(suggestions)} (see: quiver tools list)`);
  }
  return found.tool;
}

function knownToolkit(name: string, settings: Settings) {
  const toolkit = listedToolkit(name, settings);
  if (!toolkit)
    throw new UsageError(
      `unknown toolkit '${name}'; toolkits: ${listingToolkits(settings)
        .map((t) => t.name)
        .join(', ')}`,
    );
  return toolkit;
}

function portOf(text: string, flag = '--port'): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${flag} must be a port number, got '${text}'`);
  return port;
}

/** The stack (file paths, frames) only on request, as over the HTTP API: the one-line developer message says what failed. */
function withoutStacktrace({ stacktrace: _, ...error }: ToolError): ToolError {
  return error;
}

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
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'no permission to read it' : (error as Error).message;
    throw new UsageError(`cannot read input file ${path}: ${why}`);
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
  exitOnUncaught();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // Exit at once: a server, a database or the sandbox may already be open, and must not keep the process up.
    if (error instanceof CommanderError) {
      // A tool's input given as a second argument is the likeliest extra one: say where it goes.
      if (error.code === 'commander.excessArguments' && argv[2] === 'call')
        console.error("quiver: give the tool's input with --input '<json>' (or --input @file.json)");
      process.exit(error.exitCode === 0 ? 0 : 2);
    }
    console.error(`quiver: ${(error as Error).message}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
}

await main(process.argv);
