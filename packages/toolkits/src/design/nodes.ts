/** Pages of a file, and chosen nodes as a compact outline or as Figma's full JSON. */
import { answerOfShape, callUpstream, nestsDeeperThan, unexpectedResponse, type JsonSchema, type ToolHandler } from '@quiver/core';
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

/** A node as the outline reads it; its children are nodes again. */
const NODE: JsonSchema = {
  type: 'object',
  properties: { absoluteBoundingBox: { type: ['object', 'null'] }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
};

const PAGES_SHAPE: JsonSchema = {
  type: 'object',
  required: ['document'],
  properties: { document: { type: 'object', properties: { children: { type: 'array', items: { type: 'object' } } } } },
};

const NODES_SHAPE: JsonSchema = {
  type: 'object',
  required: ['nodes'],
  properties: {
    nodes: {
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'null' }, { type: 'object', required: ['document'], properties: { document: { $ref: '#/$defs/node' } } }] },
    },
  },
  $defs: { node: NODE },
};

/**
 * Deeper than any design's tree (each level of nodes is two of JSON); the outline and the check of its
 * shape walk the tree recursively, so a deeper answer is refused before either does.
 */
const MAX_TREE_DEPTH = 1_000;

export const getPages: ToolHandler = async ({ file_key }, context) => {
  const tool = binding('GetPages');
  // Depth 1 is the document and its pages: nothing of their contents travels.
  const pagesOnly = variant(tool, tool.http!, [
    { name: 'file_key', in: 'path', upstream: 'file_key' },
    { name: 'depth', in: 'query', upstream: 'depth' },
  ]);
  const result = await callUpstream(pagesOnly, { file_key, depth: 1 }, context);
  if ('error' in result) return result;
  const answer = answerOfShape<{ name: string; version: string; lastModified: string; document: FigmaNode }>(pagesOnly, result.value, PAGES_SHAPE);
  if ('error' in answer) return answer;
  const file = answer.value;
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
  const tool = binding('GetFileNodes');
  const result = await callUpstream(tool, { ...args, node_ids: normalized.ids }, context);
  if ('error' in result || include_raw_data) return result;
  if (nestsDeeperThan(result.value, MAX_TREE_DEPTH)) return unexpectedResponse(tool, `a node tree at most ${MAX_TREE_DEPTH} levels deep`, result.value);
  const answer = answerOfShape<{ name: string; version: string; lastModified: string; nodes: Record<string, { document: FigmaNode } | null> }>(
    tool,
    result.value,
    NODES_SHAPE,
  );
  if ('error' in answer) return answer;
  const file = answer.value;
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
