/**
 * An `mcp` worker: a remote MCP server (streamable HTTP) as a tool source, through the official SDK
 * client. Its tools are the toolkit named by the worker id (`<worker-id>.<tool>`); a tool name is made
 * provider-safe (letters, digits, `_`, `-`) and mapped back when called. Each listing or call opens its
 * own session and ends it, so no session can go stale in between. Connecting is retried (nothing has
 * run yet); a call never is.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import {
  failed,
  injectTraceContext,
  inSpan,
  toolError,
  type Annotations,
  type JsonSchema,
  type Parameter,
  type Tool,
  type ToolkitInfo,
  type ToolResult,
} from '@quiver/core';
import { serverInfo } from '../mcp/server.js';
import {
  errorKindOf,
  pause,
  transportProblem,
  WorkerUnavailable,
  type WorkerAuthorization,
  type WorkerCheck,
  type WorkerSettings,
  type WorkerSource,
} from './types.js';

export function mcpWorkerSource(worker: WorkerSettings): WorkerSource {
  const timeout = worker.timeout * 1000;
  /** Provider-safe tool name -> the server's name, from the latest listing. */
  const serverNames = new Map<string, string>();

  async function connect(traced: boolean): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    for (let attempt = 0; ; attempt++) {
      const client = new Client({ name: serverInfo.name, version: serverInfo.version });
      // A call's spans on the server join the caller's trace: W3C traceparent on each HTTP request of its session.
      const headers: Record<string, string> = { ...worker.headers };
      if (traced) injectTraceContext(headers);
      const transport = new StreamableHTTPClientTransport(new URL(worker.uri), { requestInit: { headers } });
      try {
        await client.connect(transport, { timeout });
        return { client, transport };
      } catch (error) {
        await client.close().catch(() => undefined);
        const refused = error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
        if (refused || attempt >= worker.retry) throw unavailable(error);
        await pause(attempt);
      }
    }
  }

  async function session<T>(work: (client: Client) => Promise<T>, traced = false): Promise<T> {
    const { client, transport } = await connect(traced);
    try {
      return await work(client);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  }

  async function tools(): Promise<Tool[]> {
    return session(async (client) => {
      const server = client.getServerVersion();
      const toolkit: ToolkitInfo = {
        name: worker.id,
        version: server?.version ?? '0.0.0',
        description: client.getInstructions() ?? `Tools of the MCP server ${server?.name ?? worker.uri}`,
      };
      const listed: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
        listed.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      serverNames.clear();
      return listed.map((tool) => {
        const converted = toolFromMcp(tool, toolkit);
        if (!serverNames.has(converted.name)) serverNames.set(converted.name, tool.name);
        return converted;
      });
    });
  }

  /** One call as an MCP client span, its context sent as OpenTelemetry's MCP conventions say (in `_meta`) and as HTTP headers. */
  async function invoke(tool: Tool, input: unknown): Promise<ToolResult> {
    const name = serverNames.get(tool.name) ?? tool.name;
    const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool', 'quiver.worker.id': worker.id };
    return inSpan(`tools/call ${name}`, { kind: 'CLIENT', attributes }, async (span) => {
      let result: ToolResult;
      try {
        const _meta: Record<string, string> = {};
        injectTraceContext(_meta);
        const args = (input ?? {}) as Record<string, unknown>;
        result = await session(
          async (client) =>
            resultOf((await client.callTool({ name, arguments: args, ...(Object.keys(_meta).length && { _meta }) }, undefined, { timeout })) as CallToolResult),
          true,
        );
      } catch (error) {
        result = errorOf(error);
      }
      if (span && 'error' in result) failed(span, result.error.kind);
      return result;
    });
  }

  async function check(): Promise<WorkerCheck> {
    try {
      return { healthy: true, message: `ok: ${(await tools()).length} tools` };
    } catch (error) {
      return { healthy: false, message: (error as Error).message };
    }
  }

  /** Quiver does not run OAuth for MCP servers: one that asks for it needs a credential in `headers`. */
  async function authorization(): Promise<WorkerAuthorization> {
    try {
      await session(async () => undefined);
      return { status: 'not_required', message: 'the MCP server answers without OAuth' };
    } catch (error) {
      const cause = (error as WorkerUnavailable).cause;
      if (cause instanceof StreamableHTTPError && cause.code === 401) {
        return { status: 'required', message: 'the MCP server asks for OAuth; give the worker an Authorization header (mcp.headers) with a token it accepts' };
      }
      return { status: 'unknown', message: (error as Error).message };
    }
  }

  return { id: worker.id, label: `worker ${worker.id}`, tools, invoke, check, authorization };

  function unavailable(error: unknown): WorkerUnavailable {
    let reason: string;
    if (error instanceof StreamableHTTPError)
      reason = error.code === 401 ? 'the MCP server refused the credentials (401)' : `the MCP server answered ${error.code}`;
    else if (error instanceof McpError) reason = error.code === ErrorCode.RequestTimeout ? 'timed out' : `MCP error ${error.code}`;
    else reason = transportProblem(error).text;
    const failure = new WorkerUnavailable(worker.id, reason, reason === 'timed out');
    failure.cause = error;
    return failure;
  }
}

/** An MCP tool as a core Tool: each input property a parameter, with its own JSON Schema. */
export function toolFromMcp(tool: McpTool, toolkit: ToolkitInfo): Tool {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(tool.inputSchema.required ?? []);
  const parameters: Parameter[] = Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, description: typeof description === 'string' ? description : '', required: required.has(name), schema: rest };
  });
  const hints = tool.annotations ?? {};
  const annotations: Partial<Annotations> = Object.fromEntries(
    (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
      .filter((key) => typeof hints[key] === 'boolean')
      .map((key) => [key, hints[key]]),
  );
  return {
    name: tool.name.replace(/[^A-Za-z0-9_-]/g, '_'),
    description: tool.description ?? tool.title ?? '',
    parameters,
    output: { description: '', ...(tool.outputSchema && { schema: tool.outputSchema as JsonSchema }) },
    requirements: {},
    annotations,
    toolkit,
  };
}

/** Structured content when the server gives it; else the text (parsed when it is JSON); else the content blocks. */
function resultOf(result: CallToolResult): ToolResult {
  const texts = result.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text);
  const allText = texts.length === result.content.length;
  if (result.isError) {
    const meta = (result._meta ?? {}) as { kind?: unknown };
    return toolError(errorKindOf(meta.kind), texts.join('\n') || 'The tool reported an error.');
  }
  if (result.structuredContent !== undefined) return { value: result.structuredContent };
  if (allText && texts.length === 1) {
    try {
      return { value: JSON.parse(texts[0]!) };
    } catch {
      return { value: texts[0] };
    }
  }
  return { value: allText ? texts.join('\n') : result.content };
}

function errorOf(error: unknown): ToolResult {
  if (error instanceof WorkerUnavailable) {
    return toolError(
      error.timedOut ? 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT' : 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE',
      'The MCP server running this tool could not be reached.',
      {
        developer_message: error.message,
      },
    );
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InvalidParams) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', error.message);
    if (error.code === ErrorCode.RequestTimeout) return toolError('NETWORK_TRANSPORT_RUNTIME_TIMEOUT', 'The MCP server did not answer in time.');
    return toolError('TOOL_RUNTIME_FATAL', 'The MCP server failed to run the tool.', { developer_message: error.message });
  }
  return toolError('TOOL_RUNTIME_FATAL', 'The MCP server failed to run the tool.', { developer_message: String((error as Error)?.message ?? error) });
}
