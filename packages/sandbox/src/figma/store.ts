/**
 * The Figma emulator's state. Documents are stored whole, as the node tree JSON Figma serves; teams,
 * projects, published library items, comments and image exports are rows.
 */
import type Database from 'better-sqlite3';

export function createTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS users (
      id TEXT PRIMARY KEY, token TEXT UNIQUE NOT NULL, handle TEXT NOT NULL, email TEXT NOT NULL, img_url TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS teams (id TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS projects (id TEXT PRIMARY KEY, team_id TEXT NOT NULL REFERENCES teams(id), name TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS files (
      key TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
      editor_type TEXT NOT NULL, version TEXT NOT NULL, last_modified TEXT NOT NULL, thumbnail_url TEXT NOT NULL,
      document TEXT NOT NULL
    );
    -- seq orders a team library and is the paging cursor: Figma's cursors are integers that name no item.
    CREATE TABLE IF NOT EXISTS library_items (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, key TEXT UNIQUE NOT NULL,
      file_key TEXT NOT NULL REFERENCES files(key), node_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
      style_type TEXT, sort_position TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, user_id TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS comments (
      id INTEGER PRIMARY KEY AUTOINCREMENT, file_key TEXT NOT NULL REFERENCES files(key), parent_id INTEGER,
      user_id TEXT NOT NULL, message TEXT NOT NULL, client_meta TEXT NOT NULL, created_at TEXT NOT NULL, order_id TEXT
    );
    CREATE TABLE IF NOT EXISTS exports (
      token TEXT PRIMARY KEY, file_key TEXT NOT NULL, node_id TEXT NOT NULL, format TEXT NOT NULL,
      width INTEGER NOT NULL, height INTEGER NOT NULL, color TEXT NOT NULL, expires_at INTEGER NOT NULL
    );
  `);
}
