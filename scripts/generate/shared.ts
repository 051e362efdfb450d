/** Pieces every toolkit generator uses: reading the reference catalog and authoring request schemas. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpMethod, JsonSchema, Parameter, ParameterLocation } from '../../packages/core/src/tool.js';

export interface CatalogParam {
  name: string;
  type: string;
  required: boolean;
  enum?: string[];
  in?: ParameterLocation;
  upstream?: string;
}

export interface CatalogTool {
  name: string;
  operation: string;
  method: HttpMethod;
  path: string;
  mode_driven: boolean;
  params: CatalogParam[];
  scopes: string[];
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** The two parameters every mode-driven tool has, described once for all toolkits. */
export const modeParameters: Record<string, Parameter> = {
  mode: {
    name: 'mode',
    description:
      'get_request_schema: return the JSON Schema of the request body and call nothing (do this once first). ' +
      'execute: run the operation with request_body.',
    required: true,
    schema: { type: 'string', enum: ['get_request_schema', 'execute'] },
  },
  request_body: {
    name: 'request_body',
    description:
      'The request body as a JSON document serialised to a string, conforming to the schema that get_request_schema returns. ' +
      'Required when mode is execute; ignored otherwise.',
    required: false,
    schema: { type: 'string' },
  },
};

/**
 * Our request schema from structural facts: nesting that says nothing (single-branch oneOf, allOf of
 * plain objects, empty property lists) is folded away; objects that declare their properties are
 * closed (the upstream rejects unknown fields, so we catch them before sending); top-level fields get
 * our descriptions.
 */
export function authoredSchema(structural: JsonSchema, fieldDescriptions: Record<string, string>, description: string): JsonSchema {
  const schema = close(simplify(structural)) as JsonSchema & { properties?: Record<string, JsonSchema> };
  for (const [field, text] of Object.entries(fieldDescriptions)) {
    const property = schema.properties?.[field];
    if (!property) throw new Error(`description for unknown body field ${field}`);
    schema.properties![field] = { description: text, ...property };
  }
  return { description, ...schema };
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => !!value && typeof value === 'object' && !Array.isArray(value);

/** Folds allOf of objects into one object and single-branch oneOf/anyOf into their parent. */
export function simplify(input: unknown): unknown {
  if (Array.isArray(input)) return input.map(simplify);
  if (!isNode(input)) return input;
  let node: Node = Object.fromEntries(Object.entries(input).map(([key, value]) => [key, simplify(value)]));
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.length === 1) {
      const { [keyword]: _, ...rest } = node;
      node = merge(rest, branches[0] as Node) ?? node;
    }
  }
  const all = node.allOf;
  if (Array.isArray(all)) {
    const { allOf: _, ...rest } = node;
    const merged = all.reduce<Node | undefined>((acc, branch) => acc && merge(acc, branch as Node), rest);
    if (merged) node = merged;
  }
  if (isNode(node.properties) && !Object.keys(node.properties).length && (node.oneOf || node.anyOf || node.allOf)) {
    const { properties: _, ...rest } = node;
    node = rest;
  }
  return node;
}

/** Merges two object schemas, or undefined when they cannot be merged without changing meaning. */
function merge(a: Node, b: Node): Node | undefined {
  const out: Node = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) out[key] = value;
    else if (key === 'properties' && isNode(value) && isNode(out.properties)) out.properties = { ...out.properties, ...value };
    else if (key === 'required' && Array.isArray(value)) out.required = [...new Set([...(out.required as string[]), ...value])];
    else if (JSON.stringify(out[key]) !== JSON.stringify(value)) return undefined;
  }
  return out;
}

function close(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(close);
  if (!isNode(node)) return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, close(value)]));
  const declares = isNode(copy.properties) && Object.keys(copy.properties).length > 0;
  const composed = copy.oneOf || copy.anyOf || copy.allOf;
  if (declares && !composed && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}
