/** JSON Schema validation with Ajv; each schema is compiled once, on first use. */
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ErrorObject, ValidateFunction } from 'ajv';
import type { FormatsPlugin } from 'ajv-formats';
import type { JsonSchema } from './tool-data.js';

let ajv: AjvInstance | undefined;

/** Ajv is loaded on the first validation, not at start-up: serving tools/list needs no validator. */
function loadAjv(): AjvInstance {
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as typeof import('ajv');
  const addFormats = require('ajv-formats') as FormatsPlugin;
  const instance = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
  addFormats(instance);
  // OpenAPI's numeric formats, which JSON Schema's format vocabulary lacks.
  instance.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  instance.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  instance.addFormat('float', { type: 'number', validate: () => true });
  instance.addFormat('double', { type: 'number', validate: () => true });
  return instance;
}

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    ajv ??= loadAjv();
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The message of a field the schema does not have. */
export const UNKNOWN_FIELD = 'is not a known field';

export interface ValidationIssue {
  /** JSON pointer to the offending value ("" for the root). */
  pointer: string;
  /** What is wrong, in words that name the value. */
  message: string;
}

/** Checks `value` against `schema`; an empty list means valid. */
export function validate(schema: JsonSchema, value: unknown): ValidationIssue[] {
  const check = validatorFor(schema);
  if (check(value)) return [];
  return dedupe((check.errors ?? []).map(describe));
}

function describe(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return issue(`${error.instancePath}/${escapePointer(String(params.missingProperty))}`, 'is required');
    case 'additionalProperties':
      return issue(`${error.instancePath}/${escapePointer(String(params.additionalProperty))}`, UNKNOWN_FIELD);
    case 'type':
      return issue(error.instancePath, `must be ${withArticle(String(params.type))}`);
    case 'enum':
      return issue(error.instancePath, `must be one of: ${(params.allowedValues as unknown[]).map(show).join(', ')}`);
    default:
      return issue(error.instancePath, error.message ?? 'is invalid');
  }
}

const issue = (pointer: string, message: string): ValidationIssue => ({ pointer, message });
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const show = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));
const withArticle = (type: string) => (/^(array|object|integer)/.test(type) ? `an ${type}` : `a ${type}`);

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((item) => {
    const key = `${item.pointer} ${item.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** "/inputs/3/id" -> "inputs[3].id": how a parameter path reads in a message. */
export function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** Deeper than any real API document; deeper input would only exhaust the stack of whatever walks it. */
export const MAX_NESTING_DEPTH = 64;

/** Whether arrays and objects nest deeper than `max` levels; walks without recursion, so any depth is safe. */
export function nestsDeeperThan(value: unknown, max = MAX_NESTING_DEPTH): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}
