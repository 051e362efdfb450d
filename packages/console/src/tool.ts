/** A tool's full definition as the engine answers it, with every format. */
import { api, query } from './api.js';

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  additionalProperties?: boolean | JsonSchema;
  [keyword: string]: unknown;
}

export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: Record<string, unknown>;
}

export interface Requirements {
  met: boolean;
  authorization?: { provider_id: string; oauth2?: { scopes?: string[] }; status: string; token_status?: string };
  secrets?: { key: string; met: boolean }[];
}

export interface ToolDefinition {
  qualified_name: string;
  fully_qualified_name: string;
  name: string;
  description: string;
  toolkit: { name: string; description: string; version: string };
  requirements: Requirements;
  formatted_schema: { mcp: McpTool; openai: unknown; anthropic: unknown; arcade: unknown };
}

export const formats = ['mcp', 'openai', 'anthropic', 'arcade'] as const;

export function loadTool(name: string, userId: string): Promise<ToolDefinition> {
  return api<ToolDefinition>('GET', `/tools/${encodeURIComponent(name)}${query({ include_format: formats.join(','), user_id: userId || undefined })}`);
}

/** A mode-driven tool: its body is JSON text whose schema the tool gives with mode get_request_schema. */
export function isModeDriven(schema: JsonSchema): boolean {
  const mode = schema.properties?.mode;
  return Boolean(mode?.enum?.includes('get_request_schema') && mode.enum.includes('execute') && schema.properties?.request_body);
}

/** A schema's type as a reader says it: `string`, `array of integer`, `string | null`. */
export function typeOf(schema: JsonSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  return type === 'array' && schema.items ? `array of ${typeOf(schema.items)}` : type;
}
