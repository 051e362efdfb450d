import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

type Result = Awaited<ReturnType<Client['callTool']>>;
const texts = (result: Result) => (result.content as Array<{ text: string }>).map((item) => item.text);
const json = (result: Result) => JSON.parse(texts(result)[0]!);

async function connected(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'quiver-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const stdio = (...flags: string[]) =>
  connected(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--sandbox', ...flags], stderr: 'ignore' }));

const createCampaign = (client: Client, name: string, via = 'direct') => {
  const args = { mode: 'execute', request_body: JSON.stringify({ properties: { hs_name: name } }) };
  return via === 'direct'
    ? client.callTool({ name: 'CrmMarketingApi_CreateMarketingCampaign', arguments: args })
    : client.callTool({ name: 'call_tool', arguments: { name: 'CrmMarketingApi.CreateMarketingCampaign', arguments: args } });
};

describe('quiver mcp --discovery, with a tool selection', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdio(
      '--discovery',
      '--toolkits',
      'CrmMarketingApi',
      '--tools',
      'RepoHostApi.GetRepohostRepositoryDetails',
      '--exclude-tools',
      'CrmMarketingApi_DeleteMarketingCampaign',
    );
  });
  afterAll(() => client.close());

  it('lists only the three meta-tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    expect(tools[0]!.description).toContain('among the 90 tools of this server');
  });

  it('searches the offered tools only', async () => {
    const found = json(await client.callTool({ name: 'search_tools', arguments: { query: 'create a marketing campaign', limit: 5 } }));
    expect(found.tools.map((tool: { name: string }) => tool.name)).toContain('CrmMarketingApi_CreateMarketingCampaign');
    expect(found.tools[0]).toEqual({ name: expect.any(String), description: expect.any(String) });
    const repos = json(await client.callTool({ name: 'search_tools', arguments: { query: 'repository details', toolkit: 'RepoHostApi' } }));
    expect(repos.tools.map((tool: { name: string }) => tool.name)).toEqual(['RepoHostApi_GetRepohostRepositoryDetails']);
    const deletes = json(await client.callTool({ name: 'search_tools', arguments: { query: 'delete campaign', toolkit: 'CrmMarketingApi' } }));
    expect(deletes.tools.map((tool: { name: string }) => tool.name)).not.toContain('CrmMarketingApi_DeleteMarketingCampaign');
    const unknown = await client.callTool({ name: 'search_tools', arguments: { query: 'issues', toolkit: 'NoSuch' } });
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)[0]).toContain("unknown toolkit 'NoSuch'");
  });

  it('describes a tool with its schema and annotations, and not an excluded one', async () => {
    const described = json(await client.callTool({ name: 'describe_tool', arguments: { name: 'CrmMarketingApi.GetCampaignDetails' } }));
    expect(described).toMatchObject({
      name: 'CrmMarketingApi_GetCampaignDetails',
      inputSchema: { type: 'object', required: ['campaign_guid'], properties: { campaign_guid: { type: 'string' }, fields: { type: 'array' } } },
      annotations: { readOnlyHint: true },
    });
    const excluded = await client.callTool({ name: 'describe_tool', arguments: { name: 'CrmMarketingApi_DeleteMarketingCampaign' } });
    expect(excluded.isError).toBe(true);
    expect(texts(excluded)[0]).toContain('Unknown tool');
    const bare = await client.callTool({ name: 'describe_tool', arguments: { name: 'GetCampaignDetail' } });
    expect(texts(bare)[0]).toContain('Did you mean CrmMarketingApi_GetCampaignDetails');
    // Spelt like no tool, but its words are those of one; a tool call by that name is told the same.
    const worded = await client.callTool({ name: 'describe_tool', arguments: { name: 'CrmMarketingApi_ReadCampaign' } });
    expect(texts(worded)[0]).toMatch(/Did you mean .*CrmMarketingApi_GetCampaignDetails/);
    const called = await client.callTool({ name: 'call_tool', arguments: { name: 'CrmMarketingApi_ReadCampaign', arguments: {} } });
    // Spelt as the name it was given, which is as the tools are listed: the client can call it.
    expect(texts(called)[0]).toMatch(/Did you mean .*CrmMarketingApi_GetCampaignDetails/);
  });

  it('calls a tool by name with the usual validation, and refuses one left out', async () => {
    const created = json(await createCampaign(client, 'Discovered', 'meta'));
    const fetched = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: created.id } },
    });
    expect(json(fetched).properties.hs_name).toBe('Discovered');
    const invalid = await client.callTool({ name: 'call_tool', arguments: { name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: 42 } } });
    expect(invalid._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    for (const name of ['CrmMarketingApi_DeleteMarketingCampaign', 'RepoHostApi.ListPublicRepohostRepositories']) {
      const viaMeta = await client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } });
      const direct = await client.callTool({ name, arguments: {} });
      for (const refused of [viaMeta, direct]) {
        expect(refused._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
        expect(texts(refused)[0]).toContain('not offered by this server');
      }
    }
  });
});

