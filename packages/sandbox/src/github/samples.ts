/**
 * Response bodies for operations without state behind them, and the starting point of those with:
 * the description's example where it conforms to the response schema, repaired field by field where
 * it does not (unknown fields dropped, missing or malformed ones synthesized), and a value built from
 * the schema alone where there is no example. Deterministic: the same operation always gets the same
 * body. Schemas are read as the emulator reads answers, with objects closed.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { JsonSchema, Operation } from '../emulator/operations.js';
import { closeObjects } from '../emulator/validation.js';
import type { GithubOperations } from './table.js';

const addFormats = addFormatsModule as unknown as FormatsPlugin;

const DEFINITIONS = 'quiver:github-definitions';

/** `#/$defs/X` → the shared definitions schema's `X`. */
function pointAtDefinitions(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', `"${DEFINITIONS}#/$defs/`)) as JsonSchema;
}

/** A fixed instant, so that samples do not change from run to run. */
const SAMPLE_TIME = '2025-01-01T00:00:00Z';

export interface Samples {
  /** A body for the operation's answer with `status` (default: its main success), valid against its schema; a fresh copy each call. */
  sample(label: string, status?: number): any;
  /** Whether a body is valid for the operation's answer with `status`. */
  conforms(label: string, body: unknown, status?: number): boolean;
}

