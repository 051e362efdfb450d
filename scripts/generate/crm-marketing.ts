/**
 * CrmMarketingApi: the toolkit catalog, from the interface in catalog/CrmMarketingApi.json, the structural
 * request schemas in catalog/schemas/CrmMarketingApi.json, and our own descriptions
 * (packages/toolkits/src/crm-marketing/descriptions.json).
 */
import { resolve } from 'node:path';
import type { Annotations, JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { authoredSchema, parametersOf, readDescriptions, readJson, toolkitFile, type CatalogTool } from './shared.js';

const toolkitDir = 'packages/toolkits/src/crm-marketing';

/**
 * Where the HTTP method misleads: these POSTs delete, discard or only read. The batch deletions are
 * idempotent (deleting twice leaves the same state).
 */
const annotationOverrides: Record<string, Partial<Annotations>> = {
  ArchiveCampaignsBatch: { destructiveHint: true, idempotentHint: true },
  DeleteMarketingEvents: { destructiveHint: true, idempotentHint: true },
  RemoveMarketingEvents: { destructiveHint: true, idempotentHint: true },
  FetchMarketingCampaignBatches: { readOnlyHint: true, idempotentHint: true },
  ResetPasswordForToken: { destructiveHint: true }, // the old SMTP password stops working at once
  ResetEmailDraftToLive: { destructiveHint: true, idempotentHint: true }, // discards the draft's edits
};

export function generateCrmMarketing(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/CrmMarketingApi.json')) as {
    toolkit: string;
    default_base_url: string;
    auth: { provider: string };
    tools: CatalogTool[];
  };
  const structural = readJson(resolve(sharedDir, 'catalog/schemas/CrmMarketingApi.json')) as Record<
    string,
    Array<{ request_content_type?: string; request_body?: JsonSchema }>
  >;
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `CrmMarketingApi.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const operation = structural[tool.name]?.[0];
    // HubSpot's array query parameters are lists of names (properties, form types).
    const parameters = parametersOf(tool, text, where, { refine: (param) => (param.type === 'array' ? { items: { type: 'string' } } : undefined) });
    const data: ToolData = {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters,
      output: { description: text.output },
      requirements: { oauth2: { provider: catalog.auth.provider, scopes: tool.scopes } },
      http: {
        method: tool.method,
        path: tool.path,
        ...(tool.params.some((p) => p.in === 'body') && { contentType: operation?.request_content_type ?? 'application/json' }),
      },
    };
    if (tool.mode_driven) {
      if (!operation?.request_body) throw new Error(where('mode-driven without a request schema'));
      data.requestBody = {
        contentType: operation.request_content_type ?? 'application/json',
        schema: authoredSchema(operation.request_body, text.body ?? {}, `Request body of ${tool.name}.`),
      };
    }
    if (annotationOverrides[tool.name]) data.annotations = annotationOverrides[tool.name];
    return data;
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
