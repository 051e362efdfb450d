/**
 * Turns the description's OpenAPI 3.0 schemas into the JSON Schema the shared validator reads:
 * component references become `#/$defs/Name`, `nullable` becomes a `null` type, and `allOf` of
 * objects is merged into one object (the validator closes objects, and a closed part of an `allOf`
 * would refuse the other parts' fields). Prose keywords are dropped; `example` and `default` are
 * kept because the sample responses are built from them.
 */
import type { JsonSchema } from '../../packages/sandbox/src/emulator/operations.js';

const KEPT = new Set([
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'format',
  'pattern',
  'minimum',
  'maximum',
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
  '$ref',
  'nullable',
  'example',
  'default',
]);

/** Formats the validator knows (ajv-formats); others, like GitHub's `repo.nwo`, are documentation only. */
const FORMATS = new Set(['uri', 'uri-template', 'date-time', 'date', 'email', 'int32', 'int64', 'binary']);

const COMPONENT = '#/components/schemas/';

export class SchemaConverter {
  private readonly converted = new Map<string, JsonSchema>();

  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** A component schema, converted once; its references stay references. */
  definition(name: string): JsonSchema {
    let schema = this.converted.get(name);
    if (!schema) {
      const source = this.components[name];
      if (!source) throw new Error(`GitHub description: no schema ${name}`);
      // Registered before converting so that a schema that refers to itself finds its entry.
      schema = {};
      this.converted.set(name, schema);
      Object.assign(schema, this.convert(source));
    }
    return schema;
  }

  convert(schema: JsonSchema): JsonSchema {
    if (typeof schema.$ref === 'string') return { $ref: `#/$defs/${refName(schema.$ref)}` };
    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(schema)) {
      if (!KEPT.has(keyword)) continue;
      if (keyword === 'properties') {
        out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, child]) => [name, this.convert(child)]));
      } else if (keyword === 'items' || keyword === 'not' || (keyword === 'additionalProperties' && typeof value === 'object')) {
        out[keyword] = this.convert(value as JsonSchema);
      } else if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') {
        out[keyword] = (value as JsonSchema[]).map((child) => this.convert(child));
      } else if (keyword === 'format') {
        if (FORMATS.has(value as string)) out.format = value;
      } else if (keyword !== 'nullable') {
        out[keyword] = value;
      }
    }
    // A few schemas require fields they do not list; closed, they could never be met, so the fields are listed (as anything).
    if (Array.isArray(out.required) && out.properties) {
      const properties = out.properties as Record<string, JsonSchema>;
      for (const name of out.required as string[]) properties[name] ??= {};
    }
    const merged = out.allOf ? this.mergeAllOf(out) : eitherShape(out);
    return schema.nullable === true ? nullable(merged) : merged;
  }

  /** `allOf: [A, {properties…}]` → one object with both parts' properties and required fields. */
  private mergeAllOf(schema: JsonSchema): JsonSchema {
    const { allOf, ...rest } = schema;
    const parts = (allOf as JsonSchema[]).map((part) => this.inline(part));
    if (!parts.every((part) => part.type === 'object' || (part.properties && !part.type))) return schema;
    const merged: JsonSchema = { ...rest, type: 'object', properties: {}, required: [] };
    for (const part of parts) {
      Object.assign(merged.properties as JsonSchema, part.properties);
      (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
      if ('additionalProperties' in part) merged.additionalProperties = part.additionalProperties;
    }
    merged.required = [...new Set(merged.required as string[])];
    return merged;
  }

  private inline(schema: JsonSchema): JsonSchema {
    return typeof schema.$ref === 'string' ? this.definition(schema.$ref.replace('#/$defs/', '')) : schema;
  }
}

export function refName(ref: string): string {
  if (!ref.startsWith(COMPONENT)) throw new Error(`GitHub description: unexpected reference ${ref}`);
  return ref.slice(COMPONENT.length);
}

/** OpenAPI's `nullable: true` in JSON Schema terms. */
function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && !schema.anyOf && !schema.oneOf) {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  const { example, default: fallback, ...rest } = schema;
  return { anyOf: [rest, { type: 'null' }], ...(example !== undefined && { example }), ...(fallback !== undefined && { default: fallback }) };
}

/** Every `#/$defs/` name a schema mentions, directly. */
export function referencedNames(schema: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) referencedNames(item, into);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') into.add(value.replace('#/$defs/', ''));
      else if (key !== 'example' && key !== 'default') referencedNames(value, into);
    }
  }
  return into;
}

/** Replaces references with what they name (for parameter schemas, which the validator compiles alone). */
export function dereference(schema: JsonSchema, definition: (name: string) => JsonSchema, depth = 0): JsonSchema {
  if (depth > 20) throw new Error('GitHub description: a parameter schema refers to itself');
  if (typeof schema.$ref === 'string') return dereference(definition(schema.$ref.replace('#/$defs/', '')), definition, depth + 1);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(value) && (key === 'anyOf' || key === 'oneOf' || key === 'allOf'))
      out[key] = value.map((item: JsonSchema) => dereference(item, definition, depth + 1));
    else if ((key === 'items' || key === 'not') && value && typeof value === 'object') out[key] = dereference(value as JsonSchema, definition, depth + 1);
    else if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, child]) => [name, dereference(child, definition, depth + 1)]),
      );
    } else out[key] = value;
  }
  return out;
}

/**
 * The description writes "an array, or one of these objects" as `{type: array, items, oneOf: [object]}`.
 * Read literally nothing can match (an object is no array, an array matches no branch), so it becomes
 * `anyOf: [the array, the objects]`, as the toolkit's catalog reads it too.
 */
function eitherShape(schema: JsonSchema): JsonSchema {
  const branches = schema.oneOf as JsonSchema[] | undefined;
  if (typeof schema.type !== 'string' || !branches?.every((branch) => typeof branch.type === 'string' && branch.type !== schema.type)) return schema;
  const { oneOf: _, ...own } = schema;
  return { anyOf: [own, ...branches] };
}
