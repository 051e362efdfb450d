/**
 * Pieces shared by the generators of toolkits whose reference catalog lists each tool's upstream calls
 * (Design, MailClient) instead of one method and path, and leaves parameter placement to us.
 */
import type { HttpMethod, JsonSchema, Parameter } from '../../packages/core/src/tool.js';
import type { CatalogParam, Descriptions, Placement } from './shared.js';

export interface CallCatalog {
  toolkit: string;
  default_base_url: string;
  auth: { provider: string; scopes: string[] };
  tools: Array<{
    name: string;
    upstream_calls: Array<{ method: HttpMethod; path: string; wire_path?: string; operationId: string }>;
    params: CatalogParam[];
    scopes: string[];
  }>;
}

/** The placements of one tool, checked to cover exactly its catalog parameters. */
export function placementsOf(
  tool: CallCatalog['tools'][number],
  placed: Record<string, Placement> | undefined,
  where: (text: string) => string,
): Record<string, Placement> {
  if (!placed) throw new Error(where('no placements'));
  const names = new Set(tool.params.map((param) => param.name));
  const unknown = Object.keys(placed).filter((name) => !names.has(name));
  if (unknown.length) throw new Error(where(`placements for unknown parameters ${unknown.join(', ')}`));
  const missing = [...names].filter((name) => !placed[name]);
  if (missing.length) throw new Error(where(`no placement for ${missing.join(', ')}`));
  return placed;
}

/**
 * A tool's parameters: described as `text` says, typed as the catalog says and narrowed by `refine`,
 * and placed as `placed` says.
 */
export function parametersOf(
  tool: CallCatalog['tools'][number],
  text: Descriptions['tools'][string],
  placed: Record<string, Placement>,
  where: (text: string) => string,
  refine: (param: CatalogParam) => JsonSchema,
): Parameter[] {
  return tool.params.map((param): Parameter => {
    const description = text.params[param.name];
    if (!description) throw new Error(where(`parameter ${param.name} has no description`));
    const schema: JsonSchema = { type: param.type, ...(param.enum && { enum: param.enum }), ...refine(param) };
    return { name: param.name, description, required: param.required, schema, ...placed[param.name] };
  });
}
