/**
 * OpenAPI schemas (3.0 and 3.1) as the JSON Schema the emulator's validator applies strictly: component
 * references point into `$defs`, each component twice (as a request reads it, where a read-only property is
 * never required, and as a response reads it, where a write-only one is never required), 3.0's `nullable`
 * and boolean `exclusiveMinimum` become their JSON Schema forms, `allOf` of objects is merged into one object
 * (the validator closes objects, and a closed part would refuse the other parts' fields), `oneOf` becomes
 * `anyOf` (variants of open objects overlap), an `example` becomes `examples`, and prose keywords are dropped.
 */
import type { JsonSchema } from '../emulator/operations.js';

/** A node of the document as parsed JSON: read loosely, as the document's shape is only what it claims. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of any shape
export type Node = Record<string, any>;
export type Mode = 'request' | 'response';

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
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'examples',
  'default',
  'readOnly',
  'writeOnly',
]);

/** Formats the validator checks; the others (int32 ranges aside) only document. */
const FORMATS = new Set(['date-time', 'date', 'time', 'uri', 'email', 'uuid', 'ipv4', 'ipv6', 'hostname', 'int32', 'int64']);

const SCHEMA_REF = '#/components/schemas/';

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** `{type: 'null'}` alone: a part or variant that only says the value may be null. */
const onlyNull = (schema: JsonSchema) =>
  schema.type === 'null' && Object.keys(schema).every((key) => key === 'type' || key === 'examples' || key === 'default');

/** `#/$defs/<name>@<mode>`: the name a converted component goes by. */
export const defName = (name: string, mode: Mode) => `${name}@${mode}`;

export class SchemaConverter {
  /** Converted components by def name; registered before conversion so that a recursive one finds itself. */
  readonly defs = new Map<string, JsonSchema>();

  constructor(private readonly document: Node) {}

