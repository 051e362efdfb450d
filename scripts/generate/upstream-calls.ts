/**
 * Pieces shared by the generators of toolkits whose reference catalog lists each tool's upstream calls
 * (Design, MailClient) instead of one method and path, and leaves parameter placement to us.
 */
import type { HttpMethod, ParameterLocation } from '../../packages/core/src/tool.js';
import type { CatalogParam } from './shared.js';

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

export interface Descriptions {
  toolkit: string;
  tools: Record<string, { description: string; output: string; params: Record<string, string> }>;
}

/** Where a parameter goes upstream; empty for one the tool's handler reads itself. */
export interface Placement {
  in?: ParameterLocation;
  upstream?: string;
  explode?: boolean;
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
