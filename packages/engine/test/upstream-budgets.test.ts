/**
 * Upstream budgets shared through Redis: two engine processes on one database (so one master key) and
 * one Redis call RepoHostApi against the GitHub emulator. A budget spent through one engine is honoured by
 * the other without a request sent; together they send no more than a window has left; Redis holds a
 * keyed hash of the credential, never the token, and forgets budgets once they have ended. With Redis
 * away (a proxy cut) each engine keeps serving and counts in its own memory; once Redis is back the
 * budgets are shared again. Without `REDIS_URL`, an engine keeps them in memory and still fails fast.
 * A throttled call shows on its tool span and in `quiver_upstream_throttled_total`, without a credential.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, engineConfig, sandboxCredentials, startEngine, type RunningEngine } from '@quiver/engine';
import { startTelemetry, telemetrySettings } from '@quiver/engine/telemetry';
import { startGithubEmulator, type GithubEmulator } from '@quiver/sandbox';
import { haveRedis, redisUrl, startTestEngine, testRedisPrefix } from '@quiver/test-support/harness';
import { startOtlpReceiver } from '@quiver/test-support/otlp-receiver';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startProxy } from './tcp-proxy.js';

vi.setConfig({ testTimeout: 30_000 });

const TOKEN = 'test-token';
const TOOL = 'RepoHostApi.FetchOpenRepoInvitations';

let github: GithubEmulator;
beforeAll(async () => {
  github = await startGithubEmulator();
});
afterAll(() => github?.close());
beforeEach(() => {
  github.reset();
  github.tokenFor('octocat', TOKEN);
});

interface Shared {
  engines: RunningEngine[];
  key: string;
  prefix: string;
  execute(engine: RunningEngine): Promise<{ success: boolean; output: { value?: unknown; error?: Record<string, unknown> } }>;
  close(): Promise<void>;
}

/** Two engines on one SQLite database and one Redis (at `url`), with one API key. */
async function sharedEngines(url = redisUrl): Promise<Shared> {
  const prefix = testRedisPrefix();
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-budgets-test-'));
  const engines: RunningEngine[] = [];
  for (let i = 0; i < 2; i++) {
    engines.push(
      await startEngine({
        logger: { level: 'warn', stream: { write: () => {} } },
        config: engineConfig({ dataDir, host: '127.0.0.1', port: 0, redisUrl: url, redisPrefix: prefix }),
        credentials: () => sandboxCredentials(TOKEN),
        baseUrls: { RepoHostApi: github.url },
      }),
    );
  }
  const { key } = await createApiKey(engines[0]!.engine.store.db, 'test');
  return {
    engines,
    key,
    prefix,
    async execute(engine) {
      const response = await fetch(`${engine.url}/v1/tools/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool_name: TOOL, input: {}, user_id: 'ada' }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Awaited<ReturnType<Shared['execute']>>;
    },
    close: async () => {
      await Promise.all(engines.map((engine) => engine.close()));
    },
  };
}

/** What the emulator received while `work` ran. */
async function sentDuring<T>(work: () => Promise<T>): Promise<{ result: T; sent: number }> {
  const before = github.requests.length;
  const result = await work();
  return { result, sent: github.requests.length - before };
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const rateLimited = { success: false, output: { error: { kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', can_retry: true } } };

describe('without Redis', () => {
  it('keeps the budgets in the engine’s memory: a spent budget fails the next call at once', async () => {
    github.setRateLimit({ requests: 1, windowMs: 3_600_000 });
    const engine = await startTestEngine('sqlite', { baseUrls: { RepoHostApi: github.url }, credentials: () => sandboxCredentials(TOKEN) });
    try {
      const execute = () => engine.api('POST', '/v1/tools/execute', { tool_name: TOOL, input: {}, user_id: 'ada' });
      expect((await execute()).body.success).toBe(true);
      const { result, sent } = await sentDuring(execute);
      expect(result.body).toMatchObject(rateLimited);
      expect(result.body.output.error.retry_after_ms).toBeGreaterThan(3_500_000);
      expect(result.body.output.error.developer_message).toContain('nothing reached the upstream');
      expect(sent).toBe(0);
    } finally {
      await engine.close();
    }
  });
});

describe('a throttled call in the telemetry', () => {
  it('is counted by toolkit and outcome, and marked on its tool span, with no attempt span and nothing of the credential', async () => {
    const receiver = await startOtlpReceiver();
    const telemetry = (await startTelemetry(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), {
      prometheus: true,
    }))!;
    github.setRateLimit({ requests: 1, windowMs: 3_600_000 });
    const engine = await startTestEngine('sqlite', {
      baseUrls: { RepoHostApi: github.url },
      credentials: () => sandboxCredentials(TOKEN),
      metrics: telemetry.scrape,
    });
    try {
      const execute = () => engine.api('POST', '/v1/tools/execute', { tool_name: TOOL, input: {}, user_id: 'ada' });
      expect((await execute()).body.success).toBe(true);
      const throttled = await execute();
      expect(throttled.body).toMatchObject(rateLimited);
      const text = await (await fetch(`${engine.url}/metrics`, { headers: { authorization: `Bearer ${engine.key}` } })).text();
      expect(text).toMatch(/^quiver_upstream_throttled_total\{quiver_toolkit="RepoHostApi",quiver_throttle_outcome="failed".*\} 1$/m);
      expect(text).not.toContain(TOKEN);
      const hash = createHmac('sha256', engine.engine.vault.derive('upstream budgets')).update(`Bearer ${TOKEN}`).digest('base64url');
      expect(text).not.toContain(hash);
      await telemetry.flush();
      await receiver.waitFor((spans) => spans.filter((span) => span.name === `execute_tool ${TOOL}`).length === 2);
      const calls = receiver.spans.filter((span) => span.name === `execute_tool ${TOOL}`);
      const held = calls.find((span) => span.attributes['gen_ai.tool.call.id'] === throttled.body.execution_id)!;
      expect(held.attributes).toMatchObject({ 'quiver.upstream.throttled': 'failed', 'error.type': 'UPSTREAM_RUNTIME_RATE_LIMIT' });
      expect(held.attributes['quiver.upstream.throttle.wait_ms']).toBeGreaterThan(3_500_000);
      // Nothing was sent: no attempt span under the throttled call.
      expect(receiver.spans.filter((span) => span.parentSpanId === held.spanId)).toEqual([]);
      const exported = JSON.stringify(receiver.spans.map((span) => span.attributes));
      expect(exported).not.toContain(TOKEN);
      expect(exported).not.toContain(hash);
    } finally {
      await engine.close();
      await telemetry.shutdown();
      await receiver.close();
    }
  });
});

describe.skipIf(!haveRedis)('two engine processes sharing Redis', () => {
  it('honour a budget spent through the other, without a request sent', async () => {
    github.setRateLimit({ requests: 2, windowMs: 3_600_000 });
    const shared = await sharedEngines();
    try {
      const [first, second] = shared.engines as [RunningEngine, RunningEngine];
      expect((await shared.execute(first)).success).toBe(true);
      expect((await shared.execute(first)).success).toBe(true);
      // The first engine's answers said the budget is spent; the second engine has never called GitHub.
      const { result, sent } = await sentDuring(() => shared.execute(second));
      expect(sent).toBe(0);
      expect(result).toMatchObject(rateLimited);
      expect(result.output.error!.retry_after_ms).toBeGreaterThan(3_500_000);
      expect(result.output.error!.message).toMatch(/so this call was not sent/);
    } finally {
      await shared.close();
    }
  });

  it('send together no more than the window has left, however many calls come at once', async () => {
    github.setRateLimit({ requests: 5, windowMs: 3_600_000 });
    const shared = await sharedEngines();
    try {
      const [first, second] = shared.engines as [RunningEngine, RunningEngine];
      expect((await shared.execute(first)).success).toBe(true);
      // Four left: ten calls at once, five through each engine.
      const { result, sent } = await sentDuring(() => Promise.all(Array.from({ length: 10 }, (_, i) => shared.execute(i % 2 ? first : second))));
      expect(sent).toBe(4);
      expect(result.filter((answer) => answer.success)).toHaveLength(4);
      for (const refused of result.filter((answer) => !answer.success)) expect(refused).toMatchObject(rateLimited);
    } finally {
      await shared.close();
    }
  });

  it('keep a keyed hash of the credential in Redis, never the token, and let budgets expire', async () => {
    const shared = await sharedEngines();
    try {
      expect((await shared.execute(shared.engines[0]!)).success).toBe(true);
      const redis = new Redis(redisUrl);
      try {
        // The engine's own limits keep their counts under the same prefix; the budgets are these.
        const keys = (await redis.keys(`${shared.prefix}upstream-budget*`)).sort();
        const origin = new URL(github.url).origin;
        expect(keys).toEqual([
          `${shared.prefix}upstream-budget-origins`,
          expect.stringMatching(new RegExp(`^${shared.prefix}upstream-budget:${origin.replace(/[.]/g, '\\.')}\\|[A-Za-z0-9_-]{43}$`)),
        ]);
        const budget = keys[1]!;
        const held = await redis.hgetall(budget);
        expect(Object.keys(held)).toEqual(['resource:core']);
        expect(held['resource:core']).toMatch(/^4999:\d{13}$/);
        expect(await redis.smembers(keys[0]!)).toEqual([origin]);
        const everything = JSON.stringify({ keys, held });
        expect(everything).not.toContain(TOKEN);
        // Gone once GitHub's hour has ended.
        const ttl = await redis.pttl(budget);
        expect(ttl).toBeGreaterThan(3_500_000);
        expect(ttl).toBeLessThanOrEqual(3_601_000);
      } finally {
        redis.disconnect();
      }
    } finally {
      await shared.close();
    }
  });

  it('keep serving while Redis is away, each counting in its own memory, and share again once it is back', async () => {
    const target = new URL(redisUrl);
    const proxy = await startProxy(Number(target.port || 6379), target.hostname);
    // Longer than a retry waits for a rate limit (10 s): a refused call comes back refused, not retried.
    github.setRateLimit({ requests: 2, windowMs: 12_000 });
    const shared = await sharedEngines(`redis://127.0.0.1:${proxy.port}`);
    const [first, second] = shared.engines as [RunningEngine, RunningEngine];
    const away = () => shared.engines.every((running) => running.engine.shared.degraded() !== undefined);
    const back = () => shared.engines.every((running) => running.engine.shared.degraded() === undefined);
    try {
      await until(back, 'Redis to answer both engines');
      proxy.cut();
      await until(away, 'both engines to see Redis away');
      // The first engine spends the budget and knows it, in its memory.
      expect((await shared.execute(first)).success).toBe(true);
      expect((await shared.execute(first)).success).toBe(true);
      expect(await sentDuring(() => shared.execute(first))).toMatchObject({ sent: 0, result: rateLimited });
      // The second one does not: it sends, is refused by GitHub, and knows from then on.
      const refused = await sentDuring(() => shared.execute(second));
      expect(refused).toMatchObject({ sent: 1, result: { success: false, output: { error: { kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', status_code: 403 } } } });
      expect(await sentDuring(() => shared.execute(second))).toMatchObject({ sent: 0, result: rateLimited });

      await proxy.open();
      await until(back, 'both engines to see Redis back');
      // GitHub's budget comes back (a fresh window). Redis, not the memory that stood in, decides again:
      // the first engine sends, spends the budget in Redis, and the second honours it unsent.
      github.reset();
      github.tokenFor('octocat', TOKEN);
      github.setRateLimit({ requests: 2, windowMs: 12_000 });
      expect(await sentDuring(() => shared.execute(first))).toMatchObject({ sent: 1, result: { success: true } });
      expect(await sentDuring(() => shared.execute(first))).toMatchObject({ sent: 1, result: { success: true } });
      expect(await sentDuring(() => shared.execute(second))).toMatchObject({ sent: 0, result: rateLimited });
    } finally {
      await shared.close();
      proxy.close();
    }
  });
});
