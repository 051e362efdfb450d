/**
 * Extracts a few operations of a published OpenAPI description (3.0 or 3.1) into the operation table an
 * emulator loads (packages/sandbox/src/emulator/operations.ts): parameters, request and response bodies,
 * and only the component schemas they reach. Large descriptions (Microsoft Graph's is 20 MB) are read here,
 * at generation time, so that an emulator starts from a small committed file.
 *
 * Schemas become the JSON Schema the emulator's validator applies strictly: references point into `$defs`,
 * OpenAPI 3.0's `nullable` becomes a `null` type, `allOf` is merged into one object (the validator closes
 * objects, and a closed part would refuse the other parts' fields), `oneOf` becomes `anyOf` (variants of
 * open objects overlap), and prose keywords are dropped.
 */
import type { JsonSchema, Operation, OperationTable, QueryParameter } from '../../packages/sandbox/src/emulator/operations.js';

type Node = Record<string, any>;

export interface OperationSelection {
  /** Label in the table (the description's operationId, usually). */
  label: string;
  method: string;
  /** The path as the description writes it. */
  path: string;
  /** The path the emulator serves, when the wire form differs (Graph drops the `microsoft.graph.` prefix). */
  servedPath?: string;
  /** Overrides the status the description documents (Graph documents 204 where the service answers 202). */
  successStatus?: number;
}

export interface TableOptions {
  /** Names the description in error messages. */
  source: string;
  /** Component schemas used in place of the description's (written as OpenAPI, refs included). */
  replacements?: Record<string, Node>;
  /** Properties left out of every schema (navigation properties that are never returned unless expanded). */
  dropProperty?: (name: string, schema: Node) => boolean;
  /** Names removed from every `required` list (Graph's description requires `@odata.type`, which no client sends). */
  notRequired?: string[];
  /** Extra values for enumerated query parameters, by operation label and parameter name. */
  extraQueryValues?: Record<string, Record<string, string[]>>;
}

const KEPT = new Set([
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'const',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  'nullable',
]);

/** Formats the validator checks; the descriptions' others (int32, double, base64url) only document. */
const FORMATS = new Set(['date-time', 'date', 'uri', 'email', 'uuid']);

const SCHEMA_REF = '#/components/schemas/';

export function extractOperations(description: Node, selections: OperationSelection[], options: TableOptions): OperationTable {
  const converter = new Converter(description, options);
  const operations: Record<string, Operation> = {};
  for (const selection of selections) {
    const item = description.paths?.[selection.path];
    const source = item?.[selection.method.toLowerCase()];
    if (!source) throw new Error(`${options.source}: no ${selection.method} ${selection.path}`);
    operations[selection.label] = converter.operation(selection, item, source);
  }
  return { $defs: converter.definitions(operations), operations };
}

class Converter {
  private readonly converted = new Map<string, JsonSchema>();

  constructor(
    private readonly description: Node,
    private readonly options: TableOptions,
  ) {}

  operation(selection: OperationSelection, item: Node, source: Node): Operation {
    const operation: Operation = {
      method: selection.method.toUpperCase(),
      path: selection.servedPath ?? selection.path,
      pathParameters: {},
      queryParameters: {},
      successStatus: 0,
    };
    for (const parameter of [...(item.parameters ?? []), ...(source.parameters ?? [])].map((p: Node) => this.follow(p))) {
      if (parameter.in === 'path') operation.pathParameters[parameter.name] = this.parameterSchema(parameter, selection.label);
      if (parameter.in === 'query') {
        const schema = this.parameterSchema(parameter, selection.label);
        const query: QueryParameter = { required: parameter.required === true, schema };
        // The emulator splits such a value at its commas (`$select=id,subject`) and checks each item.
        if (schema.type === 'array' && parameter.explode === false) query.explode = false;
        operation.queryParameters[parameter.name] = query;
      }
    }
    if (source.requestBody) {
      const body = this.follow(source.requestBody);
      const contentType = 'application/json';
      if (!body.content?.[contentType]) throw new Error(`${this.options.source}: ${selection.label} takes no JSON body`);
      operation.requestContentType = contentType;
      operation.requestBody = this.convert(body.content[contentType].schema ?? {});
      if (body.required !== true) operation.requestBodyOptional = true;
    }
    const [status, response] = successOf(source, selection);
    operation.successStatus = status;
    const schema = response && this.follow(response).content?.['application/json']?.schema;
    if (schema) operation.responseBody = this.convert(schema);
    return operation;
  }

  /** Parameters are compiled alone, so their schemas carry no references. */
  private parameterSchema(parameter: Node, label: string): JsonSchema {
    let schema = this.inlineAll(this.convert(parameter.schema ?? {}));
    const extra = this.options.extraQueryValues?.[label]?.[parameter.name];
    if (extra) schema = withExtraValues(schema, extra);
    return schema;
  }

