/**
 * An emulator keeps an idle connection open as a real service does, far longer than Node's default of 5 s: a
 * client that sent on a connection the emulator was closing read ECONNRESET, an error that a call which may have
 * acted is not retried on (a test that held the process busy for seconds between two calls met it).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/define.js';
import { startDropboxEmulator } from '../../src/dropbox/emulator.js';

describe('an emulator’s connections', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startDropboxEmulator();
  });
  afterAll(() => emulator.close());

  it('stay open 30 s when idle, and the answers say so', async () => {
    const answer = await request(`${emulator.url}/2/files/search_v2`, { method: 'POST' });
    await answer.body.dump();
    expect(answer.headers['keep-alive']).toBe('timeout=30');
  });
});
