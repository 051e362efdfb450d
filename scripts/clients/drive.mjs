#!/usr/bin/env node
/**
 * Drives one third-party MCP client library against a Quiver MCP server through the library's own API, with
 * no language model: it lists the tools as the library's own tool objects, reads one tool's input schema as
 * the library holds it, and runs three calls through the library's execute/invoke path (a tool that answers,
 * a bad argument type, a campaign that does not exist). It prints one JSON object with what the library gave
 * back; the clients test (packages/engine/test/clients.test.ts) runs it and checks that.
 *
 *   node scripts/clients/drive.mjs <client> --url <endpoint> [--header 'Name: value']...
 *   node scripts/clients/drive.mjs <client> --stdio <command> [args...]
 *
 * <client>: ai-sdk (@ai-sdk/mcp 2.x, needs Node 22), ai-sdk-1 (@ai-sdk/mcp 1.x), langchain
 * (@langchain/mcp-adapters), openai-agents (@openai/agents 0.20, needs Node 22), openai-agents-0.14.
 * The libraries are installed in this folder (npm ci here).
 */
import { readFileSync } from 'node:fs';

const KNOWN = 'CrmMarketingApi_GetCampaignDetails';
const CALLS = {
  products: ['CommerceTools_GetAvailableProducts', {}],
  badType: [KNOWN, { campaign_guid: 42 }],
  notFound: [KNOWN, { campaign_guid: '00000000-0000-4000-8000-000000000000' }],
};

function parseArgs(argv) {
  const [client, ...rest] = argv;
  const target = { headers: {} };
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--url') target.url = rest[++i];
    else if (rest[i] === '--header') {
      const [name, ...value] = rest[++i].split(':');
      target.headers[name.trim()] = value.join(':').trim();
    } else if (rest[i] === '--stdio') {
      [target.command, ...target.args] = rest.slice(i + 1);
      break;
    } else throw new Error(`unknown argument ${rest[i]}`);
  }
  if (!client || (!target.url && !target.command))
    throw new Error('usage: drive.mjs <client> (--url <endpoint> [--header "Name: value"]... | --stdio <command> [args...])');
  return { client, target };
}

/** The name and version of an installed package (an alias folder names the package it holds). */
function installed(folder) {
  const manifest = JSON.parse(readFileSync(new URL(`./node_modules/${folder}/package.json`, import.meta.url), 'utf8'));
  return `${manifest.name}@${manifest.version}`;
}

const textOf = (content) =>
  (Array.isArray(content) ? content : [content]).map((block) => (typeof block === 'string' ? block : block?.type === 'text' ? block.text : '')).join('\n');

/** What a call gave back, the same for every library: its text, and the error flag and kind where it kept them. */
async function outcome(call) {
  try {
    const result = await call();
    if (typeof result === 'string') return { text: result };
    const content = result?.content ?? result;
    return { text: textOf(content), isError: result?.isError, kind: result?._meta?.kind ?? result?.meta?.kind };
  } catch (error) {
    return { threw: { name: error?.constructor?.name ?? 'Error', message: String(error?.message ?? error) } };
  }
}

/** Each library: connect, its tool objects as { name, description, schema, run(args) }, and close. */
const clients = {
  async 'ai-sdk'(target) {
    return aiSdk(target, '@ai-sdk/mcp');
  },
  async 'ai-sdk-1'(target) {
    return aiSdk(target, 'ai-sdk-mcp-1');
  },
  async langchain(target) {
    const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
    const server = target.url
      ? { transport: 'http', url: target.url, headers: target.headers }
      : { transport: 'stdio', command: target.command, args: target.args, stderr: 'ignore' };
    const client = new MultiServerMCPClient({ mcpServers: { quiver: server }, throwOnLoadError: true });
    const tools = await client.getTools();
    return {
      package: installed('@langchain/mcp-adapters'),
      tools: tools.map((tool) => ({ name: tool.name, description: tool.description, schema: tool.schema, run: (args) => tool.invoke(args) })),
      close: () => client.close(),
    };
  },
  async 'openai-agents'(target) {
    return openaiAgents(target, '@openai/agents');
  },
  async 'openai-agents-0.14'(target) {
    return openaiAgents(target, 'openai-agents-0.14');
  },
};

async function aiSdk(target, folder) {
  const { createMCPClient } = await import(folder);
  const stdio = await import(`${folder}/mcp-stdio`);
  // 1.x names it Experimental_StdioMCPTransport.
  const StdioMCPTransport = stdio.StdioMCPTransport ?? stdio.Experimental_StdioMCPTransport;
  const transport = target.url
    ? { type: 'http', url: target.url, headers: target.headers }
    : new StdioMCPTransport({ command: target.command, args: target.args, stderr: 'ignore' });
  const client = await createMCPClient({ transport, clientName: 'quiver-clients-test' });
  const tools = await client.tools();
  return {
    package: installed(folder),
    // The 2.x client says which revision it negotiated; 1.x speaks the 2025 revisions only and does not.
    negotiated: client.protocolVersion,
    tools: Object.entries(tools).map(([name, tool]) => ({
      name,
      description: tool.description,
      schema: tool.inputSchema.jsonSchema,
      run: (args) => tool.execute(args, { toolCallId: 'quiver-clients-test', messages: [] }),
    })),
    close: () => client.close(),
  };
}

async function openaiAgents(target, folder) {
  const { MCPServerStreamableHttp, MCPServerStdio, getAllMcpTools, RunContext } = await import(folder);
  // Its requests time out after 5 s by default (clientSessionTimeoutSeconds), the connection's first one
  // included: less than `quiver mcp --sandbox` may take to start on a busy machine.
  const options = { name: 'quiver', clientSessionTimeoutSeconds: 60 };
  const server = target.url
    ? new MCPServerStreamableHttp({ ...options, url: target.url, requestInit: { headers: target.headers } })
    : new MCPServerStdio({ ...options, command: target.command, args: target.args });
  await server.connect();
  const tools = await getAllMcpTools({ mcpServers: [server] });
  // What an agent gets with strict schemas (OpenAI's structured outputs): the tools that convert, and those left non-strict.
  const strict = await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true });
  const context = new RunContext();
  return {
    package: installed(folder),
    strict: strict.filter((tool) => tool.strict).length,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      schema: tool.parameters,
      run: (args) => tool.invoke(context, JSON.stringify(args)),
    })),
    close: () => server.close(),
  };
}

const { client: name, target } = parseArgs(process.argv.slice(2));
const open = clients[name];
if (!open) throw new Error(`unknown client ${name}; one of ${Object.keys(clients).join(', ')}`);
const client = await open(target);
try {
  const known = client.tools.find((tool) => tool.name === KNOWN);
  const byName = new Map(client.tools.map((tool) => [tool.name, tool]));
  const calls = {};
  for (const [label, [tool, args]] of Object.entries(CALLS)) calls[label] = await outcome(() => byName.get(tool).run(structuredClone(args)));
  const report = {
    client: name,
    package: client.package,
    node: process.version,
    transport: target.url ? 'streamable HTTP' : 'stdio',
    negotiated: client.negotiated,
    count: client.tools.length,
    known: known && { name: known.name, description: known.description, schema: known.schema },
    strict: client.strict,
    calls,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await client.close();
}
// Some libraries keep a socket or a timer after close; what they had to say is out.
process.exit(0);
