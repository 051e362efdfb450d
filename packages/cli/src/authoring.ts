/**
 * The authoring API of a toolkit with behaviour of its own (`import { defineToolkit, defineTool } from
 * 'quiver-engine'`): a tool is data (the same ToolData as a catalog's) with, optionally, a handler; a toolkit
 * joins tools, or a catalog and handlers, into the Toolkit that `--toolkit-path` loads.
 */
import {
  defineToolkit as joinToolkit,
  type Annotations,
  type HttpBinding,
  type JsonSchema,
  type Parameter,
  type ParameterLocation,
  type Requirements,
  type ToolContext,
  type ToolData,
  type ToolHandler,
  type Toolkit,
  type ToolkitData,
  type ToolResult,
} from '@quiver/core';

/** One parameter's JSON Schema; with an `http` binding, `in` says where it goes and `upstream` its name there. */
export type ParameterSchema = JsonSchema & { description?: string; in?: ParameterLocation; upstream?: string };

/** The tool's input as a JSON Schema object: each property is a parameter, `required` lists those that must be given. */
export interface InputSchema {
  type?: 'object';
  properties?: Record<string, ParameterSchema>;
  required?: readonly string[];
}

export interface ToolDefinition<Input extends Record<string, unknown> = Record<string, unknown>> {
  /** PascalCase, unique in the toolkit: `GetInvoice`. */
  name: string;
  /** A short label a person sees in a client's list of tools ("Get an invoice"): MCP's `title`, never read by the model. */
  title?: string;
  /** What the tool does, first sentence first: a model reads it to choose the tool. */
  description: string;
  /** The input as a JSON Schema object. Default: no parameters. */
  parameters?: InputSchema;
  /** What a result holds. */
  output?: string | { description: string; schema?: JsonSchema };
  /** The OAuth provider and scopes, and the secrets, the tool needs: it is given only these. */
  requirements?: Requirements;
  /** Read-only, destructive, idempotent hints; derived from the HTTP method when not given. */
  annotations?: Partial<Annotations>;
  /** Words the tool is grouped by: search finds it by them. */
  tags?: string[];
  /** The upstream operation the tool is, when it has no handler (or for its handler's information). */
  http?: HttpBinding;
  /** What the tool does when called: the input is checked against `parameters` first. */
  handler?: (input: Input, context: ToolContext) => ToolResult | Promise<ToolResult>;
}

/** A tool as data, with its handler when it has one. */
export type DefinedTool = ToolData & { handler?: ToolHandler };

/** A typed tool: the definition becomes the catalog's ToolData (parameters from the JSON Schema) and its handler. */
export function defineTool<Input extends Record<string, unknown> = Record<string, unknown>>(definition: ToolDefinition<Input>): DefinedTool {
  const { name, title, description, parameters = {}, output, requirements = {}, annotations, tags, http, handler } = definition;
  if (!handler && !http) throw new Error(`${name}: a tool needs a handler or an http binding`);
  const required = new Set(parameters.required ?? []);
  const properties = Object.entries(parameters.properties ?? {});
  for (const key of required) if (!properties.some(([property]) => property === key)) throw new Error(`${name}: required parameter ${key} has no property`);
  const tool: DefinedTool = {
    name,
    ...(title && { title }),
    description,
    parameters: properties.map(
      ([property, { description: about = '', in: location, upstream, ...schema }]): Parameter => ({
        name: property,
        description: about,
        required: required.has(property),
        schema,
        ...(location && { in: location }),
        ...(upstream && { upstream }),
      }),
    ),
    output: typeof output === 'string' ? { description: output } : (output ?? { description: '' }),
    requirements,
    ...(annotations && { annotations }),
    ...(tags && { tags }),
    ...(http && { http }),
  };
  if (handler) tool.handler = async (input, context) => handler(input as Input, context);
  return tool;
}

/** A toolkit from its tools: version and base URL may be left out where every tool has a handler. */
export interface ToolkitDefinition {
  /** PascalCase, unique among the toolkits served: `BillingApi`. */
  name: string;
  description: string;
  /** Default: 1.0.0. */
  version?: string;
  /** The upstream the tools' `http` bindings are relative to; configuration may replace it. Default: none. */
  baseUrl?: string;
  tools: ReadonlyArray<ToolData | DefinedTool>;
  /** Requests for each tool as people word them, by tool name: indexed for search, never served. */
  phrases?: () => Readonly<Record<string, readonly string[]>>;
  /** The service's icon, SVG markup of plain shapes within 1 KB, shown by clients beside each of its tools (MCP `icons`). */
  icon?: string;
}

/**
 * The toolkit `--toolkit-path` loads (the default export of the folder's module). Takes tools from
 * `defineTool`, or a catalog (ToolkitData, e.g. `readCatalog(new URL('./catalog.json', import.meta.url))`) with
 * handlers by tool name for the tools that have behaviour of their own.
 */
export function defineToolkit(definition: ToolkitDefinition | ToolkitData, handlers: Record<string, ToolHandler> = {}): Toolkit {
  const own: Record<string, ToolHandler> = {};
  const tools = definition.tools.map((tool) => {
    const { handler, ...data } = tool as DefinedTool;
    if (handler) own[tool.name] = handler;
    return data;
  });
  return joinToolkit(
    {
      name: definition.name,
      version: definition.version ?? '1.0.0',
      description: definition.description,
      baseUrl: definition.baseUrl ?? '',
      tools,
      ...(definition.phrases && { phrases: definition.phrases }),
      ...(definition.icon !== undefined && { icon: definition.icon }),
    },
    { ...own, ...handlers },
  );
}
