/** The generated HubSpot operation table (see scripts/generate/hubspot-emulator.ts). */
import type { JsonSchema, OperationTable } from '../emulator/operations.js';
import generated from './operations.json' with { type: 'json' };

export const operationTable = generated as unknown as OperationTable;

/** The values a response field of an operation may take, read from the table so the two agree. */
export function responseEnum(label: string, field: string): string[] {
  const body = resolve(operationTable.operations[label]?.responseBody);
  const values = resolve((body?.properties as Record<string, JsonSchema> | undefined)?.[field])?.enum;
  if (!Array.isArray(values)) throw new Error(`operation table: ${label} has no enumerated response field ${field}`);
  return values as string[];
}

function resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? operationTable.$defs[ref.replace('#/$defs/', '')] : schema;
}
