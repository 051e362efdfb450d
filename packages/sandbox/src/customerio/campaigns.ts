/**
 * Event-triggered campaigns and the journeys people take through them. Campaigns are set up in
 * Customer.io's UI (here by the emulator's owner); an event whose name triggers a campaign starts the
 * person's journey, once per campaign, and the campaign's message goes out as a delivery.
 */
import type Database from 'better-sqlite3';
import { unixNow, type TrackContext } from './context.js';
import { createDelivery } from './deliveries.js';

export interface Journey {
  campaign_id: number;
  started_at: number;
}

export function createCampaignTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS campaigns (
      campaign_id INTEGER PRIMARY KEY AUTOINCREMENT,
      workspace INTEGER NOT NULL,
      name TEXT NOT NULL,
      trigger_event TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS journeys (
      workspace INTEGER NOT NULL,
      campaign_id INTEGER NOT NULL,
      person TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      PRIMARY KEY (workspace, campaign_id, person),
      FOREIGN KEY (workspace, person) REFERENCES people (workspace, cio_id) ON DELETE CASCADE
    );
  `);
}

export function createCampaign({ db }: TrackContext, workspace: number, name: string, triggerEvent: string): number {
  return Number(db.prepare('INSERT INTO campaigns (workspace, name, trigger_event) VALUES (?, ?, ?)').run(workspace, name, triggerEvent).lastInsertRowid);
}

/** Starts the journeys `eventName` triggers for the person, in campaigns they have not entered yet. */
export function triggerCampaigns(ctx: TrackContext, workspace: number, person: string, eventName: string): void {
  const campaigns = ctx.db
    .prepare(
      `SELECT campaign_id FROM campaigns c WHERE workspace = ? AND trigger_event = ?
         AND NOT EXISTS (SELECT 1 FROM journeys j WHERE j.workspace = c.workspace AND j.campaign_id = c.campaign_id AND j.person = ?)
       ORDER BY campaign_id`,
    )
    .all(workspace, eventName, person) as Array<{ campaign_id: number }>;
  for (const { campaign_id } of campaigns) {
    ctx.db.prepare('INSERT INTO journeys (workspace, campaign_id, person, started_at) VALUES (?, ?, ?, ?)').run(workspace, campaign_id, person, unixNow(ctx));
    createDelivery(ctx, workspace, person, campaign_id);
  }
}

export function journeysOf({ db }: TrackContext, workspace: number, person: string): Journey[] {
  return db.prepare('SELECT campaign_id, started_at FROM journeys WHERE workspace = ? AND person = ? ORDER BY campaign_id').all(workspace, person) as Journey[];
}

/** Merge: the primary gains the journeys of campaigns it has not entered. */
export function mergeJourneys({ db }: TrackContext, workspace: number, secondary: string, primary: string): void {
  db.prepare(
    'INSERT OR IGNORE INTO journeys (workspace, campaign_id, person, started_at) SELECT workspace, campaign_id, ?, started_at FROM journeys WHERE workspace = ? AND person = ?',
  ).run(primary, workspace, secondary);
}
