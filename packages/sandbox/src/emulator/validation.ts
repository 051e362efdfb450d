/**
 * Checks requests and responses against an operation table. Validators are compiled on first use
 * and kept. Objects that declare `properties` are closed unless they say otherwise: an upstream
 * rejects fields it does not know, and an emulator that let them through would hide a wrong request.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { otherBodyKey, type JsonSchema, type Operation, type OperationTable } from './operations.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as FormatsPlugin;

export type Location = 'path' | 'query' | 'body' | 'response';

export interface Issue {
  /** Names the offending field, e.g. "inputs[3].id is required". */
  message: string;
  in: Location;
  /** REQUIRED, UNKNOWN_FIELD, INVALID_TYPE, INVALID_VALUE or INVALID_FORMAT. */
  code: string;
  /** The offending field alone, e.g. "inputs[3].id" or a parameter's name; absent for the whole body. */
  field?: string;
}

export interface Validator {
  /** Each returns the first problem found, or undefined when the part is valid. */
  path(label: string, params: Record<string, string>): Issue | undefined;
  query(label: string, query: Record<string, string | string[]>): Issue | undefined;
  /** Against the schema for the body's media type, where the operation reads that one to a schema of its own. */
  body(label: string, body: unknown, mediaType?: string): Issue | undefined;
  /** Against the body documented for `status`; the operation's main success status when left out. */
  response(label: string, body: unknown, status?: number): Issue | undefined;
}

export function createValidator(table: OperationTable): Validator {
  // Shared definitions are compiled once, as their own schema, rather than into every operation that
  // uses them; skipping ajv's code optimisation makes a large table's first calls several times cheaper.
  const strict = new Ajv({ strict: false, inlineRefs: false, code: { optimize: false } });
  // Path and query values arrive as text; these validators read "42" as an integer and "a" as ["a"].
  const coercing = new Ajv({ strict: false, coerceTypes: 'array' });
  addFormats(strict);
  addFormats(coercing);
  const $defs = Object.fromEntries(Object.entries(table.$defs).map(([name, schema]) => [name, closeObjects(schema)]));
  strict.addSchema({ $id: DEFINITIONS, $defs });
  const cache = new Map<string, ValidateFunction>();

  function check(location: Location, label: string, data: unknown, status?: number, mediaType?: string): Issue | undefined {
    const operation = table.operations[label];
    if (!operation) throw new Error(`no operation ${label}`);
    const other = location === 'body' && mediaType ? otherBodyKey(operation, mediaType) : undefined;
    const key = `${location} ${label} ${status ?? ''} ${other ?? ''}`;
    let validate = cache.get(key);
    if (!validate) {
      const schema = other ? closeObjects(operation.otherRequestBodies![other]!) : schemaFor(location, operation, status);
      validate = location === 'path' || location === 'query' ? coercing.compile(schema) : strict.compile(pointAtDefinitions(schema));
      cache.set(key, validate);
    }
    // Coercion rewrites the data it checks; the caller keeps its own copy.
    const copy = location === 'path' || location === 'query' ? structuredClone(data) : data;
    return validate(copy) ? undefined : describe(pickError(validate.errors ?? []), location);
  }

  return {
    path: (label, params) => check('path', label, params),
    query: (label, query) => check('query', label, query),
    body: (label, body, mediaType) => check('body', label, body, undefined, mediaType),
    response: (label, body, status) => check('response', label, body, status),
  };
}

const DEFINITIONS = 'quiver:definitions';

/** `#/$defs/X` → the shared definitions schema's `X`. */
export function pointAtDefinitions(schema: JsonSchema, id = DEFINITIONS): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', `"${id}#/$defs/`)) as JsonSchema;
}

function schemaFor(location: Location, operation: Operation, status?: number): JsonSchema {
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
    case 'response': {
      const other = status === undefined || status === operation.successStatus ? undefined : operation.otherSuccesses?.[status];
      return closeObjects((other ? other.responseBody : operation.responseBody) ?? {});
    }
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
  const depth = (error: ErrorObject) =>
    error.instancePath.split('/').length + (error.keyword === 'required' || error.keyword === 'additionalProperties' ? 1 : 0);
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
  const child =
    error.keyword === 'required' ? String(params.missingProperty) : error.keyword === 'additionalProperties' ? String(params.additionalProperty) : undefined;
  const field = fieldPath(error.instancePath, child);
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
    return field === undefined ? { message, in: location, code } : { message, in: location, code, field };
  }
}

/** `/inputs/3` + `id` → `inputs[3].id`; path and query fields are named as parameters. */
function fieldName(instancePath: string, child: string | undefined, location: Location): string {
  const parts = pointerParts(instancePath, child);
  if (location === 'path' || location === 'query') {
    return parts.length ? `${location} parameter '${parts[0]}'` : `${location} parameters`;
  }
  return fieldPath(instancePath, child) ?? (location === 'body' ? 'request body' : 'response body');
}

/** The field as a dotted path, `inputs[3].id`; undefined for the document itself. */
function fieldPath(instancePath: string, child: string | undefined): string | undefined {
  const parts = pointerParts(instancePath, child);
  if (parts.length === 0) return undefined;
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

function pointerParts(instancePath: string, child: string | undefined): string[] {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts;
}

function article(type: string): string {
  const word = type.split(',')[0]!;
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}
