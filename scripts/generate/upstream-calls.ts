/**
 * The reference catalog of toolkits that list each tool's upstream calls (Design, MailClient) instead of
 * one method and path, and leave parameter placement to us.
 */
import type { HttpMethod } from '../../packages/core/src/tool.js';
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
