/**
 * Writes the Customer.io emulator's operation table (packages/sandbox/src/customerio/operations.json)
 * from the Track API's structural schemas: method, path, path and query parameters, request body,
 * success status and (for the region lookup) the response body. Labels are the catalog's operation labels.
 */
import { join } from 'node:path';
import type { JsonSchema } from '../../packages/core/src/tool.js';
import type { Generator } from './index.js';
import { validatable, type TrackOperation } from './customerio-schemas.js';
import { readJson } from './shared.js';

const output = 'packages/sandbox/src/customerio/operations.json';

/** Path parameters by name; segment ids are integers, every other one text. */
const pathParameterSchemas: Record<string, JsonSchema> = { segment_id: { type: 'integer' } };

/** The segment operations say what their ids are; Customer.io's own values. */
const idType = { required: false, schema: { type: 'string', enum: ['id', 'email', 'cio_id'] } };
const queryParameters: Record<string, Record<string, { required: boolean; schema: JsonSchema }>> = {
  add_to_segment: { id_type: idType },
  remove_from_segment: { id_type: idType },
};

/** The unsubscribe body only carries the optional `unsubscribe` flag, so it may be left out. */
const optionalBodies = new Set(['unsubscribe']);

export const customerioEmulator: Generator = (sharedDir) => {
  const catalog = readJson(join(sharedDir, 'catalog', 'TrackingApi.json')) as {
    tools: Array<{ name: string; operation: string; method: string; path: string }>;
  };
  const schemas = readJson(join(sharedDir, 'catalog', 'schemas', 'TrackingApi.json')) as Record<string, TrackOperation[]>;

  const operations: Record<string, JsonSchema> = {};
  for (const tool of [...catalog.tools].sort((a, b) => (a.operation < b.operation ? -1 : 1))) {
    const entry = schemas[tool.name]?.[0];
    if (!entry || entry.method !== tool.method || entry.path !== tool.path)
      throw new Error(`customerio-emulator: no schema for ${tool.name} at ${tool.method} ${tool.path}`);
    const placeholders = [...tool.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const operation: JsonSchema = {
      method: entry.method,
      path: entry.path,
      pathParameters: Object.fromEntries(placeholders.map((name) => [name, pathParameterSchemas[name] ?? { type: 'string' }])),
      queryParameters: queryParameters[tool.operation] ?? {},
      successStatus: entry.success_status,
    };
    if (entry.request_body) {
      operation.requestContentType = entry.request_content_type ?? 'application/json';
      operation.requestBody = validatable(entry.request_body);
      if (optionalBodies.has(tool.operation)) operation.requestBodyOptional = true;
    }
    if (entry.response_body) operation.responseBody = validatable(entry.response_body);
    operations[tool.operation] = operation;
  }
  return [{ path: output, content: `${JSON.stringify({ $defs: {}, operations }, null, 2)}\n` }];
};
