/**
 * Writes the Pylon emulator's operation table (packages/sandbox/src/pylon/operations.json): one entry per
 * upstream operation the SupportDesk tools call, from the catalog's upstream calls (operation label,
 * method, path) and the structural schemas (bodies, statuses). The structural schemas carry no query
 * parameters; those below are Pylon's, from its API reference.
 */
import { join } from 'node:path';
import type { Generator } from './index.js';
import { readJson } from './shared.js';

type Schema = { [keyword: string]: unknown };

interface UpstreamCall {
  method: string;
  path: string;
  operationId: string;
}

interface SchemaEntry {
  method: string;
  path: string;
  request_content_type?: string;
  request_body?: Schema;
  success_status?: number;
  response_body?: Schema;
}

const output = 'packages/sandbox/src/pylon/operations.json';

const text = { type: 'string' };
const rfc3339 = { type: 'string', format: 'date-time' };
const pageSize = { type: 'integer', minimum: 1, maximum: 1000 };

/** Query parameters by operation label: `[schema, required]`. */
const queries: Record<string, Record<string, [Schema, boolean]>> = {
  // Pylon lists issues created in a window of at most 30 days, both ends required.
  GetIssues: { start_time: [rfc3339, true], end_time: [rfc3339, true], cursor: [text, false], limit: [pageSize, false] },
  GetUsers: { cursor: [text, false], limit: [pageSize, false] },
  GetContacts: { cursor: [text, false], limit: [pageSize, false] },
  GetTeams: { cursor: [text, false] },
};

export const pylonEmulator: Generator = (sharedDir) => {
  const catalog = readJson(join(sharedDir, 'catalog', 'SupportDesk.json')) as { tools: Array<{ name: string; upstream_calls: UpstreamCall[] }> };
  const schemas = readJson(join(sharedDir, 'catalog', 'schemas', 'SupportDesk.json')) as Record<string, SchemaEntry[]>;

  const operations: Record<string, Schema> = {};
  for (const tool of catalog.tools) {
    for (const call of tool.upstream_calls) {
      const entry = schemas[tool.name]?.find((candidate) => candidate.method === call.method && candidate.path === call.path);
      if (!entry) throw new Error(`pylon-emulator: no schema for ${call.method} ${call.path} of ${tool.name}`);
      const operation = describe(call, entry);
      const known = operations[call.operationId];
      if (known && JSON.stringify(known) !== JSON.stringify(operation)) throw new Error(`pylon-emulator: ${call.operationId} is described twice, differently`);
      operations[call.operationId] = operation;
    }
  }
  const unknown = Object.keys(queries).filter((label) => !operations[label]);
  if (unknown.length) throw new Error(`pylon-emulator: query parameters for unknown operations ${unknown.join(', ')}`);
  const sorted = Object.fromEntries(
    Object.keys(operations)
      .sort()
      .map((label) => [label, operations[label]!]),
  );
  return [{ path: output, content: `${JSON.stringify({ $defs: {}, operations: sorted }, null, 2)}\n` }];
};

function describe(call: UpstreamCall, entry: SchemaEntry): Schema {
  const pathParameters = Object.fromEntries([...call.path.matchAll(/\{([^}]+)\}/g)].map((match) => [match[1]!, { type: 'string' }]));
  const queryParameters = Object.fromEntries(Object.entries(queries[call.operationId] ?? {}).map(([name, [schema, required]]) => [name, { required, schema }]));
  const operation: Schema = { method: call.method, path: call.path, pathParameters, queryParameters, successStatus: entry.success_status ?? 200 };
  if (entry.request_body) {
    operation.requestContentType = entry.request_content_type ?? 'application/json';
    operation.requestBody = entry.request_body;
  }
  if (entry.response_body) operation.responseBody = entry.response_body;
  return operation;
}
