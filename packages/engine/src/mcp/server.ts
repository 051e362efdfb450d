/** Tools as an MCP server (official SDK, low-level server: our tools bring their own JSON Schemas). */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMcpTool, type CallOptions, type Dispatcher, type ServingPolicy, type ToolResult } from '@quiver/core';
import { callMetaTool, isMetaTool, metaTools } from './discovery.js';
import { observeMcp, type McpNetwork } from './telemetry.js';

export { metaTools } from './discovery.js';

export const serverInfo = { name: 'quiver', version: '0.1.0' };

export interface McpServerOptions {
  /** List the discovery meta-tools (search, describe, call) instead of every tool. */
  discovery?: boolean;
  /** The session's user: every call runs as this user. */
  userId?: string;
  /** What a call is told to do when its tool acts for a user and the session has none (see CallOptions). */
  actingUserHint?: string;
  /** The session's policy, where it differs from the dispatcher's. */
  policy?: ServingPolicy;
  /** How messages arrive, for telemetry: `pipe` (stdio) or `tcp` (streamable HTTP, the default). */
  network?: McpNetwork;
  /** The HTTP request carrying the session's messages and its API key's id, for each call's log line. */
  requestId?: string;
  keyId?: string;
  /** The engine's limits of calls in flight, asked as each call is about to run (see CallOptions). */
  admit?: CallOptions['admit'];
}

/** A server whose transport's requests are traced and measured once it is connected (see telemetry.ts). */
class ObservedServer extends Server {
  network: McpNetwork = 'tcp';

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    observeMcp(transport, this.network);
  }
}

/** An MCP server over the dispatcher: it lists what the policy offers and sends every call through the dispatcher. */
export function createMcpServer(dispatcher: Dispatcher, options: McpServerOptions = {}): Server {
  const { discovery = false, userId, actingUserHint, requestId, keyId, admit } = options;
  const policy = options.policy ?? dispatcher.policy;
  const call = (name: string, args: Record<string, unknown>) => dispatcher.call(name, args, { userId, actingUserHint, policy, requestId, keyId, admit });
  const server = new ObservedServer(serverInfo, { capabilities: { tools: {} } });
  server.network = options.network ?? 'tcp';
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await dispatcher.list(policy);
    return {
      tools: discovery ? metaTools(tools, policy?.options.readOnly === true) : tools.map((tool) => (policy ? policy.toMcpTool(tool) : toMcpTool(tool))),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    // In discovery mode a tool may still be called by its own name: the same guards apply.
    const result = discovery && isMetaTool(name) ? await callMetaTool(name, args, { dispatcher, policy, call }) : await call(name, args);
    return toCallToolResult(result);
  });
  return server;
}

/**
 * A value is its JSON text, followed by the server's note when there is one; a value cut as text
 * (the note says so) is shown as that text. A tool error is a result with isError, its message for
 * the model, and its kind in _meta. A JSON object comes back as `structuredContent` too (a list as
 * `{ items: [...] }`, since structured content is an object), and a next page's arguments as
 * `_meta.next_page`.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if ('value' in result) {
    const { value, note, next_page } = result;
    const text = typeof value === 'string' && note ? value : JSON.stringify(value);
    const structured = Array.isArray(value) ? { items: value } : value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
    return {
      content: [{ type: 'text', text }, ...(note ? [{ type: 'text' as const, text: note }] : [])],
      ...(structured && { structuredContent: structured }),
      ...(next_page && { _meta: { next_page } }),
    };
  }
  const { message, additional_prompt_content, developer_message: _hidden, stacktrace: _internal, ...details } = result.error;
  const text = additional_prompt_content ? `${message}\n\n${additional_prompt_content}` : message;
  return { isError: true, content: [{ type: 'text', text }], _meta: details };
}
