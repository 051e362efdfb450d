/** Quiver's tools as an MCP server (official SDK, low-level server: our tools bring their own JSON Schemas). */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMcpTool, type Runtime, type Tool, type ToolResult } from '@quiver/core';

export const serverInfo = { name: 'quiver', version: '0.1.0' };

export function createMcpServer(runtime: Runtime, tools: readonly Tool[]): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {} } });
  let listed: ReturnType<typeof toMcpTool>[] | undefined;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (listed ??= tools.map(toMcpTool)) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    toCallToolResult(await runtime.call(request.params.name, request.params.arguments ?? {})),
  );
  return server;
}

/** A tool error is a result with isError, its message for the model, and its kind in _meta. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if ('value' in result) return { content: [{ type: 'text', text: JSON.stringify(result.value) }] };
  const { message, additional_prompt_content, developer_message: _hidden, ...details } = result.error;
  const text = additional_prompt_content ? `${message}\n\n${additional_prompt_content}` : message;
  return { isError: true, content: [{ type: 'text', text }], _meta: details };
}
