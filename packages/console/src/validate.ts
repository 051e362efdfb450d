/**
 * A small JSON Schema check for request bodies, run before anything is sent: types, enums, required and
 * unknown properties, lengths, bounds and patterns, any/one/allOf. Keywords it does not know pass; the
 * engine checks the body again in full and answers with the JSON pointer at fault.
 */
import type { JsonSchema } from './tool.js';

export interface Problem {
  pointer: string;
  message: string;
}

export function validate(schema: JsonSchema, value: unknown, pointer = ''): Problem[] {
  const at = pointer || '/';
  const problems: Problem[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => hasType(value, type))) return [{ pointer: at, message: `must be ${types.join(' or ')}, got ${describe(value)}` }];
  }
  if (schema.enum && !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    problems.push({ pointer: at, message: `must be one of ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}` });
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    problems.push({ pointer: at, message: `must be ${JSON.stringify(schema.const)}` });
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      problems.push({ pointer: at, message: `must have at least ${schema.minLength} characters` });
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      problems.push({ pointer: at, message: `must have at most ${schema.maxLength} characters` });
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      problems.push({ pointer: at, message: `must match ${schema.pattern}` });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push({ pointer: at, message: `must be at least ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) problems.push({ pointer: at, message: `must be at most ${schema.maximum}` });
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push({ pointer: at, message: `must have at least ${schema.minItems} items` });
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      problems.push({ pointer: at, message: `must have at most ${schema.maxItems} items` });
    if (schema.items) for (const [index, item] of value.entries()) problems.push(...validate(schema.items, item, `${pointer}/${index}`));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) problems.push({ pointer: `${pointer}/${escapePointer(name)}`, message: 'is required' });
    for (const [name, child] of Object.entries(object)) {
      const property = schema.properties?.[name];
      if (property) problems.push(...validate(property, child, `${pointer}/${escapePointer(name)}`));
      else if (schema.additionalProperties === false) problems.push({ pointer: `${pointer}/${escapePointer(name)}`, message: 'is not a known property' });
      else if (typeof schema.additionalProperties === 'object')
        problems.push(...validate(schema.additionalProperties, child, `${pointer}/${escapePointer(name)}`));
    }
  }
  const anyOf = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (anyOf && !anyOf.some((option) => validate(option, value, pointer).length === 0))
    problems.push({ pointer: at, message: 'matches none of the allowed shapes' });
  for (const part of (schema.allOf as JsonSchema[] | undefined) ?? []) problems.push(...validate(part, value, pointer));
  return problems;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

const escapePointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');