  convert(schema: Node): JsonSchema {
    if (typeof schema.$ref === 'string') return { $ref: `#/$defs/${this.reference(schema.$ref)}` };
    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(schema)) {
      if (!KEPT.has(keyword)) continue;
      if (keyword === 'properties') {
        const kept = Object.entries(value as Record<string, Node>).filter(([name, child]) => !this.options.dropProperty?.(name, child));
        out.properties = Object.fromEntries(kept.map(([name, child]) => [name, this.convert(child)]));
      } else if (keyword === 'items' || (keyword === 'additionalProperties' && typeof value === 'object')) {
        out[keyword] = this.convert(value as Node);
      } else if (keyword === 'anyOf' || keyword === 'allOf') {
        out[keyword] = (value as Node[]).map((child) => this.convert(child));
      } else if (keyword === 'oneOf') {
        out.anyOf = (value as Node[]).map((child) => this.convert(child));
      } else if (keyword === 'required') {
        const dropped = new Set(this.options.notRequired ?? []);
        const names = (value as string[]).filter((name) => !dropped.has(name));
        if (names.length) out.required = names;
      } else if (keyword === 'format') {
        if (FORMATS.has(value as string)) out.format = value;
      } else if (keyword !== 'nullable') {
        out[keyword] = value;
      }
    }
    const merged = out.allOf ? this.mergeAllOf(out) : out;
    return schema.nullable === true ? nullable(merged) : merged;
  }

  /** The `$defs` the operations reach, and only those (a base merged into its heirs is no longer one). */
  definitions(operations: Record<string, Operation>): Record<string, JsonSchema> {
    const reached: Record<string, JsonSchema> = {};
    const pending = [...referencedNames(Object.values(operations).map((operation) => [operation.requestBody, operation.responseBody]))];
    while (pending.length) {
      const name = pending.pop()!;
      if (reached[name]) continue;
      reached[name] = this.converted.get(name)!;
      pending.push(...referencedNames(reached[name]));
    }
    return Object.fromEntries(
      Object.keys(reached)
        .sort()
        .map((name) => [name, reached[name]!]),
    );
  }

  private reference(ref: string): string {
    if (!ref.startsWith(SCHEMA_REF)) throw new Error(`${this.options.source}: unexpected reference ${ref}`);
    const name = ref.slice(SCHEMA_REF.length);
    if (!this.converted.has(name)) {
      const source = this.options.replacements?.[name] ?? this.description.components?.schemas?.[name];
      if (!source) throw new Error(`${this.options.source}: no schema ${name}`);
      // Registered before converting so that a schema that refers to itself finds its entry.
      const schema: JsonSchema = {};
      this.converted.set(name, schema);
      Object.assign(schema, this.convert(source));
    }
    return name;
  }

  /** `allOf: [Base, {properties}]` → one object with every part's properties and required names. */
  private mergeAllOf(schema: JsonSchema): JsonSchema {
    const { allOf, ...rest } = schema;
    const parts = (allOf as JsonSchema[]).map((part) => this.inline(part));
    if (!parts.every((part) => part.type === 'object' || (part.properties && !part.type))) {
      throw new Error(`${this.options.source}: cannot merge an allOf of non-objects`);
    }
    const merged: JsonSchema = { ...rest, type: 'object', properties: {} };
    const required = new Set<string>();
    for (const part of parts) {
      Object.assign(merged.properties as JsonSchema, part.properties);
      for (const name of (part.required as string[] | undefined) ?? []) required.add(name);
      if ('additionalProperties' in part) merged.additionalProperties = part.additionalProperties;
    }
    if (required.size) merged.required = [...required];
    return merged;
  }

  private inline(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    return typeof ref === 'string' ? this.converted.get(ref.replace('#/$defs/', ''))! : schema;
  }

  /** Replaces every reference by what it names (for parameter schemas). */
  private inlineAll(schema: JsonSchema, depth = 0): JsonSchema {
    if (depth > 10) throw new Error(`${this.options.source}: a parameter schema refers to itself`);
    if (typeof schema.$ref === 'string') return this.inlineAll(this.inline(schema), depth + 1);
    const out: JsonSchema = { ...schema };
    if (schema.items) out.items = this.inlineAll(schema.items as JsonSchema, depth + 1);
    if (Array.isArray(schema.anyOf)) out.anyOf = (schema.anyOf as JsonSchema[]).map((item) => this.inlineAll(item, depth + 1));
    return out;
  }

  private follow(item: Node): Node {
    let node = item;
    for (let hops = 0; typeof node?.$ref === 'string'; hops++) {
      if (hops > 5) throw new Error(`${this.options.source}: reference loop at ${item.$ref}`);
      const parts = (node.$ref as string).replace(/^#\//, '').split('/');
      node = parts.reduce((at: Node, part) => at?.[part], this.description);
      if (!node) throw new Error(`${this.options.source}: dangling reference ${item.$ref}`);
    }
    return node;
  }
}

function successOf(source: Node, selection: OperationSelection): [number, Node | undefined] {
  const entries = Object.entries<Node>(source.responses ?? {});
  const success = entries.find(([status]) => /^2/.test(status));
  if (!success) throw new Error(`${selection.label}: no success response`);
  const documented = /^\d+$/.test(success[0]) ? Number(success[0]) : 200;
  return [selection.successStatus ?? documented, success[1]];
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && !schema.anyOf) {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function withExtraValues(schema: JsonSchema, extra: string[]): JsonSchema {
  const items = schema.items as JsonSchema | undefined;
  if (items?.enum) return { ...schema, items: { ...items, enum: [...(items.enum as string[]), ...extra] } };
  if (schema.enum) return { ...schema, enum: [...(schema.enum as string[]), ...extra] };
  throw new Error('extra values for a parameter that enumerates none');
}

/** An array of enumerated names sent as one comma-separated text: a pattern over the names. */
export function referencedNames(schema: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) referencedNames(item, into);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') into.add(value.replace('#/$defs/', ''));
      else referencedNames(value, into);
    }
  }
  return into;
}

/** JSON with sorted object keys, so that a regeneration changes nothing unless the input did. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Node)[key])]),
    );
  }
  return value;
}
