/** Pieces every toolkit generator uses: reading the reference catalog and authoring request schemas. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpMethod, JsonSchema, Parameter, ParameterLocation, ToolData, ToolkitData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';

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

/** A toolkit's committed catalog: `<dir>/catalog.json`, 2-space JSON with a final newline. */
export const catalogFile = (dir: string, toolkit: ToolkitData): GeneratedFile => ({
  path: `${dir}/catalog.json`,
  content: `${JSON.stringify(toolkit, null, 2)}\n`,
});

/** Our texts for a toolkit (`<dir>/descriptions.json`): the toolkit's description, and per tool its own, its output's, its parameters' and its body fields'. */
export interface Descriptions {
  toolkit: string;
  tools: Record<string, { description: string; output: string; params: Record<string, string>; body?: Record<string, string> }>;
}

export const readDescriptions = (dir: string): Descriptions => readJson(resolve(repoRoot, dir, 'descriptions.json')) as Descriptions;

/** A toolkit's committed catalog, named and based as the reference catalog says and described as we say. */
export function toolkitFile(
  dir: string,
  catalog: { toolkit: string; default_base_url: string },
  descriptions: Descriptions,
  tools: ToolData[],
  version = '1.0.0',
): GeneratedFile {
  return catalogFile(dir, { name: catalog.toolkit, version, description: descriptions.toolkit, baseUrl: catalog.default_base_url, tools });
}

/**
 * Where a parameter goes upstream, which the reference catalogs leave to us; empty for one the tool's
 * handler reads itself.
 */
export interface Placement {
  in?: ParameterLocation;
  upstream?: string;
  explode?: boolean;
}

export const path = (upstream: string): Placement => ({ in: 'path', upstream });
export const query = (upstream: string, extra: Pick<Placement, 'explode'> = {}): Placement => ({ in: 'query', upstream, ...extra });
export const header = (upstream: string): Placement => ({ in: 'header', upstream });
export const body = (upstream: string): Placement => ({ in: 'body', upstream });

/** The two parameters every mode-driven tool has, described once for all toolkits. */
export const modeParameters: Record<string, Parameter> = {
  mode: {
    name: 'mode',
    description: "get_request_schema returns the request body's JSON Schema and calls nothing (do it first); execute runs the operation.",
    required: true,
    schema: { type: 'string', enum: ['get_request_schema', 'execute'] },
  },
  request_body: {
    name: 'request_body',
    description: 'The request body: a JSON document, as a string, that the get_request_schema schema accepts. Needed when mode is execute.',
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

const schemaKeywords = ['additionalProperties', 'items', 'not'];
const schemaListKeywords = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const schemaMapKeywords = ['properties', 'patternProperties', '$defs', 'definitions'];

/**
 * Applies `transform` to every subschema, innermost first. Only schema positions are visited: a
 * property that happens to be called "properties" or "oneOf" is a name, not a keyword.
 */
export function mapSchema(schema: unknown, transform: (node: Node) => Node): unknown {
  if (!isNode(schema)) return schema;
  const node: Node = { ...schema };
  for (const key of schemaKeywords) if (isNode(node[key])) node[key] = mapSchema(node[key], transform);
  for (const key of schemaListKeywords) {
    if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map((item) => mapSchema(item, transform));
  }
  if (Array.isArray(node.items)) node.items = node.items.map((item) => mapSchema(item, transform));
  for (const key of schemaMapKeywords) {
    if (isNode(node[key])) {
      node[key] = Object.fromEntries(Object.entries(node[key] as Node).map(([name, sub]) => [name, mapSchema(sub, transform)]));
    }
  }
  return transform(node);
}

/** Folds allOf of objects into one object and single-branch oneOf/anyOf into their parent. */
export const simplify = (schema: unknown): unknown => mapSchema(schema, simplifyNode);

function simplifyNode(input: Node): Node {
  let node = input;
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

/** Objects that list their properties accept no others, unless they say otherwise. */
const close = (schema: unknown): unknown =>
  mapSchema(schema, (node) => {
    const declares = isNode(node.properties) && Object.keys(node.properties).length > 0;
    const composed = node.oneOf || node.anyOf || node.allOf;
    return declares && !composed && node.additionalProperties === undefined ? { ...node, additionalProperties: false } : node;
  });