describe('quiver mcp --read-only', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdio('--read-only', '--toolkits', 'CrmMarketingApi');
  });
  afterAll(() => client.close());

  it('lists only tools that read', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('refuses a tool that writes at dispatch, whatever the listing', async () => {
    const refused = await createCampaign(client, 'Nope');
    expect(refused.isError).toBe(true);
    expect(refused._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
    expect(texts(refused)[0]).toContain('this server is read-only');
    expect((await client.callTool({ name: 'CrmMarketingApi_GetMarketingCampaigns', arguments: {} })).isError).toBeFalsy();
  });
});

describe('quiver mcp --confirm-destructive --max-response-tokens', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdio('--confirm-destructive', '--max-response-tokens', '1000');
  });
  afterAll(() => client.close());

  it('lists confirm on destructive tools and runs them only with confirm: true', async () => {
    const { tools } = await client.listTools();
    const remove = tools.find((tool) => tool.name === 'CrmMarketingApi_DeleteMarketingCampaign')!;
    expect(remove.inputSchema).toMatchObject({ properties: { confirm: { type: 'boolean' } }, required: ['campaign_guid', 'confirm'] });
    expect(tools.find((tool) => tool.name === 'CrmMarketingApi_GetCampaignDetails')!.inputSchema.properties).not.toHaveProperty('confirm');

    const { id } = json(await createCampaign(client, 'Doomed'));
    const refused = await client.callTool({ name: 'CrmMarketingApi_DeleteMarketingCampaign', arguments: { campaign_guid: id } });
    expect(refused._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(texts(refused)[0]).toContain('Ask the user to confirm');
    expect((await client.callTool({ name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: id } })).isError).toBeFalsy();

    const deleted = await client.callTool({ name: 'CrmMarketingApi_DeleteMarketingCampaign', arguments: { campaign_guid: id, confirm: true } });
    expect(deleted.isError).toBeFalsy();
    const gone = await client.callTool({ name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: id } });
    expect(gone._meta).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });

  it('cuts a result over the budget with a note naming the paging parameters, and selects fields', async () => {
    for (let i = 0; i < 16; i++) await createCampaign(client, `Campaign number ${i} with a name long enough to fill the budget`);
    const listed = await client.callTool({ name: 'CrmMarketingApi_GetMarketingCampaigns', arguments: {} });
    const [data, note] = texts(listed);
    const page = JSON.parse(data!);
    expect(page.results.length).toBeGreaterThan(0);
    // The same JSON as structured content, for clients that read it.
    expect(listed.structuredContent).toEqual(page);
    expect(note).toMatch(/^\[Result cut: .* Showing the first \d+ of \d+ items of "results"/);
    // HubSpot's cursor cannot start inside a page: the note asks for fewer results, to page on from there.
    const [, shown, of] = /Showing the first (\d+) of (\d+) items/.exec(note!)!;
    expect(note).toContain(
      `To get the ${Number(of) - Number(shown)} items cut here, call this tool again with the same arguments and max_results_limit: ${shown}, then follow that answer's next page.`,
    );
    expect(note).toContain('"fields"');

    const selected = await client.callTool({ name: 'CrmMarketingApi_GetMarketingCampaigns', arguments: { fields: ['results.id'] } });
    expect(texts(selected)).toHaveLength(1);
    const ids = json(selected);
    // The paging keys stay, whatever the selection.
    expect(Object.keys(ids)).toEqual(['results', 'total']);
    expect(ids.results.length).toBeGreaterThanOrEqual(16);
    expect(ids.results.every((item: object) => Object.keys(item).join() === 'id')).toBe(true);
  });
});

