/**
 * A tool's input schema in the JSON Schema dialect each model provider accepts for function
 * parameters. Keywords outside a dialect are left out; the runtime still checks them (with a clear
 * error naming the parameter), so nothing is lost but the hint.
 */
import type { JsonSchema } from './tool.js';

/** The keywords OpenAI's strict mode (Structured Outputs) accepts for function parameters, conservatively. */
const openAiStrictKeywords = new Set(['type', 'description', 'enum', 'const', 'items', 'anyOf']);

/**
 * OpenAI strict mode: every object lists all its properties as required and sets
 * `additionalProperties: false`; an optional property becomes nullable instead (`["string", "null"]`,
 * null added to an enum), and the runtime reads `null` as absent.
 */
export function openAiStrictSchema(schema: JsonSchema): JsonSchema {
  return strictNode(schema, false);
}

function strictNode(node: JsonSchema, optional: boolean): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) if (openAiStrictKeywords.has(key)) out[key] = value;
  const properties = node.properties as Record<string, JsonSchema> | undefined;
  if (node.type === 'object' || properties) {
    const required = new Set((node.required as string[] | undefined) ?? []);
    const entries = Object.entries(properties ?? {});
    out.type = 'object';
    out.properties = Object.fromEntries(entries.map(([name, property]) => [name, strictNode(property, !required.has(name))]));
    out.required = entries.map(([name]) => name);
    out.additionalProperties = false;
  }
  if (node.items) out.items = strictNode(node.items as JsonSchema, false);
  if (Array.isArray(node.anyOf)) out.anyOf = (node.anyOf as JsonSchema[]).map((branch) => strictNode(branch, false));
  return optional ? nullable(out) : out;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...(schema.anyOf as JsonSchema[]), { type: 'null' }] };
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return {
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
    ...(Array.isArray(schema.enum) && !schema.enum.includes(null) && { enum: [...schema.enum, null] }),
  };
}

/** The formats Gemini's function declarations accept, by type. */
const geminiFormats: Record<string, ReadonlySet<string>> = {
  string: new Set(['date-time', 'enum']),
  integer: new Set(['int32', 'int64']),
  number: new Set(['float', 'double']),
};

/** The keywords Gemini's function declarations (an OpenAPI 3.0 schema subset) accept, copied as they are. */
const geminiKeywords = ['description', 'nullable', 'minItems', 'maxItems', 'minimum', 'maximum'];

/**
 * Gemini's function declarations: one type per schema (a nullable one says `nullable`), string enums
 * only, formats from its short list, no `additionalProperties`, `uniqueItems`, `anyOf` (the string
 * branch is kept: the runtime takes either) or other JSON Schema keywords.
 */
export function geminiSchema(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as JsonSchema[];
    const chosen = branches.find((branch) => branch.type === 'string') ?? branches.find((branch) => branch.type !== 'null') ?? { type: 'string' };
    return geminiSchema({ ...chosen, ...(schema.description !== undefined && { description: schema.description }) });
  }
  const types = (Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined]).filter((type) => type !== undefined);
  const type = types.find((t) => t !== 'null') ?? 'string';
  const out: JsonSchema = { type };
  for (const key of geminiKeywords) if (schema[key] !== undefined) out[key] = schema[key];
  if (types.includes('null')) out.nullable = true;
  if (typeof schema.format === 'string' && geminiFormats[type]?.has(schema.format)) out.format = schema.format;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value) => value !== null);
    if (type === 'string' && values.every((value) => typeof value === 'string')) out.enum = values;
    else out.description = `${out.description ? `${out.description} ` : ''}One of: ${values.join(', ')}.`;
  }
  if (schema.items) out.items = geminiSchema(schema.items as JsonSchema);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    out.properties = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, geminiSchema(property)]));
    const required = (schema.required as string[] | undefined) ?? [];
    if (required.length) out.required = required;
  }
  return out;
}
