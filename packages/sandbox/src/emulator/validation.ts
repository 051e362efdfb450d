/**
 * Checks requests and responses against an operation table. Validators are compiled on first use
 * and kept. Objects that declare `properties` are closed unless they say otherwise: an upstream
 * rejects fields it does not know, and an emulator that let them through would hide a wrong request.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { JsonSchema, Operation, OperationTable } from './operations.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as FormatsPlugin;

export type Location = 'path' | 'query' | 'body' | 'response';

export interface Issue {
  /** Names the offending field, e.g. "inputs[3].id is required". */
  message: string;
  in: Location;
  /** REQUIRED, UNKNOWN_FIELD, INVALID_TYPE, INVALID_VALUE or INVALID_FORMAT. */
  code: string;
}

export interface Validator {
  /** Each returns the first problem found, or undefined when the part is valid. */
  path(label: string, params: Record<string, string>): Issue | undefined;
  query(label: string, query: Record<string, string | string[]>): Issue | undefined;
  body(label: string, body: unknown): Issue | undefined;
  response(label: string, body: unknown): Issue | undefined;
}

export function createValidator(table: OperationTable): Validator {
  const strict = new Ajv({ strict: false });
  // Path and query values arrive as text; these validators read "42" as an integer and "a" as ["a"].
  const coercing = new Ajv({ strict: false, coerceTypes: 'array' });
  addFormats(strict);
  addFormats(coercing);
  const $defs = Object.fromEntries(Object.entries(table.$defs).map(([name, schema]) => [name, closeObjects(schema)]));
  const cache = new Map<string, ValidateFunction>();

  function check(location: Location, label: string, data: unknown): Issue | undefined {
    const key = `${location} ${label}`;
    let validate = cache.get(key);
    if (!validate) {
      const operation = table.operations[label];
      if (!operation) throw new Error(`no operation ${label}`);
      const schema = schemaFor(location, operation);
      validate = location === 'path' || location === 'query' ? coercing.compile(schema) : strict.compile({ $defs, ...schema });
      cache.set(key, validate);
    }
    // Coercion rewrites the data it checks; the caller keeps its own copy.
    const copy = location === 'path' || location === 'query' ? structuredClone(data) : data;
    return validate(copy) ? undefined : describe(pickError(validate.errors ?? []), location);
  }

  return {
    path: (label, params) => check('path', label, params),
    query: (label, query) => check('query', label, query),
    body: (label, body) => check('body', label, body),
    response: (label, body) => check('response', label, body),
  };
}

function schemaFor(location: Location, operation: Operation): JsonSchema {
  switch (location) {
    case 'path':
      return { type: 'object', properties: operation.pathParameters, required: Object.keys(operation.pathParameters) };
    case 'query': {
      const parameters = Object.entries(operation.queryParameters);
      return {
        type: 'object',
        properties: Object.fromEntries(parameters.map(([name, parameter]) => [name, parameter.schema])),
        required: parameters.filter(([, parameter]) => parameter.required).map(([name]) => name),
        additionalProperties: false,
      };
    }
    case 'body':
      return closeObjects(operation.requestBody ?? {});
    case 'response':
      return closeObjects(operation.responseBody ?? {});
  }
}

/** Adds `additionalProperties: false` to every object schema that lists properties and is silent on others. */
export function closeObjects(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, child]) => [name, closeObjects(child)]));
    if (!('additionalProperties' in schema)) out.additionalProperties = false;
  }
  if (schema.items) out.items = closeObjects(schema.items as JsonSchema);
  if (typeof schema.additionalProperties === 'object') out.additionalProperties = closeObjects(schema.additionalProperties as JsonSchema);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[keyword])) out[keyword] = (schema[keyword] as JsonSchema[]).map(closeObjects);
  }
  return out;
}

/**
 * Of a union's many complaints, the most useful is the deepest one that is not merely "this is the
 * wrong variant" (an enum on a discriminator inside anyOf).
 */
function pickError(errors: ErrorObject[]): ErrorObject {
  const depth = (error: ErrorObject) => error.instancePath.split('/').length + (error.keyword === 'required' || error.keyword === 'additionalProperties' ? 1 : 0);
  const ranked = [...errors].sort((a, b) => rank(a) - rank(b) || depth(b) - depth(a));
  return ranked[0]!;
}

function rank(error: ErrorObject): number {
  if (error.keyword === 'anyOf' || error.keyword === 'oneOf') return 2;
  if (error.keyword === 'enum' && error.schemaPath.includes('/anyOf/')) return 1;
  return 0;
}

function describe(error: ErrorObject, location: Location): Issue {
  const at = (child?: string) => fieldName(error.instancePath, child, location);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return issue(`${at(String(params.missingProperty))} is required`, 'REQUIRED');
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      if (location === 'query') return issue(`unknown query parameter '${name}'`, 'UNKNOWN_FIELD');
      return issue(`${at(name)} is not a known field`, 'UNKNOWN_FIELD');
    }
    case 'type':
      return issue(`${at()} must be ${article(String(params.type))}`, 'INVALID_TYPE');
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const shown = allowed.length > 12 ? `${allowed.slice(0, 12).join(', ')}, ...` : allowed.join(', ');
      return issue(`${at()} must be one of: ${shown}`, 'INVALID_VALUE');
    }
    case 'format':
      return issue(`${at()} must be a valid ${String(params.format)}`, 'INVALID_FORMAT');
    case 'anyOf':
    case 'oneOf':
      return issue(`${at()} does not match any of the accepted shapes`, 'INVALID_VALUE');
    default:
      return issue(`${at()} ${error.message ?? 'is invalid'}`, 'INVALID_VALUE');
  }

  function issue(message: string, code: string): Issue {
    return { message, in: location, code };
  }
}

/** `/inputs/3` + `id` → `inputs[3].id`; path and query fields are named as parameters. */
function fieldName(instancePath: string, child: string | undefined, location: Location): string {
  const parts = instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  if (location === 'path' || location === 'query') {
    return parts.length ? `${location} parameter '${parts[0]}'` : `${location} parameters`;
  }
  if (parts.length === 0) return location === 'body' ? 'request body' : 'response body';
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

function article(type: string): string {
  const word = type.split(',')[0]!;
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}
