/**
 * Comments and replies. A reply answers a top-level comment (not another reply) and sits where that
 * comment sits; a top-level comment may be pinned to a node of the file, which must exist.
 */
import type Database from 'better-sqlite3';
import { badRequest, isoTime, notFound, type Handler } from './context.js';
import { fileOf } from './files.js';
import { findNode } from './tree.js';
import { userById } from './users.js';

interface CommentRow {
  id: number;
  file_key: string;
  parent_id: number | null;
  user_id: string;
  message: string;
  client_meta: string;
  created_at: string;
  order_id: string | null;
}

function render(db: Database.Database, row: CommentRow) {
  return {
    id: String(row.id),
    file_key: row.file_key,
    ...(row.parent_id !== null && { parent_id: String(row.parent_id) }),
    user: userById(db, row.user_id),
    created_at: row.created_at,
    resolved_at: null,
    message: row.message,
    client_meta: JSON.parse(row.client_meta) as unknown,
    order_id: row.order_id,
    reactions: [],
  };
}

/** Where an unpinned top-level comment sits: the canvas origin. */
const ORIGIN = { x: 0, y: 0 };

export const commentHandlers: Record<string, Handler> = {
  getComments: ({ params }, { db }) => {
    const file = fileOf(db, params.file_key!);
    // Newest first, as Figma's comment panel lists them.
    const rows = db.prepare('SELECT * FROM comments WHERE file_key = ? ORDER BY id DESC').all(file.key) as CommentRow[];
    return { status: 200, body: { comments: rows.map((row) => render(db, row)) } };
  },

  postComment: ({ params, body, user }, { db, clock }) => {
    const file = fileOf(db, params.file_key!);
    const { message, comment_id: parentId, client_meta: position } = body as { message: string; comment_id?: string; client_meta?: Record<string, unknown> };
    if (!message.trim()) throw badRequest('message must not be empty');
    let clientMeta: unknown = position ?? ORIGIN;
    let orderId: string | null = null;
    if (parentId !== undefined) {
      const parent = /^\d+$/.test(parentId)
        ? (db.prepare('SELECT * FROM comments WHERE id = ? AND file_key = ?').get(Number(parentId), file.key) as CommentRow | undefined)
        : undefined;
      if (!parent) throw notFound('Comment');
      if (parent.parent_id !== null) throw badRequest('comment_id must be a root comment; replies cannot be replied to');
      if (position) throw badRequest('a reply takes no client_meta: it sits with the comment it answers');
      clientMeta = JSON.parse(parent.client_meta);
    } else {
      const nodeId = position?.node_id as string | undefined;
      if (nodeId !== undefined && !findNode(file.document, nodeId)) throw badRequest(`client_meta.node_id ${nodeId} is not a node of this file`);
      const top = db.prepare('SELECT COUNT(*) FROM comments WHERE file_key = ? AND parent_id IS NULL').pluck().get(file.key) as number;
      orderId = String(top + 1);
    }
    const { lastInsertRowid } = db
      .prepare('INSERT INTO comments (file_key, parent_id, user_id, message, client_meta, created_at, order_id) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(file.key, parentId === undefined ? null : Number(parentId), user.id, message, JSON.stringify(clientMeta), isoTime(clock.now()), orderId);
    const row = db.prepare('SELECT * FROM comments WHERE id = ?').get(lastInsertRowid) as CommentRow;
    return { status: 200, body: render(db, row) };
  },
};
