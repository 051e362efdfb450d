import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolkits } from '@quiver/toolkits';
import { ServingPolicy, type ServingOptions } from '@quiver/core';

/** What the suite asks of a client, of either SDK and either era. */
type McpClient = Pick<Client, 'listTools' | 'callTool' | 'close'>;

/** A 2025 client (SDK 1.x, `initialize`) over the given transport. */
const legacyClient = (connect: () => Promise<Transport>) => async () => {
  const client = new Client({ name: 'quiver-test', version: '1.0.0' });
  await client.connect(await connect());
  return client;
};

/** The same checks over both transports and both eras, with the official SDK clients against `--sandbox`. */
function mcpSuite(name: string, open: () => Promise<McpClient>) {
  describe(`MCP over ${name}`, () => {
    let client: McpClient;
    beforeAll(async () => {
      client = await open();
    });
    afterAll(() => client?.close());

    it('lists every tool with its schema and annotations', async () => {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(toolkits.reduce((n, toolkit) => n + toolkit.tools.length, 0));
      const remove = tools.find((tool) => tool.name === 'CrmMarketingApi_DeleteMarketingCampaign');
      expect(remove).toMatchObject({
        inputSchema: { type: 'object', required: ['campaign_guid'] },
        annotations: { destructiveHint: true, idempotentHint: true },
      });
      expect(remove!.annotations).not.toHaveProperty('readOnlyHint');
      const read = tools.find((tool) => tool.name === 'CrmMarketingApi_GetMarketingCampaigns');
      expect(read?.annotations).toEqual({ readOnlyHint: true });
    });

    it('calls a tool and returns its JSON', async () => {
      const created = await client.callTool({
        name: 'CrmMarketingApi_CreateMarketingCampaign',
        arguments: { mode: 'execute', request_body: JSON.stringify({ properties: { hs_name: `Over ${name}` } }) },
      });
      expect(created.isError).toBeFalsy();
      const campaign = JSON.parse((created.content as Array<{ text: string }>)[0]!.text);
      const fetched = await client.callTool({ name: 'CrmMarketingApi.GetCampaignDetails', arguments: { campaign_guid: campaign.id } });
      expect(JSON.parse((fetched.content as Array<{ text: string }>)[0]!.text).properties.hs_name).toBe(`Over ${name}`);
    });

    it('returns a tool error as isError with its kind', async () => {
      const result = await client.callTool({ name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: 42 } });
      expect(result.isError).toBe(true);
      expect(result._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
      expect((result.content as Array<{ text: string }>)[0]!.text).toContain("parameter 'campaign_guid' must be a string");
    });

    it('returns an upstream error with its kind and the retry advice for mode-driven tools', async () => {
      const missing = await client.callTool({
        name: 'CrmMarketingApi_GetCampaignDetails',
        arguments: { campaign_guid: '00000000-0000-4000-8000-000000000000' },
      });
      expect(missing._meta).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', status_code: 404 });
      const retry = await client.callTool({ name: 'CrmMarketingApi_CreateMarketingCampaign', arguments: { mode: 'execute', request_body: '{}' } });
      expect(retry._meta).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', can_retry: true });
      expect((retry.content as Array<{ text: string }>)[0]!.text).toContain('Request body schema');
    });
  });
}

