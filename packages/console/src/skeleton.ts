/** A request body to start from, built from its schema: what must be filled in, with a placeholder of each type. */
import type { JsonSchema } from './tool.js';

const SKELETON_DEPTH = 8;

/**
 * The required properties of each object (all of an object's properties when it requires none, at the top
 * only, so the body never starts as a bare `{}`), each with its default, its first allowed value, or an empty
 * value of its type.
 */
export function skeleton(schema: JsonSchema, depth = 0): unknown {
  if (schema.default !== undefined) return schema.default;
  if ('const' in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const chosen = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (chosen?.length) return skeleton(chosen[0]!, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((each) => each !== 'null') : schema.type;
  if (type === 'object' || (type === undefined && schema.properties)) {
    if (depth >= SKELETON_DEPTH) return {};
    const properties = schema.properties ?? {};
    const required = schema.required?.length ? schema.required : depth === 0 ? Object.keys(properties) : [];
    return Object.fromEntries(required.filter((name) => properties[name]).map((name) => [name, skeleton(properties[name]!, depth + 1)]));
  }
  if (type === 'array') return schema.minItems && schema.items && depth < SKELETON_DEPTH ? [skeleton(schema.items, depth + 1)] : [];
  if (type === 'string') return '';
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'boolean') return false;
  return null;
}