export function createSamples({ table, examples }: GithubOperations): Samples {
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  addFormats(ajv);
  const $defs = Object.fromEntries(Object.entries(table.$defs).map(([name, schema]) => [name, closeObjects(schema)]));
  // The shared definitions are one schema of their own, compiled once and referred to by every operation.
  ajv.addSchema({ $id: DEFINITIONS, $defs });
  const validators = new Map<string, ValidateFunction>();
  const cache = new Map<string, unknown>();

  function documented(label: string, status?: number): { operation: Operation; status: number; schema?: JsonSchema } {
    const operation = table.operations[label];
    if (!operation) throw new Error(`GitHub emulator: no operation ${label}`);
    const chosen = status ?? operation.successStatus;
    if (chosen === operation.successStatus) return { operation, status: chosen, schema: operation.responseBody };
    const other = operation.otherSuccesses?.[chosen];
    if (!other) throw new Error(`GitHub emulator: ${label} documents no ${chosen} answer`);
    return { operation, status: chosen, schema: other.responseBody };
  }

  function validatorFor(label: string, status: number, schema: JsonSchema): ValidateFunction {
    const key = `${label} ${status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(pointAtDefinitions(closeObjects(schema)));
      validators.set(key, validate);
    }
    return validate;
  }

  const synthesize = (schema: JsonSchema) => new Synthesizer($defs).value(schema, 0);

  function build(label: string, status: number, schema: JsonSchema): unknown {
    const validate = validatorFor(label, status, schema);
    const example = examples[label]?.[status];
    const repaired = example === undefined ? undefined : repair(example, validate, synthesize);
    if (repaired !== undefined) return repaired;
    const built = synthesize(closeObjects(schema));
    if (!validate(built)) throw new Error(`GitHub emulator: cannot build a sample for ${label} ${status}: ${ajv.errorsText(validate.errors)}`);
    return built;
  }

  return {
    sample(label, status) {
      const { status: chosen, schema } = documented(label, status);
      if (!schema) return undefined;
      const key = `${label} ${chosen}`;
      if (!cache.has(key)) cache.set(key, build(label, chosen, schema));
      return structuredClone(cache.get(key));
    },
    conforms(label, body, status) {
      const { status: chosen, schema } = documented(label, status);
      return schema ? validatorFor(label, chosen, schema)(body) : body === undefined;
    },
  };
}

/**
 * Fixes what the validator complains about, a few rounds at most: unknown fields go, missing ones are
 * synthesized, wrong values are replaced by synthesized ones. A complaint that only says "none of the
 * alternatives fit" is acted on last, when nothing more specific is left. Undefined when it gives up.
 */
function repair(example: unknown, validate: ValidateFunction, synthesize: (schema: JsonSchema) => unknown): unknown {
  const holder = { root: structuredClone(example) };
  for (let round = 0; round < 12; round += 1) {
    if (validate(holder.root)) return holder.root;
    const errors = validate.errors ?? [];
    // Complaints from inside one alternative of a union say how that alternative fails, not what to fix.
    const specific = errors.filter((error) => !isUnion(error) && !/\/(anyOf|oneOf)\/\d+\//.test(error.schemaPath));
    const chosen = specific.length ? specific : errors.filter(isUnion).slice(0, 1);
    if (chosen.length === 0) return undefined;
    for (const error of chosen) fix(holder, error, synthesize);
  }
  return undefined;
}

const isUnion = (error: ErrorObject) => error.keyword === 'anyOf' || error.keyword === 'oneOf';

function fix(holder: { root: unknown }, error: ErrorObject, synthesize: (schema: JsonSchema) => unknown): void {
  const path = [
    'root',
    ...error.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
  ];
  let parent: any = holder;
  for (const key of path.slice(0, -1)) {
    parent = parent?.[key];
    if (parent === null || typeof parent !== 'object') return;
  }
  const last = path.at(-1)!;
  const params = error.params as Record<string, any>;
  const schema = error.parentSchema as JsonSchema;
  if (error.keyword === 'additionalProperties') {
    if (parent[last] && typeof parent[last] === 'object') delete parent[last][params.additionalProperty];
  } else if (error.keyword === 'required') {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    if (parent[last] && typeof parent[last] === 'object') parent[last][params.missingProperty] = synthesize(properties[params.missingProperty] ?? {});
  } else {
    parent[last] = synthesize(schema);
  }
}

/** A value for `schema` built as samples are (for tests that need a valid request body, say). */
export function synthesize(schema: JsonSchema, $defs: Record<string, JsonSchema>): unknown {
  return new Synthesizer($defs).value(schema, 0);
}

/**
 * Builds a value from a schema: required fields always, optional ones when they are plain values;
 * one item per list near the top; `null` for nullable objects below the top, which keeps samples
 * small and ends recursive shapes. Formats get well-formed values; `example`s are used when they fit.
 */
class Synthesizer {
  constructor(private readonly $defs: Record<string, JsonSchema>) {}

  value(schema: JsonSchema, depth: number, key = ''): unknown {
    if (depth > 40) throw new Error('GitHub emulator: a response schema nests without end');
    if (typeof schema.$ref === 'string') return this.value(this.$defs[schema.$ref.replace('#/$defs/', '')] ?? {}, depth, key);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null) ?? null;
    const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (union && schema.properties) {
      // Alternatives that only say which of the listed fields are required: meet the first.
      const first = union[0] ?? {};
      const merged: JsonSchema = { ...schema, required: [...((schema.required as string[]) ?? []), ...((first.required as string[]) ?? [])] };
      delete merged.anyOf;
      delete merged.oneOf;
      return this.value(merged, depth, key);
    }
    if (union) {
      const nonNull = union.filter((branch) => branch.type !== 'null');
      if (depth > 0 && nonNull.length < union.length && this.isObject(nonNull[0] ?? {})) return null;
      return this.value(nonNull[0] ?? { type: 'null' }, depth, key);
    }
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
    const type = types.find((t) => t !== 'null') ?? (types.includes('null') ? 'null' : schema.properties ? 'object' : undefined);
    if (types.includes('null') && depth > 0 && (type === 'object' || type === 'array')) return null;
    const example = schema.example ?? schema.default;
    switch (type) {
      case 'object':
        return this.object(schema, depth);
      case 'array': {
        const count = Math.max(Number(schema.minItems ?? 0), depth < 3 ? 1 : 0);
        return Array.from({ length: count }, () => this.value((schema.items as JsonSchema) ?? {}, depth + 1, key));
      }
      case 'string':
        return this.string(schema, key, example);
      case 'integer':
        return Number.isInteger(example) ? example : Math.max(1, Number(schema.minimum ?? 1));
      case 'number':
        return typeof example === 'number' ? example : Math.max(1, Number(schema.minimum ?? 1));
      case 'boolean':
        return typeof example === 'boolean' ? example : false;
      case 'null':
        return null;
      default:
        return example ?? {};
    }
  }

  private object(schema: JsonSchema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      if (required.has(name) || this.isPlain(child)) out[name] = this.value(child, depth + 1, name);
    }
    for (const name of required) if (!(name in out)) out[name] = 'value';
    return out;
  }

  private string(schema: JsonSchema, key: string, example: unknown): string {
    const minLength = Number(schema.minLength ?? 0);
    const maxLength = Number(schema.maxLength ?? Infinity);
    const fits = (value: unknown): value is string =>
      typeof value === 'string' &&
      value.length >= minLength &&
      value.length <= maxLength &&
      (!schema.pattern || new RegExp(schema.pattern as string).test(value));
    switch (schema.format) {
      case 'date-time':
        return SAMPLE_TIME;
      case 'date':
        return SAMPLE_TIME.slice(0, 10);
      case 'email':
        return 'octocat@example.com';
      case 'uri':
        return fits(example) && /^[a-z][a-z0-9+.-]*:/i.test(example) ? example : `https://ghes.example/${key || 'resource'}`;
      case 'uri-template':
        return fits(example) ? example : `https://ghes.example/${key || 'resource'}{/id}`;
    }
    if (fits(example)) return example;
    const padded = (text: string) => text.padEnd(minLength, text.at(-1) ?? 'x');
    const candidates = [key || 'string', 'AAAA', 'refs/heads/main', 'v1', 'top', 'first', 'pkg', 'ssh-rsa AAAA', 'abc123', '0'].map(padded);
    return candidates.find(fits) ?? '';
  }

  private resolve(schema: JsonSchema): JsonSchema {
    return typeof schema.$ref === 'string' ? this.resolve(this.$defs[schema.$ref.replace('#/$defs/', '')] ?? {}) : schema;
  }

  /** Values with no parts of their own: cheap to include whether required or not. */
  private isPlain(schema: JsonSchema): boolean {
    const resolved = this.resolve(schema);
    if (resolved.anyOf || resolved.oneOf) return false;
    const types = [resolved.type].flat().filter((t) => t !== 'null');
    return types.length > 0 && types.every((t) => t === 'string' || t === 'integer' || t === 'number' || t === 'boolean');
  }

  private isObject(schema: JsonSchema): boolean {
    const resolved = this.resolve(schema);
    return [resolved.type].flat().some((t) => t === 'object' || t === 'array') || Boolean(resolved.properties);
  }
}
