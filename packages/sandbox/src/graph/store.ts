/**
 * The Graph emulator's state: mailboxes (each a user with settings), their folders, and messages stored
 * as the JSON Graph serves. `seq` orders messages that arrived at the same instant.
 */
import type Database from 'better-sqlite3';

export function createTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS mailboxes (
      id TEXT PRIMARY KEY, token TEXT UNIQUE NOT NULL, mail TEXT UNIQUE NOT NULL COLLATE NOCASE,
      profile TEXT NOT NULL, settings TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS folders (
      id TEXT PRIMARY KEY, mailbox_id TEXT NOT NULL REFERENCES mailboxes(id), well_known TEXT, display_name TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, mailbox_id TEXT NOT NULL REFERENCES mailboxes(id),
      folder_id TEXT NOT NULL REFERENCES folders(id), data TEXT NOT NULL
    );
  `);
}
