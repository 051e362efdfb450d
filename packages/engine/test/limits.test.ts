/**
 * The engine's limits, on SQLite and PostgreSQL: requests a minute per API key (its role's, or its own,
 * changed at once), per user acted for (whichever key acts for them, MCP included) and per client address
 * (public routes and refused keys; probes never), answered 429 with Retry-After and the RateLimit fields;
 * tool calls in flight per key and per user, answered as tool errors; over MCP, tool errors for calls and
 * 429 for anything else. With Redis: the counts shared by two engines (N in total, not N each), a change of
 * a key's limits reaching the other engine, the slots of an engine that died freed after the hold; and
 * Redis away (nothing listening, cut, hanging): the engine serves, counts per process, says so once in the
 * log and in /v1/ready, and shares again once Redis is back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineToolkit } from '@quiver/core';
import {
  addressKey,
  createApiKey,
  defaultLimits,
  engineConfig,
  Limits,
  limitSettings,
  noLimits,
  sandboxCredentials,
  startEngine,
  type LimitSettings,
  type RunningEngine,
} from '@quiver/engine';
import { databases, haveRedis, redisUrl, startTestEngine, testDatabase, testRedisPrefix, type TestEngine } from '@quiver/test-support/harness';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { within } from './engine-process.js';
import { startProxy } from './tcp-proxy.js';
import { connect, createServer, type Socket } from 'node:net';

vi.setConfig({ testTimeout: 60_000 });

/** Tool calls that wait, while the gate is closed, for the test to open it; `holding` counts those waiting. */
let gate = Promise.resolve();
let holding = 0;
let openGate = () => {};
const closeGate = () => {
  gate = new Promise((resolve) => {
    openGate = resolve;
  });
};
const gated = defineToolkit(
  {
    name: 'Gate',
    version: '1',
    description: 'Tools that wait for the test.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      { name: 'Pass', description: 'Answers at once.', parameters: [], output: { description: 'Passed.' }, requirements: {} },
      { name: 'Hold', description: 'Answers once the test opens the gate.', parameters: [], output: { description: 'Held, then passed.' }, requirements: {} },
    ],
  },
  {
    Pass: async () => ({ value: { passed: true } }),
    Hold: async () => {
      holding++;
      try {
        await gate;
      } finally {
        holding--;
      }
      return { value: { held: true } };
    },
  },
);

const limited = (overrides: Partial<LimitSettings>): LimitSettings => ({ ...noLimits, ...overrides });

