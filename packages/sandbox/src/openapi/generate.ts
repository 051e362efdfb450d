/**
 * Deterministic data from a (converted) JSON Schema: the same schema always gives the same value, so that an
 * emulator's answers are stable across runs and tests can name them. A schema's own example, default, const
 * or first enum value wins; otherwise a value of its type, shaped by its format, bounds and pattern; objects
 * carry every property (optional ones stop a few levels down, so recursive schemas end), arrays two items
 * (within minItems and maxItems), and unions their first variant.
 */
import type { JsonSchema } from '../emulator/operations.js';

export interface GenerateOptions {
  /** Converted components by def name, for `#/$defs/...` references. */
  defs: Record<string, JsonSchema>;
  /** Use the schemas' own examples and defaults (turned off when they turned out invalid). */
  examples?: boolean;
}

const MAX_DEPTH = 12;
/** Below this depth only required properties are filled, and arrays take their fewest items. */
const OPTIONAL_DEPTH = 4;

export function generate(schema: JsonSchema, options: GenerateOptions): unknown {
  return value(schema, { defs: options.defs, examples: options.examples !== false }, 0, 0, undefined);
}

interface State {
  defs: Record<string, JsonSchema>;
  examples: boolean;
}

function resolve(schema: JsonSchema, state: State): JsonSchema {
  let at = schema;
  for (let hops = 0; typeof at.$ref === 'string' && hops < 20; hops++) at = state.defs[(at.$ref as string).replace('#/$defs/', '')] ?? {};
  return at;
}

/** `variant` tells items of one array apart (uniqueItems), `name` is the property the value is for. */
function value(raw: JsonSchema, state: State, depth: number, variant: number, name: string | undefined): unknown {
  const schema = resolve(raw, state);
  if (state.examples) {
    if (Array.isArray(schema.examples) && schema.examples.length) return structuredClone(schema.examples[variant % schema.examples.length]);
    if (schema.default !== undefined && variant === 0) return structuredClone(schema.default);
  }
  if ('const' in schema) return structuredClone(schema.const);
  if (Array.isArray(schema.enum)) {
    // Values of the declared type only (documents slip others in).
    const declared = typeOf(schema);
    const fits = (item: unknown) =>
      schema.type === undefined ||
      (declared === 'integer'
        ? Number.isInteger(item)
        : declared === 'array'
          ? Array.isArray(item)
          : typeof item === (declared === 'integer' ? 'number' : declared));
    const values = (schema.enum as unknown[]).filter((item) => item !== null && fits(item));
    return structuredClone(values.length ? values[variant % values.length] : null);
  }
  if (Array.isArray(schema.anyOf) && schema.anyOf.length) {
    const variants = (schema.anyOf as JsonSchema[]).filter((part) => resolve(part, state).type !== 'null');
    return value(variants[0] ?? (schema.anyOf as JsonSchema[])[0]!, state, depth, variant, name);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    // Not merged into one object: the parts' values merged, or the first part's value.
    const parts = (schema.allOf as JsonSchema[]).map((part) => value(part, state, depth, variant, name));
    if (parts.every((part) => part && typeof part === 'object' && !Array.isArray(part))) return Object.assign({}, ...parts);
    return parts[0];
  }
  const type = typeOf(schema);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return variant % 2 === 0;
    case 'integer':
    case 'number':
      return numberFor(schema, schema.format === 'int32' || schema.format === 'int64' ? 'integer' : type, variant);
    case 'string':
      return stringFor(schema, variant, name);
    case 'array':
      return arrayFor(schema, state, depth, variant, name);
    default:
      return objectFor(schema, state, depth, variant);
  }
}

function typeOf(schema: JsonSchema): string {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  const chosen = types.find((type) => type !== 'null') ?? types[0];
  if (chosen) return chosen;
  if (schema.properties || schema.additionalProperties !== undefined || schema.required) return 'object';
  if (schema.items) return 'array';
  if (schema.format || schema.pattern || schema.minLength !== undefined) return 'string';
  if (schema.minimum !== undefined || schema.maximum !== undefined) return 'number';
  return 'object';
}

function numberFor(schema: JsonSchema, type: string, variant: number): number {
  const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : type === 'integer' ? 1 : 0.5;
  let low = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + step : undefined;
  const high = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - step : undefined;
  if (low === undefined) low = high !== undefined ? Math.min(1, high) : 1;
  let result = Math.ceil(low / step) * step + variant * step;
  if (high !== undefined && result > high) result = Math.floor(high / step) * step;
  if (type === 'integer') result = Math.round(result);
  return Number(result.toFixed(6));
}

