/**
 * Tasks: created in a list (with status, assignees, tags, priority, dates, custom field values, a parent
 * in the same list, a link), found by id or by custom task id within a workspace, and rendered as each
 * operation answers them.
 */
import type Database from 'better-sqlite3';
import { badRequest, notFound, type Handler } from './context.js';
import { setFieldValues, taskFields } from './custom-fields.js';
import { checkPriority, hiddenFolderId, priorities, requireList } from './lists.js';
import { fit, responseFields } from './table.js';
import { requireMembers, requireMembership, requireSpace, statusesOf, userById, type SpaceRow, type Status } from './workspace.js';

export function createTaskTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS tasks (
      seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, custom_id TEXT UNIQUE, list_id TEXT NOT NULL, space_id TEXT NOT NULL,
      name TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL, creator INTEGER NOT NULL, parent TEXT, links_to TEXT,
      priority INTEGER, due_date INTEGER, start_date INTEGER, time_estimate INTEGER, time_spent INTEGER NOT NULL DEFAULT 0,
      points REAL, archived INTEGER NOT NULL, custom_item_id REAL, group_assignees TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, closed_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS task_assignees (task_id TEXT NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (task_id, user_id));
    CREATE TABLE IF NOT EXISTS task_tags (task_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (task_id, tag));
  `);
}

export interface TaskRow {
  seq: number;
  id: string;
  custom_id: string | null;
  list_id: string;
  space_id: string;
  name: string;
  description: string;
  status: string;
  creator: number;
  parent: string | null;
  priority: number | null;
  due_date: number | null;
  start_date: number | null;
  time_estimate: number | null;
  time_spent: number;
  points: number | null;
  archived: number;
  custom_item_id: number | null;
  group_assignees: string;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
}

/** ClickUp's task ids are short base-36 strings. */
const taskId = (seq: number): string => `86${(46_655 + seq).toString(36)}`;

/**
 * A task by id, or by custom task id when `custom_task_ids` is true: those are unique only within a
 * workspace, so the workspace (`team_id`) must come with them.
 */
export function findTask(db: Database.Database, id: string, query: Record<string, string | string[]>, userId: number): { task: TaskRow; space: SpaceRow } {
  let task: TaskRow | undefined;
  if (query.custom_task_ids === 'true') {
    const team = query.team_id;
    if (typeof team !== 'string' || !team) throw badRequest('ITEM_058', 'Team id is required when using custom task ids');
    requireMembership(db, team, userId);
    task = db.prepare('SELECT tasks.* FROM tasks JOIN spaces ON spaces.id = tasks.space_id WHERE spaces.team_id = ? AND tasks.custom_id = ?').get(team, id) as
      | TaskRow
      | undefined;
  } else {
    task = db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
  }
  if (!task) throw notFound('ITEM_013', `Task ${id}`);
  return { task, space: requireSpace(db, task.space_id, userId) };
}

export const touch = (db: Database.Database, id: string, now: number): void => void db.prepare('UPDATE tasks SET updated_at = ? WHERE id = ?').run(now, id);

const statusOf = (space: SpaceRow, name: string): Status => statusesOf(space).find((status) => status.status === name) ?? statusesOf(space)[0]!;

/** The full record; each operation answers the part its schema has. */
export function renderTask(db: Database.Database, task: TaskRow, space: SpaceRow): Record<string, unknown> {
  const creator = userById(db, task.creator);
  const { status, color, orderindex, type } = statusOf(space, task.status);
  const closed = type === 'closed';
  const assignees = db.prepare('SELECT user_id FROM task_assignees WHERE task_id = ? ORDER BY user_id').all(task.id) as Array<{ user_id: number }>;
  const tags = db.prepare('SELECT tag FROM task_tags WHERE task_id = ? ORDER BY tag').all(task.id) as Array<{ tag: string }>;
  const checklists = db.prepare('SELECT id FROM checklists WHERE task_id = ? ORDER BY orderindex').all(task.id) as Array<{ id: string }>;
  const text = (value: number | null) => (value === null ? null : String(value));
  return {
    id: task.id,
    custom_id: task.custom_id,
    custom_item_id: task.custom_item_id,
    name: task.name,
    text_content: task.description,
    description: task.description,
    markdown_description: task.description,
    status: { status, color, orderindex, type },
    orderindex: `${task.seq}.00000000000000000000000000000000`,
    date_created: String(task.created_at),
    date_updated: String(task.updated_at),
    date_closed: closed ? text(task.closed_at) : null,
    date_done: closed ? text(task.closed_at) : null,
    archived: task.archived === 1,
    creator: { id: creator.id, username: creator.username, color: creator.color, profilePicture: '' },
    assignees: assignees.map((row) => String(row.user_id)),
    group_assignees: JSON.parse(task.group_assignees) as string[],
    watchers: [String(task.creator)],
    checklists: checklists.map((row) => row.id),
    tags: tags.map((row) => row.tag),
    parent: task.parent,
    priority: task.priority === null ? null : { id: String(task.priority), orderindex: String(task.priority), ...priorities[task.priority]! },
    due_date: text(task.due_date),
    start_date: text(task.start_date),
    points: task.points ?? undefined,
    time_estimate: text(task.time_estimate),
    time_spent: String(task.time_spent),
    custom_fields: taskFields(db, space.id, task.id),
    list: { id: task.list_id },
    folder: { id: hiddenFolderId(space) },
    space: { id: space.id },
    url: `https://app.clickup.com/t/${task.id}`,
    attachments: [],
  };
}

