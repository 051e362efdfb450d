/** Where campaigns and what hangs off them (budget and spend items, assets) are kept. */
import type Database from 'better-sqlite3';
import { notFound } from './context.js';

export interface CampaignRow {
  id: string;
  properties: string;
  created_at: number;
  updated_at: number;
}

export function createCampaignTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS campaigns (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      properties TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS campaign_items (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      campaign_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('budget', 'spend')),
      name TEXT NOT NULL,
      amount REAL NOT NULL,
      item_order INTEGER NOT NULL,
      description TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS campaign_assets (
      campaign_id TEXT NOT NULL,
      asset_type TEXT NOT NULL,
      asset_id TEXT NOT NULL,
      associated_at INTEGER NOT NULL,
      PRIMARY KEY (campaign_id, asset_type, asset_id)
    );
  `);
}

export function findCampaign(db: Database.Database, id: string): CampaignRow | undefined {
  return db.prepare('SELECT id, properties, created_at, updated_at FROM campaigns WHERE id = ?').get(id) as CampaignRow | undefined;
}

export function requireCampaign(db: Database.Database, id: string): CampaignRow {
  const row = findCampaign(db, id);
  if (!row) throw notFound(`campaign ${id}`);
  return row;
}

/** Removes a campaign with its items and asset associations; false when there was none. */
export function deleteCampaign(db: Database.Database, id: string): boolean {
  db.prepare('DELETE FROM campaign_items WHERE campaign_id = ?').run(id);
  db.prepare('DELETE FROM campaign_assets WHERE campaign_id = ?').run(id);
  return db.prepare('DELETE FROM campaigns WHERE id = ?').run(id).changes > 0;
}

export const propertiesOf = (row: CampaignRow): Record<string, string> => JSON.parse(row.properties) as Record<string, string>;
