/**
 * Shared helpers for the CrmMarketingApi end-to-end tests: one client per app (token) that calls tools
 * through the real Runtime against the HubSpot emulator, and builders for valid request bodies.
 */
import { readFileSync } from 'node:fs';
import { Runtime, ToolRegistry, UpstreamClient, type ToolError, type ToolResult } from '@quiver/core';
import type { HubspotEmulator } from '@quiver/sandbox';
import { crmMarketing } from '@quiver/toolkits';

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

/** Calls tools as one app (one token) and records which tools answered with a value. */
export class AppClient {
  readonly runtime: Runtime;

  constructor(
    private readonly emulator: HubspotEmulator,
    readonly token: string,
    private readonly covered: Set<string>,
  ) {
    // No retries: every call reaches the emulator at most once, so its request log stays exact.
    const client = new UpstreamClient({ maxRetries: 0 });
    this.runtime = new Runtime(new ToolRegistry([crmMarketing]), () => ({ baseUrl: emulator.url, token, secrets: {}, client }));
  }

  /** The emulator's app id for this client's token. */
  get appId(): number {
    return this.emulator.appIdFor(this.token);
  }

  /** The raw result. A value from a call that went upstream counts the tool as covered. */
  async attempt(tool: string, input: unknown): Promise<ToolResult> {
    const result = await this.runtime.call(`${TOOLKIT}.${tool}`, input);
    const schemaOnly = (input as { mode?: unknown } | null)?.mode === 'get_request_schema';
    if ('value' in result && !schemaOnly) this.covered.add(tool);
    return result;
  }

  /** The value; an error fails the test with the tool's own message. */
  async call(tool: string, input: Record<string, unknown> = {}): Promise<any> {
    const result = await this.attempt(tool, input);
    if ('error' in result) throw new Error(`${tool} failed: ${result.error.kind}: ${result.error.message}`);
    return result.value;
  }

  /** A mode-driven tool in mode execute, with its path/query parameters and a body serialised to JSON. */
  execute(tool: string, params: Record<string, unknown>, body: unknown): Promise<any> {
    return this.call(tool, { mode: 'execute', ...params, request_body: JSON.stringify(body) });
  }

  /** The error of a call that must fail; a value fails the test. */
  async fail(tool: string, input: Record<string, unknown>): Promise<ToolError> {
    const result = await this.attempt(tool, input);
    if (!('error' in result)) throw new Error(`${tool} should have failed but answered ${JSON.stringify(result.value)}`);
    return result.error;
  }

  failExecute(tool: string, params: Record<string, unknown>, body: unknown): Promise<ToolError> {
    return this.fail(tool, { mode: 'execute', ...params, request_body: JSON.stringify(body) });
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