function createTask(
  db: Database.Database,
  listId: string,
  query: Record<string, string | string[]>,
  body: any,
  userId: number,
  now: number,
): { task: TaskRow; space: SpaceRow } {
  if (query.custom_task_ids === 'true' && !query.team_id) throw badRequest('ITEM_058', 'Team id is required when using custom task ids');
  const { list, space } = requireList(db, listId, userId);
  const name = String(body.name).trim();
  if (!name) throw badRequest('INPUT_005', 'Task name invalid');
  const status =
    body.status === undefined
      ? statusesOf(space)[0]!
      : statusesOf(space).find((candidate) => candidate.status.toLowerCase() === String(body.status).toLowerCase());
  if (!status)
    throw badRequest(
      'CRTSK_001',
      `Status does not exist: ${body.status}; the list's statuses are ${statusesOf(space)
        .map((s) => s.status)
        .join(', ')}`,
    );
  checkPriority(body.priority);
  requireMembers(db, space.team_id, body.assignees ?? []);
  // With custom_task_ids, the parent and the linked task are named by their custom ids.
  const related = (id: string | null | undefined): TaskRow | undefined => (id ? findTask(db, id, query, userId).task : undefined);
  const parent = related(body.parent);
  if (parent && parent.list_id !== list.id) throw badRequest('ITEM_137', 'Parent task must be in the same list');
  const linked = related(body.links_to);

  const { seq } = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM tasks').get() as { seq: number };
  let customId: string | null = null;
  if (space.custom_id_prefix) {
    customId = `${space.custom_id_prefix}-${space.next_custom_number}`;
    db.prepare('UPDATE spaces SET next_custom_number = next_custom_number + 1 WHERE id = ?').run(space.id);
  }
  const id = taskId(seq);
  db.prepare(
    `INSERT INTO tasks (seq, id, custom_id, list_id, space_id, name, description, status, creator, parent, links_to, priority, due_date, start_date,
       time_estimate, points, archived, custom_item_id, group_assignees, created_at, updated_at, closed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    seq,
    id,
    customId,
    list.id,
    space.id,
    name,
    body.markdown_content ?? body.description ?? '',
    status.status,
    userId,
    parent?.id ?? null,
    linked?.id ?? null,
    body.priority ?? null,
    body.due_date ?? null,
    body.start_date ?? null,
    body.time_estimate ?? null,
    body.points ?? null,
    body.archived ? 1 : 0,
    body.custom_item_id ?? null,
    JSON.stringify(body.group_assignees ?? []),
    now,
    now,
    status.type === 'closed' ? now : null,
  );
  for (const assignee of new Set<number>(body.assignees ?? [])) db.prepare('INSERT INTO task_assignees (task_id, user_id) VALUES (?, ?)').run(id, assignee);
  for (const tag of new Set<string>((body.tags ?? []).map((tag: string) => tag.trim().toLowerCase()).filter(Boolean))) {
    db.prepare('INSERT INTO task_tags (task_id, tag) VALUES (?, ?)').run(id, tag);
  }
  setFieldValues(db, space.id, id, body.custom_fields ?? [], body.check_required_custom_fields === true);
  return { task: db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow, space };
}

export const taskHandlers: Record<string, Handler> = {
  createTask: ({ params, query, body, userId }, { db, clock }) => {
    const { task, space } = createTask(db, params.list_id!, query, body, userId, clock.now());
    return { status: 200, body: fit(renderTask(db, task, space), responseFields('createTask')) };
  },

  getTask: ({ params, query, userId }, { db }) => {
    const { task, space } = findTask(db, params.task_id!, query, userId);
    const record = renderTask(db, task, space);
    if (query.include_subtasks === 'true') {
      const subtasks = db.prepare('SELECT * FROM tasks WHERE parent = ? ORDER BY seq').all(task.id) as TaskRow[];
      record.subtasks = subtasks.map((subtask) => fit(renderTask(db, subtask, space), responseFields('getTask', 'subtasks')));
    }
    return { status: 200, body: fit(record, responseFields('getTask')) };
  },
};
