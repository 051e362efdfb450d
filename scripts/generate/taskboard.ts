/**
 * TaskboardApi: the toolkit catalog, from the interface in catalog/TaskboardApi.json, the structural
 * request schemas in catalog/schemas/TaskboardApi.json (with our own for the two tools they leave out,
 * see clickup-schemas.ts), and our descriptions (packages/toolkits/src/taskboard/descriptions.json).
 */
import { resolve } from 'node:path';
import type { JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { checklistToolBody, customFieldBody } from './clickup-schemas.js';
import { authoredSchema, parametersOf, readDescriptions, readJson, toolkitFile, type CatalogTool } from './shared.js';

const toolkitDir = 'packages/toolkits/src/taskboard';

/** Request bodies the structural schemas do not have. */
const ownBodies: Record<string, JsonSchema> = { CreateChecklist: checklistToolBody, CreateCustomField: customFieldBody };

/** Time filters are Unix milliseconds and pages count from 0: neither can be negative. */
const nonNegative = new Set(['page', 'due_date_gt', 'due_date_lt', 'date_created_gt', 'date_created_lt', 'date_updated_gt', 'date_updated_lt']);

export function generateTaskboard(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/TaskboardApi.json')) as {
    toolkit: string;
    default_base_url: string;
    auth: { provider: string; scopes: string[] };
    tools: CatalogTool[];
  };
  const structural = readJson(resolve(sharedDir, 'catalog/schemas/TaskboardApi.json')) as Record<string, Array<{ request_body?: JsonSchema }>>;
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `TaskboardApi.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const parameters = parametersOf(tool, text, where, {
      refine: (param) => (param.type === 'integer' && nonNegative.has(param.upstream ?? '') ? { minimum: 0 } : undefined),
    });
    const data: ToolData = {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters,
      output: { description: text.output },
      requirements: { oauth2: { provider: catalog.auth.provider, scopes: catalog.auth.scopes } },
      http: { method: tool.method, path: tool.path, ...(tool.mode_driven && { contentType: 'application/json' }) },
    };
    if (tool.mode_driven) {
      const body = ownBodies[tool.name] ?? structural[tool.name]?.[0]?.request_body;
      if (!body) throw new Error(where('mode-driven without a request schema'));
      data.requestBody = { contentType: 'application/json', schema: authoredSchema(body, text.body ?? {}, `Request body of ${tool.name}.`) };
    }
    return data;
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
