/**
 * Every emulator enforces a rate limit per credential and window, as its service does, and says so in
 * its service's own dialect: the headers every answer carries (where the service sends any) and the
 * refusal once the budget is spent (status, body, Retry-After). The window is the emulator's clock's;
 * each credential has its own; the default budget is generous; `reset()` brings the start's limit back.
 */
import { clientFor, type CallOptions, type Reply } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickupEmulator } from '../../src/clickup/emulator.js';
import { stillClock } from '../../src/emulator/clock.js';
import { startCustomerioEmulator } from '../../src/customerio/emulator.js';
import { basic } from '../customerio/customerio.helpers.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/define.js';
import { startDropboxEmulator } from '../../src/dropbox/emulator.js';
import { startFigmaEmulator } from '../../src/figma/emulator.js';
import { startGithubEmulator } from '../../src/github/emulator.js';
import { startGraphEmulator } from '../../src/graph/emulator.js';
import { startHubspotEmulator } from '../../src/hubspot/emulator.js';
import { startPylonEmulator } from '../../src/pylon/emulator.js';

const START = Date.UTC(2026, 0, 15, 9, 0, 0, 250);

interface Case {
  start(options: EmulatorOptions): Promise<Emulator>;
  authorization(credential: string): string;
  credential?(n: number): string;
  request: [method: string, path: string, options?: CallOptions];
  /** The service's window and the generous default count. */
  window: { requests: number; windowMs: number };
  /** The headers of an answer with `remaining` left of `limit` in a window that ends at `resetAt` (none: the service sends none). */
  headers?(limit: number, remaining: number, resetAt: number): Record<string, string>;
  /** The refusal, `retryAfter` seconds before the window ends. */
  refusal(retryAfter: number): { status: number; body: unknown; headers: Record<string, string | null> };
}

const bearer = (token: string) => `Bearer ${token}`;
const seconds = (ms: number) => String(Math.ceil(ms / 1000));

