/**
 * Design: the toolkit catalog, from the interface in catalog/Design.json, our descriptions
 * (packages/toolkits/src/design/descriptions.json), and the placement of each parameter in Figma's REST API
 * (npm @figma/rest-api-spec), which the reference catalog leaves out.
 *
 * Tools whose catalog entry names two operations (file or team libraries) have no single binding: their
 * handlers pick the operation (packages/toolkits/src/design/library.ts).
 */
import { resolve } from 'node:path';
import type { JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { body, parametersOf, path, placementsOf, query, readDescriptions, readJson, toolkitFile, type Placement } from './shared.js';
import type { CallCatalog } from './upstream-calls.js';

const toolkitDir = 'packages/toolkits/src/design';

/** Read by the tool's handler, not sent as such. */
const local: Placement = {};
const nodeIds = query('ids', { explode: false });

/** A team library page (spec part 8): 1 to 50 items. */
const libraryPaging = { source: local, source_id: local, page_size: query('page_size'), after_cursor: query('after') };

const placements: Record<string, Record<string, Placement>> = {
  AddCommentOrReply: {
    file_key: path('file_key'),
    message: body('message'),
    parent_comment_id: body('comment_id'),
    node_id: body('client_meta.node_id'),
    x: body('client_meta.node_offset.x'),
    y: body('client_meta.node_offset.y'),
  },
  ExportImage: { file_key: path('file_key'), node_ids: nodeIds, image_format: query('format'), scale: query('scale') },
  GetComments: { file_key: path('file_key'), offset: local, max_items: local },
  GetComponent: { component_key: path('key') },
  GetComponentSet: { component_set_key: path('key') },
  GetComponentSets: libraryPaging,
  GetComponents: libraryPaging,
  GetFile: { file_key: path('file_key'), depth: query('depth') },
  GetFileNodes: { file_key: path('file_key'), node_ids: nodeIds, depth: query('depth'), include_raw_data: local },
  GetPages: { file_key: path('file_key') },
  GetProjectFiles: { project_id: path('project_id') },
  GetStyle: { style_key: path('key') },
  GetStyles: libraryPaging,
  GetTeamProjects: { team_id: path('team_id') },
  WhoAmI: {},
};

/** Limits checked before sending (spec parts 4.6 and 8). */
const bounds: Record<string, JsonSchema> = {
  message: { minLength: 1 },
  scale: { minimum: 0.01, maximum: 4 },
  offset: { minimum: 0 },
  max_items: { minimum: 1, maximum: 50 },
  page_size: { minimum: 1, maximum: 50 },
  after_cursor: { minimum: 0 },
  depth: { minimum: 1 },
};

export function generateDesign(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/Design.json')) as CallCatalog;
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `Design.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const placed = placementsOf(tool, placements[tool.name], where);

    const parameters = parametersOf(tool, text, where, {
      placed,
      refine: (param) => ({ ...(param.type === 'array' && { items: { type: 'string', minLength: 1 }, minItems: 1 }), ...bounds[param.name] }),
    });

    const [call, ...others] = tool.upstream_calls;
    const data: ToolData = {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters,
      output: { description: text.output },
      requirements: { oauth2: { provider: catalog.auth.provider, scopes: tool.scopes } },
    };
    if (others.length) {
      // Two operations, one chosen per call: read-only like each of them.
      data.annotations = { readOnlyHint: true, idempotentHint: true, destructiveHint: false };
    } else {
      data.http = { method: call!.method, path: call!.path, ...(parameters.some((p) => p.in === 'body') && { contentType: 'application/json' }) };
    }
    return data;
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
