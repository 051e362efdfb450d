/**
 * Users, workspaces (ClickUp calls them teams) and spaces. Each distinct token is a user; a user sees
 * only the workspaces it is a member of. No tool creates workspaces or spaces, so tests and the sandbox
 * set them up through the emulator's own methods.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ClickupError, notFound } from './context.js';

export interface Status {
  status: string;
  type: 'open' | 'custom' | 'closed';
  color: string;
  orderindex: number;
}

/** ClickUp's statuses of a new space. */
export const defaultStatuses: Status[] = [
  { status: 'to do', type: 'open', color: '#d3d3d3', orderindex: 0 },
  { status: 'in progress', type: 'custom', color: '#4194f6', orderindex: 1 },
  { status: 'complete', type: 'closed', color: '#6bc950', orderindex: 2 },
];

const FIRST_USER = 81_000_001;

export function createWorkspaceTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS users (
      id INTEGER PRIMARY KEY, token_digest TEXT NOT NULL UNIQUE, username TEXT NOT NULL, email TEXT NOT NULL, color TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS teams (id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, name TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS team_members (team_id TEXT NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (team_id, user_id));
    CREATE TABLE IF NOT EXISTS spaces (
      id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, team_id TEXT NOT NULL, name TEXT NOT NULL,
      statuses TEXT NOT NULL, custom_id_prefix TEXT, next_custom_number INTEGER NOT NULL DEFAULT 1
    );
  `);
}

/** The user an issued token is, registered on first use. */
export function userFor(db: Database.Database, token: string): number {
  const digest = createHash('sha256').update(token).digest('hex');
  const known = db.prepare('SELECT id FROM users WHERE token_digest = ?').get(digest) as { id: number } | undefined;
  if (known) return known.id;
  const { next } = db.prepare('SELECT COALESCE(MAX(id) + 1, ?) AS next FROM users').get(FIRST_USER) as { next: number };
  db.prepare('INSERT INTO users (id, token_digest, username, email, color) VALUES (?, ?, ?, ?, ?)').run(
    next,
    digest,
    `User ${next}`,
    `user${next}@example.com`,
    '#7b68ee',
  );
  return next;
}

/** The token of `Authorization: <token>` (ClickUp's own form) or `Authorization: Bearer <token>`, or undefined. */
export const readToken = (headers: Record<string, string>): string | undefined => /^(?:Bearer\s+)?(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];

/** ClickUp's 401s: OAUTH_017 without a token, OAUTH_019 for one it did not issue. */
export const unauthorized = (token: string | undefined) =>
  token === undefined ? new ClickupError(401, 'OAUTH_017', 'Authorization header required') : new ClickupError(401, 'OAUTH_019', 'Oauth token not found');

export interface User {
  id: number;
  username: string;
  email: string;
  color: string;
}

export function userById(db: Database.Database, id: number): User {
  return db.prepare('SELECT id, username, email, color FROM users WHERE id = ?').get(id) as User;
}

export function createWorkspace(db: Database.Database, name: string, members: number[]): string {
  const { seq } = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM teams').get() as { seq: number };
  const id = String(9_010_000_000 + seq);
  db.prepare('INSERT INTO teams (id, seq, name) VALUES (?, ?, ?)').run(id, seq, name);
  for (const member of members) db.prepare('INSERT OR IGNORE INTO team_members (team_id, user_id) VALUES (?, ?)').run(id, member);
  return id;
}

export interface SpaceOptions {
  /** Custom task ids for the space's tasks (`PREFIX-1`, ...); absent: tasks have none. */
  customTaskIdPrefix?: string;
  statuses?: Status[];
}

export function createSpace(db: Database.Database, teamId: string, name: string, options: SpaceOptions = {}): string {
  if (!db.prepare('SELECT 1 FROM teams WHERE id = ?').get(teamId)) throw new Error(`no workspace ${teamId}`);
  const { seq } = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM spaces').get() as { seq: number };
  const id = String(90_100_000 + seq);
  db.prepare('INSERT INTO spaces (id, seq, team_id, name, statuses, custom_id_prefix) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    seq,
    teamId,
    name,
    JSON.stringify(options.statuses ?? defaultStatuses),
    options.customTaskIdPrefix ?? null,
  );
  return id;
}

export interface SpaceRow {
  id: string;
  team_id: string;
  name: string;
  statuses: string;
  custom_id_prefix: string | null;
  next_custom_number: number;
}

export function isMember(db: Database.Database, teamId: string, userId: number): boolean {
  return db.prepare('SELECT 1 FROM team_members WHERE team_id = ? AND user_id = ?').get(teamId, userId) !== undefined;
}

export function requireMembership(db: Database.Database, teamId: string, userId: number): void {
  if (!isMember(db, teamId, userId)) throw new ClickupError(401, 'OAUTH_027', 'Team not authorized');
}

export function requireSpace(db: Database.Database, spaceId: string, userId: number): SpaceRow {
  const space = db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow | undefined;
  if (!space) throw notFound('SPACE_001', `Space ${spaceId}`);
  requireMembership(db, space.team_id, userId);
  return space;
}

/** Assignees must be members of the workspace. */
export function requireMembers(db: Database.Database, teamId: string, userIds: number[]): void {
  const strangers = userIds.filter((id) => !isMember(db, teamId, id));
  if (strangers.length) throw new ClickupError(400, 'ASSIGN_001', `Assignees not in the workspace: ${strangers.join(', ')}`);
}

export const statusesOf = (space: SpaceRow): Status[] => JSON.parse(space.statuses) as Status[];
