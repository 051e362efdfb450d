/**
 * Engines for tests: a fresh data directory, a loopback port, an API key. `databases` lists SQLite
 * always and PostgreSQL when one answers at 127.0.0.1:5432 (database `test`); each test run gets its
 * own PostgreSQL schema, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineToolkit } from '@quiver/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll } from 'vitest';
import { createApiKey, engineConfig, sandboxCredentials, startEngine, type EngineConfig, type EngineOptions, type RunningEngine } from '@quiver/engine';
import { clientFor, TEST_TOKEN } from './json-client.js';

export const postgresUrl = process.env.QUIVER_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export const havePostgres = await postgresAnswers();
if (!havePostgres) console.warn(`engine tests: PostgreSQL is not reachable at ${postgresUrl}; its runs are skipped (SQLite runs as always)`);

export const redisUrl = process.env.QUIVER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export const haveRedis = await redisAnswers();
if (!haveRedis) console.warn(`engine tests: Redis is not reachable at ${redisUrl}; the runs that share counts through it are skipped`);

/** Keys in Redis under a prefix of one test's own (QUIVER_REDIS_PREFIX), deleted after the file's tests. */
const redisPrefixes: string[] = [];
export function testRedisPrefix(): string {
  const prefix = `quiver-test-${randomBytes(6).toString('hex')}:`;
  redisPrefixes.push(prefix);
  return prefix;
}
afterAll(async () => {
  if (!redisPrefixes.length || !haveRedis) return;
  const client = new Redis(redisUrl);
  for (const prefix of redisPrefixes.splice(0)) {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(...keys);
  }
  client.disconnect();
});

export const databases = [
  { name: 'sqlite', skip: false },
  { name: 'postgres', skip: !havePostgres },
] as const;

/** A database for one test engine: a SQLite file in `dataDir`, or a new PostgreSQL schema. */
export async function testDatabase(kind: 'sqlite' | 'postgres', dataDir: string): Promise<{ database: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') return { database: join(dataDir, 'quiver.db'), drop: async () => {} };
  const schema = `quiver_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    database: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

export interface TestEngine extends RunningEngine {
  key: string;
  dataDir: string;
  /** Every line the engine logged, to look for secrets in. */
  logs: string[];
  /** JSON over HTTP with the API key (or the given authorization). */
  api(method: string, path: string, body?: unknown, authorization?: string | null): Promise<{ status: number; body: any }>;
}

export async function startTestEngine(
  kind: 'sqlite' | 'postgres' = 'sqlite',
  options: Partial<EngineOptions> = {},
  config: Partial<EngineConfig> = {},
): Promise<TestEngine> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-engine-test-'));
  const { database, drop } = await testDatabase(kind, dataDir);
  const logs: string[] = [];
  const running = await startEngine({
    logger: { level: 'debug', stream: { write: (line: string) => void logs.push(line) } },
    config: engineConfig({ dataDir, database, host: '127.0.0.1', port: 0, ...config }),
    credentials: () => sandboxCredentials(TEST_TOKEN),
    scheduler: { pollMs: 50 },
    ...options,
  });
  const { key } = await createApiKey(running.engine.store.db, 'test');
  const call = clientFor(running.url, null);
  return {
    ...running,
    key,
    dataDir,
    logs,
    async api(method, path, body, authorization = `Bearer ${key}`) {
      const { status, body: answer } = await call(method, path, { body, headers: { authorization } });
      return { status, body: answer };
    },
    async close() {
      await running.close();
      await drop();
    },
  };
}

/** A toolkit whose one tool, `Counter.Count` {n}, runs `count(n)` and answers n: for tests that count runs. */
export function counterToolkit(count: (n: number) => Promise<void> | void) {
  return defineToolkit(
    {
      name: 'Counter',
      version: '1.0.0',
      description: 'Counts its runs.',
      baseUrl: 'http://127.0.0.1:9',
      tools: [
        {
          name: 'Count',
          description: 'Counts.',
          parameters: [{ name: 'n', description: 'Which.', required: true, schema: { type: 'integer' } }],
          output: { description: '' },
          requirements: {},
        },
      ],
    },
    {
      Count: async (input) => {
        await count(input.n as number);
        return { value: input.n };
      },
    },
  );
}
