/**
 * Accounts: each issued token is one Dropbox account with its own files, and carries scopes (every
 * scope the tools use unless a test narrows them). Only a digest of the token is stored.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DropboxError } from './context.js';

export const allScopes = ['files.metadata.read', 'files.content.read'];

export function createAccountTables(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, token_digest TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL)');
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export function accountFor(db: Database.Database, token: string): number {
  const known = db.prepare('SELECT id FROM accounts WHERE token_digest = ?').get(digest(token)) as { id: number } | undefined;
  if (known) return known.id;
  return Number(db.prepare('INSERT INTO accounts (token_digest, scopes) VALUES (?, ?)').run(digest(token), JSON.stringify(allScopes)).lastInsertRowid);
}

export function setScopes(db: Database.Database, token: string, scopes: string[]): void {
  db.prepare('UPDATE accounts SET scopes = ? WHERE id = ?').run(JSON.stringify(scopes), accountFor(db, token));
}

export function requireScope(db: Database.Database, accountId: number, scope: string): void {
  const { scopes } = db.prepare('SELECT scopes FROM accounts WHERE id = ?').get(accountId) as { scopes: string };
  if (!(JSON.parse(scopes) as string[]).includes(scope)) throw new DropboxError(401, { '.tag': 'missing_scope', required_scope: scope });
}

/** Dropbox refuses a missing, malformed or unknown token alike: 401, `invalid_access_token`. */
export const unauthorized = () => new DropboxError(401, { '.tag': 'invalid_access_token' });
