/**
 * FileStore: the toolkit catalog, from the interface in catalog/FileStore.json, the limits of the spec
 * (part 8) and our descriptions (packages/toolkits/src/file-store/descriptions.json). Every tool has a
 * handler (packages/toolkits/src/file-store/), which places the parameters: Dropbox takes them as JSON
 * bodies of RPC calls, or as the Dropbox-API-Arg header on the content host, and a cursor calls another
 * endpoint than a first page.
 */
import { resolve } from 'node:path';
import type { JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { parametersOf, readDescriptions, readJson, toolkitFile, type CatalogParam } from './shared.js';

const toolkitDir = 'packages/toolkits/src/file-store';

/** Where DownloadFile finds the content host when it is not Dropbox's own (read in file-store/dropbox.ts). */
const contentUrlSecret = 'FILE_STORE_CONTENT_URL';

interface FileStoreTool {
  name: string;
  params: CatalogParam[];
  scopes: string[];
}

/** The spec's limits (part 8) and what Dropbox itself refuses, checked before anything is sent. */
const bounds: Record<string, Record<string, JsonSchema>> = {
  DownloadFile: { file_path: { minLength: 1 }, file_id: { minLength: 1 } },
  ListItemsInFolder: { limit: { minimum: 1, maximum: 2000 }, cursor: { minLength: 1 } },
  SearchFilesAndFolders: { keywords: { minLength: 1, maxLength: 1000 }, limit: { minimum: 1, maximum: 1000 }, cursor: { minLength: 1 } },
};

export function generateFileStore(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/FileStore.json')) as {
    toolkit: string;
    default_base_url: string;
    auth: { provider: string };
    tools: FileStoreTool[];
  };
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `FileStore.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const refine = (param: CatalogParam): JsonSchema => ({
      ...(param.type === 'array' && { items: { type: 'string' }, uniqueItems: true }),
      ...bounds[tool.name]?.[param.name],
    });
    return {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters: parametersOf(tool, text, where, { refine }),
      output: { description: text.output },
      requirements: {
        oauth2: { provider: catalog.auth.provider, scopes: tool.scopes },
        ...(tool.name === 'DownloadFile' && { secrets: [{ key: contentUrlSecret, optional: true }] }),
      },
      // Dropbox's RPC calls are POSTs, yet these three only read.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    };
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
