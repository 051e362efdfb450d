/**
 * Shared helpers for the TrackingApi end-to-end tests: a client per workspace (site id and API key)
 * that calls tools through the real Runtime against the Customer.io emulator.
 */
import { readFileSync } from 'node:fs';
import { Runtime, ToolRegistry, UpstreamClient, type ToolError, type ToolResult } from '@quiver/core';
import { trackingApi } from '@quiver/toolkits';

export const TOOLKIT = 'TrackingApi';

/** The generated catalog, read from its file so the expectations do not come from the registry under test. */
export const catalog = JSON.parse(readFileSync(new URL('../src/tracking/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; parameters: Array<{ name: string; in?: string; required: boolean; schema: { type: string } }>; requestBody?: { schema: unknown } }>;
};

export interface TrackCredentials {
  siteId: string;
  apiKey: string;
}

/** Calls tools with one workspace's credentials against one host, and records which tools answered with a value. */
export class TrackClient {
  private readonly runtime: Runtime;

  constructor(
    baseUrl: string,
    readonly credentials: Partial<TrackCredentials>,
    private readonly covered: Set<string>,
  ) {
    // No retries: every call reaches the emulator at most once, so its request log stays exact.
    const client = new UpstreamClient({ maxRetries: 0 });
    const secrets: Record<string, string> = {};
    if (credentials.siteId !== undefined) secrets.TRACKING_SITE_ID = credentials.siteId;
    if (credentials.apiKey !== undefined) secrets.TRACKING_API_KEY = credentials.apiKey;
    this.runtime = new Runtime(new ToolRegistry([trackingApi]), () => ({ baseUrl, secrets, client }));
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

/** The confirmation every Track API write answers with. */
export const OK = { success: true, status: 200 };

/** Unix seconds `days` days before `epochMs`. */
export const daysBefore = (epochMs: number, days: number): number => Math.floor(epochMs / 1000) - days * 86_400;
