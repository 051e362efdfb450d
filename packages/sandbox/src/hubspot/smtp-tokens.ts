/**
 * SMTP API tokens for transactional email. The password is shown once, when a token is created or
 * its password reset, and only a digest is kept; a reset makes the old password stop working.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import { notFound, type Handler, type HubspotContext, type HubspotRequest } from './context.js';
import { page } from './paging.js';
import { text } from './query.js';
import { iso } from './time.js';

interface TokenRow {
  id: string;
  email_campaign_id: string;
  campaign_name: string;
  create_contact: number;
  password_digest: string;
  created_by: number;
  created_at: number;
}

export function createSmtpTokenTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS smtp_tokens (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      email_campaign_id TEXT NOT NULL UNIQUE,
      campaign_name TEXT NOT NULL,
      create_contact INTEGER NOT NULL,
      password_digest TEXT NOT NULL,
      created_by INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
  `);
}

const digest = (password: string): Buffer => createHash('sha256').update(password).digest();

const newPassword = (): string => randomBytes(24).toString('base64url');

function render(row: TokenRow, password?: string) {
  return {
    id: row.id,
    emailCampaignId: row.email_campaign_id,
    campaignName: row.campaign_name,
    createContact: row.create_contact === 1,
    createdBy: String(row.created_by),
    createdAt: iso(row.created_at),
    ...(password !== undefined && { password }),
  };
}

function requireToken(db: Database.Database, id: string): TokenRow {
  const row = db.prepare('SELECT * FROM smtp_tokens WHERE id = ?').get(id) as TokenRow | undefined;
  if (!row) throw notFound(`SMTP token ${id}`);
  return row;
}

/** Whether `password` is the token's current password (what an SMTP login would check). */
export function checkSmtpPassword({ db }: HubspotContext, tokenId: string, password: string): boolean {
  const row = db.prepare('SELECT password_digest FROM smtp_tokens WHERE id = ?').get(tokenId) as Pick<TokenRow, 'password_digest'> | undefined;
  return row !== undefined && timingSafeEqual(Buffer.from(row.password_digest, 'hex'), digest(password));
}

/** Each token gets its own email campaign; its id is numeric, as HubSpot's are. */
function nextEmailCampaignId(db: Database.Database): string {
  const { next } = db.prepare('SELECT COALESCE(MAX(CAST(email_campaign_id AS INTEGER)), 100000) + 1 AS next FROM smtp_tokens').get() as { next: number };
  return String(next);
}

const OP = {
  create: 'post-/marketing/v3/transactional/smtp-tokens_createToken',
  query: 'get-/marketing/v3/transactional/smtp-tokens_getTokensPage',
  get: 'get-/marketing/v3/transactional/smtp-tokens/{tokenId}_getTokenById',
  resetPassword: 'post-/marketing/v3/transactional/smtp-tokens/{tokenId}/password-reset_resetPassword',
  delete: 'delete-/marketing/v3/transactional/smtp-tokens/{tokenId}_archiveToken',
};

export const smtpTokenHandlers: Record<string, Handler> = {
  [OP.create]: ({ body, appId }: HubspotRequest<{ campaignName: string; createContact?: boolean }>, { db, clock }) => {
    const id = randomUUID();
    const password = newPassword();
    db.prepare(
      'INSERT INTO smtp_tokens (id, email_campaign_id, campaign_name, create_contact, password_digest, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(id, nextEmailCampaignId(db), body.campaignName, body.createContact ? 1 : 0, digest(password).toString('hex'), appId, clock.now());
    return { status: 201, body: render(requireToken(db, id), password) };
  },

  [OP.query]: ({ query }, { db }) => {
    const campaignName = text(query, 'campaignName');
    const emailCampaignId = text(query, 'emailCampaignId');
    const rows = (db.prepare('SELECT * FROM smtp_tokens ORDER BY seq').all() as TokenRow[]).filter(
      (row) =>
        (campaignName === undefined || row.campaign_name === campaignName) && (emailCampaignId === undefined || row.email_campaign_id === emailCampaignId),
    );
    const { results, paging } = page(rows, query, 20);
    return { status: 200, body: { results: results.map((row) => render(row)), ...(paging && { paging }) } };
  },

  [OP.get]: ({ params }, { db }) => ({ status: 200, body: render(requireToken(db, params.tokenId!)) }),

  [OP.resetPassword]: ({ params }, { db }) => {
    const row = requireToken(db, params.tokenId!);
    const password = newPassword();
    db.prepare('UPDATE smtp_tokens SET password_digest = ? WHERE id = ?').run(digest(password).toString('hex'), row.id);
    return { status: 200, body: render(row, password) };
  },

  [OP.delete]: ({ params }, { db }) => {
    const row = requireToken(db, params.tokenId!);
    db.prepare('DELETE FROM smtp_tokens WHERE id = ?').run(row.id);
    return { status: 204 };
  },
};