const cases: Record<string, Case> = {
  HubSpot: {
    start: startHubspotEmulator,
    authorization: bearer,
    request: ['GET', '/marketing/v3/campaigns/'],
    window: { requests: 1_000_000, windowMs: 10_000 },
    headers: (limit, remaining) => ({
      'x-hubspot-ratelimit-max': String(limit),
      'x-hubspot-ratelimit-remaining': String(remaining),
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
    }),
    refusal: () => ({
      status: 429,
      body: { status: 'error', errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING', message: 'You have reached your ten_secondly_rolling limit.' },
      headers: { 'x-hubspot-ratelimit-remaining': '0', 'retry-after': null },
    }),
  },
  GitHub: {
    start: startGithubEmulator,
    authorization: bearer,
    request: ['GET', '/user'],
    window: { requests: 5000, windowMs: 3_600_000 },
    headers: (limit, remaining, resetAt) => ({
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-used': String(limit - remaining),
      'x-ratelimit-reset': seconds(resetAt),
      'x-ratelimit-resource': 'core',
    }),
    refusal: () => ({
      status: 403,
      body: { message: expect.stringMatching(/^API rate limit exceeded for user ID \d+\.$/), documentation_url: expect.stringContaining('rate-limiting') },
      headers: { 'x-ratelimit-remaining': '0', 'retry-after': null },
    }),
  },
  ClickUp: {
    start: startClickupEmulator,
    authorization: (token) => token,
    request: ['GET', '/v2/task/no-such-task'],
    window: { requests: 1_000_000, windowMs: 60_000 },
    headers: (limit, remaining, resetAt) => ({
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': seconds(resetAt),
    }),
    refusal: () => ({ status: 429, body: { err: 'Rate limit reached', ECODE: 'APP_002' }, headers: { 'x-ratelimit-remaining': '0', 'retry-after': null } }),
  },
  'Customer.io': {
    start: startCustomerioEmulator,
    authorization: (credential) => basic(credential.split(':')[0]!, credential.split(':')[1]!),
    credential: (n) => `site-${n}:key-${n}`,
    request: ['GET', '/api/v1/accounts/region'],
    window: { requests: 1_000_000, windowMs: 1_000 },
    refusal: () => ({ status: 429, body: { meta: { error: expect.any(String) } }, headers: { 'retry-after': null, 'x-ratelimit-remaining': null } }),
  },
  Dropbox: {
    start: startDropboxEmulator,
    authorization: bearer,
    request: ['POST', '/2/files/list_folder', { body: { path: '' } }],
    window: { requests: 1_000_000, windowMs: 60_000 },
    refusal: (retryAfter) => ({
      status: 429,
      body: { error_summary: expect.stringMatching(/^too_many_requests\//), error: { reason: { '.tag': 'too_many_requests' }, retry_after: retryAfter } },
      headers: { 'retry-after': String(retryAfter) },
    }),
  },
  Figma: {
    start: startFigmaEmulator,
    authorization: bearer,
    request: ['GET', '/v1/me'],
    window: { requests: 1_000_000, windowMs: 60_000 },
    refusal: (retryAfter) => ({
      status: 429,
      body: { status: 429, err: 'Rate limit exceeded' },
      headers: { 'retry-after': String(retryAfter), 'x-figma-rate-limit-type': 'high', 'x-figma-plan-tier': 'enterprise' },
    }),
  },
  Graph: {
    start: startGraphEmulator,
    authorization: bearer,
    request: ['GET', '/me'],
    window: { requests: 1_000_000, windowMs: 600_000 },
    refusal: (retryAfter) => ({
      status: 429,
      body: { error: { code: 'TooManyRequests', message: expect.any(String), innerError: expect.objectContaining({ 'request-id': expect.any(String) }) } },
      headers: { 'retry-after': String(retryAfter) },
    }),
  },
  Pylon: {
    start: startPylonEmulator,
    authorization: bearer,
    request: ['GET', '/me'],
    window: { requests: 1_000_000, windowMs: 60_000 },
    refusal: (retryAfter) => ({
      status: 429,
      body: { errors: [expect.any(String)], request_id: expect.any(String) },
      headers: { 'retry-after': String(retryAfter) },
    }),
  },
};

describe.each(Object.entries(cases))('%s rate limit', (_name, service) => {
  let emulator: Emulator;
  const clock = stillClock(START);
  const [method, path, options = {}] = service.request;
  let credential = 0;
  const issue = () => emulator.issueToken(service.credential?.(++credential));
  const send = (issued: string) =>
    clientFor(emulator.url)(method, path, { ...options, headers: { ...options.headers, authorization: service.authorization(issued) } });
  const headersOf = (reply: Reply, names: string[]) => Object.fromEntries(names.map((name) => [name, reply.headers.get(name)]));

  beforeAll(async () => {
    emulator = await service.start({ clock });
  });
  afterAll(() => emulator.close());

  it('counts each credential apart, against a generous default in the service’s window, telling it in the service’s headers', async () => {
    const [one, two] = [issue(), issue()];
    const { requests, windowMs } = service.window;
    const resetAt = clock.now() + windowMs;
    const first = await send(one);
    const second = await send(one);
    const other = await send(two);
    expect(first.status).toBeLessThan(429);
    if (!service.headers) {
      expect(headersOf(first, ['x-ratelimit-remaining', 'retry-after'])).toEqual({ 'x-ratelimit-remaining': null, 'retry-after': null });
      return;
    }
    const expected = (remaining: number) => service.headers!(requests, remaining, resetAt);
    expect(headersOf(first, Object.keys(expected(0)))).toEqual(expected(requests - 1));
    expect(headersOf(second, Object.keys(expected(0)))).toEqual(expected(requests - 2));
    expect(headersOf(other, Object.keys(expected(0)))).toEqual(expected(requests - 1));
  });

  it('refuses a credential over its budget in the service’s shape, until its window ends; other credentials go on', async () => {
    const windowMs = service.window.windowMs;
    emulator.setRateLimit({ requests: 2, windowMs });
    const [spent, fresh] = [issue(), issue()];
    const opened = clock.now();
    expect((await send(spent)).status).toBeLessThan(429);
    clock.advance(400);
    expect((await send(spent)).status).toBeLessThan(429);
    const refused = await send(spent);
    const expected = service.refusal(Math.ceil((opened + windowMs - clock.now()) / 1000));
    expect(refused).toMatchObject({ status: expected.status, body: expected.body });
    expect(headersOf(refused, Object.keys(expected.headers))).toEqual(expected.headers);
    expect((await send(fresh)).status).toBeLessThan(429);
    // Refused requests are not counted: the window ends when it would have.
    clock.set(opened + windowMs);
    expect((await send(spent)).status).toBeLessThan(429);
    emulator.reset();
    clock.set(START);
  });

  it('comes back to its start’s limit on reset, and refuses nonsense limits', async () => {
    emulator.setRateLimit({ requests: 0, windowMs: 1_000 });
    const issued = issue();
    expect((await send(issued)).status).toBe(service.refusal(1).status);
    emulator.reset();
    expect((await send(emulator.issueToken(service.credential?.(++credential)))).status).toBeLessThan(429);
    expect(() => emulator.setRateLimit({ requests: -1, windowMs: 1_000 })).toThrow(/whole number of requests/);
    expect(() => emulator.setRateLimit({ requests: 1, windowMs: 0 })).toThrow(/whole number of requests/);
  });
});
