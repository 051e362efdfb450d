/**
 * GetTasksInList's filters as the model writes them (comma-separated lists, a JSON array of custom-field
 * filters), turned into what ClickUp reads: `statuses[]=a&statuses[]=b`, and `custom_fields` as JSON.
 */
import { toolError, type ToolError } from '@quiver/core';

const lists = ['filter_by_statuses', 'filter_by_assignees', 'filter_by_tags'] as const;

const operators = new Set(['=', '!=', '<', '<=', '>', '>=', 'IS NULL', 'IS NOT NULL', 'RANGE', 'ANY', 'ALL', 'NOT ANY', 'NOT ALL']);

/** The arguments with each list split into its items; or the first problem, naming the parameter. */
export function taskFilters(args: Record<string, unknown>): { args: Record<string, unknown> } | { error: ToolError } {
  const out = { ...args };
  for (const name of lists) {
    if (typeof args[name] !== 'string') continue;
    const items = (args[name] as string)
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    if (!items.length) return invalid(name, 'must name at least one value (comma separated)');
    if (name === 'filter_by_assignees' && items.some((item) => !/^\d+$/.test(item))) return invalid(name, 'must be user ids (numbers), comma separated');
    out[name] = items;
  }
  if (typeof args.filter_by_custom_fields === 'string') {
    const problem = customFieldProblem(args.filter_by_custom_fields);
    if (problem) return invalid('filter_by_custom_fields', problem);
  }
  return { args: out };
}

function customFieldProblem(text: string): string | undefined {
  let filters: unknown;
  try {
    filters = JSON.parse(text);
  } catch {
    return 'must be a JSON array, e.g. [{"field_id": "...", "operator": "=", "value": "..."}]';
  }
  if (!Array.isArray(filters) || !filters.length) return 'must be a non-empty JSON array of filters';
  for (const [index, filter] of filters.entries()) {
    const { field_id, operator } = (filter ?? {}) as Record<string, unknown>;
    if (typeof filter !== 'object' || Array.isArray(filter) || typeof field_id !== 'string' || !field_id)
      return `item ${index} must be an object with a field_id`;
    if (typeof operator !== 'string' || !operators.has(operator))
      return `item ${index} has operator ${JSON.stringify(operator)}; use one of: ${[...operators].join(', ')}`;
  }
  return undefined;
}

const invalid = (name: string, problem: string) =>
  toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for GetTasksInList: parameter '${name}' ${problem}.`);
