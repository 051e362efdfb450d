/**
 * Writes the ClickUp emulator's operation table (packages/sandbox/src/clickup/operations.json) from the
 * TaskboardApi catalog (method, path, parameters), its structural schemas (bodies), and the shapes in
 * clickup-schemas.ts for what those leave out: custom-field creation and checklist items.
 *
 * The structural response schemas carry a few slips that a validator cannot take as they are; they are
 * corrected here, each as ClickUp really answers: a schema written as a one-element list (`priority`),
 * the type names `bigint` and `int`, and the task list's records, which give `custom_fields` as one
 * field and leave out `custom_id` where ClickUp answers both as it does for a single task. A single task
 * also gets the `subtasks` ClickUp adds when asked with include_subtasks.
 */
import { join } from 'node:path';
import type { Generator } from './index.js';
import { checklistItemBody, checklistWithItemsResponse, customFieldBody, customFieldResponse } from './clickup-schemas.js';
import { readJson, type CatalogTool } from './shared.js';

type Schema = { [keyword: string]: unknown };

const output = 'packages/sandbox/src/clickup/operations.json';

interface SchemaEntry {
  request_content_type?: string;
  request_body?: Schema;
  success_status?: number;
  response_body?: Schema;
}

export const clickupEmulator: Generator = (sharedDir) => {
  const catalog = readJson(join(sharedDir, 'catalog', 'TaskboardApi.json')) as { tools: CatalogTool[] };
  const schemas = readJson(join(sharedDir, 'catalog', 'schemas', 'TaskboardApi.json')) as Record<string, SchemaEntry[]>;
  const own: Record<string, SchemaEntry> = {
    createCustomField: { request_body: customFieldBody, response_body: customFieldResponse },
  };

  const operations: Record<string, Schema> = {};
  for (const tool of catalog.tools) {
    const entry = own[tool.operation] ?? schemas[tool.name]?.[0];
    if (!entry) throw new Error(`clickup-emulator: no schema for ${tool.name}`);
    const pathParameters = Object.fromEntries([...tool.path.matchAll(/\{([^}]+)\}/g)].map((match) => [match[1]!, { type: 'string' }]));
    const queryParameters = Object.fromEntries(
      tool.params
        .filter((param) => param.in === 'query')
        .map((param) => [
          param.upstream ?? param.name,
          { required: false, schema: queryParameterSchema(param.upstream ?? param.name, param.type, param.enum) },
        ]),
    );
    operations[tool.operation] = {
      method: tool.method,
      path: tool.path,
      pathParameters,
      queryParameters,
      ...(entry.request_body && { requestContentType: 'application/json', requestBody: corrected(entry.request_body) }),
      successStatus: entry.success_status ?? 200,
      ...(entry.response_body && { responseBody: corrected(entry.response_body) }),
    };
  }
  // The checklist tool's second call.
  operations.createChecklistItem = {
    method: 'POST',
    path: '/v2/checklist/{checklist_id}/checklist_item',
    pathParameters: { checklist_id: { type: 'string' } },
    queryParameters: {},
    requestContentType: 'application/json',
    requestBody: checklistItemBody,
    successStatus: 200,
    responseBody: checklistWithItemsResponse,
  };
  const task = (operations.getTask!.responseBody as Schema).properties as Schema;
  const listed = ((((operations.getTasks!.responseBody as Schema).properties as Schema).tasks as Schema).items as Schema).properties as Schema;
  listed.custom_id = task.custom_id;
  listed.custom_fields = task.custom_fields;
  task.subtasks = { type: 'array', items: { type: 'object', properties: { ...task } } };

  const sorted = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
  return [{ path: output, content: `${JSON.stringify({ $defs: {}, operations: sorted }, null, 2)}\n` }];
};

/** `statuses[]` and its kind travel as repeated keys; other parameters are single values. */
function queryParameterSchema(name: string, type: string, values?: string[]): Schema {
  if (name.endsWith('[]')) return { type: 'array', items: { type: 'string' } };
  return { type, ...(values && { enum: values }), ...(type === 'integer' && { minimum: 0 }) };
}

const typeNames: Record<string, string> = { bigint: 'integer', int: 'integer' };

function corrected(schema: unknown): Schema {
  if (Array.isArray(schema)) return corrected(schema[0]);
  const node = { ...(schema as Schema) };
  if (typeof node.type === 'string' && typeNames[node.type]) node.type = typeNames[node.type];
  // The validator picks one variant; these variants overlap (a user is also an open object).
  if (node.oneOf) {
    node.anyOf = (node.oneOf as unknown[]).map(corrected);
    delete node.oneOf;
  }
  if (node.properties) node.properties = Object.fromEntries(Object.entries(node.properties as Schema).map(([name, child]) => [name, corrected(child)]));
  if (node.items) node.items = corrected(node.items);
  return node;
}