  /** The node a `$ref` (internal, `#/...`) names, following chains. */
  follow<T = Node>(item: Node): T {
    let node = item;
    for (let hops = 0; node && typeof node.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`OpenAPI document: reference loop at ${item.$ref}`);
      const target = resolvePointer(this.document, node.$ref as string);
      if (target === undefined) throw new Error(`OpenAPI document: dangling reference ${item.$ref}`);
      node = target;
    }
    return node as T;
  }

  convert(schema: unknown, mode: Mode, depth = 0): JsonSchema {
    if (schema === true || schema === undefined || schema === null) return {};
    if (schema === false) return { not: {} };
    const node = schema as Node;
    if (typeof node.$ref === 'string') {
      const ref = node.$ref as string;
      // A component, or a schema inside one (`#/components/schemas/Pet/properties/owner`), is one definition,
      // so that a schema that refers to itself, however deep, is followed as far as the data goes.
      if (ref.startsWith(SCHEMA_REF)) return { $ref: `#/$defs/${this.component(ref, mode)}` };
      if (depth > 30) throw new Error(`OpenAPI document: reference too deep at ${ref}`);
      return this.convert(this.follow(node), mode, depth + 1);
    }
    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(node)) {
      if (!KEPT.has(keyword)) continue;
      switch (keyword) {
        case 'properties':
          out.properties = Object.fromEntries(Object.entries(value as Node).map(([name, child]) => [name, this.convert(child, mode, depth + 1)]));
          break;
        case 'items':
          out.items = Array.isArray(value) ? value.map((child) => this.convert(child, mode, depth + 1)) : this.convert(value, mode, depth + 1);
          break;
        case 'additionalProperties':
        case 'not':
          out[keyword] = typeof value === 'boolean' ? value : this.convert(value, mode, depth + 1);
          break;
        case 'anyOf':
        case 'oneOf':
        case 'allOf':
          out[keyword === 'oneOf' ? 'anyOf' : keyword] = (value as Node[]).map((child) => this.convert(child, mode, depth + 1));
          break;
        case 'format':
          if (FORMATS.has(value as string)) out.format = value;
          break;
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
          // 3.0: a flag on minimum/maximum; 3.1: the bound itself.
          if (typeof value === 'number') out[keyword] = value;
          break;
        case 'required':
          if (Array.isArray(value) && value.length) out.required = [...value];
          break;
        case 'type': {
          // Only JSON types (Swagger's `file` is a string); a schema written where its type belongs
          // (`type: {type: string, enum: [...]}`) says no type, as the importer reads it too.
          const types = (Array.isArray(value) ? value : [value]).map((type) => (type === 'file' ? 'string' : type));
          if (types.length && types.every((type) => typeof type === 'string' && JSON_TYPES.has(type))) out.type = Array.isArray(value) ? types : types[0];
          break;
        }
        case 'pattern': {
          const usable = usablePattern(value);
          if (usable !== undefined) out.pattern = usable;
          break;
        }
        case 'enum':
          // Documents repeat values; the validator refuses such a schema.
          if (Array.isArray(value)) out.enum = [...new Map(value.map((item) => [JSON.stringify(item), item])).values()];
          break;
        case 'examples':
          if (Array.isArray(value) && value.length) out.examples = value;
          break;
        default:
          out[keyword] = value;
      }
    }
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (node[flag] === true && typeof node[bound] === 'number') {
        out[flag] = node[bound];
        delete out[bound];
      }
    }
    if ('example' in node && !out.examples) out.examples = [node.example];
    // A read-only property is the server's to set: a request need not send it. A write-only one is never answered.
    if (Array.isArray(out.required) && out.properties) {
      const skipped = mode === 'request' ? 'readOnly' : 'writeOnly';
      const properties = node.properties as Node;
      const kept = (out.required as string[]).filter((name) => {
        const child = properties?.[name] && this.follow(properties[name]);
        return !(child && child[skipped] === true);
      });
      if (kept.length) out.required = kept;
      else delete out.required;
    }
    // A required field the schema does not describe would be refused by the closed object: it may be anything.
    if (Array.isArray(out.required) && out.properties) {
      const properties = out.properties as Node;
      for (const name of out.required as string[]) properties[name] ??= {};
    }
    // `additionalProperties: false` beside a union and no properties of its own refuses every field the union
    // describes; documents mean the union's fields.
    if (out.additionalProperties === false && !out.properties && (out.anyOf || out.allOf || out.oneOf)) delete out.additionalProperties;
    let orNull = node.nullable === true;
    // `type: null` beside a union (`{type: 'null', oneOf: [string, number]}`) contradicts itself as written;
    // documents mean the union or null.
    if ((out.type === 'null' || (Array.isArray(out.type) && out.type.length === 1 && out.type[0] === 'null')) && Array.isArray(out.anyOf)) {
      delete out.type;
      orNull = true;
    }
    // An allOf part that only says null (`allOf: [Currency, {type: 'null'}]`) asks for a value that is both:
    // documents mean the other parts, or null.
    if (Array.isArray(out.allOf) && (out.allOf as JsonSchema[]).some(onlyNull) && !(out.allOf as JsonSchema[]).every(onlyNull)) {
      out.allOf = (out.allOf as JsonSchema[]).filter((part) => !onlyNull(part));
      orNull = true;
    }
    // A part that says nothing (`allOf: [{}, {$ref: DateTime}]`) asks nothing.
    if (Array.isArray(out.allOf)) {
      out.allOf = (out.allOf as JsonSchema[]).filter((part) => Object.keys(part).length > 0);
      if ((out.allOf as JsonSchema[]).length === 0) delete out.allOf;
    }
    let merged = Array.isArray(out.allOf) ? this.mergeAllOf(out) : out;
    // Properties beside a union of objects (`{properties: {type}, anyOf: [A, B]}`): the value is one of the
    // variants and has those properties too, so it is read as allOf [the properties, the union], merged.
    if (Array.isArray(merged.anyOf) && !merged.allOf && (merged.properties || merged.required)) {
      const { anyOf, ...rest } = merged;
      const distributed = this.mergeAllOf({ ...rest, allOf: [{ anyOf }] });
      if (!distributed.allOf) merged = distributed;
    }
    return orNull ? nullable(merged) : merged;
  }

  /** A component (or a schema inside one) converted once per mode; answers its def name. */
  private component(ref: string, mode: Mode): string {
    // A component by its name; a schema inside one by the pointer's parts joined with `:` (a `/` would read as a pointer).
    const name = ref.slice(SCHEMA_REF.length).split('/').map(decodePart).join(':');
    const key = defName(name, mode);
    if (!this.defs.has(key)) {
      const source = resolvePointer(this.document, ref);
      if (source === undefined) throw new Error(`OpenAPI document: no schema ${ref.slice(SCHEMA_REF.length)}`);
      const schema: JsonSchema = {};
      this.defs.set(key, schema);
      Object.assign(schema, this.convert(source, mode));
    }
    return key;
  }

  /** The schema a `$ref` to a converted component stands for (itself otherwise). */
  inline(schema: JsonSchema): JsonSchema {
    let at = schema;
    for (let hops = 0; typeof at.$ref === 'string' && hops < 20; hops++) at = this.defs.get((at.$ref as string).replace('#/$defs/', '')) ?? {};
    return at;
  }

  /** Every reference replaced by what it names, for schemas compiled alone (parameters); a recursive one is cut off. */
  inlineAll(schema: JsonSchema, depth = 0): JsonSchema {
    if (depth > 8) return {};
    const at = this.inline(schema);
    const out: JsonSchema = { ...at };
    if (at.properties) out.properties = Object.fromEntries(Object.entries(at.properties as Node).map(([k, v]) => [k, this.inlineAll(v, depth + 1)]));
    if (at.items && !Array.isArray(at.items)) out.items = this.inlineAll(at.items as JsonSchema, depth + 1);
    if (typeof at.additionalProperties === 'object') out.additionalProperties = this.inlineAll(at.additionalProperties as JsonSchema, depth + 1);
    for (const keyword of ['anyOf', 'allOf'] as const) {
      if (Array.isArray(at[keyword])) out[keyword] = (at[keyword] as JsonSchema[]).map((item) => this.inlineAll(item, depth + 1));
    }
    return out;
  }

  /**
   * `allOf: [Base, {properties}]` → one object with every part's properties and required names. A part that is
   * a union of objects (`allOf: [Base, oneOf: [A, B]]`) makes the result a union of merges (Base+A, Base+B), as
   * closed objects could not be met otherwise. Other allOfs stay.
   */
  private mergeAllOf(schema: JsonSchema): JsonSchema {
    const { allOf, ...rest } = schema;
    // An object part may also allow null (a nullable part): beside the other, object, parts only its object counts.
    const objectLike = (part: JsonSchema) =>
      (part.type === 'object' ||
        (Array.isArray(part.type) && part.type.includes('object') && part.type.every((type) => type === 'object' || type === 'null')) ||
        (part.type === undefined && (part.properties || part.required || part.additionalProperties !== undefined))) &&
      !part.anyOf &&
      !part.allOf;
    const expand = (part: JsonSchema): JsonSchema[] | undefined => {
      let inlined = this.inline(part);
      if (Array.isArray(inlined.allOf)) inlined = this.mergeAllOf(inlined);
      if (objectLike(inlined)) return [inlined];
      if (Array.isArray(inlined.anyOf) && Object.keys(inlined).length === 1) {
        // A null variant (a nullable part) cannot meet the other, object, parts.
        const variants = (inlined.anyOf as JsonSchema[]).filter((variant) => !onlyNull(this.inline(variant))).map((variant) => expand(variant));
        return variants.length && variants.every((variant) => variant?.length === 1) ? variants.map((variant) => variant![0]!) : undefined;
      }
      return undefined;
    };
    const parts = (allOf as JsonSchema[]).map(expand);
    if (parts.length === 0 || parts.some((part) => part === undefined) || (rest.type !== undefined && rest.type !== 'object')) return schema;
    let combinations: JsonSchema[][] = [[]];
    for (const part of parts as JsonSchema[][]) {
      combinations = combinations.flatMap((combination) => part.map((variant) => [...combination, variant]));
      if (combinations.length > 50) return schema;
    }
    const merge = (chosen: JsonSchema[]): JsonSchema => {
      const merged: JsonSchema = { ...rest, type: 'object', properties: { ...((rest.properties as Node) ?? {}) } };
      const properties = merged.properties as Node;
      const required = new Set<string>((rest.required as string[] | undefined) ?? []);
      for (const part of chosen) {
        // A part's placeholder for a field another part describes does not replace that description.
        for (const [name, child] of Object.entries((part.properties as Node | undefined) ?? {})) {
          if (!(name in properties) || Object.keys(child).length > 0) properties[name] = child;
        }
        for (const name of (part.required as string[] | undefined) ?? []) required.add(name);
        if ('additionalProperties' in part) merged.additionalProperties = part.additionalProperties;
        if (merged.examples === undefined && part.examples) merged.examples = part.examples;
      }
      if (required.size) merged.required = [...required];
      // A required field no part describes would be refused by the closed object: it may be anything.
      if (merged.additionalProperties === undefined || merged.additionalProperties === false) for (const name of required) properties[name] ??= {};
      if (Object.keys(properties).length === 0) delete merged.properties;
      return merged;
    };
    return combinations.length === 1 ? merge(combinations[0]!) : { anyOf: combinations.map(merge) };
  }

  /** The converted components, by def name. */
  definitions(): Record<string, JsonSchema> {
    return Object.fromEntries(this.defs);
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && !schema.anyOf) {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function decodePart(part: string): string {
  return decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function resolvePointer(document: Node, ref: string): Node | undefined {
  if (!ref.startsWith('#')) throw new Error(`OpenAPI document: external reference ${ref} (bundle the document first)`);
  const parts = ref.slice(1).split('/').slice(1).map(decodePart);
  return parts.reduce<Node | undefined>((at, part) => (at === undefined || at === null ? undefined : at[part]), document);
}

/**
 * A form field arrives as text (urlencoded or multipart): its schema, read as text. Numbers and booleans
 * become patterns over their written forms, enums their written values, arrays one value or several
 * (repeated keys), objects and files any text.
 */
export function asFormField(schema: JsonSchema, repeated: boolean): JsonSchema {
  if (Array.isArray(schema.anyOf)) return { anyOf: (schema.anyOf as JsonSchema[]).map((part) => asFormField(part, repeated)) };
  const types = Array.isArray(schema.type) ? (schema.type as string[]).filter((type) => type !== 'null') : [schema.type];
  const type = types[0] as string | undefined;
  const enumerated = Array.isArray(schema.enum) ? { enum: (schema.enum as unknown[]).filter((value) => value !== null).map(String) } : {};
  switch (type) {
    case 'integer':
      return { type: 'string', pattern: '^-?\\d+$', ...enumerated };
    case 'number':
      return { type: 'string', pattern: '^-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?$', ...enumerated };
    case 'boolean':
      return { type: 'string', enum: ['true', 'false'] };
    case 'array': {
      const item = asFormField((schema.items as JsonSchema | undefined) ?? {}, false);
      return repeated ? { anyOf: [item, { type: 'array', items: item }] } : item;
    }
    case 'string': {
      const { format: _, ...rest } = schema;
      return rest;
    }
    default:
      return { type: 'string' };
  }
}

/**
 * A pattern the validator can compile (it reads patterns as Unicode regular expressions, where escaping a
 * character that needs none is an error): as written, else without those escapes, else none.
 */
function usablePattern(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  for (const candidate of [value, value.replace(/\\([^A-Za-z0-9\\^$.*+?()[\]{}|/-])/g, '$1')]) {
    try {
      new RegExp(candidate, 'u');
      return candidate;
    } catch {
      // the next reading
    }
  }
  return undefined;
}
