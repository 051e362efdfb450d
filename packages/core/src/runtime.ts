/** Calls tools by name, with the context the host provides (CLI configuration now, per-user state in the engine). */
import type { ToolContext } from './context.js';
import { toolError, type ToolResult } from './errors.js';
import { executeTool } from './execute.js';
import type { ToolRegistry } from './registry.js';
import type { Tool } from './tool.js';

export type ContextProvider = (tool: Tool) => ToolContext | Promise<ToolContext>;

export class Runtime {
  constructor(
    readonly registry: ToolRegistry,
    private readonly contextFor: ContextProvider,
  ) {}

  async call(name: string, input: unknown): Promise<ToolResult> {
    const tool = this.registry.get(name);
    if (!tool) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Unknown tool '${name}'. Tool names look like Toolkit.Tool.`);
    try {
      return await executeTool(tool, input, await this.contextFor(tool));
    } catch (cause) {
      // A bug in a handler must not leak a stack trace to the model.
      return toolError('TOOL_RUNTIME_FATAL', `${tool.name} failed unexpectedly.`, { developer_message: String((cause as Error)?.stack ?? cause) });
    }
  }
}