/** A request with a key (or none), its status, body and the fields of the limits. */
async function call(url: string, method: string, path: string, key: string | undefined, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url + path, {
    method,
    headers: {
      ...(key && { authorization: `Bearer ${key}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text || undefined,
    policy: response.headers.get('ratelimit-policy'),
    limit: response.headers.get('ratelimit'),
    retryAfter: response.headers.get('retry-after'),
  };
}

const execute = (url: string, key: string, tool: string, userId?: string) =>
  call(url, 'POST', '/v1/tools/execute', key, { tool_name: tool, ...(userId && { user_id: userId }) });

const mcp = (url: string, key: string, userId: string, message: object) =>
  call(url, 'POST', '/v1/mcp', key, { jsonrpc: '2.0', id: 7, ...message }, { accept: 'application/json, text/event-stream', 'quiver-user-id': userId });

const toolsCall = (name: string) => ({ method: 'tools/call', params: { name, arguments: {} } });

describe('the limits settings', () => {
  it('reads QUIVER_LIMIT_*: defaults, one number for every role, or role by role; 0 turns one off', () => {
    expect(limitSettings({})).toEqual(defaultLimits);
    expect(limitSettings({ QUIVER_LIMIT_KEY_RPM: '600' }).keyRpm).toEqual({ admin: 600, service: 600, user: 600 });
    expect(limitSettings({ QUIVER_LIMIT_KEY_RPM: 'service:100, user:0' }).keyRpm).toEqual({ admin: 1200, service: 100, user: 0 });
    expect(limitSettings({ QUIVER_LIMIT_KEY_CONCURRENCY: 'admin:3' }).keyConcurrency).toEqual({ admin: 3, service: 200, user: 10 });
    expect(limitSettings({ QUIVER_LIMIT_USER_RPM: '0', QUIVER_LIMIT_USER_CONCURRENCY: '2', QUIVER_LIMIT_ADDRESS_RPM: '30' })).toMatchObject({
      userRpm: 0,
      userConcurrency: 2,
      addressRpm: 30,
    });
    expect(() => limitSettings({ QUIVER_LIMIT_KEY_RPM: 'root:5' })).toThrow(/QUIVER_LIMIT_KEY_RPM must be a whole number, or look like admin:1200/);
    expect(() => limitSettings({ QUIVER_LIMIT_USER_RPM: '-1' })).toThrow(/QUIVER_LIMIT_USER_RPM must be a whole number/);
    expect(() => limitSettings({ QUIVER_LIMIT_ADDRESS_RPM: '1.5' })).toThrow(/QUIVER_LIMIT_ADDRESS_RPM/);
  });

  it('asks for slots of calls in flight only where a limit of them applies to the key or the user', async () => {
    const key = { id: 'k1', role: 'user' as const, rpm: null, concurrency: null };
    const off = await Limits.open(noLimits, { holdMs: 1000 });
    expect(off.admission(key, 'ada')).toBeUndefined();
    expect(off.admission({ ...key, concurrency: 2 }, undefined)).toBeTypeOf('function');
    const perUser = await Limits.open({ ...noLimits, userConcurrency: 3 }, { holdMs: 1000 });
    expect(perUser.admission(key, 'ada')).toBeTypeOf('function');
    expect(perUser.admission(key, undefined)).toBeUndefined();
    expect(perUser.admission(key, '')).toBeUndefined();
    const perKey = await Limits.open({ ...noLimits, keyConcurrency: { ...noLimits.keyConcurrency, user: 4 } }, { holdMs: 1000 });
    expect(perKey.admission(key, undefined)).toBeTypeOf('function');
    expect(perKey.admission({ ...key, role: 'admin' }, undefined)).toBeUndefined();
  });

  it('counts an IPv4 address as it is and an IPv6 address by its /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe.each(databases)('the engine limits on $name', ({ name, skip }) => {
  const engines: TestEngine[] = [];
  afterEach(async () => {
    openGate();
    await Promise.all(engines.splice(0).map((engine) => engine.close()));
  });
  const engineWith = async (limits: LimitSettings, options: Parameters<typeof startTestEngine>[1] = {}) => {
    const engine = await startTestEngine(name, { toolkits: [gated], ...options }, { limits });
    engines.push(engine);
    return engine;
  };
  const newKey = async (engine: TestEngine, body: object) => {
    const made = await engine.api('POST', '/v1/admin/api_keys', body);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body as { key: string; id: string; prefix: string; rpm: number | null; concurrency: number | null };
  };

  it.skipIf(skip)("holds a key to its role's requests a minute, or its own, changed at once", async () => {
    const engine = await engineWith(limited({ keyRpm: { admin: 1000, service: 4, user: 3 } }));
    const service = await newKey(engine, { name: 'svc', role: 'service' });
    expect(service).toMatchObject({ rpm: null, concurrency: null });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call(engine.url, 'GET', '/v1/me', service.key));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.map((answer) => answer.limit?.replace(/t=\d+/, 't'))).toEqual(['"key";r=3;t', '"key";r=2;t', '"key";r=1;t', '"key";r=0;t', '"key";r=0;t']);
    const refused = answers[4]!;
    expect(refused.policy).toBe('"key";q=4;w=60');
    expect(refused.body).toEqual({
      name: 'too_many_requests',
      message: expect.stringMatching(/^Too many requests for this API key: at most 4 a minute\. Try again in \d+ s\.$/),
    });
    const retryAfter = Number(refused.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Retry-After is never before the window's end (t).
    expect(retryAfter).toBeGreaterThanOrEqual(Number(/t=(\d+)/.exec(refused.limit!)![1]));
    // Another key counts for itself.
    expect(await call(engine.url, 'GET', '/v1/me', engine.key)).toMatchObject({ status: 200, policy: '"key";q=1000;w=60' });

    // Its own limit, at once: more, then none (no field either), then its role's again.
    const raised = await engine.api('PATCH', `/v1/admin/api_keys/${service.prefix}`, { rpm: 10 });
    expect(raised).toMatchObject({ status: 200, body: { id: service.id, rpm: 10, concurrency: null } });
    expect(await call(engine.url, 'GET', '/v1/me', service.key)).toMatchObject({ status: 200, policy: '"key";q=10;w=60' });
    // A limit past what the database keeps (a 32-bit integer) is refused by name, and changes nothing.
    for (const field of ['rpm', 'concurrency']) {
      const huge = await engine.api('PATCH', `/v1/admin/api_keys/${service.id}`, { [field]: 2 ** 31 });
      expect(huge.status).toBe(400);
      expect(huge.body.message).toContain(field);
    }
    expect((await engine.api('GET', '/v1/admin/api_keys?limit=100')).body.items.find((key: { id: string }) => key.id === service.id)).toMatchObject({
      rpm: 10,
    });
    expect((await engine.api('PATCH', `/v1/admin/api_keys/${service.id}`, { rpm: 0 })).status).toBe(200);
    for (let i = 0; i < 12; i++) expect(await call(engine.url, 'GET', '/v1/me', service.key)).toMatchObject({ status: 200, policy: null, limit: null });
    expect((await engine.api('PATCH', `/v1/admin/api_keys/${service.id}`, { rpm: null })).body).toMatchObject({ rpm: null });
    expect((await call(engine.url, 'GET', '/v1/me', service.key)).status).toBe(429);
    // A key made with its own limits; the listing shows them.
    const own = await newKey(engine, { name: 'own', role: 'user', user_id: 'olga', rpm: 2, concurrency: 1 });
    expect(own).toMatchObject({ rpm: 2, concurrency: 1 });
    const listed = (await engine.api('GET', '/v1/admin/api_keys?limit=100')).body.items.find((key: { id: string }) => key.id === own.id);
    expect(listed).toMatchObject({ rpm: 2, concurrency: 1 });
    // Refused: no change, a negative or fractional limit, an unknown key.
    expect((await engine.api('PATCH', `/v1/admin/api_keys/${own.id}`, {})).status).toBe(400);
    expect((await engine.api('PATCH', `/v1/admin/api_keys/${own.id}`, { rpm: 1.5 })).status).toBe(400);
    expect((await engine.api('POST', '/v1/admin/api_keys', { name: 'bad', rpm: -1 })).status).toBe(400);
    expect((await engine.api('PATCH', '/v1/admin/api_keys/qk_unknown', { rpm: 1 })).status).toBe(404);
  });

  it.skipIf(skip)('holds a user to its requests a minute whichever key acts for it, over the API and MCP', async () => {
    const engine = await engineWith(limited({ keyRpm: { admin: 1000, service: 1000, user: 1000 }, userRpm: 3 }));
    const a = await newKey(engine, { name: 'a', role: 'service' });
    const b = await newKey(engine, { name: 'b', role: 'service' });
    const statuses = [];
    for (const key of [a, b, a, b]) statuses.push((await execute(engine.url, key.key, 'Gate.Pass', 'ursula')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await execute(engine.url, a.key, 'Gate.Pass', 'ursula');
    expect(refused.body.message).toMatch(/^Too many requests for this user: at most 3 a minute/);
    expect(refused.policy).toBe('"key";q=1000;w=60, "user";q=3;w=60');
    expect(refused.limit).toMatch(/^"key";r=\d+;t=\d+, "user";r=0;t=\d+$/);
    // Her own key, and a schedule for her: the same user.
    const own = await newKey(engine, { name: 'hers', role: 'user', user_id: 'ursula' });
    expect((await execute(engine.url, own.key, 'Gate.Pass')).status).toBe(429);
    expect(
      (await call(engine.url, 'POST', '/v1/tools/execute', b.key, { tool_name: 'Gate.Pass', user_id: 'ursula', run_at: '2099-01-01T00:00:00Z' })).status,
    ).toBe(429);
    // Reading is not acting: her key lists tools (counted on the key only); another user is not held.
    expect((await call(engine.url, 'GET', '/v1/tools?limit=1', own.key)).status).toBe(200);
    expect((await execute(engine.url, a.key, 'Gate.Pass', 'victor')).status).toBe(200);

    // Over MCP: a message of calls only is answered with tool errors; anything else with 429.
    const overCall = await mcp(engine.url, a.key, 'ursula', toolsCall('Gate_Pass'));
    expect(overCall.status).toBe(200);
    expect(overCall.policy).toContain('"user";q=3;w=60');
    expect(overCall.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: {
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/^Too many requests for this user: at most 3 a minute\. Try again in \d+ s\.$/) }],
        _meta: { kind: 'TOOL_RUNTIME_RATE_LIMIT', can_retry: true, retry_after_ms: expect.any(Number) },
      },
    });
    expect(overCall.body.result._meta.retry_after_ms).toBeGreaterThanOrEqual(1000);
    const overList = await mcp(engine.url, a.key, 'ursula', { method: 'tools/list', params: {} });
    expect(overList.status).toBe(429);
    expect(Number(overList.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(overList.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: expect.stringContaining('this user'), data: { retry_after_ms: expect.any(Number) } },
    });
    const fine = await mcp(engine.url, a.key, 'victor', toolsCall('Gate_Pass'));
    expect(fine.body.result).toMatchObject({ structuredContent: { passed: true } });
    expect(fine.body.result.isError).toBeUndefined();
  });

  it.skipIf(skip)('holds a key and a user to their tool calls in flight: a tool error, recorded, on the API and MCP', async () => {
    const engine = await engineWith(limited({ keyConcurrency: { admin: 0, service: 2, user: 0 }, userConcurrency: 3 }));
    const service = await newKey(engine, { name: 'svc', role: 'service' });
    closeGate();
    const held = [execute(engine.url, service.key, 'Gate.Hold', 'u1'), execute(engine.url, service.key, 'Gate.Hold', 'u2')];
    await within(5000, async () => holding === 2);
    const refused = await execute(engine.url, service.key, 'Gate.Pass', 'u3');
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      success: false,
      output: {
        error: {
          kind: 'TOOL_RUNTIME_RATE_LIMIT',
          can_retry: true,
          retry_after_ms: 1000,
          message: 'This API key already has 2 tool calls in flight, its limit: call again once one of them has finished (in about a second).',
        },
      },
    });
    // Over MCP the same call is the same tool error.
    const overMcp = await mcp(engine.url, service.key, 'u3', toolsCall('Gate_Pass'));
    expect(overMcp.body.result).toMatchObject({ isError: true, _meta: { kind: 'TOOL_RUNTIME_RATE_LIMIT', can_retry: true, retry_after_ms: 1000 } });
    openGate();
    expect((await Promise.all(held)).map((answer) => answer.body.output)).toEqual([{ value: { held: true } }, { value: { held: true } }]);
    expect((await execute(engine.url, service.key, 'Gate.Pass', 'u3')).body.success).toBe(true);

    // A user's calls in flight, whichever keys make them (the admin key has no limit of its own here).
    closeGate();
    const busy = [
      execute(engine.url, engine.key, 'Gate.Hold', 'busy'),
      execute(engine.url, engine.key, 'Gate.Hold', 'busy'),
      mcp(engine.url, service.key, 'busy', toolsCall('Gate_Hold')),
    ];
    await within(5000, async () => holding === 3);
    const userRefused = await execute(engine.url, engine.key, 'Gate.Pass', 'busy');
    expect(userRefused.body.output.error).toMatchObject({
      kind: 'TOOL_RUNTIME_RATE_LIMIT',
      message: expect.stringMatching(/^This user already has 3 tool calls in flight/),
    });
    expect((await execute(engine.url, engine.key, 'Gate.Pass', 'someone-else')).body.success).toBe(true);
    openGate();
    await Promise.all(busy);
    // Refused calls are recorded as failed calls of their kind.
    await engine.engine.executions.flush();
    const activity = await engine.api('GET', '/v1/activity/executions?user_id=busy&outcome=failed');
    expect(activity.body.items.map((item: { error_kind: string }) => item.error_kind)).toContain('TOOL_RUNTIME_RATE_LIMIT');
  });

  it.skipIf(skip)('counts requests without a valid key by client address, never probes or scrapes', async () => {
    const engine = await engineWith(limited({ addressRpm: 3, keyRpm: { admin: 1, service: 1, user: 1 } }), { metrics: async () => '# nothing\n' });
    const openapi = [];
    for (let i = 0; i < 3; i++) openapi.push(await call(engine.url, 'GET', '/v1/openapi', undefined));
    expect(openapi.map((answer) => [answer.status, answer.policy])).toEqual(Array(3).fill([200, '"address";q=3;w=60']));
    const over = await call(engine.url, 'GET', '/v1/openapi', undefined);
    expect(over).toMatchObject({ status: 429, body: { name: 'too_many_requests', message: expect.stringContaining('this address') } });
    // Keys tried one after another from that address: 429, not 401.
    expect((await call(engine.url, 'GET', '/v1/me', 'qk_guessed')).status).toBe(429);
    for (let i = 0; i < 5; i++) {
      expect(await call(engine.url, 'GET', '/v1/health', undefined)).toMatchObject({ status: 200, limit: null });
      expect((await call(engine.url, 'GET', '/v1/ready', undefined)).status).toBe(200);
      // The admin key may make one request a minute, and scrapes still pass.
      expect((await call(engine.url, 'GET', '/metrics', engine.key)).status).toBe(200);
    }
    expect((await call(engine.url, 'GET', '/v1/me', engine.key)).status).toBe(200);
    expect((await call(engine.url, 'GET', '/v1/me', engine.key)).status).toBe(429);
  });
});

/** Engines on one database (and one data directory, for its master key), sharing `prefix` in Redis. */
async function sharedEngines(kind: 'sqlite' | 'postgres', count: number, redis: string, prefix: string, limits: LimitSettings) {
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-limits-test-'));
  const { database, drop } = await testDatabase(kind, dataDir);
  const logs: string[][] = [];
  const engines: RunningEngine[] = [];
  for (let i = 0; i < count; i++) {
    const lines: string[] = [];
    logs.push(lines);
    engines.push(
      await startEngine({
        logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
        config: engineConfig({
          dataDir,
          database,
          host: '127.0.0.1',
          port: 0,
          redisUrl: redis,
          redisPrefix: prefix,
          limits,
          upstreamLimits: { deadlineMs: 1000 },
        }),
        credentials: () => sandboxCredentials('test-token'),
        toolkits: [gated],
        changePollMs: 100,
      }),
    );
  }
  return {
    engines,
    logs,
    async close() {
      openGate();
      await Promise.all(engines.map((engine) => engine.close().catch(() => {})));
      await drop();
    },
  };
}

describe.each(databases)('limits shared through Redis, on $name', ({ name, skip }) => {
  it.skipIf(skip || !haveRedis)('holds two engines to one count: requests, users and calls in flight, and a change of limits', async () => {
    const limits = limited({ keyRpm: { admin: 1000, service: 1000, user: 1000 }, keyConcurrency: { admin: 0, service: 2, user: 0 }, userRpm: 6 });
    const prefix = testRedisPrefix();
    const shared = await sharedEngines(name, 2, redisUrl, prefix, limits);
    const [a, b] = shared.engines as [RunningEngine, RunningEngine];
    try {
      const { key, info } = await createApiKey(a.engine.store.db, 'shared', { role: 'service' }, { rpm: 8 });
      const statuses = [];
      for (let i = 0; i < 14; i++) statuses.push((await call((i % 2 ? b : a).url, 'GET', '/v1/me', key)).status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(8);
      expect(statuses.slice(8)).toEqual(Array(6).fill(429));
      // The counts are Redis's, under the prefix (an engine that saw the key go over asks Redis no more this window).
      const direct = new Redis(redisUrl);
      expect(Number(await direct.get(`${prefix}rpm:key:${info.id}`).finally(() => direct.disconnect()))).toBeGreaterThanOrEqual(9);

      // A user acted for through both engines, with another key: 6 in all.
      const { key: other } = await createApiKey(a.engine.store.db, 'other', { role: 'service' });
      const executions = [];
      for (let i = 0; i < 10; i++) executions.push((await execute((i % 2 ? b : a).url, other, 'Gate.Pass', 'shared-user')).status);
      expect(executions.filter((status) => status === 200)).toHaveLength(6);

      // Calls in flight: two held through one engine, the third refused by the other.
      const { key: calls, info: callsInfo } = await createApiKey(a.engine.store.db, 'calls', { role: 'service' });
      closeGate();
      const held = [execute(a.url, calls, 'Gate.Hold', 'h1'), execute(a.url, calls, 'Gate.Hold', 'h2')];
      await within(5000, async () => holding === 2);
      expect((await execute(b.url, calls, 'Gate.Pass', 'h3')).body.output.error).toMatchObject({ kind: 'TOOL_RUNTIME_RATE_LIMIT' });
      openGate();
      await Promise.all(held);
      expect((await execute(b.url, calls, 'Gate.Pass', 'h3')).body.success).toBe(true);

      // An engine that dies mid-call holds its slots no longer than the hold (twice the 1 s deadline here).
      const identity = { id: callsInfo.id, role: 'service' as const, rpm: null, concurrency: null };
      for (let i = 0; i < 2; i++) expect(await a.engine.limits.admission(identity, undefined)!()).toHaveProperty('release');
      const refused = await b.engine.limits.admission(identity, undefined)!();
      expect(refused).toMatchObject({ refused: { kind: 'TOOL_RUNTIME_RATE_LIMIT' } });
      const freedIn = await within(5000, async () => 'release' in (await b.engine.limits.admission(identity, undefined)!()));
      expect(freedIn).toBeGreaterThan(500);

      // A key's limits changed through one engine reach the other within a second.
      expect((await call(a.url, 'PATCH', `/v1/admin/api_keys/${info.id}`, await adminKey(a), { rpm: 20 })).status).toBe(200);
      const seenIn = await within(2000, async () => (await call(b.url, 'GET', '/v1/me', key)).policy === '"key";q=20;w=60');
      expect(seenIn).toBeLessThan(1500);
    } finally {
      await shared.close();
    }
  });
});

/** A new admin key of an engine. */
const adminKey = async (running: RunningEngine) => (await createApiKey(running.engine.store.db, 'admin')).key;

describe('Redis away', () => {
  /** Lines of the log that say `message`. */
  const said = (lines: string[], message: string) => lines.filter((line) => line.includes(message)).length;

  it.skipIf(!haveRedis)('serves with per-process counts while Redis is cut, says so once, and shares again once it is back', async () => {
    const target = new URL(redisUrl);
    const proxy = await startProxy(Number(target.port || 6379), target.hostname);
    const prefix = testRedisPrefix();
    const limits = limited({ keyRpm: { admin: 1000, service: 3, user: 1000 } });
    const shared = await sharedEngines('sqlite', 1, `redis://127.0.0.1:${proxy.port}`, prefix, limits);
    const [engine] = shared.engines as [RunningEngine];
    const [log] = shared.logs as [string[]];
    const direct = new Redis(redisUrl);
    try {
      const admin = await adminKey(engine);
      expect((await call(engine.url, 'GET', '/v1/me', admin)).status).toBe(200);
      expect(await direct.keys(`${prefix}rpm:key:*`)).toHaveLength(1);
      expect(await call(engine.url, 'GET', '/v1/ready', undefined)).toMatchObject({ status: 200, body: { ready: true } });

      proxy.cut();
      const away = /^Redis at 127\.0\.0\.1:\d+ does not answer: limits are counted per process$/;
      await within(5000, async () => away.test((await call(engine.url, 'GET', '/v1/ready', undefined)).body.reason ?? ''));
      expect((await call(engine.url, 'GET', '/v1/ready', undefined)).status).toBe(200);
      // Still limited, in this process: a service key's 3 a minute.
      const { key } = await createApiKey(engine.engine.store.db, 'while away', { role: 'service' });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(engine.url, 'GET', '/v1/me', key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      // Reconnections keep failing (every 2 s at most): the log says it once.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(said(log, 'Redis does not answer')).toBe(1);

      await proxy.open();
      await within(8000, async () => (await call(engine.url, 'GET', '/v1/ready', undefined)).body.reason === undefined);
      expect(said(log, 'Redis answers')).toBe(1);
      expect((await call(engine.url, 'GET', '/v1/me', admin)).status).toBe(200);
      expect(Number(await direct.get((await direct.keys(`${prefix}rpm:key:*`))[0]!))).toBeGreaterThanOrEqual(2);
    } finally {
      direct.disconnect();
      await shared.close();
      proxy.close();
    }
  });

  it.skipIf(!haveRedis)(
    'serves when Redis stops answering on an open connection: a request waits a command timeout at most, and the stall is noticed',
    async () => {
      const target = new URL(redisUrl);
      const proxy = await stallingProxy(Number(target.port || 6379), target.hostname);
      const shared = await sharedEngines(
        'sqlite',
        1,
        `redis://127.0.0.1:${proxy.port}`,
        testRedisPrefix(),
        limited({ keyRpm: { admin: 1000, service: 1000, user: 1000 } }),
      );
      const [engine] = shared.engines as [RunningEngine];
      try {
        const admin = await adminKey(engine);
        expect((await call(engine.url, 'GET', '/v1/me', admin)).status).toBe(200);
        proxy.stall();
        const started = Date.now();
        expect((await call(engine.url, 'GET', '/v1/me', admin)).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(2000);
        // The unanswered heartbeat drops the connection: from then on nothing waits.
        await within(6000, async () => /does not answer/.test((await call(engine.url, 'GET', '/v1/ready', undefined)).body.reason ?? ''));
        const later = Date.now();
        expect((await call(engine.url, 'GET', '/v1/me', admin)).status).toBe(200);
        expect(Date.now() - later).toBeLessThan(500);
        proxy.resume();
        await within(8000, async () => (await call(engine.url, 'GET', '/v1/ready', undefined)).body.reason === undefined);
      } finally {
        await shared.close();
        proxy.close();
      }
    },
  );

  it('starts and serves when nothing listens where REDIS_URL points, and says so once', async () => {
    const shared = await sharedEngines('sqlite', 1, 'redis://127.0.0.1:9', testRedisPrefix(), limited({ keyRpm: { admin: 2, service: 2, user: 2 } }));
    const [engine] = shared.engines as [RunningEngine];
    const [log] = shared.logs as [string[]];
    try {
      const admin = await adminKey(engine);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(engine.url, 'GET', '/v1/me', admin)).status);
      expect(statuses).toEqual([200, 200, 429]);
      const ready = await call(engine.url, 'GET', '/v1/ready', undefined);
      expect(ready).toMatchObject({
        status: 200,
        body: {
          ready: true,
          reason: expect.stringMatching(/^Redis at 127\.0\.0\.1:9 (has not answered yet|does not answer): limits are counted per process$/),
        },
      });
      await within(5000, async () => said(log, 'Redis does not answer') === 1);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(said(log, 'Redis does not answer')).toBe(1);
    } finally {
      await shared.close();
    }
  });
});

/**
 * A TCP proxy whose open connections stop answering on `stall()` (what a client sends is swallowed, the
 * connection stays open, as a frozen Redis does), and forward again on `resume()` for new connections.
 */
async function stallingProxy(targetPort: number, targetHost: string) {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket)).on('error', () => {});
    }
    const connectionStalled = () => stalled;
    let dead = false;
    client.on('data', (chunk) => {
      // A connection that stalled once stays dead: its client must give it up.
      if (connectionStalled()) dead = true;
      if (!dead) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!dead && !connectionStalled()) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
    },
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
