/**
 * Discovery mode: three meta-tools in place of a thousand tool definitions, which fit no model's
 * context and exceed the tool counts clients accept. A model searches for tools, reads the
 * definition of the one it picks, and calls it by name; each call goes through the same dispatch
 * (selection, read-only, confirmation, validation) as a direct call.
 */
import {
  annotationsOf,
  didYouMean,
  functionName,
  toMcpTool,
  toolError,
  withoutDisplayFields,
  type Dispatcher,
  type ServingPolicy,
  type Tool,
  type ToolResult,
} from '@quiver/core';

export const searchToolsName = 'search_tools';
export const describeToolName = 'describe_tool';
export const callToolName = 'call_tool';

const defaultLimit = 10;
const maxLimit = 50;

/** The meta-tools' MCP definitions, for the tools the server offers. */
export function metaTools(offered: readonly Tool[], readOnly: boolean) {
  const toolkits = [...new Set(offered.map((tool) => tool.toolkit.name))];
  const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    {
      name: searchToolsName,
      title: 'Search Tools',
      description:
        `Find tools for a task among the ${offered.length} tools of this server. ` +
        `Returns the best matches by name with a one-line description. Then use ${describeToolName} for a tool's parameters and ${callToolName} to run it.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in plain words, e.g. "create a pull request".' },
          toolkit: { type: 'string', enum: toolkits, description: 'Only tools of this toolkit.' },
          limit: { type: 'integer', minimum: 1, maximum: maxLimit, description: `How many matches (default ${defaultLimit}).` },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { title: 'Search Tools', ...reads },
    },
    {
      name: describeToolName,
      title: 'Describe Tool',
      description: `A tool's full definition: its description, input JSON Schema and annotations (readOnlyHint, destructiveHint, idempotentHint). Read it before ${callToolName}.`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: `A tool name from ${searchToolsName}.` } },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { title: 'Describe Tool', ...reads },
    },
    {
      name: callToolName,
      title: 'Call Tool',
      description: `Run a tool by name. arguments must match the tool's input schema (see ${describeToolName}). Returns the tool's result or its error.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool to run.' },
          arguments: { type: 'object', description: "The tool's arguments.", additionalProperties: true },
        },
        required: ['name', 'arguments'],
        additionalProperties: false,
      },
      annotations: {
        title: 'Call Tool',
        readOnlyHint: readOnly,
        destructiveHint: offered.some((tool) => annotationsOf(tool).destructiveHint),
        idempotentHint: false,
        openWorldHint: true,
      },
    },
  ];
}

export const isMetaTool = (name: string): boolean => name === searchToolsName || name === describeToolName || name === callToolName;

export interface MetaContext<Called = ToolResult> {
  dispatcher: Dispatcher;
  /** The session's policy: what is offered, and how calls are guarded. */
  policy?: ServingPolicy;
  /** Runs a tool for the session (over MCP, its answer may be a question for the person first). */
  call: (name: string, args: Record<string, unknown>) => Promise<Called>;
}

/** Runs one meta-tool. */
export async function callMetaTool<Called>(name: string, args: Record<string, unknown>, context: MetaContext<Called>): Promise<ToolResult | Called> {
  switch (name) {
    case searchToolsName:
      return searchTools(args, context);
    case describeToolName: {
      const tool = typeof args.name === 'string' ? (await context.dispatcher.find(args.name, context.policy))?.tool : undefined;
      if (!tool) return unknownTool(args.name, context);
      // What the model reads: the title and icons are for the person.
      return { value: withoutDisplayFields(context.policy ? context.policy.toMcpTool(tool) : toMcpTool(tool)) };
    }
    default: {
      if (typeof args.name !== 'string' || !args.name) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${callToolName} needs name: the tool to run.`);
      const input = args.arguments ?? {};
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${callToolName} needs arguments: a JSON object of the tool's parameters.`);
      }
      return context.call(args.name, input as Record<string, unknown>);
    }
  }
}

async function searchTools(args: Record<string, unknown>, { dispatcher, policy }: MetaContext<unknown>): Promise<ToolResult> {
  const { query, toolkit, limit = defaultLimit } = args;
  if (typeof query !== 'string' || !query.trim()) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${searchToolsName} needs query: what the tool should do.`);
  if (toolkit !== undefined && typeof toolkit !== 'string') return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', 'toolkit must be a toolkit name.');
  const toolkits = [...new Set((await dispatcher.list(policy)).map((tool) => tool.toolkit.name))];
  if (toolkit !== undefined && !toolkits.some((name) => name.toLowerCase() === toolkit.toLowerCase())) {
    return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `unknown toolkit '${toolkit}'; toolkits: ${toolkits.join(', ')}.`);
  }
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > maxLimit) {
    return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `limit must be an integer from 1 to ${maxLimit}.`);
  }
  const hits = await dispatcher.search(query, { limit: limit as number, toolkit }, policy);
  const tools = hits.map(({ tool }) => ({ name: functionName(tool), description: firstSentence(tool.description) }));
  return { value: tools.length ? { tools } : { tools, hint: 'No tool matched; try other words, or no toolkit filter.' } };
}

async function unknownTool(name: unknown, { dispatcher, policy }: MetaContext<unknown>): Promise<ToolResult> {
  const suggestions = await dispatcher.suggest(String(name ?? ''), functionName, policy);
  return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Unknown tool '${String(name)}'.${didYouMean(suggestions)} Use ${searchToolsName} to find tool names.`);
}

const firstSentence = (text: string) => text.split(/(?<=\.)\s/)[0] ?? text;
