/**
 * OpenAPI schemas (3.0 or 3.1) as the self-contained JSON Schemas the runtime validates with: references
 * inlined (a reference to itself is cut to an open value of its type), `allOf` merged, 3.0's `nullable`
 * and 3.1's type lists as type lists with `null`, `oneOf` as `anyOf` (variants of open objects overlap),
 * enums kept, defaults and examples moved out (a default is told in the description), prose shortened,
 * only formats and patterns the validator knows, and objects that list their properties closed.
 */
import { DocumentError } from './load.js';
import { isNode, type Node } from './shapes.js';
import { plainText, shorten } from './text.js';

/** Formats the runtime's validator checks (ajv-formats and the OpenAPI numeric ones); others only document. */
const FORMATS = new Set([
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'relative-json-pointer',
  'byte',
  'binary',
  'password',
  'int32',
  'int64',
  'float',
  'double',
]);

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Deeper than this, a body schema is cut to an open value: no request body of a real API nests further. */
const MAX_DEPTH = 12;
/** Subschemas one converted schema may hold. */
const MAX_NODES = 5000;

export interface SchemaOptions {
  /** Request side: read-only properties are dropped (the server sets them). */
  request?: boolean;
  /** Close objects that list their properties (additionalProperties: false). */
  close?: boolean;
}

/** A `$ref` that names nothing in the document, or that cannot be followed: the document's fault, never the importer's. */
export class BrokenReference extends DocumentError {}

export class SchemaConverter {
  /** Schemas cut because they refer to themselves, by reference (for the report). */
  readonly cycles = new Set<string>();

  constructor(private readonly document: Node) {}

  /** Follows `$ref`s (internal ones: the document is bundled) to the node they name. */
  resolve(node: unknown, seen: string[] = []): { node: Node; refs: string[] } {
    let current = node;
    const refs = [...seen];
    for (let hops = 0; isNode(current) && typeof current.$ref === 'string'; hops++) {
      const ref = current.$ref;
      if (hops > 20 || !ref.startsWith('#')) throw new BrokenReference(`cannot follow the reference ${ref}`);
      refs.push(ref);
      const target = pointer(this.document, ref);
      if (target === undefined) throw new BrokenReference(`the reference ${ref} names nothing in the document`);
      // 3.1 lets a reference carry a description of its own beside it.
      const { $ref: _, ...siblings } = current;
      current = Object.keys(siblings).length && isNode(target) ? { ...target, ...siblings } : target;
    }
    return { node: isNode(current) ? current : {}, refs };
  }

  /** Subschemas a conversion may still write: a schema that inlines the same large parts many times is cut. */
  private budget = 0;

  convert(schema: unknown, options: SchemaOptions = {}): Node {
    this.budget = MAX_NODES;
    return this.walk(schema, options, [], 0, false);
  }

