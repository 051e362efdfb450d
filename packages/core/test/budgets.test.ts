/**
 * Upstream rate-limit budgets: each header dialect read into the one model, the memory store's rules, and
 * the upstream client against a loopback upstream that counts what reaches it: a spent budget fails a call
 * at once with nothing sent (or lets it wait, when allowed), per credential, and never keeps a credential.
 */
import { createHmac } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  countsAgainst,
  MemoryBudgetStore,
  mergeWindow,
  readBudget,
  resourceOf,
  UpstreamBudgets,
  waitOf,
  type BudgetReading,
  type BudgetStore,
} from '../src/budgets.js';
import { UpstreamClient } from '../src/upstream.js';
import type { HttpMethod } from '../src/tool.js';

const NOW = Date.UTC(2026, 10, 26, 12);

describe('reading the dialects', () => {
  it('reads GitHub: x-ratelimit-* with the reset in epoch seconds, the window its resource’s alone', () => {
    const reading = readBudget(
      { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '17', 'x-ratelimit-reset': String(NOW / 1000 + 600), 'x-ratelimit-resource': 'search' },
      false,
      'search',
      NOW,
    );
    expect(reading).toEqual({ windows: [{ name: 'resource:search', remaining: 17, resetAt: NOW + 600_000 }] });
    expect(countsAgainst('resource:search', 'search')).toBe(true);
    expect(countsAgainst('resource:search', 'core')).toBe(false);
    expect(countsAgainst('x-ratelimit', 'core')).toBe(true);
  });

  it('reads ClickUp (no resource: every request), and a reset given in seconds from now', () => {
    expect(readBudget({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 42) }, false, 'core', NOW)).toEqual({
      windows: [{ name: 'x-ratelimit', remaining: 0, resetAt: NOW + 42_000 }],
    });
    expect(readBudget({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '30' }, false, 'core', NOW)?.windows[0]?.resetAt).toBe(NOW + 30_000);
  });

  it('reads the IETF draft headers, and HubSpot’s interval, secondly and daily windows', () => {
    expect(readBudget({ 'ratelimit-remaining': '9', 'ratelimit-reset': '5' }, false, 'core', NOW)?.windows).toEqual([
      { name: 'ratelimit', remaining: 9, resetAt: NOW + 5000 },
    ]);
    const hubspot = readBudget(
      {
        'x-hubspot-ratelimit-max': '100',
        'x-hubspot-ratelimit-remaining': '97',
        'x-hubspot-ratelimit-interval-milliseconds': '10000',
        'x-hubspot-ratelimit-secondly-remaining': '9',
        'x-hubspot-ratelimit-daily-remaining': '0',
      },
      false,
      'core',
      NOW,
    );
    expect(hubspot?.windows).toEqual([
      { name: 'hubspot-interval', remaining: 97, resetAt: NOW + 10_000 },
      { name: 'hubspot-secondly', remaining: 9, resetAt: NOW + 1000 },
      // HubSpot's day ends at midnight in a time zone no header names: a spent day is looked at again within the hour.
      { name: 'hubspot-daily', remaining: 0, resetAt: NOW + 3_600_000 },
    ]);
  });

  it('reads Retry-After on a refusal, in seconds or as an HTTP date, and ignores it on anything else', () => {
    expect(readBudget({ 'retry-after': '7' }, true, 'core', NOW)).toEqual({ windows: [], blockedUntil: NOW + 7000 });
    expect(readBudget({ 'retry-after': new Date(NOW + 90_000).toUTCString() }, true, 'core', NOW)).toEqual({ windows: [], blockedUntil: NOW + 90_000 });
    expect(readBudget({ 'retry-after': '7' }, false, 'core', NOW)).toBeUndefined();
  });

  it('blocks on a refusal that says nothing of when: a second, GitHub’s minute; a spent window says it alone', () => {
    expect(readBudget({}, true, 'core', NOW)).toEqual({ windows: [], blockedUntil: NOW + 1000 });
    expect(
      readBudget({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(NOW / 1000 + 60), 'x-ratelimit-resource': 'core' }, true, 'core', NOW),
    ).toEqual({
      windows: [{ name: 'resource:core', remaining: 12, resetAt: NOW + 60_000 }],
      blockedUntil: NOW + 60_000,
    });
    const spent = readBudget(
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 300), 'x-ratelimit-resource': 'core' },
      true,
      'core',
      NOW,
    )!;
    expect(spent.blockedUntil).toBeUndefined();
    expect(waitOf(spent, 'core', NOW)).toBe(300_000);
    // A search window spent says nothing of core requests.
    expect(waitOf({ windows: [{ name: 'resource:search', remaining: 0, resetAt: NOW + 60_000 }] }, 'core', NOW)).toBe(0);
  });

  it('says nothing when an answer says nothing, and ignores values that are not numbers', () => {
    expect(readBudget({ 'content-type': 'application/json' }, false, 'core', NOW)).toBeUndefined();
    expect(readBudget({ 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': 'soon' }, false, 'core', NOW)).toBeUndefined();
    expect(readBudget({ 'x-ratelimit-remaining': '5' }, false, 'core', NOW)).toBeUndefined();
  });

  it('knows GitHub’s resources by path: search, code search and GraphQL apart from core', () => {
    const of = (template: string) => resourceOf({ method: 'GET', url: `https://api.github.com${template}`, headers: {}, template });
    expect([of('/search/issues'), of('/search/code'), of('/graphql'), of('/repos/{owner}/{repo}'), of('/users/{username}/search')]).toEqual([
      'search',
      'code_search',
      'graphql',
      'core',
      'core',
    ]);
    expect(resourceOf({ method: 'GET', url: 'https://ghe.example.com/search/commits?q=x', headers: {} })).toBe('search');
  });
});

describe('the memory store', () => {
  const key = 'https://api.example.com|abc';
  const origin = 'https://api.example.com';
  const reading = (remaining: number, resetAt: number, name = 'x-ratelimit'): BudgetReading => ({ windows: [{ name, remaining, resetAt }] });

  it('takes a request from each live window, and refuses once one is spent, until it resets', () => {
    const store = new MemoryBudgetStore();
    expect(store.mayHold(origin)).toBe(false);
    store.record(key, origin, reading(2, NOW + 60_000), NOW);
    expect(store.mayHold(origin)).toBe(true);
    expect([store.take(key, 'core', NOW), store.take(key, 'core', NOW), store.take(key, 'core', NOW)]).toEqual([0, 0, NOW + 60_000]);
    expect(store.take(key, 'core', NOW + 60_000)).toBe(0);
  });

  it('keeps a resource’s window to its requests, and a Retry-After to every request', () => {
    const store = new MemoryBudgetStore();
    store.record(key, origin, reading(0, NOW + 60_000, 'resource:search'), NOW);
    expect(store.take(key, 'core', NOW)).toBe(0);
    expect(store.take(key, 'search', NOW)).toBe(NOW + 60_000);
    store.record(key, origin, { windows: [], blockedUntil: NOW + 5000 }, NOW);
    store.record(key, origin, { windows: [], blockedUntil: NOW + 2000 }, NOW);
    expect(store.take(key, 'core', NOW)).toBe(NOW + 5000);
  });

  it('merges readings: the same window keeps the fewest left, a later one replaces it, a late answer of an ended one changes nothing', () => {
    expect(mergeWindow({ remaining: 4, resetAt: NOW + 60_000 }, { remaining: 9, resetAt: NOW + 60_400 }, NOW)).toEqual({ remaining: 4, resetAt: NOW + 60_400 });
    expect(mergeWindow({ remaining: 0, resetAt: NOW + 60_000 }, { remaining: 5000, resetAt: NOW + 3_660_000 }, NOW)).toEqual({
      remaining: 5000,
      resetAt: NOW + 3_660_000,
    });
    expect(mergeWindow({ remaining: 4999, resetAt: NOW + 3_660_000 }, { remaining: 0, resetAt: NOW + 60_000 }, NOW)).toEqual({
      remaining: 4999,
      resetAt: NOW + 3_660_000,
    });
    expect(mergeWindow({ remaining: 0, resetAt: NOW - 1 }, { remaining: 3, resetAt: NOW + 10 }, NOW)).toEqual({ remaining: 3, resetAt: NOW + 10 });
  });

  it('keeps a bounded number of budgets: ended ones go first, then the oldest', () => {
    const store = new MemoryBudgetStore(2);
    store.record('a', origin, reading(0, NOW + 10), NOW);
    store.record('b', origin, reading(0, NOW + 60_000), NOW);
    store.record('c', origin, reading(0, NOW + 60_000), NOW + 20);
    expect([store.take('a', 'core', NOW + 20), store.take('b', 'core', NOW + 20), store.take('c', 'core', NOW + 20)]).toEqual([0, NOW + 60_000, NOW + 60_000]);
    store.record('d', origin, reading(0, NOW + 60_000), NOW + 20);
    expect(store.take('b', 'core', NOW + 20)).toBe(0);
    expect(store.take('d', 'core', NOW + 20)).toBe(NOW + 60_000);
  });
});

describe('the upstream client', () => {
  /** What the upstream answers next (default: 200 with no rate-limit header), and every request that reached it. */
  let script: Array<(res: ServerResponse) => void> = [];
  let received: Array<{ method: string; authorization?: string }> = [];
  let baseUrl = '';
  const server = createServer((req, res) => {
    received.push({ method: req.method!, authorization: req.headers.authorization });
    const next = script.shift() ?? ((r: ServerResponse) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    req.resume().on('end', () => next(res));
  });
  const answer =
    (status: number, headers: Record<string, string> = {}) =>
    (res: ServerResponse) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(status < 400 ? '{"ok":true}' : '{"message":"slow down"}');
  const github = (remaining: number, resetInS: number) => ({
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + resetInS),
    'x-ratelimit-resource': 'core',
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    script = [];
    received = [];
  });

  const send = (client: UpstreamClient, method: HttpMethod = 'GET', token = 'token-one') =>
    client.send({ method, url: `${baseUrl}/repos/{owner}`, headers: token ? { authorization: `Bearer ${token}` } : {}, template: '/repos/{owner}' });

  it('learns from an answer that the budget is spent: the next call fails at once, retryable, with nothing sent', async () => {
    const client = new UpstreamClient({ maxRetries: 0 });
    script = [answer(200, github(1, 120)), answer(200, github(0, 120))];
    expect('response' in (await send(client))).toBe(true);
    expect('response' in (await send(client))).toBe(true);
    const before = Date.now();
    const refused = await send(client);
    expect(received).toHaveLength(2);
    if (!('error' in refused)) throw new Error('expected a refusal');
    expect(refused.error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', can_retry: true });
    expect(refused.error.status_code).toBeUndefined();
    expect(refused.error.retry_after_ms).toBeGreaterThan(118_000 - (Date.now() - before));
    expect(refused.error.retry_after_ms).toBeLessThanOrEqual(121_000);
    expect(refused.error.message).toMatch(
      /^The rate limit of 127\.0\.0\.1:\d+ for this account is used up until \S+Z \(\d+ s from now\), so this call was not sent\./,
    );
    expect(refused.error.developer_message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/repos\/\{owner\}: not sent: .*nothing reached the upstream/);
    await client.close();
  });

  it('keeps budgets per credential: another token, and a request without one, still go', async () => {
    const client = new UpstreamClient({ maxRetries: 0 });
    script = [answer(200, github(0, 120))];
    await send(client);
    expect('error' in (await send(client))).toBe(true);
    expect('response' in (await send(client, 'GET', 'token-two'))).toBe(true);
    expect('response' in (await send(client, 'GET', ''))).toBe(true);
    expect(received.map((request) => request.authorization)).toEqual(['Bearer token-one', 'Bearer token-two', undefined]);
    await client.close();
  });

  it('honours a 429’s Retry-After for every later call of the credential, whatever its method', async () => {
    const client = new UpstreamClient({ maxRetries: 2 });
    script = [answer(429, { 'retry-after': '30' })];
    const posted = await send(client, 'POST');
    expect('error' in posted && posted.error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', status_code: 429, retry_after_ms: 30_000 });
    const read = await send(client, 'GET');
    expect('error' in read && read.error.retry_after_ms).toBeGreaterThan(29_000);
    expect('error' in read && read.error.retry_after_ms).toBeLessThanOrEqual(30_000);
    expect(received.map((request) => request.method)).toEqual(['POST']);
    await client.close();
  });

  it('lets a call wait for the budget within QUIVER_UPSTREAM_WAIT_MS and its deadline, then sends it', async () => {
    const client = new UpstreamClient({ maxRetries: 0, budgetWaitMs: 1_000 });
    script = [answer(429, { 'retry-after': '0.3' })];
    await send(client, 'POST');
    const started = Date.now();
    const waited = await send(client);
    expect('response' in waited).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(received).toHaveLength(2);
    // Longer than it may wait: at once, nothing sent.
    script = [answer(429, { 'retry-after': '5' })];
    await send(client, 'POST');
    const at = Date.now();
    expect('error' in (await send(client))).toBe(true);
    expect(Date.now() - at).toBeLessThan(200);
    expect(received).toHaveLength(3);
    await client.close();
  });

  it('never waits past the deadline: a wait that would end after it fails at once', async () => {
    const client = new UpstreamClient({ maxRetries: 0, budgetWaitMs: 10_000, deadlineMs: 500 });
    script = [answer(429, { 'retry-after': '2' })];
    await send(client, 'POST');
    const at = Date.now();
    const refused = await send(client);
    expect('error' in refused && refused.error.kind).toBe('UPSTREAM_RUNTIME_RATE_LIMIT');
    expect(Date.now() - at).toBeLessThan(200);
    expect(received).toHaveLength(1);
    await client.close();
  });

  it('lets through only what is left when many calls come at once', async () => {
    const client = new UpstreamClient({ maxRetries: 0 });
    script = [answer(200, github(3, 120))];
    await send(client);
    received = [];
    script = Array.from({ length: 3 }, (_, i) => answer(200, github(2 - i, 120)));
    const results = await Promise.all(Array.from({ length: 8 }, () => send(client)));
    expect(results.filter((result) => 'response' in result)).toHaveLength(3);
    expect(results.filter((result) => 'error' in result)).toHaveLength(5);
    expect(received).toHaveLength(3);
    await client.close();
  });

  it('keys budgets by a keyed hash of the credential, never the credential', async () => {
    const keys: string[] = [];
    const memory = new MemoryBudgetStore();
    const spy: BudgetStore = {
      mayHold: (origin) => memory.mayHold(origin),
      take(key, resource, now) {
        keys.push(key);
        return memory.take(key, resource, now);
      },
      record(key, origin, reading, now) {
        keys.push(key);
        memory.record(key, origin, reading, now);
      },
    };
    const secret = Buffer.alloc(32, 7);
    const client = new UpstreamClient({ maxRetries: 0, budgets: new UpstreamBudgets({ store: spy, secret }) });
    script = [answer(200, github(10, 120))];
    await send(client);
    await send(client);
    const hash = createHmac('sha256', secret).update('Bearer token-one').digest('base64url');
    expect(new Set(keys)).toEqual(new Set([`${baseUrl}|${hash}`]));
    expect(keys.join()).not.toContain('token-one');
    await client.close();
  });

  it('costs a call nothing while no answer of its upstream has said anything of a budget', async () => {
    let looked = 0;
    const store: BudgetStore = {
      mayHold: () => false,
      take() {
        looked++;
        return 0;
      },
      record() {
        looked++;
      },
    };
    const client = new UpstreamClient({ maxRetries: 0, budgets: new UpstreamBudgets({ store }) });
    for (let i = 0; i < 3; i++) expect('response' in (await send(client))).toBe(true);
    expect(looked).toBe(0);
    await client.close();
  });

  it('follows the budget’s clock, so that a test can move it past the window', async () => {
    let now = Date.now();
    const client = new UpstreamClient({ maxRetries: 0, budgets: new UpstreamBudgets({ now: () => now }) });
    script = [answer(200, github(0, 60))];
    await send(client);
    expect('error' in (await send(client))).toBe(true);
    now += 61_000;
    expect('response' in (await send(client))).toBe(true);
    expect(received).toHaveLength(2);
    await client.close();
  });
});
