/**
 * Single sends of an email to one recipient — transactional (v3) and marketing (v4) — and the email
 * statistics computed from them. Sends are asynchronous upstream: the answer is a status id with
 * status PENDING. Nothing is delivered; a send is recorded, and the statistics count what was recorded.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, notFound, type Handler, type HubspotContext, type HubspotRequest } from './context.js';
import { findEmail } from './emails.js';
import { iso } from './time.js';

export interface SendRow {
  status_id: string;
  channel: 'transactional' | 'marketing';
  email_id: number;
  recipient: string;
  requested_at: number;
}

const DAY = 86_400_000;

export function createSendTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS email_sends (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      status_id TEXT NOT NULL UNIQUE,
      channel TEXT NOT NULL,
      email_id INTEGER NOT NULL,
      recipient TEXT NOT NULL,
      request TEXT NOT NULL,
      app_id INTEGER NOT NULL,
      requested_at INTEGER NOT NULL
    );
  `);
}

/** Every recorded send, oldest first. */
export function sends(db: Database.Database): SendRow[] {
  return db.prepare('SELECT status_id, channel, email_id, recipient, requested_at FROM email_sends ORDER BY id').all() as SendRow[];
}

/** A single send, transactional or marketing: the email and its recipient (the rest is kept as sent). */
interface SendInput {
  emailId: number;
  message: { to: string };
}

function record(ctx: HubspotContext, req: HubspotRequest<SendInput>, channel: SendRow['channel']) {
  const statusId = randomUUID();
  const now = ctx.clock.now();
  ctx.db
    .prepare('INSERT INTO email_sends (status_id, channel, email_id, recipient, request, app_id, requested_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(statusId, channel, req.body.emailId, req.body.message.to, JSON.stringify(req.body), req.appId, now);
  return { status: 200, body: { statusId, status: 'PENDING', requestedAt: iso(now) } };
}

/** The aggregation shape HubSpot reports; only the `sent` counter has anything behind it here. */
const aggregation = (sent: number) => ({ counters: { sent }, deviceBreakdown: {}, qualifierStats: {}, ratios: {} });

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export const emailSendHandlers: Record<string, Handler> = {
  'post-/marketing/v3/transactional/single-email/send_sendEmail': (req: HubspotRequest<SendInput>, ctx) => {
    if (!findEmail(ctx.db, req.body.emailId)) throw notFound(`email ${req.body.emailId}`);
    return record(ctx, req, 'transactional');
  },

  'post-/marketing/v4/email/single-send': (req: HubspotRequest<SendInput>, ctx) => {
    const email = findEmail(ctx.db, req.body.emailId);
    if (!email) throw notFound(`email ${req.body.emailId}`);
    if (email.state !== 'PUBLISHED') throw badRequest(`email ${email.id} is not published; publish it before sending`);
    return record(ctx, req, 'marketing');
  },

  'get-/marketing/v3/emails/statistics/list': (_req, ctx) => {
    const all = sends(ctx.db);
    const byEmail = countBy(all, (send) => String(send.email_id));
    // Emails deleted since they were sent still count, under no campaign.
    const campaignOf = (send: SendRow) => {
      const email = findEmail(ctx.db, send.email_id);
      return email ? String((JSON.parse(email.live) as { campaign?: string }).campaign ?? '') : '';
    };
    const byCampaign = countBy(
      all.filter((send) => campaignOf(send) !== ''),
      campaignOf,
    );
    return {
      status: 200,
      body: {
        emails: [...byEmail.keys()].map(Number),
        aggregate: aggregation(all.length),
        campaignAggregations: Object.fromEntries([...byCampaign].map(([campaign, sent]) => [campaign, aggregation(sent)])),
      },
    };
  },

  // One interval per UTC day from the first send to the last, days without sends included.
  'get-/marketing/v3/emails/statistics/histogram': (_req, ctx) => {
    const all = sends(ctx.db);
    const byDay = countBy(all, (send) => String(Math.floor(send.requested_at / DAY)));
    const days = [...byDay.keys()].map(Number);
    const results = [];
    if (days.length) {
      for (let day = Math.min(...days); day <= Math.max(...days); day += 1) {
        results.push({ interval: { start: iso(day * DAY), end: iso((day + 1) * DAY) }, aggregations: aggregation(byDay.get(String(day)) ?? 0) });
      }
    }
    return { status: 200, body: { total: results.length, results } };
  },
};
