/**
 * Helpers for tests that drive the emulator over HTTP as a tool would: a client (bearer token,
 * JSON bodies, array query values as repeated keys) and one emulator per test file.
 * Test-only: not part of the built package.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createClock } from '../emulator/clock.js';
import { startHubspotEmulator, type HubspotEmulator } from './emulator.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const DAY = 86_400_000;
export interface Reply {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | string[]>;
  body?: unknown;
  /** Replaces the default headers (authorization, content-type) where given; `null` leaves one out. */
  headers?: Record<string, string | null>;
  /** Sent as is instead of JSON-encoding `body`. */
  rawBody?: string;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Reply>;

export function clientFor(baseUrl: string, token = 'test-token'): Call {
  return async (method, path, { query = {}, body, headers = {}, rawBody } = {}) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
    }
    const sent: Record<string, string> = {};
    const defaults = { authorization: `Bearer ${token}`, ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}) };
    for (const [name, value] of Object.entries({ ...defaults, ...headers })) if (value !== null) sent[name] = value;
    const response = await fetch(`${baseUrl}${path}${search.size ? `?${search}` : ''}`, {
      method,
      headers: sent,
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

/**
 * One emulator for the test file, with a fresh state and the clock at `start` before each test.
 * Read `hub.emulator` and `hub.call` inside tests (they are set once the emulator is up).
 */
export function useEmulator(start = Date.UTC(2025, 0, 15)): { emulator: HubspotEmulator; call: Call } {
  const hub = {} as { emulator: HubspotEmulator; call: Call };
  beforeAll(async () => {
    hub.emulator = await startHubspotEmulator({ clock: createClock(start) });
    hub.call = clientFor(hub.emulator.url);
  });
  afterAll(() => hub.emulator.close());
  beforeEach(() => {
    hub.emulator.reset();
    hub.emulator.clock.set(start);
  });
  return hub;
}
