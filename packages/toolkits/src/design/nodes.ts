/** Pages of a file, and chosen nodes as a compact outline or as Figma's full JSON. */
import { callUpstream, type ToolHandler } from '@quiver/core';
import { binding, variant } from './bindings.js';
import { normalizeNodeIds } from './node-ids.js';

interface FigmaNode {
  id: string;
  name: string;
  type: string;
  visible?: boolean;
  characters?: string;
  absoluteBoundingBox?: { x: number; y: number; width: number; height: number } | null;
  children?: FigmaNode[];
}

export const getPages: ToolHandler = async ({ file_key }, context) => {
  const tool = binding('GetPages');
  // Depth 1 is the document and its pages: nothing of their contents travels.
  const pagesOnly = variant(tool, tool.http!, [
    { name: 'file_key', in: 'path', upstream: 'file_key' },
    { name: 'depth', in: 'query', upstream: 'depth' },
  ]);
  const result = await callUpstream(pagesOnly, { file_key, depth: 1 }, context);
  if ('error' in result) return result;
  const file = result.value as { name: string; version: string; lastModified: string; document: FigmaNode };
  return {
    value: {
      name: file.name,
      version: file.version,
      lastModified: file.lastModified,
      pages: (file.document.children ?? []).map(({ id, name }) => ({ id, name })),
    },
  };
};

export const getFileNodes: ToolHandler = async ({ include_raw_data = false, ...args }, context) => {
  const normalized = normalizeNodeIds('GetFileNodes', 'node_ids', args.node_ids as string[]);
  if ('error' in normalized) return normalized;
  const result = await callUpstream(binding('GetFileNodes'), { ...args, node_ids: normalized.ids }, context);
  if ('error' in result || include_raw_data) return result;
  const file = result.value as { name: string; version: string; lastModified: string; nodes: Record<string, { document: FigmaNode } | null> };
  const nodes = Object.fromEntries(Object.entries(file.nodes).map(([id, entry]) => [id, entry ? outline(entry.document) : null]));
  return { value: { name: file.name, version: file.version, lastModified: file.lastModified, nodes } };
};

/** What a model needs to find its way in a design: identity, size and position, text, and structure. */
function outline(node: FigmaNode): Record<string, unknown> {
  const box = node.absoluteBoundingBox;
  return {
    id: node.id,
    name: node.name,
    type: node.type,
    ...(node.visible === false && { visible: false }),
    ...(box && { x: box.x, y: box.y, width: box.width, height: box.height }),
    ...(node.characters !== undefined && { characters: node.characters }),
    ...(node.children && { children: node.children.map(outline) }),
  };
}
