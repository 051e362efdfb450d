/** Node trees as Figma serves them: lookup by id, depth limits, and the components a tree holds. */

export interface FigmaNode {
  id: string;
  name: string;
  type: string;
  children?: FigmaNode[];
  absoluteBoundingBox?: { x: number; y: number; width: number; height: number } | null;
  fills?: Array<{ type: string; color?: Rgba }>;
  backgroundColor?: Rgba;
  [field: string]: unknown;
}

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

/** `1:2`, and instance ids that chain them (`I1:2;3:4`). The URL form `1-2` is not the API's. */
export const NODE_ID = /^I?\d+:\d+(;I?\d+:\d+)*$/;

export function findNode(root: FigmaNode, id: string): FigmaNode | undefined {
  if (root.id === id) return root;
  for (const child of root.children ?? []) {
    const found = findNode(child, id);
    if (found) return found;
  }
  return undefined;
}

/** The node with `depth` levels of descendants; every level when depth is undefined. */
export function limitDepth(node: FigmaNode, depth: number | undefined): FigmaNode {
  if (depth === undefined || !node.children) return node;
  if (depth <= 0) return { ...node, children: [] };
  return { ...node, children: node.children.map((child) => limitDepth(child, depth - 1)) };
}

export function* walk(node: FigmaNode): Generator<FigmaNode> {
  yield node;
  for (const child of node.children ?? []) yield* walk(child);
}

/** How a node renders in an export: its first solid fill, else its background, else a neutral grey. */
export function colorOf(node: FigmaNode): Rgba {
  return node.fills?.find((fill) => fill.type === 'SOLID' && fill.color)?.color ?? node.backgroundColor ?? { r: 0.85, g: 0.85, b: 0.85, a: 1 };
}
