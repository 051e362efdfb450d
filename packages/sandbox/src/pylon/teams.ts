/** Teams and their members. Pylon answers teams a page at a time, at a size of its choosing. */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { notFound, ok, type Handler } from './context.js';
import { cursorKey, page } from './paging.js';
import { requireUser, spread } from './users.js';

/** Teams per page of GET /teams, which takes no limit. */
export const TEAM_PAGE_SIZE = 100;

interface TeamRow {
  seq: number;
  id: string;
  name: string;
}

export function createTeamTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS teams (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS team_members (team_id TEXT NOT NULL, user_id TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (team_id, user_id));
  `);
}

export function addTeam(db: Database.Database, name: string, userIds: string[] = []) {
  const id = randomUUID();
  db.prepare('INSERT INTO teams (id, name) VALUES (?, ?)').run(id, name);
  userIds.forEach((userId, position) => {
    requireUser(db, userId);
    db.prepare('INSERT INTO team_members (team_id, user_id, position) VALUES (?, ?, ?)').run(id, userId, position);
  });
  return renderTeam(db, db.prepare('SELECT * FROM teams WHERE id = ?').get(id) as TeamRow);
}

export function requireTeam(db: Database.Database, id: string): TeamRow {
  const row = db.prepare('SELECT * FROM teams WHERE id = ?').get(id) as TeamRow | undefined;
  if (!row) throw notFound(`Team ${id}`);
  return row;
}

function renderTeam(db: Database.Database, row: TeamRow) {
  const users = db
    .prepare('SELECT u.id, u.email FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = ? ORDER BY m.position')
    .all(row.id) as Array<{ id: string; email: string }>;
  return { id: row.id, name: row.name, users };
}

export const teamHandlers: Record<string, Handler> = {
  GetTeams: ({ query }, { db }) => {
    const after = cursorKey(query, 1)?.[0] ?? 0;
    const rows = db.prepare('SELECT * FROM teams WHERE seq > ? ORDER BY seq LIMIT ?').all(after, TEAM_PAGE_SIZE + 1) as TeamRow[];
    return ok(
      ...spread(
        page(
          rows,
          TEAM_PAGE_SIZE,
          (row) => [row.seq],
          (row) => renderTeam(db, row),
        ),
      ),
    );
  },
  GetTeam: ({ params }, { db }) => ok(renderTeam(db, requireTeam(db, params.id!))),
};
