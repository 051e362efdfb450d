/** Files and their nodes, and the teams and projects that hold them. */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, notFound, type Handler } from './context.js';
import { findNode, limitDepth, NODE_ID, walk, type FigmaNode } from './tree.js';

interface FileRow {
  key: string;
  name: string;
  editor_type: 'figma' | 'figjam';
  version: string;
  last_modified: string;
  thumbnail_url: string;
  document: string;
}

export interface StoredFile extends Omit<FileRow, 'document'> {
  document: FigmaNode;
}

export function fileOf(db: Database.Database, key: string): StoredFile {
  const row = db.prepare('SELECT key, name, editor_type, version, last_modified, thumbnail_url, document FROM files WHERE key = ?').get(key) as
    | FileRow
    | undefined;
  if (!row) throw notFound('File');
  return { ...row, document: JSON.parse(row.document) as FigmaNode };
}

/** `ids=1:2,1:3`: the API's colon form only; the dash form of Figma URLs is the caller's to convert. */
export function nodeIdsOf(text: string): string[] {
  const ids = text.split(',').map((id) => id.trim());
  const wrong = ids.filter((id) => !NODE_ID.test(id));
  if (wrong.length) throw badRequest(`Invalid node id${wrong.length > 1 ? 's' : ''} in ids: ${wrong.join(', ')}; node ids look like 1:2`);
  return ids;
}

function depthOf(query: Record<string, string | string[]>): number | undefined {
  if (query.depth === undefined) return undefined;
  const depth = Number(query.depth);
  if (!Number.isInteger(depth) || depth < 1) throw badRequest('depth must be a positive integer');
  return depth;
}

/** The file-level facts every file answer carries. */
const header = (file: StoredFile) => ({
  name: file.name,
  role: 'editor' as const,
  lastModified: file.last_modified,
  editorType: file.editor_type,
  thumbnailUrl: file.thumbnail_url,
  version: file.version,
});

/** Metadata of the components, component sets and styles a subtree holds, keyed by node id. */
function libraryOf(db: Database.Database, file: StoredFile, root: FigmaNode) {
  const published = db.prepare('SELECT kind, key, node_id, description, style_type FROM library_items WHERE file_key = ?').all(file.key) as Array<{
    kind: string;
    key: string;
    node_id: string;
    description: string;
    style_type: string | null;
  }>;
  const entry = (kind: string, node: FigmaNode) => {
    const item = published.find((p) => p.kind === kind && p.node_id === node.id);
    // An unpublished component still has a key in Figma; derive a stable one.
    const key = item?.key ?? createHash('sha1').update(`${file.key}/${node.id}`).digest('hex');
    return { key, name: node.name, description: item?.description ?? '', remote: false, documentationLinks: [] };
  };
  const nodes = [...walk(root)];
  const styles = published.filter((p) => p.kind === 'styles' && nodes.some((node) => node.id === p.node_id));
  return {
    components: Object.fromEntries(nodes.filter((n) => n.type === 'COMPONENT').map((n) => [n.id, entry('components', n)])),
    componentSets: Object.fromEntries(nodes.filter((n) => n.type === 'COMPONENT_SET').map((n) => [n.id, entry('component_sets', n)])),
    schemaVersion: 0,
    styles: Object.fromEntries(
      styles.map((style) => [
        style.node_id,
        { key: style.key, name: findNode(root, style.node_id)!.name, description: style.description, remote: false, styleType: style.style_type! },
      ]),
    ),
  };
}

export const fileHandlers: Record<string, Handler> = {
  getFile: ({ params, query }, { db }) => {
    const file = fileOf(db, params.file_key!);
    const document = limitDepth(file.document, depthOf(query));
    return { status: 200, body: { ...header(file), document, ...libraryOf(db, file, document) } };
  },

  getFileNodes: ({ params, query }, { db }) => {
    const file = fileOf(db, params.file_key!);
    const depth = depthOf(query);
    const nodes = Object.fromEntries(
      nodeIdsOf(query.ids as string).map((id) => {
        const node = findNode(file.document, id);
        if (!node) return [id, null];
        const document = limitDepth(node, depth);
        return [id, { document, ...libraryOf(db, file, document) }];
      }),
    );
    return { status: 200, body: { ...header(file), nodes } };
  },

  getTeamProjects: ({ params }, { db }) => {
    const team = db.prepare('SELECT name FROM teams WHERE id = ?').get(params.team_id) as { name: string } | undefined;
    if (!team) throw notFound('Team');
    const projects = db.prepare('SELECT id, name FROM projects WHERE team_id = ? ORDER BY name, id').all(params.team_id);
    return { status: 200, body: { name: team.name, projects } };
  },

  getProjectFiles: ({ params }, { db }) => {
    const project = db.prepare('SELECT name FROM projects WHERE id = ?').get(params.project_id) as { name: string } | undefined;
    if (!project) throw notFound('Project');
    const files = db.prepare('SELECT key, name, thumbnail_url, last_modified FROM files WHERE project_id = ? ORDER BY name, key').all(params.project_id);
    return { status: 200, body: { name: project.name, files } };
  },
};
