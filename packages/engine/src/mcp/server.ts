/** Tools as an MCP server (official SDK, low-level server: our tools bring their own JSON Schemas). */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { confirmName, toMcpTool, type CallOptions, type ConfirmWithPerson, type Dispatcher, type ServingPolicy, type ToolResult } from '@quiver/core';
import { callMetaTool, isMetaTool, metaTools } from './discovery.js';
import { authorizeThroughUrl, confirmThroughForm, elicitationModes, withNote, type Asking, type AuthorizationWait } from './elicitation.js';
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
  /**
   * What the client declared at `initialize`, where this server did not see it: over stateless HTTP each
   * message gets a server of its own, and the session id carries the elicitation modes (see routes/mcp.ts).
   */
  clientCapabilities?: ClientCapabilities;
  /** The engine's authorizations: a call that needs one asks a client with URL elicitation to open it, and waits. */
  authorizations?: AuthorizationWait;
}

/** A server whose transport's requests are traced and measured once it is connected (see telemetry.ts). */
class ObservedServer extends Server {
  network: McpNetwork = 'tcp';

  /** The client's capabilities, declared at an `initialize` another server answered (the SDK keeps them private). */
  assumeClientCapabilities(capabilities: ClientCapabilities): void {
    Object.assign(this, { _clientCapabilities: capabilities });
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    observeMcp(transport, this.network);
  }
}

/** An MCP server over the dispatcher: it lists what the policy offers and sends every call through the dispatcher. */
export function createMcpServer(dispatcher: Dispatcher, options: McpServerOptions = {}): Server {
  const { discovery = false, userId, actingUserHint, requestId, keyId, admit, authorizations } = options;
  const policy = options.policy ?? dispatcher.policy;
  const server = new ObservedServer(serverInfo, { capabilities: { tools: {} } });
  server.network = options.network ?? 'tcp';
  if (options.clientCapabilities) server.assumeClientCapabilities(options.clientCapabilities);

  /** A call through the dispatcher, asking the person what only they should answer where the client lets us. */
  const callFor = (asking: Asking) => async (name: string, args: Record<string, unknown>) => {
    const modes = elicitationModes(server.getClientCapabilities());
    let confirmed = false;
    const ask = modes.form ? confirmThroughForm(asking) : undefined;
    const confirmWithPerson: ConfirmWithPerson | undefined =
      ask &&
      (async (tool, shown) => {
        const answer = await ask(tool, shown);
        confirmed = answer === true;
        return answer;
      });
    const callOptions: CallOptions = { userId, actingUserHint, policy, requestId, keyId, admit, confirmWithPerson };
    const { result, tool, authorization } = await dispatcher.dispatch(name, args, callOptions);
    if (!modes.url || !authorizations || !tool || authorization?.status !== 'pending' || !authorization.url) return result;
    const outcome = await authorizeThroughUrl(asking, authorizations, tool, { ...authorization, url: authorization.url });
    if ('note' in outcome) return withNote(result, outcome.note);
    // The same call again; a person who confirmed it already is not asked twice.
    return dispatcher.call(name, confirmed ? { ...args, [confirmName]: true } : args, callOptions);
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await dispatcher.list(policy);
    return {
      tools: discovery ? metaTools(tools, policy?.options.readOnly === true) : tools.map((tool) => (policy ? policy.toMcpTool(tool) : toMcpTool(tool))),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const token = request.params._meta?.progressToken;
    let step = 0;
    const call = callFor({
      server,
      requestId: extra.requestId,
      signal: extra.signal,
      ...(token !== undefined && {
        progress: (message: string) =>
          extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => {}),
      }),
    });
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
