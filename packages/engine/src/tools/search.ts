/** Search over every tool the catalog lists, built-in and workers' alike. */
import { createToolIndex, type SearchHit, type SearchOptions, type Tool, type ToolIndex } from '@quiver/core';
import type { ToolCatalog } from './catalog.js';

/** Per catalog, the index and the tools it was built from. */
const built = new WeakMap<ToolCatalog, { tools: Tool[]; index: Promise<ToolIndex> }>();

/** Builds the index on the first search and again whenever the listed tools change (a worker added or removed). */
export async function searchCatalog(catalog: ToolCatalog, query: string, options?: SearchOptions): Promise<SearchHit[]> {
  const tools = (await catalog.list()).map((entry) => entry.tool);
  let current = built.get(catalog);
  if (!current || !sameTools(current.tools, tools)) {
    current = { tools, index: createToolIndex(tools) };
    built.set(catalog, current);
  }
  return (await current.index).search(query, options);
}

/** A source answers with the same tool objects until it is added, removed or asked again. */
const sameTools = (a: readonly Tool[], b: readonly Tool[]) => a.length === b.length && a.every((tool, i) => tool === b[i]);