/** A client that declared form elicitation, answering with whatever `answer` holds, of either era. */
const confirmingClients = {
  '2025-11-25': async (argv: string[], answer: (message: string) => ElicitResult) => {
    const client = new Client({ name: 'quiver-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params.message));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: argv, stderr: 'ignore' }));
    return client;
  },
  '2026-07-28': async (argv: string[], answer: (message: string) => ElicitResult) => {
    // No elicitation requests in this era: the call answers input_required, and the client calls again with the answer.
    const client = new ModernClient(
      { name: 'quiver-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => answer((request.params as { message: string }).message));
    await client.connect(new ModernStdioTransport({ command: process.execPath, args: argv, stderr: 'ignore' }));
    return client as unknown as Client;
  },
};

describe.each(Object.entries(confirmingClients))('quiver mcp --confirm-destructive, with a %s client that declared form elicitation', (_era, open) => {
  let client: Client;
  /** The person's next answer, and what they were asked. */
  let answer: ElicitResult = { action: 'decline' };
  const asked: string[] = [];
  beforeAll(async () => {
    client = await open([cliPath, 'mcp', '--sandbox', '--confirm-destructive'], (message) => {
      asked.push(message);
      return answer;
    });
  });
  afterAll(() => client?.close());

  it('asks the person instead of refusing, and deletes only when they accept', async () => {
    const { id } = json(await createCampaign(client, 'Asked about'));
    const declined = await client.callTool({ name: 'CrmMarketingApi_DeleteMarketingCampaign', arguments: { campaign_guid: id } });
    expect(declined._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(texts(declined)[0]).toContain('the user declined it');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('CrmMarketingApi.DeleteMarketingCampaign');
    expect(asked[0]).toContain(id);
    expect((await client.callTool({ name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: id } })).isError).toBeFalsy();

    answer = { action: 'accept', content: { confirm: true } };
    const deleted = await client.callTool({ name: 'CrmMarketingApi_DeleteMarketingCampaign', arguments: { campaign_guid: id } });
    expect(deleted.isError).toBeFalsy();
    expect(asked).toHaveLength(2);
    const gone = await client.callTool({ name: 'CrmMarketingApi_GetCampaignDetails', arguments: { campaign_guid: id } });
    expect(gone._meta).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });
});

describe('the engine MCP endpoint and execute route with serving flags', () => {
  let server: ChildProcess | undefined;
  let base = '';
  let apiKey = '';
  beforeAll(async () => {
    const env = { ...process.env, QUIVER_DATA_DIR: mkdtempSync(join(tmpdir(), 'quiver-discovery-')) };
    apiKey = (await runCli(['keys', 'create', '--name', 'discovery-test'], env)).stdout.trim();
    const flags = ['--read-only', '--toolkits', 'CrmMarketingApi', '--tools', 'RepoHostApi.GetRepohostRepositoryDetails', '--max-response-tokens', '300'];
    server = spawn(process.execPath, [cliPath, 'serve', '--sandbox', '--port', '0', ...flags], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const lines = createInterface({ input: server.stderr! });
    const line = await new Promise<string>((resolve) => lines.on('line', (text) => text.includes('/v1/mcp') && resolve(text)));
    base = /API (http:\/\/\S+)\/v1/.exec(line)![1]!;
  });
  afterAll(() => {
    server?.kill();
  });

  const mcp = (query = '') =>
    connected(
      new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp${query}`), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}`, 'quiver-user-id': 'u1' } },
      }),
    );

  const execute = async (tool_name: string, input: object) => {
    const response = await fetch(`${base}/v1/tools/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool_name, input, user_id: 'u1' }),
    });
    return (await response.json()) as {
      success: boolean;
      output: { value?: unknown; error?: { kind: string; message: string }; logs?: Array<{ message: string }> };
    };
  };

  it('lists the meta-tools with ?discovery=true and the selected read-only tools without', async () => {
    const discovery = await mcp('?discovery=true');
    expect((await discovery.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    const found = json(await discovery.callTool({ name: 'search_tools', arguments: { query: 'list campaigns' } }));
    expect(found.tools.map((tool: { name: string }) => tool.name)).toContain('CrmMarketingApi_GetMarketingCampaigns');
    const refused = await discovery.callTool({ name: 'call_tool', arguments: { name: 'CrmMarketingApi_CreateMarketingCampaign', arguments: {} } });
    expect(refused._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(texts(refused)[0]).toContain('this server is read-only');
    await discovery.close();

    const full = await mcp();
    const { tools } = await full.listTools();
    expect(tools.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
    expect(tools.filter((tool) => !tool.name.startsWith('CrmMarketingApi_')).map((tool) => tool.name)).toEqual(['RepoHostApi_GetRepohostRepositoryDetails']);
    await full.close();
  });

  it('refuses at the execute route too, and caps its results with a log note', async () => {
    const refused = await execute('CrmMarketingApi.CreateMarketingCampaign', { mode: 'execute', request_body: '{}' });
    expect(refused).toMatchObject({ success: false, output: { error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } } });
    expect(refused.output.error!.message).toContain('read-only');
    const elsewhere = await execute('RepoHostApi.ListPublicRepohostRepositories', {});
    expect(elsewhere.output.error!.message).toContain('not offered by this server');

    const repository = { repository_owner: 'octocat', repository_name: 'hello-world' };
    const cut = await execute('RepoHostApi.GetRepohostRepositoryDetails', repository);
    expect(cut.success).toBe(true);
    // Still whole JSON: the repository's leading plain fields, its nested objects named in the note.
    expect(cut.output.value).toMatchObject({ full_name: 'octocat/hello-world' });
    expect(cut.output.value).not.toHaveProperty('owner');
    expect(cut.output.logs![0]!.message).toMatch(
      /^\[Result cut: .*Showing only the first \d+ of its \d+ plain fields.* Left out, as too large: owner.*pass "fields"/,
    );
    const selected = await execute('RepoHostApi.GetRepohostRepositoryDetails', { ...repository, fields: ['full_name', 'owner.login'] });
    expect(selected.output).toEqual({ value: { full_name: 'octocat/hello-world', owner: { login: 'octocat' } } });
  });
});

describe('quiver tools tokens', () => {
  it('reports tokens per tool, per toolkit and for the whole tools/list, all and in discovery mode', async () => {
    const { code, stdout } = await runCli(['tools', 'tokens', '--toolkits', 'CrmMarketingApi']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^CrmMarketingApi\.GetMarketingCampaigns +\d[\d,]*$/m);
    expect(stdout).toMatch(/^CrmMarketingApi +90 +\d[\d,]*$/m);
    const all = Number(/tools\/list, every tool \(90\): ([\d,]+) tokens/.exec(stdout)![1]!.replace(/,/g, ''));
    const discovery = Number(/tools\/list, discovery mode \(3 meta-tools\): ([\d,]+) tokens/.exec(stdout)![1]!.replace(/,/g, ''));
    expect(all).toBeGreaterThan(10_000);
    expect(discovery).toBeLessThan(2_000);
    const openai = await runCli(['tools', 'tokens', '--format', 'openai', '--read-only', '--toolkits', 'CrmMarketingApi']);
    expect(openai.stdout).toMatch(/openai tools array, every tool \(\d+\)/);
    const unknown = await runCli(['tools', 'tokens', '--toolkits', 'Nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no toolkit named 'Nope' (--toolkits); the toolkits are CommerceTools, CrmMarketingApi,");
  });
});
