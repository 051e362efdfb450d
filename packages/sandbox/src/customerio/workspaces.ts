/**
 * Workspaces and their Track API credentials (HTTP Basic: site id and API key). Credentials are issued
 * by registering their workspace (or through the emulator's issueToken with `site_id:api_key`, when the
 * workspace comes into being in the region of the host first called); any others are refused.
 * Customer.io forwards an EU workspace's calls to the US host, but a US workspace cannot call the EU host.
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

export function workspaceById(db: Database.Database, environmentId: number): Workspace {
  return toWorkspace(db.prepare('SELECT * FROM workspaces WHERE environment_id = ?').get(environmentId) as Row);
}

/** Customer.io's 401: `Unauthorized request`, with why, in the v1 error body. */
const unauthorizedBecause = (why: string) => new TrackError(401, `Unauthorized request: ${why}`);

export function unauthorized(credential: string | undefined, { db }: { db: Database.Database }): TrackError {
  if (credential === undefined) return unauthorizedBecause('send the site id and API key as HTTP Basic credentials');
  const known = bySite(db, credential.slice(0, credential.indexOf(':')));
  return unauthorizedBecause(known ? 'the API key does not belong to this site id' : 'unknown site id or API key');
}

/** `site_id:api_key` from an `Authorization: Basic base64(site_id:api_key)` header; undefined when it is not that. */
export function readCredentials(headers: Record<string, string>): string | undefined {
  const encoded = /^Basic\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  const decoded = encoded && Buffer.from(encoded, 'base64').toString('utf8');
  return decoded && /^[^:]+:.+$/s.test(decoded) ? decoded : undefined;
}

export const credentialOf = ({ siteId, apiKey }: Credentials): string => `${siteId}:${apiKey}`;

/** The workspace issued credentials name, on the host of `hostRegion`. */
export function authenticate(db: Database.Database, credential: string, hostRegion: Region): Workspace {
  const colon = credential.indexOf(':');
  const siteId = credential.slice(0, colon);
  const apiKey = credential.slice(colon + 1);
  const known = bySite(db, siteId);
  if (!known) return registerWorkspace(db, { siteId, apiKey, region: hostRegion });
  if (known.api_key !== apiKey) throw unauthorizedBecause('the API key does not belong to this site id');
  if (known.region === 'us' && hostRegion === 'eu') throw unauthorizedBecause('these credentials belong to the US region; call https://track.customer.io');
  return toWorkspace(known);
}

export const regionHandlers: Record<string, Handler> = {
  getRegion: ({ workspace }, { db }) => {
    const { region, environmentId } = workspaceById(db, workspace);
    return { status: 200, body: { url: regionUrls[region], region, environment_id: environmentId } };
  },
};
