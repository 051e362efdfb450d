/**
 * Workspaces and their Track API credentials (HTTP Basic: site id and API key). A site id seen for the
 * first time becomes a new workspace in the region of the host it called, so any credentials work the
 * way each HubSpot token is an app; a known site id with another API key is refused. Customer.io
 * forwards an EU workspace's calls to the US host, but a US workspace cannot call the EU host.
 */
import type Database from 'better-sqlite3';
import { TrackError, type Handler } from './context.js';

export type Region = 'us' | 'eu';

export interface Workspace {
  environmentId: number;
  siteId: string;
  region: Region;
}

export interface Credentials {
  siteId: string;
  apiKey: string;
  /** Default: us. */
  region?: Region;
}

/** The Track API's base URL per region, as the region lookup reports it. */
export const regionUrls: Record<Region, string> = { us: 'https://track.customer.io', eu: 'https://track-eu.customer.io' };

const FIRST_ENVIRONMENT_ID = 90_001;

export function createWorkspaceTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS workspaces (
    environment_id INTEGER PRIMARY KEY,
    site_id TEXT NOT NULL UNIQUE,
    api_key TEXT NOT NULL,
    region TEXT NOT NULL
  )`);
}

type Row = { environment_id: number; site_id: string; api_key: string; region: Region };

const toWorkspace = (row: Row): Workspace => ({ environmentId: row.environment_id, siteId: row.site_id, region: row.region });

const bySite = (db: Database.Database, siteId: string) => db.prepare('SELECT * FROM workspaces WHERE site_id = ?').get(siteId) as Row | undefined;

/** The workspace of these credentials, created when the site id is new. */
export function registerWorkspace(db: Database.Database, { siteId, apiKey, region = 'us' }: Credentials): Workspace {
  const known = bySite(db, siteId);
  if (known) {
    if (known.api_key !== apiKey || known.region !== region) throw new Error(`workspace ${siteId} exists with other credentials or region`);
    return toWorkspace(known);
  }
  const { next } = db.prepare('SELECT COALESCE(MAX(environment_id) + 1, ?) AS next FROM workspaces').get(FIRST_ENVIRONMENT_ID) as { next: number };
  db.prepare('INSERT INTO workspaces (environment_id, site_id, api_key, region) VALUES (?, ?, ?, ?)').run(next, siteId, apiKey, region);
  return { environmentId: next, siteId, region };
}

export function findWorkspace(db: Database.Database, siteId: string): Workspace | undefined {
  const row = bySite(db, siteId);
  return row && toWorkspace(row);
}

export function workspaceById(db: Database.Database, environmentId: number): Workspace {
  return toWorkspace(db.prepare('SELECT * FROM workspaces WHERE environment_id = ?').get(environmentId) as Row);
}

const unauthorized = (why: string) => new TrackError(401, `Unauthorized request: ${why}`);

/** The workspace an `Authorization: Basic base64(site_id:api_key)` header names, on the host of `hostRegion`. */
export function authenticate(db: Database.Database, authorization: string | undefined, hostRegion: Region): Workspace {
  const encoded = /^Basic\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!encoded) throw unauthorized('send the site id and API key as HTTP Basic credentials');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const siteId = decoded.slice(0, colon);
  const apiKey = decoded.slice(colon + 1);
  if (colon < 1 || !apiKey) throw unauthorized('the credentials must be site_id:api_key');
  const known = bySite(db, siteId);
  if (!known) return registerWorkspace(db, { siteId, apiKey, region: hostRegion });
  if (known.api_key !== apiKey) throw unauthorized('the API key does not belong to this site id');
  if (known.region === 'us' && hostRegion === 'eu') throw unauthorized('these credentials belong to the US region; call https://track.customer.io');
  return toWorkspace(known);
}

export const regionHandlers: Record<string, Handler> = {
  getRegion: ({ workspace }, { db }) => {
    const { region, environmentId } = workspaceById(db, workspace);
    return { status: 200, body: { url: regionUrls[region], region, environment_id: environmentId } };
  },
};
