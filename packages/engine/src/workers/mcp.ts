/**
 * An `mcp` worker: a remote MCP server (streamable HTTP) as a tool source, through the official SDK
 * client. Its tools are the toolkit named by the worker id (`<worker-id>.<tool>`); a tool name is made
 * provider-safe (letters, digits, `_`, `-`) and mapped back when called. Each listing or call opens its
 * own session and ends it, so no session can go stale in between. Connecting is retried (nothing has
 * run yet); a call never is.
 *
 * The server may speak either era of the protocol: each connect first asks `server/discover` (the
 * stateless 2026-07-28 revision, each request then carrying its version and client in `_meta`) and falls
 * back to `initialize` (the 2025 revisions) when the server shows no sign of the newer one. A 2025 server
 * therefore sees one request more per session than it used to: the probe, which it refuses.
 */
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Tool as McpTool,
} from '#mcp-client';
import {
  backoffMs,
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
import { serverInfo } from '../mcp/mcp-server.js';
import { errorKindOf, WorkerUnavailable, type WorkerAuthorization, type WorkerCheck, type WorkerSettings, type WorkerSource } from './types.js';

/** The first wait before connecting again; it doubles with each attempt, up to the longest. */
const retryBaseDelayMs = 100;
const retryMaxDelayMs = 2_000;

export function mcpWorkerSource(worker: WorkerSettings): WorkerSource {
  const timeout = worker.timeout * 1000;
  /** Provider-safe tool name -> the server's definition of the tool, from the latest listing. */
  const definitions = new Map<string, McpTool>();

  async function connect(traced: boolean): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    for (let attempt = 0; ; attempt++) {
      // `auto`: `server/discover` first, `initialize` when the server answers it as a 2025 server would.
      const client = new Client({ name: serverInfo.name, version: serverInfo.version }, { versionNegotiation: { mode: 'auto' } });
      // A call's spans on the server join the caller's trace: W3C traceparent on each HTTP request of its session.
      const headers: Record<string, string> = { ...worker.headers };
      if (traced) injectTraceContext(headers);
      const transport = new StreamableHTTPClientTransport(new URL(worker.uri), { requestInit: { headers } });
      try {
        // The timeout bounds the probe as well as the handshake.
        await client.connect(transport, { timeout });
        return { client, transport };
      } catch (error) {
        await client.close().catch(() => undefined);
        const refused = error instanceof SdkHttpError && error.status >= 400 && error.status < 500;
        if (refused || attempt >= worker.retry) throw unavailable(error);
        await new Promise((resolve) => setTimeout(resolve, Math.min(retryMaxDelayMs, backoffMs(attempt, retryBaseDelayMs))));
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
      // Without a cursor the SDK walks every page (up to its cap of 64) and answers them as one.
      const { tools: listed } = await client.listTools(undefined, { timeout });
      definitions.clear();
      return listed.map((tool) => {
        const converted = toolFromMcp(tool, toolkit);
        if (!definitions.has(converted.name)) definitions.set(converted.name, tool);
        return converted;
      });
    });
  }

  /** One call as an MCP client span, its context sent as OpenTelemetry's MCP conventions say (in `_meta`) and as HTTP headers. */
  async function invoke(tool: Tool, input: unknown): Promise<ToolResult> {
    const definition = callable(definitions.get(tool.name) ?? { name: tool.name, inputSchema: { type: 'object' } });
    const name = definition.name;
    const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool', 'quiver.worker.id': worker.id };
    return inSpan(`tools/call ${name}`, { kind: 'CLIENT', attributes }, async (span) => {
      let result: ToolResult;
      try {
        const _meta: Record<string, string> = {};
        injectTraceContext(_meta);
        const args = (input ?? {}) as Record<string, unknown>;
        const params = { name, arguments: args, ...(Object.keys(_meta).length && { _meta }) };
        result = await session(async (client) => resultOf(await client.callTool(params, { timeout, toolDefinition: definition })), true);
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
      if (cause instanceof SdkHttpError && cause.status === 401) {
        return { status: 'required', message: 'the MCP server asks for OAuth; give the worker an Authorization header (mcp.headers) with a token it accepts' };
      }
      return { status: 'unknown', message: (error as Error).message };
    }
  }

  return { id: worker.id, label: `worker ${worker.id}`, tools, invoke, check, authorization };

  function unavailable(error: unknown): WorkerUnavailable {
    const reason = reasonOf(error);
    const failure = new WorkerUnavailable(worker.id, reason, reason === 'timed out');
    failure.cause = error;
    return failure;
  }
}

/** Why a connect failed, in a few words. */
function reasonOf(error: unknown): string {
  // A 401 on the probe and a 401 on `initialize` differ in the SDK's code, not in the status.
  if (error instanceof SdkHttpError) return error.status === 401 ? 'the MCP server refused the credentials (401)' : `the MCP server answered ${error.status}`;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return 'timed out';
  if (error instanceof ProtocolError) return `MCP error ${error.code}`;
  // The probe wraps what the network said (fetch's TypeError: refused, reset, not found) in a negotiation error of its own.
  if (error instanceof SdkError) return error.cause instanceof TypeError ? transportFailure(error.cause) : error.message;
  return transportFailure(error);
}

/** What the network said of a failed fetch, without anything of the request (no headers, no tokens). */
function transportFailure(error: unknown): string {
  const failure = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = failure.cause?.code ?? failure.code;
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError' || /TIMEOUT/.test(code ?? '')) return 'timed out';
  return code ?? failure.cause?.message ?? failure.message ?? 'failed';
}

/**
 * The definition a call is sent with: the SDK then mirrors the arguments a 2026-07-28 tool declares as
 * headers from it, rather than listing the tools again and sending the call twice when the server says
 * the headers are missing. Without its output schema, so that a result is taken as the server gives it
 * (the SDK would refuse one that does not match, once the tool had run).
 */
function callable(tool: McpTool): McpTool {
  const { outputSchema: _, ...definition } = tool;
  return definition;
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
    // The server's own label for its person, served on as it came (a title, or the older annotations.title).
    ...((tool.title ?? tool.annotations?.title) && { title: tool.title ?? tool.annotations?.title }),
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
  if (error instanceof ProtocolError) {
    if (error.code === ProtocolErrorCode.InvalidParams) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', error.message);
    return toolError('TOOL_RUNTIME_FATAL', 'The MCP server failed to run the tool.', { developer_message: error.message });
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return toolError('NETWORK_TRANSPORT_RUNTIME_TIMEOUT', 'The MCP server did not answer in time.');
  return toolError('TOOL_RUNTIME_FATAL', 'The MCP server failed to run the tool.', { developer_message: String((error as Error)?.message ?? error) });
}
