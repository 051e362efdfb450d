/**
 * Cursors: opaque to the client, a row here. A cursor holds what its listing or search was asked for
 * and how far it got, so continuing needs nothing else; each page answers a new cursor.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

export function createCursorTables(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS cursors (id TEXT PRIMARY KEY, account INTEGER NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL)');
}

export function saveCursor(db: Database.Database, account: number, kind: 'list' | 'search', state: object): string {
  const id = `AA${randomBytes(30).toString('base64url')}`;
  db.prepare('INSERT INTO cursors (id, account, kind, state) VALUES (?, ?, ?, ?)').run(id, account, kind, JSON.stringify(state));
  return id;
}

/** The state of a cursor of this account and kind; undefined for any other string. */
export function loadCursor<State>(db: Database.Database, account: number, kind: 'list' | 'search', id: string): State | undefined {
  const row = db.prepare('SELECT state FROM cursors WHERE id = ? AND account = ? AND kind = ?').get(id, account, kind) as { state: string } | undefined;
  return row && (JSON.parse(row.state) as State);
}
