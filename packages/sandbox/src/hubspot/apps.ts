/**
 * Apps, as HubSpot tells them apart: each issued access token is its own app, numbered in the
 * order first seen from 1000001. Only a digest of the token is stored.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { HubspotError } from './context.js';

const FIRST_APP_ID = 1_000_001;

export function createAppTables(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS apps (token_digest TEXT PRIMARY KEY, app_id INTEGER NOT NULL UNIQUE)');
}

export function appIdFor(db: Database.Database, token: string): number {
  const tokenDigest = createHash('sha256').update(token).digest('hex');
  const known = db.prepare('SELECT app_id FROM apps WHERE token_digest = ?').get(tokenDigest) as { app_id: number } | undefined;
  if (known) return known.app_id;
  const { next } = db.prepare('SELECT COALESCE(MAX(app_id) + 1, ?) AS next FROM apps').get(FIRST_APP_ID) as { next: number };
  db.prepare('INSERT INTO apps (token_digest, app_id) VALUES (?, ?)').run(tokenDigest, next);
  return next;
}

/** HubSpot's 401, category INVALID_AUTHENTICATION, for a request without a bearer token or with one it did not issue. */
export const unauthorized = (token: string | undefined) =>
  new HubspotError(
    401,
    'INVALID_AUTHENTICATION',
    token === undefined
      ? 'Authentication credentials not found: send an access token as "Authorization: Bearer <token>"'
      : 'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
  );
