/** Legacy time tracking: an entry of `time` milliseconds within [start, end] adds to the task's time spent. */
import type Database from 'better-sqlite3';
import { badRequest, type Handler } from './context.js';
import { findTask, touch } from './tasks.js';

export function createTimeTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS time_entries (
      id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, task_id TEXT NOT NULL, user_id INTEGER NOT NULL,
      start INTEGER NOT NULL, end INTEGER NOT NULL, time INTEGER NOT NULL
    );
  `);
}

export const timeHandlers: Record<string, Handler> = {
  trackTime: ({ params, query, body, userId }, { db, clock }) => {
    const { task } = findTask(db, params.task_id!, query, userId);
    const { start, end, time } = body as { start: number; end: number; time: number };
    if (end < start) throw badRequest('TIME_002', 'end must not be before start');
    if (time <= 0) throw badRequest('TIME_003', 'time must be more than 0');
    if (time > end - start) throw badRequest('TIME_004', 'time must not exceed end minus start');
    const { seq } = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM time_entries').get() as { seq: number };
    const id = String(3_400_000_000 + seq);
    db.prepare('INSERT INTO time_entries (id, seq, task_id, user_id, start, end, time) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      id,
      seq,
      task.id,
      userId,
      start,
      end,
      time,
    );
    db.prepare('UPDATE tasks SET time_spent = time_spent + ? WHERE id = ?').run(time, task.id);
    touch(db, task.id, clock.now());
    return { status: 200, body: { id } };
  },
};