const stdio = { command: process.execPath, args: [cliPath, 'mcp', '--sandbox'], stderr: 'ignore' as const };
mcpSuite(
  'stdio',
  legacyClient(async () => new StdioClientTransport(stdio)),
);
// The 2026-07-28 revision over the same pipe: no initialize, each request with its own _meta.
mcpSuite('stdio, 2026-07-28', async () => {
  const client = new ModernClient({ name: 'quiver-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new ModernStdioTransport(stdio));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  const { tools } = await client.listTools();
  expect(tools[0]!.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  return client as unknown as McpClient;
});

let server: ChildProcess | undefined;
const serverLog: string[] = [];
let apiKey = '';
afterAll(() => {
  server?.kill();
});
mcpSuite(
  'streamable HTTP',
  legacyClient(async () => {
    const env = { ...process.env, QUIVER_DATA_DIR: mkdtempSync(join(tmpdir(), 'quiver-engine-')) };
    apiKey = (await runCli(['keys', 'create', '--name', 'mcp-test'], env)).stdout.trim();
    server = spawn(process.execPath, [cliPath, 'serve', '--sandbox', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const lines = createInterface({ input: server.stderr! });
    lines.on('line', (text) => serverLog.push(text));
    const line = await new Promise<string>((resolve) => lines.on('line', (text) => text.includes('/v1/mcp') && resolve(text)));
    const url = /MCP (http:\/\/\S+\/v1\/mcp)/.exec(line)![1]!;
    return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${apiKey}`, 'quiver-user-id': 'mcp-user' } } });
  }),
);

describe('the tool listing over stdio', () => {
  const initialize = { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const initialized = { method: 'notifications/initialized' };

  /**
   * `tools/list` as a client gets it from `quiver mcp` with these flags, as the line it reads: a 2025 client, or with
   * `meta` a 2026-07-28 one (no initialize; the request's own _meta).
   */
  async function listed(flags: string[], meta?: object) {
    const child = spawn(process.execPath, [cliPath, 'mcp', '--sandbox', ...flags], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const ask = async (message: object) => {
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      return JSON.parse((await lines.next()).value as string);
    };
    try {
      if (meta) return await ask({ id: 2, method: 'tools/list', params: { _meta: meta } });
      await ask(initialize);
      return await ask({ id: 2, method: 'tools/list', params: {} });
    } finally {
      child.kill();
    }
  }
  /** `quiver mcp <args>` sent these lines (a message, or raw text) and its input closed at once: its exit status and its answers. */
  async function closedAtOnce(args: string[], lines: Array<object | string>): Promise<{ code: number | null; answers: any[] }> {
    const child = spawn(process.execPath, [cliPath, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
    const output: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (const line of lines) child.stdin!.write(`${typeof line === 'string' ? line : JSON.stringify({ jsonrpc: '2.0', ...line })}\n`);
    child.stdin!.end();
    const code = await exited;
    const answers = Buffer.concat(output)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    return { code, answers };
  }

  it('reaches a client that closes its end right after asking, whole', async () => {
    const { code, answers } = await closedAtOnce(['--sandbox'], [initialize, initialized, { id: 2, method: 'tools/list', params: {} }]);
    expect(code).toBe(0);
    expect(answers).toHaveLength(2);
    expect(answers[1].result.tools).toHaveLength(toolkits.flatMap((toolkit) => toolkit.tools).length);
  });

  // Calls still running when standard input ends: a misspelt name (its suggestions build the search index) and a
  // call to a sandbox emulator, in both revisions.
  it.each([
    ['2025', true],
    ['2026-07-28', false],
  ])('answers, for a %s client, the calls it was sent before it closed its end at once', async (_revision, handshake) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const params = (name: string) => ({ name, arguments: {}, ...(!handshake && { _meta: meta }) });
    const { code, answers: answered } = await closedAtOnce(
      ['--sandbox'],
      [
        ...(handshake ? [initialize, initialized] : []),
        { id: 2, method: 'tools/call', params: params('CrmMarketingApi_GetMarketingCampaign') },
        { id: 3, method: 'tools/call', params: params('CrmMarketingApi_GetMarketingCampaigns') },
      ],
    );
    expect(code).toBe(0);
    const answers = new Map(answered.map((answer) => [answer.id, answer.result]));
    // Named as the client was listed the tools, so that it can call the suggestion.
    expect(answers.get(2).content[0].text).toContain('Did you mean CrmMarketingApi_GetMarketingCampaigns');
    expect(answers.get(3).isError).toBeFalsy();
    expect(JSON.parse(answers.get(3).content[0].text)).toMatchObject({ results: expect.any(Array) });
  });

  it('answers a line of JSON that is no JSON-RPC message with Invalid Request, and goes on', async () => {
    const { code, answers } = await closedAtOnce([], ['{"method":"tools/list"}', initialize]);
    expect(code).toBe(0);
    const [refused, answered] = answers;
    expect(refused).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('not a JSON-RPC 2.0 message') } });
    expect(answered).toMatchObject({ id: 1, result: { serverInfo: { name: 'quiver' } } });
  });

  // Ids must not be reused while a request is in flight; a client that does so anyway gets both answers all the same.
  it('answers both of two calls sent with one id before the client closed its end', async () => {
    const { code, answers: answered } = await closedAtOnce(
      ['--sandbox'],
      [
        initialize,
        initialized,
        { id: 2, method: 'tools/call', params: { name: 'CrmMarketingApi_GetMarketingCampaigns', arguments: {} } },
        { id: 2, method: 'tools/call', params: { name: 'CrmMarketingApi_GetMarketingCampaign', arguments: {} } },
      ],
    );
    expect(code).toBe(0);
    const answers = answered.filter((answer) => answer.id === 2).map((answer) => answer.result.content[0].text as string);
    expect(answers).toHaveLength(2);
    expect(answers.some((text) => text.includes('Did you mean CrmMarketingApi_GetMarketingCampaigns'))).toBe(true);
    expect(answers.some((text) => text.startsWith('{') && 'results' in JSON.parse(text))).toBe(true);
  });

  const built = (options: ServingOptions, toolkitNames?: string[]) =>
    toolkits
      .filter((toolkit) => !toolkitNames || toolkitNames.includes(toolkit.name))
      .flatMap((toolkit) => toolkit.tools.map((tool) => new ServingPolicy(options).toMcpTool(tool)));

  // Sent from the definitions the build wrote where the flags leave them as built, and built now where not.
  it.each([
    ['every tool', [], {}, undefined],
    ['the tools of two toolkits', ['--toolkits', 'Design,FileStore'], {}, ['Design', 'FileStore']],
    ['every tool with confirm on destructive ones', ['--confirm-destructive'], { confirmDestructive: true }, undefined],
  ])('is, for %s, what the serving policy builds', async (_name, flags, options, toolkitNames) => {
    const answer = await listed(flags);
    expect(Object.keys(answer).sort()).toEqual(['id', 'jsonrpc', 'result']);
    expect(answer.result.tools).toEqual(JSON.parse(JSON.stringify(built(options, toolkitNames))));
  });

  // The definitions the build wrote, changed as text: the dialect first in each input schema, and run_at last
  // among its properties for a client that can hold a task.
  it.each([
    ['without', {}],
    ['with', { extensions: { 'io.modelcontextprotocol/tasks': {} } }],
  ])('is, for a 2026-07-28 client %s tasks, what the serving policy builds in that revision', async (_name, capabilities) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    };
    const tasks = 'extensions' in capabilities;
    const { result } = await listed([], meta);
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 60000 });
    const expected = built({}).map((tool) => ({ ...tool, inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...tool.inputSchema } }));
    const runAt = result.tools.map((tool: { inputSchema: { properties: Record<string, unknown> } }) => {
      const { run_at, ...properties } = tool.inputSchema.properties;
      expect(Object.keys(tool.inputSchema)[0]).toBe('$schema');
      expect(Object.keys(tool.inputSchema.properties).at(-1) === 'run_at').toBe(tasks);
      tool.inputSchema.properties = properties;
      return run_at;
    });
    expect(result.tools).toEqual(JSON.parse(JSON.stringify(expected)));
    // The same run_at on every tool, or none.
    expect(new Set(runAt.map((schema: unknown) => JSON.stringify(schema))).size).toBe(1);
    if (tasks) expect(runAt[0]).toMatchObject({ type: 'string', description: expect.stringContaining('RFC 3339') });
    else expect(runAt[0]).toBeUndefined();
  });
});

describe('quiver serve log', () => {
  it('has one line per tool call with its outcome, and no credentials', () => {
    const records = serverLog.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const calls = records.filter((record) => record.msg === 'tool executed');
    expect(calls).toContainEqual(expect.objectContaining({ tool: 'CrmMarketingApi.CreateMarketingCampaign', user_id: 'mcp-user', success: true }));
    expect(calls).toContainEqual(expect.objectContaining({ tool: 'CrmMarketingApi.GetCampaignDetails', success: false, kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' }));
    const text = serverLog.join('\n');
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain('quiver-sandbox-token');
  });

  it('refuses the MCP endpoint without an API key', async () => {
    const url = /MCP (http:\/\/\S+\/v1\/mcp)/.exec(serverLog.find((line) => line.includes('/v1/mcp'))!)![1]!;
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ name: 'unauthorized' });
  });
});

describe('tasks over stdio (2026-07-28), held by the quiver mcp process', () => {
  it('runs a run_at call in this process, says it is lost if the process stops, and answers for it once done', async () => {
    const child = spawn(process.execPath, [cliPath, 'mcp', '--sandbox'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const answers = new Map<number, (message: any) => void>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line);
      answers.get(message.id)?.(message);
    });
    let id = 0;
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    const request = (method: string, params: object) =>
      new Promise<any>((resolve) => {
        answers.set(++id, resolve);
        child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })}\n`);
      });
    try {
      // Started and answering first, so that the time given is still to come when the call arrives.
      expect((await request('tools/list', {})).result.tools.length).toBeGreaterThan(1000);
      const runAt = new Date(Date.now() + 1_500).toISOString();
      const created = (await request('tools/call', { name: 'CommerceTools_GetDiscountCodes', arguments: { run_at: runAt } })).result;
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      expect(created.statusMessage).toContain('lost if the process stops');
      for (;;) {
        const task = (await request('tasks/get', { taskId: created.taskId })).result;
        if (task.status !== 'working') {
          expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text' }] } });
          expect(task.result.isError).toBeFalsy();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      child.kill();
    }
  });
});
