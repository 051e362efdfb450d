/** Each issued token is a Figma user, created on first use; a call without one is refused as Figma does. */
import type Database from 'better-sqlite3';
import { FigmaError, type FigmaUser, type Handler } from './context.js';

/** Figma refuses a missing or unknown token with 403 (not 401): `{ status: 403, err: "Invalid token" }`. */
export const unauthorized = () => new FigmaError(403, 'Invalid token');

export function userFor(db: Database.Database, token: string): FigmaUser {
  const existing = db.prepare('SELECT id, handle, email, img_url FROM users WHERE token = ?').get(token) as FigmaUser | undefined;
  if (existing) return existing;
  const count = (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  const handle = `Designer ${count + 1}`;
  const id = String(1_000_000 + count + 1);
  const user: FigmaUser = { id, handle, email: `designer${count + 1}@example.com`, img_url: `https://s3-alpha.figma.com/profile/${id}` };
  db.prepare('INSERT INTO users (id, token, handle, email, img_url) VALUES (?, ?, ?, ?, ?)').run(user.id, token, user.handle, user.email, user.img_url);
  return user;
}

export function userById(db: Database.Database, id: string): FigmaUser {
  return db.prepare('SELECT id, handle, img_url FROM users WHERE id = ?').get(id) as FigmaUser;
}

export const userHandlers: Record<string, Handler> = {
  getMe: ({ user }) => ({ status: 200, body: user }),
};
