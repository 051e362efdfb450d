/**
 * Where tools come from and how one is run: the built-in toolkits in this process, or a remote worker.
 * The engine resolves credentials first and hands each source only what the tool declares.
 */
import { executeTool, type Tool, type ToolResult, type UpstreamClient } from '@quiver/core';

export interface Invocation {
  executionId: string;
  userId?: string;
  /** OAuth access token for the tool's provider, when it has one. */
  token?: string;
  /** The secrets the tool declares, and no others. */
  secrets: Record<string, string>;
}

export interface ToolSource {
  /** "builtin", or the worker's id. */
  id: string;
  tools(): Promise<Tool[]>;
  invoke(tool: Tool, input: unknown, invocation: Invocation): Promise<ToolResult>;
}

/** The in-process worker: the built-in toolkits, each pointed at its configured base URL. */
export function builtinSource(toolkits: ReadonlyArray<{ name: string; baseUrl: string; tools: Tool[] }>, baseUrls: Record<string, string>, client: UpstreamClient): ToolSource {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const baseUrlOf = Object.fromEntries(toolkits.map((toolkit) => [toolkit.name, baseUrls[toolkit.name] ?? toolkit.baseUrl]));
  return {
    id: 'builtin',
    tools: async () => tools,
    invoke: (tool, input, invocation) =>
      executeTool(tool, input, { baseUrl: baseUrlOf[tool.toolkit.name]!, token: invocation.token, secrets: invocation.secrets, client }),
  };
}
