/** Checklists on tasks and their items: each item call answers the checklist with all its items so far. */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, notFound, type ClickupRequest, type Handler } from './context.js';
import { findTask, touch } from './tasks.js';
import { requireMembers } from './workspace.js';

export function createChecklistTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS checklists (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, name TEXT NOT NULL, orderindex INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS checklist_items (
      id TEXT PRIMARY KEY, checklist_id TEXT NOT NULL, name TEXT NOT NULL, orderindex INTEGER NOT NULL,
      assignee INTEGER, resolved INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL
    );
  `);
}

interface ChecklistRow {
  id: string;
  task_id: string;
  name: string;
  orderindex: number;
}

interface ItemRow {
  id: string;
  name: string;
  orderindex: number;
  assignee: number | null;
  resolved: number;
  created_at: number;
}

function render(db: Database.Database, checklist: ChecklistRow, withItems: boolean) {
  const items = db.prepare('SELECT * FROM checklist_items WHERE checklist_id = ? ORDER BY orderindex').all(checklist.id) as ItemRow[];
  const resolved = items.filter((item) => item.resolved === 1).length;
  return {
    checklist: {
      id: checklist.id,
      task_id: checklist.task_id,
      name: checklist.name,
      orderindex: checklist.orderindex,
      resolved,
      unresolved: items.length - resolved,
      items: withItems
        ? items.map((item) => ({
            id: item.id,
            name: item.name,
            orderindex: item.orderindex,
            assignee: item.assignee,
            resolved: item.resolved === 1,
            parent: null,
            date_created: String(item.created_at),
            children: [],
          }))
        : [],
    },
  };
}

export const checklistHandlers: Record<string, Handler> = {
  createChecklist: ({ params, body, userId }: ClickupRequest<{ name: string }>, { db, clock }) => {
    const { task } = findTask(db, params.task_id!, {}, userId);
    const name = String(body.name).trim();
    if (!name) throw badRequest('CHECK_003', 'Checklist name invalid');
    const { count } = db.prepare('SELECT COUNT(*) AS count FROM checklists WHERE task_id = ?').get(task.id) as { count: number };
    const checklist: ChecklistRow = { id: randomUUID(), task_id: task.id, name, orderindex: count };
    db.prepare('INSERT INTO checklists (id, task_id, name, orderindex) VALUES (?, ?, ?, ?)').run(
      checklist.id,
      checklist.task_id,
      checklist.name,
      checklist.orderindex,
    );
    touch(db, task.id, clock.now());
    // A new checklist has no items yet.
    return { status: 200, body: render(db, checklist, false) };
  },

  createChecklistItem: ({ params, body, userId }: ClickupRequest<{ name?: string; assignee?: number }>, { db, clock }) => {
    const checklist = db.prepare('SELECT * FROM checklists WHERE id = ?').get(params.checklist_id!) as ChecklistRow | undefined;
    if (!checklist) throw notFound('CHECK_001', `Checklist ${params.checklist_id}`);
    const { space } = findTask(db, checklist.task_id, {}, userId);
    const name = String(body.name ?? '').trim();
    if (!name) throw badRequest('CHECK_004', 'Checklist item name invalid');
    if (body.assignee !== undefined) requireMembers(db, space.team_id, [body.assignee]);
    const { count } = db.prepare('SELECT COUNT(*) AS count FROM checklist_items WHERE checklist_id = ?').get(checklist.id) as { count: number };
    db.prepare('INSERT INTO checklist_items (id, checklist_id, name, orderindex, assignee, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      randomUUID(),
      checklist.id,
      name,
      count,
      body.assignee ?? null,
      clock.now(),
    );
    touch(db, checklist.task_id, clock.now());
    return { status: 200, body: render(db, checklist, true) };
  },
};