  private walk(input: unknown, options: SchemaOptions, stack: string[], depth: number, inAllOf: boolean): Node {
    if (input === true || input === undefined) return {};
    if (input === false) return { not: {} };
    if (isNode(input) && typeof input.$ref === 'string' && stack.includes(input.$ref)) {
      this.cycles.add(input.$ref);
      const target = this.resolve(input).node;
      return openOf(target);
    }
    const { node: source, refs } = this.resolve(input, stack);
    if (depth > MAX_DEPTH || --this.budget < 0) return openOf(source);
    const next = (child: unknown, allOfBranch = false) => this.walk(child, options, refs, depth + 1, allOfBranch);
    let out: Node = {};

    // Types: 3.0 nullable and 3.1 type lists both become a list with null.
    let types: string[] | undefined = Array.isArray(source.type) ? (source.type as string[]) : typeof source.type === 'string' ? [source.type] : undefined;
    if (types?.includes('file')) types = types.map((type) => (type === 'file' ? 'string' : type));
    if (source.nullable === true && types && !types.includes('null')) types = [...types, 'null'];
    if (!types && (isNode(source.properties) || isNode(source.additionalProperties))) types = ['object'];
    if (types) out.type = types.length === 1 ? types[0] : [...new Set(types)];

    const description = plainText(source.description ?? source.title);
    const defaultText = source.default !== undefined && typeof source.default !== 'object' ? `Default: ${JSON.stringify(source.default)}.` : '';
    const text = shorten([description, defaultText].filter(Boolean).join(' '), 200);
    if (text) out.description = text;

    if (Array.isArray(source.enum)) {
      const values = source.nullable === true && !source.enum.includes(null) ? [...source.enum, null] : source.enum;
      // A value listed twice (a document's slip) is listed once: JSON Schema refuses an enum with repeats.
      out.enum = uniqueValues(values);
    }
    if ('const' in source) out.const = source.const;
    if (typeof source.format === 'string' && FORMATS.has(source.format)) out.format = source.format;
    if (typeof source.pattern === 'string' && validPattern(source.pattern)) out.pattern = source.pattern;
    for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'multipleOf']) {
      if (source[keyword] !== undefined) out[keyword] = source[keyword];
    }
    // 3.0's boolean exclusive bounds become JSON Schema's numeric ones.
    for (const [bound, exclusive] of [
      ['minimum', 'exclusiveMinimum'],
      ['maximum', 'exclusiveMaximum'],
    ] as const) {
      if (source[exclusive] === true && typeof source[bound] === 'number') out[exclusive] = source[bound];
      else {
        if (typeof source[bound] === 'number') out[bound] = source[bound];
        if (typeof source[exclusive] === 'number') out[exclusive] = source[exclusive];
      }
    }

    if (isNode(source.properties)) {
      const properties: Node = {};
      const dropped = new Set<string>();
      for (const [name, child] of Object.entries(source.properties)) {
        const resolved = this.resolveQuietly(child);
        if (options.request && resolved?.readOnly === true) {
          dropped.add(name);
          continue;
        }
        properties[name] = next(child);
      }
      out.properties = properties;
      const required = Array.isArray(source.required) ? (source.required as string[]).filter((name) => !dropped.has(name)) : [];
      if (required.length) out.required = [...new Set(required)];
    } else if (Array.isArray(source.required) && source.required.length) {
      // Names required of properties listed elsewhere (in allOf parts): kept once the parts are merged.
      out.required = source.required;
    }
    if (source.additionalProperties !== undefined) {
      out.additionalProperties = typeof source.additionalProperties === 'boolean' ? source.additionalProperties : next(source.additionalProperties);
    }
    if (isNode(source.patternProperties)) {
      out.patternProperties = Object.fromEntries(
        Object.entries(source.patternProperties)
          .filter(([pattern]) => validPattern(pattern))
          .map(([pattern, child]) => [pattern, next(child)]),
      );
    }
    if (Array.isArray(source.prefixItems)) out.items = source.prefixItems.length ? next(source.prefixItems[0]) : {};
    if (source.items !== undefined) out.items = Array.isArray(source.items) ? next(source.items[0]) : next(source.items);
    if (out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array'))) out.items ??= {};
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(source[keyword])) {
        const branches = (source[keyword] as unknown[]).map((branch) => next(branch));
        // Closed variants (request bodies) stay exclusive; open ones overlap, so oneOf is read as anyOf.
        const target = keyword === 'oneOf' && options.close && !out.anyOf && branches.every(exclusive) ? 'oneOf' : 'anyOf';
        out[target] = [...((out[target] as Node[] | undefined) ?? []), ...branches];
      }
    }
    // `type: null` beside a union (`{type: 'null', oneOf: [string, number]}`) asks for a value that is both at
    // once; documents mean the union or null (as the emulator reads it too).
    const union = Array.isArray(out.anyOf) ? 'anyOf' : Array.isArray(out.oneOf) ? 'oneOf' : undefined;
    if (out.type === 'null' && union) {
      delete out.type;
      out[union] = [...(out[union] as Node[]), { type: 'null' }];
    }
    if (Array.isArray(out.oneOf) && out.oneOf.length === 1) {
      const [branch] = out.oneOf as Node[];
      delete out.oneOf;
      out = mergeNodes(out, branch!) ?? { ...out, oneOf: [branch] };
    }
    if (Array.isArray(out.anyOf)) {
      const branches = out.anyOf as Node[];
      // A branch that only says null (3.1's way of writing nullable) joins the type list.
      if (branches.length === 2 && branches.some((branch) => branch.type === 'null' && Object.keys(branch).length === 1)) {
        const other = branches.find((branch) => !(branch.type === 'null' && Object.keys(branch).length === 1))!;
        delete out.anyOf;
        out = mergeNodes(out, withNull(other)) ?? { ...out, anyOf: branches };
      } else if (branches.length === 1) {
        delete out.anyOf;
        out = mergeNodes(out, branches[0]!) ?? { ...out, anyOf: branches };
      }
    }
    if (Array.isArray(source.allOf)) {
      let parts = source.allOf.map((branch) => next(branch, true));
      // A part that only says null (`allOf: [Currency, {type: 'null'}]`) asks for a value that is both at
      // once; documents mean the other parts, or null (as the emulator reads it too).
      const onlyNull = (part: Node) => part.type === 'null' && Object.keys(part).every((key) => key === 'type' || key === 'description');
      const orNull = parts.some(onlyNull) && !parts.every(onlyNull);
      if (orNull) parts = parts.filter((part) => !onlyNull(part));
      const merged = parts.reduce<Node | undefined>((acc, part) => acc && mergeNodes(acc, part), out);
      if (merged) out = merged;
      else out.allOf = parts;
      if (orNull) out = withNull(out);
    }
    if (Array.isArray(out.required) && isNode(out.properties) && !out.anyOf && !out.oneOf && !out.allOf) {
      // A required name the document lists no property for is still required: it becomes a property of any value.
      const properties = out.properties as Node;
      for (const name of out.required as string[]) if (!(name in properties)) properties[name] = {};
    }
    const composed = out.anyOf || out.oneOf || out.allOf;
    if (options.close && !inAllOf && !composed && isNode(out.properties) && Object.keys(out.properties).length && out.additionalProperties === undefined) {
      out.additionalProperties = false;
    }
    return out;
  }

  private resolveQuietly(node: unknown): Node | undefined {
    try {
      return this.resolve(node).node;
    } catch {
      return undefined;
    }
  }
}

