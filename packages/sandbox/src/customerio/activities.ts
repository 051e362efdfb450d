/**
 * The workspace's activity log, where Customer.io reports what a 200 answer does not say: an
 * Attribute Update Failure (`failed_attribute_change`) when an identify call names identifiers that
 * belong to different people, and unsubscribes attributed to a delivery. The Track API cannot read
 * it (Customer.io shows it in the UI and the App API); tests read it through the emulator.
 */
import type Database from 'better-sqlite3';
import type { TrackContext } from './context.js';

export interface Activity {
  type: string;
  /** The person's cio_id, when the activity is about one. */
  person: string | null;
  detail: Record<string, unknown>;
  /** Unix seconds. */
  at: number;
}

export function createActivityTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS activities (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace INTEGER NOT NULL,
    type TEXT NOT NULL,
    person TEXT,
    detail TEXT NOT NULL,
    at INTEGER NOT NULL
  )`);
}

export function recordActivity(ctx: TrackContext, workspace: number, type: string, person: string | null, detail: Record<string, unknown>): void {
  ctx.db
    .prepare('INSERT INTO activities (workspace, type, person, detail, at) VALUES (?, ?, ?, ?, ?)')
    .run(workspace, type, person, JSON.stringify(detail), Math.floor(ctx.clock.now() / 1000));
}

export function activitiesOf(ctx: TrackContext, workspace: number): Activity[] {
  const rows = ctx.db.prepare('SELECT type, person, detail, at FROM activities WHERE workspace = ? ORDER BY seq').all(workspace) as Array<
    Omit<Activity, 'detail'> & { detail: string }
  >;
  return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail) as Record<string, unknown> }));
}