const FORMATTED: Record<string, string> = {
  'date-time': '2024-01-15T09:30:00Z',
  date: '2024-01-15',
  time: '09:30:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/resource',
  url: 'https://example.com/resource',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'ZXhhbXBsZQ==',
  password: 'secret',
};

/** One instant, written at several lengths (for schemas that bound a date-time's length). */
const DATE_TIMES = [
  '2024-01-15T09:30:00Z',
  '2024-01-15T09:30:00.000Z',
  '2024-01-15T09:30:00+00:00',
  '2024-01-15T09:30:00.000+00:00',
  '2024-01-15T09:30:00.000000+00:00',
];

function stringFor(schema: JsonSchema, variant: number, name: string | undefined): string {
  const format = schema.format as string | undefined;
  if (format === 'uuid') return uuid(variant);
  if (format && FORMATTED[format]) {
    // A longer form where the schema asks for more characters than the short one has.
    const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
    const forms = format === 'date-time' ? DATE_TIMES : [FORMATTED[format]!];
    const text = forms.find((form) => form.length >= min && form.length <= max) ?? forms[0]!;
    if (variant === 0) return text;
    if (format === 'email') return `user${variant + 1}@example.com`;
    if (format === 'uri' || format === 'url') return `${text}/${variant + 1}`;
    if (format === 'date-time' || format === 'date') return text.replace('2024-01-15', `2024-01-${String(15 + (variant % 10)).padStart(2, '0')}`);
    return text;
  }
  let text: string;
  if (typeof schema.pattern === 'string') {
    text = fromPattern(schema.pattern, variant) ?? 'string';
  } else {
    const base = name && /^[A-Za-z][\w-]*$/.test(name) ? name : 'string';
    text = variant === 0 ? base : `${base}-${variant + 1}`;
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (text.length < min) text = text.padEnd(min, 'x');
  if (text.length > max) text = text.slice(0, max);
  return text;
}

/** A stable UUID (version 4 layout) per variant. */
export function uuid(n: number): string {
  return `3fa85f64-5717-4562-b3fc-${(0x2c963f66afa6 + n).toString(16).padStart(12, '0').slice(-12)}`;
}

function arrayFor(schema: JsonSchema, state: State, depth: number, variant: number, name: string | undefined): unknown[] {
  if (depth >= MAX_DEPTH) return [];
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const wanted = depth >= OPTIONAL_DEPTH ? min : Math.max(min, Math.min(2, max));
  const items = Array.isArray(schema.items) ? undefined : ((schema.items as JsonSchema | undefined) ?? {});
  if (Array.isArray(schema.items)) return (schema.items as JsonSchema[]).map((item, index) => value(item, state, depth + 1, index, name));
  const out: unknown[] = [];
  for (let index = 0; index < wanted; index++) out.push(value(items!, state, depth + 1, variant + index, name && singular(name)));
  if (schema.uniqueItems === true) {
    const seen = new Set<string>();
    return out.filter((item) => {
      const key = JSON.stringify(item);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return out;
}

function objectFor(schema: JsonSchema, state: State, depth: number, variant: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
  for (const [name, child] of Object.entries(properties)) {
    const resolved = resolve(child, state);
    if (!required.has(name) && (depth >= OPTIONAL_DEPTH || resolved.writeOnly === true)) continue;
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    out[name] = value(child, state, depth + 1, variant, name);
  }
  for (const name of required) {
    if (!(name in out))
      out[name] = typeof schema.additionalProperties === 'object' ? value(schema.additionalProperties as JsonSchema, state, depth + 1, variant, name) : name;
  }
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  if (Object.keys(out).length < minProperties && typeof schema.additionalProperties === 'object') {
    for (let index = Object.keys(out).length; index < minProperties; index++) {
      out[`key${index + 1}`] = value(schema.additionalProperties as JsonSchema, state, depth + 1, index, undefined);
    }
  }
  return out;
}

function singular(name: string): string {
  return name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') && !name.endsWith('ss') ? name.slice(0, -1) : name;
}

/**
 * A short string matching a regular expression, for the patterns API documents use: literals, escapes,
 * classes, groups with alternatives, and quantifiers (each at its least, at least once for `+`). Undefined
 * when the pattern uses something else (look-arounds, back-references).
 */
export function fromPattern(pattern: string, variant = 0): string | undefined {
  let at = 0;
  const digits = '0123456789';

  function alternatives(): string | undefined {
    const options: Array<string | undefined> = [sequence()];
    while (pattern[at] === '|') {
      at += 1;
      options.push(sequence());
    }
    return options.find((option) => option !== undefined);
  }

  function sequence(): string | undefined {
    let out = '';
    while (at < pattern.length && pattern[at] !== '|' && pattern[at] !== ')') {
      const atom = atomText();
      if (atom === undefined) return undefined;
      const [min, max] = quantifier();
      const count = Math.max(min, Math.min(max, min === 0 ? 0 : min));
      out += atom.repeat(count);
    }
    return out;
  }

  function quantifier(): [number, number] {
    const char = pattern[at];
    let bounds: [number, number] = [1, 1];
    if (char === '?') bounds = [0, 1];
    else if (char === '*') bounds = [0, Number.POSITIVE_INFINITY];
    else if (char === '+') bounds = [1, Number.POSITIVE_INFINITY];
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
      if (!match) return bounds;
      at += match[0].length;
      const min = Number(match[1]);
      const result: [number, number] = [min, match[2] ? (match[3] ? Number(match[3]) : Number.POSITIVE_INFINITY) : min];
      if (pattern[at] === '?') at += 1;
      return result;
    } else return bounds;
    at += 1;
    if (pattern[at] === '?') at += 1;
    return bounds;
  }

  function atomText(): string | undefined {
    const char = pattern[at]!;
    at += 1;
    switch (char) {
      case '^':
      case '$':
        return '';
      case '.':
        return 'a';
      case '(': {
        if (pattern[at] === '?') {
          if (pattern[at + 1] !== ':') return undefined;
          at += 2;
        }
        const inner = alternatives();
        if (pattern[at] !== ')') return undefined;
        at += 1;
        return inner;
      }
      case '[':
        return classText();
      case '\\':
        return escapeText(pattern[at++]);
      default:
        return char;
    }
  }

  function escapeText(char: string | undefined): string | undefined {
    switch (char) {
      case 'd':
        return digits[(variant + 1) % 10]!;
      case 'w':
        return 'a';
      case 's':
        return ' ';
      case 'D':
      case 'W':
      case 'S':
        return char === 'S' ? 'a' : '-';
      case 'b':
      case 'B':
        return '';
      case undefined:
        return undefined;
      default:
        return /[1-9]/.test(char) ? undefined : char === 'n' ? '\n' : char === 't' ? '\t' : char;
    }
  }

  function classText(): string | undefined {
    const negated = pattern[at] === '^';
    if (negated) at += 1;
    const members: Array<[string, string]> = [];
    let first = true;
    while (at < pattern.length && (pattern[at] !== ']' || first)) {
      first = false;
      let low = pattern[at++]!;
      if (low === '\\') {
        const escaped = pattern[at++];
        if (escaped === 'd') {
          members.push(['0', '9']);
          continue;
        }
        if (escaped === 'w') {
          members.push(['a', 'z'], ['A', 'Z'], ['0', '9'], ['_', '_']);
          continue;
        }
        if (escaped === 's') {
          members.push([' ', ' ']);
          continue;
        }
        low = escapeText(escaped) ?? '';
      }
      if (pattern[at] === '-' && pattern[at + 1] !== ']' && at + 1 < pattern.length) {
        at += 1;
        let high = pattern[at++]!;
        if (high === '\\') high = escapeText(pattern[at++]) ?? high;
        members.push([low, high]);
      } else members.push([low, low]);
    }
    if (pattern[at] !== ']') return undefined;
    at += 1;
    const inClass = (c: string) => members.some(([low, high]) => c >= low && c <= high);
    if (negated) return ['a', 'x', '0', 'A', '_', '-'].find((c) => !inClass(c));
    const [low, high] = members[0] ?? ['a', 'a'];
    const span = high.charCodeAt(0) - low.charCodeAt(0) + 1;
    return String.fromCharCode(low.charCodeAt(0) + (variant % Math.max(1, span)));
  }

  try {
    const result = alternatives();
    if (at < pattern.length) return undefined;
    return result !== undefined && new RegExp(pattern, 'u').test(result) ? result : undefined;
  } catch {
    return undefined;
  }
}
