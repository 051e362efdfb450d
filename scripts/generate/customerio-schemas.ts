/**
 * The Customer.io Track API's structural schemas (catalog/schemas/TrackingApi.json) made fit to
 * validate with, for both the TrackingApi catalog and the Customer.io emulator's operation table.
 */
import type { JsonSchema } from '../../packages/core/src/tool.js';
import { mapSchema, simplify } from './shared.js';

export interface TrackOperation {
  method: string;
  path: string;
  request_content_type?: string;
  request_body?: JsonSchema;
  success_status: number;
  response_body?: JsonSchema;
}

/** Customer.io event ids are ULIDs: 26 characters of Crockford's base32. */
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$';

/**
 * OpenAPI leftovers become JSON Schema: `nullable: true` a null type, the ULID format a pattern, and
 * formats no validator knows ("unix timestamp") are dropped. `oneOf` becomes `anyOf`: the variants
 * overlap (a page event matches both the general and the page variant), so `oneOf` would refuse
 * bodies the service accepts. Then allOf is folded and single-branch unions unwrapped.
 */
export function validatable(structural: JsonSchema): JsonSchema {
  const cleaned = mapSchema(structural, (input) => {
    const { nullable, default: _default, oneOf, format, ...node } = input;
    if (nullable === true && typeof node.type === 'string') node.type = [node.type, 'null'];
    if (oneOf) node.anyOf = (oneOf as JsonSchema[]).map(requireSoleProperty);
    if (typeof format === 'string' && /^ulid$/i.test(format)) node.pattern = ULID_PATTERN;
    else if (format === 'email') node.format = format;
    return node;
  });
  return simplify(cleaned) as JsonSchema;
}

/**
 * A union variant that is one named field (`{ id }` among `{ id } | { email } | { cio_id }`) means that
 * field; without `required`, `{}` would match every variant.
 */
function requireSoleProperty(variant: JsonSchema): JsonSchema {
  const names = Object.keys((variant.properties ?? {}) as JsonSchema);
  return names.length === 1 && !variant.required ? { ...variant, required: names } : variant;
}
