/** Calls tools by name, with the context the host provides (CLI configuration now, per-user state in the engine). */
import type { ToolContext } from './context.js';
import { toolError, type ToolResult } from './errors.js';
import { executeTool } from './execute.js';
import { didYouMean, suggestToolNames } from './search/suggest.js';
import type { ToolRegistry } from './registry.js';
import type { ServingPolicy } from './serving.js';
import type { Tool } from './tool.js';

export type ContextProvider = (tool: Tool) => ToolContext | Promise<ToolContext>;

/** What a host may log about a finished call: names and outcome, never inputs, tokens or secrets. */
export interface CallRecord {
  tool: string;
  ok: boolean;
  kind?: string;
  durationMs: number;
}

export class Runtime {
  constructor(
    readonly registry: ToolRegistry,
    private readonly contextFor: ContextProvider,
    private readonly onCall?: (record: CallRecord) => void,
    /** What a server offers and how its calls are guarded and shaped; absent, every tool runs as it is. */
    private readonly policy?: ServingPolicy,
  ) {}

  async call(name: string, input: unknown): Promise<ToolResult> {
    const started = performance.now();
    const result = await this.run(name, input);
    this.onCall?.({
      tool: name,
      ok: !('error' in result),
      ...('error' in result && { kind: result.error.kind }),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
    return result;
  }

  private async run(name: string, input: unknown): Promise<ToolResult> {
    const tool = this.registry.get(name);
    if (!tool) {
      const hint = didYouMean(suggestToolNames(name, this.registry.tools())) || ' Tool names look like Toolkit.Tool.';
      return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Unknown tool '${name}'.${hint}`);
    }
    try {
      const execute = async (args: unknown) => executeTool(tool, args, await this.contextFor(tool));
      return this.policy ? await this.policy.run(tool, input, execute) : await execute(input);
    } catch (cause) {
      // A bug in a handler must not leak a stack trace to the model.
      return toolError('TOOL_RUNTIME_FATAL', `${tool.name} failed unexpectedly.`, { developer_message: String((cause as Error)?.stack ?? cause) });
    }
  }
}
