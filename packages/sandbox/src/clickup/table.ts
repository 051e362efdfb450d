/** The generated ClickUp operation table (see scripts/generate/clickup-emulator.ts). */
import type { JsonSchema, OperationTable } from '../emulator/operations.js';
import generated from './operations.json' with { type: 'json' };

export const operationTable = generated as unknown as OperationTable;

/** The fields an operation's answer may carry at its top level (or inside `at`), so records can be cut to fit. */
export function responseFields(label: string, ...at: string[]): Set<string> {
  let schema = operationTable.operations[label]?.responseBody;
  for (const key of at) {
    const child = (schema?.properties as Record<string, JsonSchema> | undefined)?.[key];
    schema = (child?.items as JsonSchema | undefined) ?? child;
  }
  const properties = schema?.properties as Record<string, JsonSchema> | undefined;
  if (!properties) throw new Error(`operation table: ${label} ${at.join('.')} has no properties`);
  return new Set(Object.keys(properties));
}

/** Keeps only the fields in `fields`. */
export function fit(record: Record<string, unknown>, fields: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key, value]) => fields.has(key) && value !== undefined));
}
