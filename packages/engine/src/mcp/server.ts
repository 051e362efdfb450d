/** Tools as an MCP server (official SDK, low-level server: our tools bring their own JSON Schemas). */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMcpTool, type Tool, type ToolResult } from '@quiver/core';

export const serverInfo = { name: 'quiver', version: '0.1.0' };

export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

export function createMcpServer(listTools: () => Promise<readonly Tool[]> | readonly Tool[], callTool: CallTool): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await listTools()).map(toMcpTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => toCallToolResult(await callTool(request.params.name, request.params.arguments ?? {})));
  return server;
}

/** A tool error is a result with isError, its message for the model, and its kind in _meta. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if ('value' in result) return { content: [{ type: 'text', text: JSON.stringify(result.value) }] };
  const { message, additional_prompt_content, developer_message: _hidden, ...details } = result.error;
  const text = additional_prompt_content ? `${message}\n\n${additional_prompt_content}` : message;
  return { isError: true, content: [{ type: 'text', text }], _meta: details };
}
