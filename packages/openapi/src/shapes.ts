/**
 * Pieces of the tool model that the in-repo generators (scripts/generate) and the OpenAPI importer share:
 * the two parameters of every mode-driven tool, and the walk and folding of JSON Schemas.
 */
import type { Parameter } from '@quiver/core';

/** The two parameters every mode-driven tool has, described once for all toolkits. */
export const modeParameters: Record<'mode' | 'request_body', Parameter> = {
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

export type Node = Record<string, unknown>;
export const isNode = (value: unknown): value is Node => !!value && typeof value === 'object' && !Array.isArray(value);

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
