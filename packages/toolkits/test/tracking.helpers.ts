/**
 * Shared helpers for the TrackingApi end-to-end tests: a client per workspace (site id and API key)
 * that calls tools through the real Runtime against the Customer.io emulator.
 */
import { readFileSync } from 'node:fs';
import { trackingApi } from '@quiver/toolkits';
import { ToolClient } from './tool-client.helpers.js';

export const TOOLKIT = 'TrackingApi';

/** The generated catalog, read from its file so the expectations do not come from the registry under test. */
export const catalog = JSON.parse(readFileSync(new URL('../src/tracking/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{
    name: string;
    parameters: Array<{ name: string; in?: string; required: boolean; schema: { type: string } }>;
    requestBody?: { schema: unknown };
  }>;
};

export interface TrackCredentials {
  siteId: string;
  apiKey: string;
}

/** Calls tools with one workspace's credentials against one host, and records which tools answered with a value. */
export class TrackClient extends ToolClient {
  constructor(
    baseUrl: string,
    readonly credentials: Partial<TrackCredentials>,
    covered: Set<string>,
  ) {
    const secrets: Record<string, string> = {};
    if (credentials.siteId !== undefined) secrets.TRACKING_SITE_ID = credentials.siteId;
    if (credentials.apiKey !== undefined) secrets.TRACKING_API_KEY = credentials.apiKey;
    super(trackingApi, { upstream: { url: baseUrl }, secrets, covered });
  }
}

/** The confirmation every Track API write answers with. */
export const OK = { success: true, status: 200 };

/** Unix seconds `days` days before `epochMs`. */
export const daysBefore = (epochMs: number, days: number): number => Math.floor(epochMs / 1000) - days * 86_400;
