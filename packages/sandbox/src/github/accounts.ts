/**
 * Accounts and the tokens that act as them. Every issued token is a user: a token handed out by
 * `tokenFor(login)` acts as that login, and one issued without a login becomes the next of
 * `user1`, `user2`, ... Users (and organizations, which are accounts too) come into being on first
 * mention, so any login a request names exists.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { isOrganization, iso, simpleUser } from './common.js';
import { GithubError, type GithubContext, type GithubUser, type Handler } from './context.js';
import { overlay } from './shapes.js';

export function createAccountTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS users (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      login TEXT NOT NULL UNIQUE COLLATE NOCASE,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS tokens (
      token TEXT PRIMARY KEY,
      user_id INTEGER NOT NULL,
      -- 1 for a token issued without a login, which made up a user for it on first use
      seen INTEGER NOT NULL DEFAULT 0
    );
  `);
}

/** The account with this login (matched case-insensitively), created when new. */
export function account(db: Database.Database, login: string, now: number): GithubUser {
  db.prepare('INSERT OR IGNORE INTO users (login, created_at) VALUES (?, ?)').run(login, now);
  return findAccount(db, login)!;
}

export function findAccount(db: Database.Database, login: string): GithubUser | undefined {
  return db.prepare('SELECT id, login FROM users WHERE login = ?').get(login) as GithubUser | undefined;
}

/** A token acting as `login`: `token` when given (registered for it), else the login's first token or a new one. */
export function tokenFor(db: Database.Database, login: string, now: number, token?: string): string {
  const user = account(db, login, now);
  if (token !== undefined) {
    db.prepare('INSERT OR REPLACE INTO tokens (token, user_id) VALUES (?, ?)').run(token, user.id);
    return token;
  }
  const existing = db.prepare('SELECT token FROM tokens WHERE user_id = ? ORDER BY rowid LIMIT 1').get(user.id) as { token: string } | undefined;
  if (existing) return existing.token;
  const fresh = `ghp_${randomBytes(18).toString('hex')}`;
  db.prepare('INSERT INTO tokens (token, user_id) VALUES (?, ?)').run(fresh, user.id);
  return fresh;
}

/** The token of an `Authorization: Bearer …` or `token …` header, or undefined. */
export const readToken = (headers: Record<string, string>): string | undefined => /^(?:bearer|token)\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];

/** GitHub's 401s: "Requires authentication" without a token, "Bad credentials" for one it did not issue. */
export const unauthorized = (token: string | undefined) => new GithubError(401, token === undefined ? 'Requires authentication' : 'Bad credentials');

/** The user an issued token acts as: the login it was issued for, else the next of user1, user2, ... */
export function userOfToken(db: Database.Database, token: string, now: number): GithubUser {
  const known = db.prepare('SELECT users.id, users.login FROM tokens JOIN users ON users.id = tokens.user_id WHERE token = ?').get(token) as
    | GithubUser
    | undefined;
  if (known) return known;
  let number = (db.prepare('SELECT COUNT(*) AS n FROM tokens WHERE seen = 1').get() as { n: number }).n + 1;
  while (findAccount(db, `user${number}`)) number += 1;
  const user = account(db, `user${number}`, now);
  db.prepare('INSERT INTO tokens (token, user_id, seen) VALUES (?, ?, 1)').run(token, user.id);
  return user;
}

/**
 * A user's profile: the operation's sample (public or private profile, whichever the description
 * shows) with this account's identity and counts written over the fields it has.
 */
function profile(ctx: GithubContext, label: string, user: GithubUser) {
  const created = (ctx.db.prepare('SELECT created_at FROM users WHERE id = ?').get(user.id) as { created_at: number }).created_at;
  const organization = isOrganization(ctx.db, user.login);
  const repos = (ctx.db.prepare('SELECT COUNT(*) AS n FROM repos WHERE owner = ? AND private = 0').get(user.login) as { n: number }).n;
  return overlay(ctx.sample(label), {
    ...simpleUser(user, organization ? 'Organization' : 'User'),
    name: user.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    bio: null,
    public_repos: repos,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: iso(created),
    updated_at: iso(created),
  });
}

export const accountHandlers: Record<string, Handler> = {
  'users/get-authenticated': (req, ctx) => ({ status: 200, body: profile(ctx, 'users/get-authenticated', req.user) }),
  'users/get-by-username': (req, ctx) => ({ status: 200, body: profile(ctx, 'users/get-by-username', ctx.user(req.params.username ?? '')) }),
};
