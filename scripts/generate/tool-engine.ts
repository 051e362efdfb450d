/**
 * ToolEngineApi: the toolkit catalog, from the interface in catalog/ToolEngineApi.json, our own
 * descriptions (packages/toolkits/src/tool-engine/descriptions.json), and the placement of each
 * parameter in the engine's HTTP API (design/ENGINE_API.md), which the reference catalog leaves out.
 */
import { resolve } from 'node:path';
import type { JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import {
  authoredSchema,
  body,
  header,
  parametersOf,
  path,
  placementsOf,
  query,
  readDescriptions,
  readJson,
  toolkitFile,
  type CatalogTool,
  type Placement,
} from './shared.js';

const toolkitDir = 'packages/toolkits/src/tool-engine';
const apiKey = 'ENGINE_API_KEY';

/** The engine's page query (default 25, at most 100). */
const limit = query('limit');
const offset = query('offset');

/**
 * Where each catalog parameter goes in the engine's API. Path placeholders are the catalog's own
 * ({id}, {name}, ...); dotted body names nest (http.uri).
 */
const placements: Record<string, Record<string, Placement>> = {
  AuthorizeUserToolAccess: {
    tool_name_for_authorization: body('tool_name'),
    redirect_uri_after_authorization: body('next_uri'),
    tool_version: body('tool_version'),
    user_id: body('user_id'),
  },
  AuthorizeWorker: { worker_id: path('id') },
  CheckAuthStatus: { authorization_id: query('id'), timeout_in_seconds: query('wait') },
  CheckToolEngineHealth: {},
  CreateWorker: {
    worker_id: body('id'),
    enable_worker: body('enabled'),
    worker_type: body('type'),
    worker_http_uri: body('http.uri'),
    http_secret_key: body('http.secret'),
    http_timeout_seconds: body('http.timeout'),
    http_retry_attempts: body('http.retry'),
    worker_resource_uri: body('mcp.uri'),
    mcp_timeout_duration: body('mcp.timeout'),
    mcp_retry_attempts: body('mcp.retry'),
  },
  DeleteAuthProvider: { auth_provider_id: path('id') },
  DeleteMcpEndpoint: {},
  DeleteSecretById: { secret_id: path('secret_id') },
  DeleteUserAuthConnection: { connection_id: path('id') },
  DeleteWorker: { worker_id: path('id') },
  ExecuteTool: {},
  FetchToolsPage: { worker_id: path('id'), number_of_items: limit, start_offset: offset },
  GetAuthProviderDetails: { auth_provider_id: path('id') },
  GetFormattedToolSpecification: { tool_name: path('name'), provider_format: query('format'), user_id: query('user_id') },
  GetOpenapiSpecification: {},
  // The project routes take the caller's own credential (a JWT in the spec; here an API key).
  GetProjectDetails: { authorization_token: header('Authorization'), project_id: path('project_id') },
  GetScheduledToolDetails: { scheduled_execution_id: path('id') },
  GetScheduledToolExecutions: { items_limit: limit, list_offset: offset },
  GetToolSpecification: { tool_name: path('name'), formats_to_include: { ...query('include_format'), explode: false }, user_identifier: query('user_id') },
  GetToolsList: {
    include_formats: { ...query('include_format'), explode: false },
    items_per_page: limit,
    start_offset: offset,
    toolkit_name: query('toolkit'),
    user_id: query('user_id'),
  },
  GetWorkerById: { worker_id: path('id') },
  GetWorkerHealthStatus: { worker_id: path('id') },
  ListAccessibleProjects: { bearer_token: header('Authorization'), items_to_skip: offset, maximum_items_to_return: limit },
  ListAuthConnections: { page_offset: offset, page_size: limit, provider_id: query('provider_id'), user_id: query('user_id') },
  ListAvailableAuthProviders: {},
  ListWorkers: { number_of_items_to_return: limit, start_offset: offset },
  RetrieveFormattedToolsList: {
    filter_by_toolkit: query('toolkit'),
    number_of_items_to_return: limit,
    offset_start_index: offset,
    provider_format: query('format'),
    user_identifier: query('user_id'),
  },
  TestWorkerConnection: { worker_connection_type: body('type'), http_uri: body('http.uri'), mcp_uri: body('mcp.uri') },
  UpdateSessionVerificationSettings: { unsafe_skip_verification: body('unsafe_skip_verification'), verifier_url: body('verifier_url') },
};

/** The engine's limits, checked before sending (spec part 8): pages of 1 to 100, waits of at most 59 s. */
function bounds(placement: Placement): JsonSchema {
  if (placement.in !== 'query') return {};
  if (placement.upstream === 'limit') return { minimum: 1, maximum: 100 };
  if (placement.upstream === 'offset') return { minimum: 0 };
  if (placement.upstream === 'wait') return { minimum: 0, maximum: 59 };
  return {};
}

/** The engine's execute body (POST /v1/tools/execute), the request schema of ExecuteTool. */
const executeBody: JsonSchema = {
  type: 'object',
  required: ['tool_name'],
  properties: {
    tool_name: { type: 'string', minLength: 1 },
    input: { type: 'object', additionalProperties: true },
    tool_version: { type: 'string' },
    user_id: { type: 'string' },
    run_at: { type: 'string' },
    include_error_stacktrace: { type: 'boolean' },
  },
};

export function generateToolEngine(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/ToolEngineApi.json')) as {
    toolkit: string;
    default_base_url: string;
    tools: Array<CatalogTool & { secrets?: string[] }>;
  };
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `ToolEngineApi.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const placed = placementsOf(tool, placements[tool.name], where);
    const parameters = parametersOf(tool, text, where, {
      placed,
      // The array parameters are lists of format names.
      refine: (param) => ({ ...(param.type === 'array' && { items: { type: 'string' } }), ...bounds(placed[param.name]!) }),
    });

    const secrets = tool.secrets ?? [];
    const data: ToolData = {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters,
      output: { description: text.output },
      requirements: secrets.length ? { secrets: secrets.map((key) => ({ key })) } : {},
      http: {
        method: tool.method,
        path: tool.path,
        ...(tool.params.some((param) => placed[param.name]?.in === 'body') && { contentType: 'application/json' }),
        // The engine takes its API key as a bearer token.
        ...(secrets.includes(apiKey) && { auth: { secret: apiKey, scheme: 'Bearer' } }),
      },
    };
    if (tool.mode_driven) {
      data.requestBody = { contentType: 'application/json', schema: authoredSchema(executeBody, text.body ?? {}, `Request body of ${tool.name}.`) };
    }
    return data;
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
