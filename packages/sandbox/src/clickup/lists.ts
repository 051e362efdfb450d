/** Lists: created directly in a space (folderless), named uniquely within it, with the space's statuses. */
import type Database from 'better-sqlite3';
import { badRequest, notFound, type ClickupRequest, type Handler } from './context.js';
import { fit, responseFields } from './table.js';
import { requireMembers, requireSpace, statusesOf, userById, type SpaceRow } from './workspace.js';

export function createListTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS lists (
      id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, space_id TEXT NOT NULL, name TEXT NOT NULL, content TEXT NOT NULL,
      due_date INTEGER, due_date_time INTEGER NOT NULL, priority INTEGER, assignee INTEGER, status TEXT, created_at INTEGER NOT NULL
    );
  `);
}

export interface ListRow {
  id: string;
  seq: number;
  space_id: string;
  name: string;
  content: string;
  due_date: number | null;
  due_date_time: number;
  priority: number | null;
  assignee: number | null;
  status: string | null;
}

/** ClickUp's priorities, 1 (urgent) to 4 (low). */
export const priorities: Record<number, { priority: string; color: string }> = {
  1: { priority: 'urgent', color: '#f50000' },
  2: { priority: 'high', color: '#ffcc00' },
  3: { priority: 'normal', color: '#6fddff' },
  4: { priority: 'low', color: '#d8d8d8' },
};

export function checkPriority(priority: number | null | undefined): void {
  if (priority !== undefined && priority !== null && !priorities[priority])
    throw badRequest('PRIORITY_001', 'Priority must be 1 (urgent), 2 (high), 3 (normal) or 4 (low)');
}

/** The list with its space, for a user who may see it. */
export function requireList(db: Database.Database, listId: string, userId: number): { list: ListRow; space: SpaceRow } {
  const list = db.prepare('SELECT * FROM lists WHERE id = ?').get(listId) as ListRow | undefined;
  if (!list) throw notFound('SUBCAT_013', `List ${listId}`);
  return { list, space: requireSpace(db, list.space_id, userId) };
}

/** Folderless lists sit in a hidden folder of their space, which ClickUp names "hidden". */
export const hiddenFolderId = (space: SpaceRow): string => `${space.id}0`;

const CREATE = 'createList';

function render(db: Database.Database, list: ListRow, space: SpaceRow) {
  const assignee = list.assignee === null ? undefined : userById(db, list.assignee);
  return fit(
    {
      id: list.id,
      name: list.name,
      orderindex: list.seq,
      content: list.content,
      status: list.status === null ? undefined : { status: list.status, color: list.status, hide_label: false },
      priority: list.priority === null ? undefined : priorities[list.priority],
      assignee: assignee && { id: assignee.id, color: assignee.color, username: assignee.username, initials: initials(assignee.username), profilePicture: '' },
      task_count: null,
      due_date: list.due_date === null ? undefined : String(list.due_date),
      due_date_time: list.due_date_time === 1,
      start_date: null,
      start_date_time: null,
      folder: { id: hiddenFolderId(space), name: 'hidden', hidden: true, access: true },
      space: { id: space.id, name: space.name, access: true },
      statuses: statusesOf(space).map(({ status, color, orderindex, type }) => ({ status, color, orderindex, type })),
      inbound_address: `a.${list.id}.u-${space.team_id}.${list.seq}@tasks.clickup.com`,
    },
    responseFields(CREATE),
  );
}

export const initials = (name: string): string =>
  name
    .split(/\s+/)
    .map((word) => word[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();

interface ListInput {
  name: string;
  content?: string;
  markdown_content?: string;
  due_date?: number;
  due_date_time?: boolean;
  priority?: number;
  assignee?: number;
  status?: string;
}

export const listHandlers: Record<string, Handler> = {
  [CREATE]: ({ params, body, userId }: ClickupRequest<ListInput>, { db, clock }) => {
    const space = requireSpace(db, params.space_id!, userId);
    const name = String(body.name).trim();
    if (!name) throw badRequest('SUBCAT_020', 'List name invalid');
    if (db.prepare('SELECT 1 FROM lists WHERE space_id = ? AND lower(name) = lower(?)').get(space.id, name)) throw badRequest('SUBCAT_016', 'List name taken');
    checkPriority(body.priority);
    if (body.assignee !== undefined) requireMembers(db, space.team_id, [body.assignee]);
    const { seq } = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM lists').get() as { seq: number };
    const id = String(901_000_000 + seq);
    db.prepare(
      'INSERT INTO lists (id, seq, space_id, name, content, due_date, due_date_time, priority, assignee, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      id,
      seq,
      space.id,
      name,
      body.markdown_content ?? body.content ?? '',
      body.due_date ?? null,
      body.due_date_time ? 1 : 0,
      body.priority ?? null,
      body.assignee ?? null,
      body.status ?? null,
      clock.now(),
    );
    return { status: 200, body: render(db, db.prepare('SELECT * FROM lists WHERE id = ?').get(id) as ListRow, space) };
  },
};
