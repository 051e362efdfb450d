/**
 * API tokens and the service accounts they belong to. Pylon issues tokens to service accounts; here each
 * distinct bearer token is one, created on first sight (or named beforehand with `serviceAccountFor`).
 * Only a digest of the token is stored.
 */
import { createHash, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ok, PylonError, type Handler, type ServiceAccount } from './context.js';

export function createAccountTables(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS service_accounts (seq INTEGER PRIMARY KEY AUTOINCREMENT, token_digest TEXT NOT NULL UNIQUE, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL)',
  );
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export function serviceAccountFor(db: Database.Database, token: string, name?: string): ServiceAccount {
  const known = db.prepare('SELECT id, name FROM service_accounts WHERE token_digest = ?').get(digest(token)) as ServiceAccount | undefined;
  if (known) {
    if (name === undefined || name === known.name) return known;
    db.prepare('UPDATE service_accounts SET name = ? WHERE id = ?').run(name, known.id);
    return { ...known, name };
  }
  const { count } = db.prepare('SELECT COUNT(*) AS count FROM service_accounts').get() as { count: number };
  const account = { id: randomUUID(), name: name ?? `API token ${count + 1}` };
  db.prepare('INSERT INTO service_accounts (token_digest, id, name) VALUES (?, ?, ?)').run(digest(token), account.id, account.name);
  return account;
}

/** Pylon's 401, in its error body: without a bearer token, or with one it did not issue. */
export const unauthorized = (token: string | undefined) =>
  new PylonError(401, token === undefined ? 'Unauthorized: send the API token as "Authorization: Bearer <token>"' : 'Unauthorized: invalid API token');

export const accountHandlers: Record<string, Handler> = {
  GetMe: ({ account }) => ok({ id: account.id, name: account.name }),
};
