/**
 * The tool in each format a caller asks for: MCP, OpenAI function (also in strict mode), Anthropic tool,
 * Gemini function declaration, engine ToolDefinition.
 */
import { geminiSchema, openAiStrictSchema } from './dialects.js';
import { mcpIcons } from './icons.js';
import { inputSchema } from './input.js';
import { annotationsOf, type Annotations, type JsonSchema, type Parameter, type Tool, qualifiedName } from './tool.js';

export type FormatName = 'arcade' | 'openai' | 'openai-strict' | 'anthropic' | 'gemini' | 'mcp';
export const formatNames: FormatName[] = ['arcade', 'openai', 'openai-strict', 'anthropic', 'gemini', 'mcp'];

/** Which requirements the acting user meets; unknown means not met. */
export interface RequirementStatus {
  token?: boolean;
  secrets?: ReadonlySet<string>;
}

/** Provider-safe name: `Toolkit_Tool`, at most 64 characters (OpenAI's limit). */
export function functionName(tool: Tool): string {
  const name = `${tool.toolkit.name}_${tool.name}`;
  return name.length <= 64 ? name : `${name.slice(0, 55)}_${hash(name)}`;
}

export interface McpToolOptions {
  /** Where the engine serves the toolkits' icons (`<iconBaseUrl>/<Toolkit>/icon.svg`); without it, icons are data URIs. */
  iconBaseUrl?: string;
}

/**
 * The MCP tool: what the model reads (name, description, input schema, the annotations that say something)
 * and two display fields for the person, which clients show and do not hand to the model: `title`, the tool's
 * own label from its data ("Create an issue"; none is made up from the name, which clients show when there is
 * no title), and `icons`, its toolkit's icon (see icons.ts). Token counts leave the display fields out
 * (`withoutDisplayFields`); `quiver tools tokens` reports the titles' cost apart.
 */
export function toMcpTool(tool: Tool, options: McpToolOptions = {}) {
  const icons = mcpIcons(tool.toolkit, options.iconBaseUrl);
  return {
    name: functionName(tool),
    ...(tool.title && { title: tool.title }),
    description: tool.description,
    inputSchema: inputSchema(tool),
    annotations: servedAnnotations(tool),
    ...(icons && { icons }),
  };
}

/**
 * An MCP definition as the model reads it: without `title` and `icons`, and without the display name of an older
 * revision, `annotations.title` (the meta-tools carry one). What `describe_tool` answers and token counts count.
 */
export function withoutDisplayFields<T extends { title?: unknown; icons?: unknown; annotations?: object }>(definition: T): Omit<T, 'title' | 'icons'> {
  const { title: _title, icons: _icons, ...rest } = definition;
  if (!rest.annotations || !('title' in rest.annotations)) return rest;
  const { title: _annotationTitle, ...annotations } = rest.annotations as { title?: unknown };
  return { ...rest, annotations };
}

/**
 * The annotations that say something, against MCP's defaults (not read-only, destructive, not idempotent,
 * open world): `readOnlyHint` when true; `destructiveHint` and `idempotentHint` only for tools that write
 * (MCP gives them meaning only there), the former always, since a client assumes destructive without it,
 * the latter when true; `openWorldHint` only when false.
 */
function servedAnnotations(tool: Tool): Partial<Annotations> {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = annotationsOf(tool);
  return {
    ...(readOnlyHint && { readOnlyHint }),
    ...(!readOnlyHint && { destructiveHint }),
    ...(!readOnlyHint && idempotentHint && { idempotentHint }),
    ...(!openWorldHint && { openWorldHint }),
  };
}

export function toOpenAiFunction(tool: Tool) {
  return { type: 'function' as const, function: { name: functionName(tool), description: tool.description, parameters: inputSchema(tool) } };
}

/** OpenAI's strict mode: the schema in its dialect, and `strict: true`. */
export function toOpenAiStrictFunction(tool: Tool, schema: JsonSchema = inputSchema(tool)) {
  return {
    type: 'function' as const,
    function: { name: functionName(tool), description: tool.description, parameters: openAiStrictSchema(schema), strict: true },
  };
}

/** A Gemini function declaration (`tools: [{ functionDeclarations: [...] }]`). */
export function toGeminiFunction(tool: Tool, schema: JsonSchema = inputSchema(tool)) {
  return { name: functionName(tool), description: tool.description, parameters: geminiSchema(schema) };
}

export function toAnthropicTool(tool: Tool) {
  return { name: functionName(tool), description: tool.description, input_schema: inputSchema(tool) };
}

export function toToolDefinition(tool: Tool, status: RequirementStatus = {}) {
  const oauth = tool.requirements.oauth2;
  const secrets = (tool.requirements.secrets ?? []).map(({ key, optional }) => ({ key, met: optional === true || (status.secrets?.has(key) ?? false) }));
  const tokenMet = !oauth || status.token === true;
  return {
    fully_qualified_name: `${qualifiedName(tool)}@${tool.toolkit.version}`,
    qualified_name: qualifiedName(tool),
    name: tool.name,
    description: tool.description,
    toolkit: { name: tool.toolkit.name, description: tool.toolkit.description, version: tool.toolkit.version },
    input: { parameters: tool.parameters.map(toInputParameter) },
    output: {
      available_modes: oauth ? ['value', 'error', 'requires_authorization'] : ['value', 'error'],
      description: tool.output.description,
      value_schema: { val_type: 'json' },
    },
    requirements: {
      met: tokenMet && secrets.every((secret) => secret.met),
      ...(oauth && {
        authorization: {
          provider_id: oauth.provider,
          provider_type: 'oauth2',
          oauth2: { scopes: oauth.scopes },
          status: status.token ? 'active' : 'inactive',
          token_status: status.token ? 'completed' : 'not_started',
        },
      }),
      ...(secrets.length && { secrets }),
    },
  };
}

export type ToolDefinition = ReturnType<typeof toToolDefinition>;

export function formatTool(tool: Tool, format: FormatName, status?: RequirementStatus): unknown {
  switch (format) {
    case 'arcade':
      return toToolDefinition(tool, status);
    case 'openai':
      return toOpenAiFunction(tool);
    case 'openai-strict':
      return toOpenAiStrictFunction(tool);
    case 'anthropic':
      return toAnthropicTool(tool);
    case 'gemini':
      return toGeminiFunction(tool);
    case 'mcp':
      return toMcpTool(tool);
  }
}

function toInputParameter(parameter: Parameter) {
  return {
    name: parameter.name,
    required: parameter.required,
    description: parameter.description,
    inferrable: true,
    value_schema: valueSchema(parameter.schema),
  };
}

type ValType = 'string' | 'integer' | 'number' | 'boolean' | 'json' | 'array';

function valueSchema(schema: JsonSchema): { val_type: ValType; inner_val_type?: ValType; enum?: string[] } {
  const valType = valTypeOf(schema);
  const items = schema.items as JsonSchema | undefined;
  return {
    val_type: valType,
    ...(valType === 'array' && items && { inner_val_type: valTypeOf(items) }),
    ...(Array.isArray(schema.enum) && { enum: schema.enum.map(String) }),
  };
}

function valTypeOf(schema: JsonSchema): ValType {
  const type = schema.type;
  return type === 'string' || type === 'integer' || type === 'number' || type === 'boolean' || type === 'array' ? type : 'json';
}

function hash(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36).padStart(7, '0').slice(0, 8);
}
