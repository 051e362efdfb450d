/**
 * Helpers for tests that drive the GitHub emulator over HTTP as a tool would: a client per user
 * (token, JSON bodies, array query values as repeated keys) and one emulator per test file.
 * Test-only: not part of the built package.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createClock } from '../emulator/clock.js';
import { startGithubEmulator, type GithubEmulator } from './emulator.js';

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, the text when it is not JSON, or undefined for an empty body. */
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

export function clientFor(baseUrl: string, token: string): Call {
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
      // A redirect (archive downloads) is the answer under test, not something to follow.
      redirect: 'manual',
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    let parsed: unknown = text || undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (text/html, text/plain answers): the text itself.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

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
