/**
 * Published components, component sets and styles: by key, all of one file, or a team library a page at
 * a time. Team pages are cursor-based: `after` and `before` are the integers the previous page handed out.
 */
import type Database from 'better-sqlite3';
import { badRequest, notFound, type Handler } from './context.js';
import { fileOf } from './files.js';
import { findNode } from './tree.js';
import { userById } from './users.js';

type Kind = 'components' | 'component_sets' | 'styles';

interface ItemRow {
  seq: number;
  kind: Kind;
  key: string;
  file_key: string;
  node_id: string;
  name: string;
  description: string;
  style_type: string | null;
  sort_position: string | null;
  created_at: string;
  updated_at: string;
  user_id: string;
}

/** Figma's own default team page. */
const DEFAULT_PAGE_SIZE = 30;
const MAX_PAGE_SIZE = 1000;

function render(db: Database.Database, row: ItemRow) {
  const common = {
    key: row.key,
    file_key: row.file_key,
    node_id: row.node_id,
    thumbnail_url: `https://s3-alpha.figma.com/thumbnails/${row.key}`,
    name: row.name,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
    user: userById(db, row.user_id),
  };
  if (row.kind === 'styles') return { ...common, style_type: row.style_type, sort_position: row.sort_position };
  return { ...common, containing_frame: containingFrame(db, row) };
}

/** The page (and frame) the published node sits on. */
function containingFrame(db: Database.Database, row: ItemRow) {
  const file = fileOf(db, row.file_key);
  const page = (file.document.children ?? []).find((canvas) => findNode(canvas, row.node_id));
  const frame = page?.children?.find((child) => child.id !== row.node_id && findNode(child, row.node_id));
  return { pageId: page?.id ?? '', pageName: page?.name ?? '', ...(frame && { nodeId: frame.id, name: frame.name }) };
}

const envelope = (meta: unknown) => ({ status: 200, body: { status: 200, error: false, meta } });

function byKey(kind: Kind, what: string): Handler {
  return ({ params }, { db }) => {
    const row = db.prepare('SELECT * FROM library_items WHERE kind = ? AND key = ?').get(kind, params.key) as ItemRow | undefined;
    if (!row) throw notFound(what);
    return envelope(render(db, row));
  };
}

function ofFile(kind: Kind): Handler {
  return ({ params }, { db }) => {
    const file = fileOf(db, params.file_key!);
    const rows = db.prepare('SELECT * FROM library_items WHERE kind = ? AND file_key = ? ORDER BY seq').all(kind, file.key) as ItemRow[];
    return envelope({ [kind]: rows.map((row) => render(db, row)) });
  };
}

function ofTeam(kind: Kind): Handler {
  return ({ params, query }, { db }) => {
    if (!db.prepare('SELECT 1 FROM teams WHERE id = ?').get(params.team_id)) throw notFound('Team');
    if (query.after !== undefined && query.before !== undefined) throw badRequest('after and before are exclusive; give one');
    const size = query.page_size === undefined ? DEFAULT_PAGE_SIZE : Number(query.page_size);
    if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw badRequest(`page_size must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    const all = db
      .prepare(
        `SELECT i.* FROM library_items i JOIN files f ON f.key = i.file_key JOIN projects p ON p.id = f.project_id
         WHERE i.kind = ? AND p.team_id = ? ORDER BY i.seq`,
      )
      .all(kind, params.team_id) as ItemRow[];
    let start = 0;
    let end = all.length;
    if (query.after !== undefined) start = all.findIndex((row) => row.seq > Number(query.after));
    if (query.before !== undefined) end = all.findIndex((row) => row.seq >= Number(query.before));
    if (start === -1) start = all.length;
    if (end === -1) end = all.length;
    const page = query.before !== undefined ? all.slice(Math.max(start, end - size), end) : all.slice(start, Math.min(end, start + size));
    const first = all.indexOf(page[0]!);
    const last = all.indexOf(page.at(-1)!);
    const cursor = {
      ...(page.length && first > 0 && { before: page[0]!.seq }),
      ...(page.length && last < all.length - 1 && { after: page.at(-1)!.seq }),
    };
    return envelope({ [kind]: page.map((row) => render(db, row)), cursor });
  };
}

export const libraryHandlers: Record<string, Handler> = {
  getComponent: byKey('components', 'Component'),
  getComponentSet: byKey('component_sets', 'Component set'),
  getStyle: byKey('styles', 'Style'),
  getFileComponents: ofFile('components'),
  getFileComponentSets: ofFile('component_sets'),
  getFileStyles: ofFile('styles'),
  getTeamComponents: ofTeam('components'),
  getTeamComponentSets: ofTeam('component_sets'),
  getTeamStyles: ofTeam('styles'),
};
