/**
 * Helpers for tests that drive the emulator over HTTP as a tool would: a client (an issued bearer token,
 * JSON bodies, array query values as repeated keys) and one emulator per test file.
 */
import { clientFor, TEST_TOKEN, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { startHubspotEmulator, type HubspotEmulator } from '../../src/hubspot/emulator.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const DAY = 86_400_000;

/**
 * One emulator for the test file, with a fresh state and the clock at `start` before each test.
 * Read `hub.emulator` and `hub.call` inside tests (they are set once the emulator is up).
 */
export function useEmulator(start = Date.UTC(2025, 0, 15)): { emulator: HubspotEmulator; call: Call } {
  const hub = {} as { emulator: HubspotEmulator; call: Call };
  beforeAll(async () => {
    hub.emulator = await startHubspotEmulator({ clock: createClock(start) });
    hub.call = clientFor(hub.emulator.url, hub.emulator.issueToken(TEST_TOKEN));
  });
  afterAll(() => hub.emulator.close());
  beforeEach(() => {
    hub.emulator.reset();
    hub.emulator.clock.set(start);
  });
  return hub;
}