/** A JSON pointer (`#/components/schemas/Pet`) into the document. */
export function pointer(document: unknown, ref: string): unknown {
  const parts = ref.replace(/^#\/?/, '').split('/').filter(Boolean);
  let node: unknown = document;
  for (const part of parts) {
    const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Node)[key];
  }
  return node;
}

/** An open value of the node's type: where a schema refers to itself, or nests too deep. */
function openOf(node: Node): Node {
  const type = typeof node.type === 'string' ? node.type : isNode(node.properties) ? 'object' : undefined;
  return type && type !== 'null' ? { type } : {};
}

/** A variant that tells itself apart: a closed object, or a value of one scalar type or enum. */
function exclusive(node: Node): boolean {
  if (node.additionalProperties === false || Array.isArray(node.enum) || 'const' in node) return true;
  return typeof node.type === 'string' && node.type !== 'object' && !node.anyOf && !node.oneOf;
}

function withNull(node: Node): Node {
  const type = node.type;
  if (typeof type === 'string') return { ...node, type: [type, 'null'], ...(Array.isArray(node.enum) && { enum: [...node.enum, null] }) };
  if (Array.isArray(type)) return { ...node, type: [...new Set([...type, 'null'])] };
  return { anyOf: [node, { type: 'null' }] };
}

/**
 * Two schemas that must both hold, as one, or undefined when that would change their meaning: properties
 * and required names are joined, types intersected, a later description does not replace an earlier one.
 */
export function mergeNodes(a: Node, b: Node): Node | undefined {
  const out: Node = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) out[key] = value;
    else if (key === 'description') continue;
    else if (key === 'properties' && isNode(value) && isNode(out.properties)) {
      const properties: Node = { ...out.properties };
      for (const [name, schema] of Object.entries(value)) {
        const existing = properties[name];
        properties[name] = isNode(existing) && isNode(schema) ? (mergeNodes(existing, schema) ?? schema) : schema;
      }
      out.properties = properties;
    } else if (key === 'required' && Array.isArray(value)) out.required = [...new Set([...(out.required as string[]), ...value])];
    else if (key === 'type') {
      const left = Array.isArray(out.type) ? (out.type as string[]) : [out.type as string];
      const right = Array.isArray(value) ? (value as string[]) : [value as string];
      const both = left.filter((type) => right.includes(type) || (type === 'number' && right.includes('integer')));
      const joined = both.map((type) => (type === 'number' && right.includes('integer') && !right.includes('number') ? 'integer' : type));
      if (!joined.length) return undefined;
      out.type = joined.length === 1 ? joined[0] : joined;
    } else if (key === 'additionalProperties') {
      // The merged object lists every part's properties: a part closed on its own ones does not close the whole.
      const open = [out.additionalProperties, value].filter((item) => item !== false);
      if (open.length) out.additionalProperties = open[0];
      else delete out.additionalProperties;
    } else if (JSON.stringify(out[key]) !== JSON.stringify(value)) return undefined;
  }
  return out;
}

function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** A scalar, or a list of scalars: what a flat body's field may be. */
export function isSimple(schema: Node): boolean {
  if (schema.anyOf || schema.oneOf || schema.allOf || schema.not) return false;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (!types.length) return 'const' in schema || (Array.isArray(schema.enum) && schema.enum.every((value) => value === null || typeof value !== 'object'));
  if (types.every((type) => SCALARS.has(type))) return true;
  if (types.filter((type) => type !== 'null').length === 1 && types.includes('array')) {
    return isNode(schema.items) && isSimple(schema.items) && !(isNode(schema.items) && (schema.items.type === 'array' || schema.items.type === 'object'));
  }
  return false;
}

/** The values in their order, each once (equal as JSON). */
function uniqueValues(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value) ?? 'undefined';
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
