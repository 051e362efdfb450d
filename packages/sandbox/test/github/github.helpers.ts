/**
 * Helpers for tests that drive the GitHub emulator over HTTP as a tool would: a client per user
 * (token, JSON bodies, array query values as repeated keys) and one emulator per test file.
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { startGithubEmulator, type GithubEmulator } from '../../src/github/emulator.js';

export interface Hub {
  emulator: GithubEmulator;
  /** A client acting as `login`. */
  as(login: string): Call;
  /** A client acting as octocat. */
  call: Call;
}

/**
 * One emulator for the test file, with a fresh state and the clock at `start` before each test.
 * Read `hub.emulator`, `hub.call` and `hub.as` inside tests (they are set once the emulator is up).
 */
export function useGithub(start = Date.UTC(2025, 0, 15)): Hub {
  const hub = {} as Hub;
  beforeAll(async () => {
    hub.emulator = await startGithubEmulator({ clock: createClock(start) });
    hub.as = (login) => clientFor(hub.emulator.url, hub.emulator.tokenFor(login));
  });
  afterAll(() => hub.emulator.close());
  beforeEach(() => {
    hub.emulator.reset();
    hub.emulator.clock.set(start);
    hub.call = hub.as('octocat');
  });
  return hub;
}
