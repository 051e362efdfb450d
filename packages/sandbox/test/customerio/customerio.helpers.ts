/**
 * Helpers for tests that drive the Customer.io emulator over HTTP as a tool would: a client with HTTP
 * Basic credentials, and one emulator per test file with a fresh state before each test.
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startCustomerioEmulator, type CustomerioEmulator } from '../../src/customerio/emulator.js';
import { createClock } from '../../src/emulator/clock.js';

export const basic = (siteId: string, apiKey: string): string => `Basic ${Buffer.from(`${siteId}:${apiKey}`).toString('base64')}`;

/** Calls `baseUrl` with the given Basic credentials (or `authorization` as given, `null` for none). */
export function basicClient(baseUrl: string, authorization: string | null): Call {
  const call = clientFor(baseUrl);
  return (method, path, options = {}) => call(method, path, { ...options, headers: { authorization, ...options.headers } });
}

export const CREDENTIALS = { siteId: 'site-1', apiKey: 'key-1' };

/** One emulator for the test file; `cio.call` uses CREDENTIALS against the US host. */
export function useEmulator(start = Date.UTC(2025, 5, 1)): { emulator: CustomerioEmulator; call: Call } {
  const cio = {} as { emulator: CustomerioEmulator; call: Call };
  beforeAll(async () => {
    cio.emulator = await startCustomerioEmulator({ clock: createClock(start) });
    // Issued, not registered: the workspace comes into being, in the US, on first use.
    cio.emulator.issueToken(`${CREDENTIALS.siteId}:${CREDENTIALS.apiKey}`);
    cio.call = basicClient(cio.emulator.url, basic(CREDENTIALS.siteId, CREDENTIALS.apiKey));
  });
  afterAll(() => cio.emulator.close());
  beforeEach(() => {
    cio.emulator.reset();
    cio.emulator.clock.set(start);
  });
  return cio;
}
