/** The workspace's users: the support team's people, who issues are assigned to. */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { notFound, ok, type Handler } from './context.js';
import { cursorKey, page, pageSize } from './paging.js';

export interface UserInput {
  name: string;
  email: string;
  /** Further addresses of the same person. */
  emails?: string[];
  role_id?: string;
  status?: 'active' | 'away' | 'out_of_office';
}

interface UserRow {
  seq: number;
  id: string;
  name: string;
  email: string;
  emails: string;
  role_id: string;
  status: string;
}

export function createUserTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS users (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT NOT NULL,
    emails TEXT NOT NULL, role_id TEXT NOT NULL, status TEXT NOT NULL)`);
}

export function addUser(db: Database.Database, input: UserInput) {
  const id = randomUUID();
  db.prepare('INSERT INTO users (id, name, email, emails, role_id, status) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    input.name,
    input.email,
    JSON.stringify([input.email, ...(input.emails ?? [])]),
    input.role_id ?? 'member',
    input.status ?? 'active',
  );
  return renderUser(db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow);
}

export function requireUser(db: Database.Database, id: string): UserRow {
  const row = db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
  if (!row) throw notFound(`User ${id}`);
  return row;
}

export function renderUser(row: UserRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    emails: JSON.parse(row.emails) as string[],
    role_id: row.role_id,
    status: row.status,
    avatar_url: `https://avatars.usepylon.test/${row.id}.png`,
  };
}

export const userHandlers: Record<string, Handler> = {
  GetUsers: ({ query }, { db }) => {
    const after = cursorKey(query, 1)?.[0] ?? 0;
    const limit = pageSize(query, 20);
    const rows = db.prepare('SELECT * FROM users WHERE seq > ? ORDER BY seq LIMIT ?').all(after, limit + 1) as UserRow[];
    return ok(...spread(page(rows, limit, (row) => [row.seq], renderUser)));
  },
};

/** `ok(data, { pagination })` from a page. */
export const spread = <T>(result: { data: T[]; pagination: unknown }): [T[], { pagination: unknown }] => [result.data, { pagination: result.pagination }];
