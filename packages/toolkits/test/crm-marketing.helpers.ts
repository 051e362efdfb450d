/**
 * Shared helpers for the CrmMarketingApi end-to-end tests: one client per app (token) that calls tools
 * through the real dispatcher against the HubSpot emulator, and builders for valid request bodies.
 */
import { readFileSync } from 'node:fs';
import type { HubspotEmulator } from '@quiver/sandbox';
import { crmMarketing } from '@quiver/toolkits';
import { ToolClient } from './tool-client.helpers.js';

export const TOOLKIT = 'CrmMarketingApi';

export interface CatalogTool {
  name: string;
  parameters: Array<{ name: string; in?: string; required: boolean }>;
  requestBody?: { contentType: string; schema: Record<string, unknown> };
}

/** The generated catalog, read from its file so the expectations do not come from the registry under test. */
export const catalog = JSON.parse(readFileSync(new URL('../src/crm-marketing/catalog.json', import.meta.url), 'utf8')) as {
  name: string;
  tools: CatalogTool[];
};

/** Calls tools as one app (one token, issued by the emulator) and records which tools answered with a value. */
export class AppClient extends ToolClient {
  constructor(
    private readonly emulator: HubspotEmulator,
    readonly token: string,
    covered: Set<string>,
  ) {
    super(crmMarketing, { upstream: emulator, token, covered });
    emulator.issueToken(token);
  }

  /** The emulator's app id for this client's token. */
  get appId(): number {
    return this.emulator.appIdFor(this.token);
  }
}

let sequence = 0;
/** A name no other test uses, so tests sharing one emulator never see each other's records. */
export const unique = (prefix: string): string => `${prefix}-${(++sequence).toString().padStart(3, '0')}-${Math.random().toString(36).slice(2, 8)}`;

/** The same instant `months` calendar months later (UTC), as the spec's form retention counts. */
export function addMonths(epochMs: number, months: number): number {
  const date = new Date(epochMs);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.getTime();
}

export function eventInput(externalAccountId: string, externalEventId: string, extra: Record<string, unknown> = {}) {
  return { externalAccountId, externalEventId, eventName: `Event ${externalEventId}`, eventOrganizer: 'Quiver Labs', ...extra };
}

/** One custom property as the event schemas require it. */
export const customProperty = (name: string, value: string) => ({ name, value, sourceUpstreamDeployable: 'quiver-tests' });
