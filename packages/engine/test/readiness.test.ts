/**
 * Liveness and readiness: /v1/health answers 200 while the process serves, whatever its database does;
 * /v1/ready answers 200 only when the database answers and every migration is applied, 503 with the reason
 * otherwise, and 503 from the moment the engine starts draining. A ready check is bounded: one query at a
 * time, reused for a second, failed after two. On SQLite and PostgreSQL, with the database cut away for real
 * (PostgreSQL behind a TCP proxy the test closes or stops answering through; SQLite closed under the engine).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineConfig, sandboxCredentials, startEngine, type RunningEngine } from '@quiver/engine';
import { databases, havePostgres, startTestEngine, testDatabase, type TestEngine } from '@quiver/test-support/harness';
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type DatabaseConnection, type QueryResult } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readiness } from '../src/readiness.js';
import { migrations } from '../src/store/migrations/index.js';
import { startProxy, type TcpProxy } from './tcp-proxy.js';

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** Asks until the answer is the one expected (a readiness answer is reused for a second). */
async function eventually(url: string, status: number) {
  const deadline = Date.now() + 8000;
  for (;;) {
    const answer = await get(url);
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(databases)('liveness and readiness on $name', ({ name, skip }) => {
  let engine: TestEngine;
  beforeAll(async () => {
    if (!skip) engine = await startTestEngine(name);
  });
  afterAll(() => engine?.close());

  it.skipIf(skip)('a fresh engine is alive and ready, without a key', async () => {
    expect(await get(`${engine.url}/v1/health`)).toEqual({ status: 200, body: { healthy: true } });
    expect(await get(`${engine.url}/v1/ready`)).toEqual({ status: 200, body: { ready: true } });
  });

  it.skipIf(skip)('is not ready, and still alive, while a migration of this engine is not applied to its database', async () => {
    const db = engine.engine.store.db as unknown as Kysely<{ kysely_migration: { name: string; timestamp: string } }>;
    const row = await db.selectFrom('kysely_migration').selectAll().where('name', '=', '0008_audit_events').executeTakeFirstOrThrow();
    await db.deleteFrom('kysely_migration').where('name', '=', row.name).execute();
    try {
      expect(await eventually(`${engine.url}/v1/ready`, 503)).toEqual({
        status: 503,
        body: { ready: false, reason: 'migrations not applied to the database: 0008_audit_events' },
      });
      expect((await get(`${engine.url}/v1/health`)).status).toBe(200);
    } finally {
      await db.insertInto('kysely_migration').values(row).execute();
    }
    expect(await eventually(`${engine.url}/v1/ready`, 200)).toEqual({ status: 200, body: { ready: true } });
  });

  it.skipIf(skip)('answers 503 from the moment it starts draining, and serves the rest until it closes', async () => {
    const draining = await startTestEngine(name, {}, { drainSeconds: 1 });
    expect((await get(`${draining.url}/v1/ready`)).status).toBe(200);
    const started = Date.now();
    const closed = draining.close();
    try {
      expect(await get(`${draining.url}/v1/ready`)).toEqual({ status: 503, body: { ready: false, reason: 'the engine is shutting down (draining)' } });
      expect(await get(`${draining.url}/v1/health`)).toEqual({ status: 200, body: { healthy: true } });
      expect((await draining.api('GET', '/v1/me')).status).toBe(200);
    } finally {
      await closed;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await expect(fetch(`${draining.url}/v1/health`)).rejects.toThrow();
  });
});

describe('a database that goes away', () => {
  it('SQLite closed under the engine: alive, not ready', async () => {
    const engine = await startTestEngine('sqlite');
    try {
      expect((await get(`${engine.url}/v1/ready`)).status).toBe(200);
      await engine.engine.store.db.destroy();
      expect(await eventually(`${engine.url}/v1/ready`, 503)).toEqual({ status: 503, body: { ready: false, reason: 'the database does not answer' } });
      expect(await get(`${engine.url}/v1/health`)).toEqual({ status: 200, body: { healthy: true } });
      expect(engine.logs.join('\n')).toContain('"msg":"not ready"');
    } finally {
      await engine.close();
    }
  });

  describe.skipIf(!havePostgres)('PostgreSQL behind a proxy', () => {
    let proxy: TcpProxy;
    let running: RunningEngine;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'quiver-ready-test-'));
      const database = await testDatabase('postgres', dataDir);
      drop = database.drop;
      const url = new URL(database.database);
      proxy = await startProxy(Number(url.port || 5432), url.hostname);
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      running = await startEngine({
        config: engineConfig({ dataDir, database: url.toString(), host: '127.0.0.1', port: 0 }),
        credentials: () => sandboxCredentials('test-token'),
      });
    });
    afterAll(async () => {
      proxy?.release();
      await running?.close();
      proxy?.close();
      await drop?.();
    });

    it('stops answering: not ready within two seconds, every check bounded, alive', async () => {
      expect((await get(`${running.url}/v1/ready`)).status).toBe(200);
      proxy.hang();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 10 }, () => get(`${running.url}/v1/ready`)));
      expect(Date.now() - started).toBeLessThan(4000);
      for (const answer of answers) expect(answer).toEqual({ status: 503, body: { ready: false, reason: 'the database has not answered within 2 s' } });
      expect(await get(`${running.url}/v1/health`)).toEqual({ status: 200, body: { healthy: true } });
    });

    it('connections terminated and refused: not ready, saying so without the address; alive; ready again once it is back', async () => {
      proxy.release();
      proxy.cut();
      const answer = await eventually(`${running.url}/v1/ready`, 503);
      expect(answer).toEqual({ status: 503, body: { ready: false, reason: 'the database does not answer' } });
      expect(await get(`${running.url}/v1/health`)).toEqual({ status: 200, body: { healthy: true } });
      await proxy.open();
      expect(await eventually(`${running.url}/v1/ready`, 200)).toEqual({ status: 200, body: { ready: true } });
    });
  });
});

describe('a ready check is bounded', () => {
  /** A database whose every query hangs, fails, or answers with every migration, counting the queries. */
  function database(behaviour: 'hang' | 'fail' | 'answer') {
    const counted = { queries: 0 };
    const connection: DatabaseConnection = {
      async executeQuery<R>(): Promise<QueryResult<R>> {
        counted.queries++;
        if (behaviour === 'hang') return new Promise(() => {});
        if (behaviour === 'fail') throw new Error('connect ECONNREFUSED 10.1.2.3:5432 (user quiver)');
        return { rows: Object.keys(migrations).map((name) => ({ name })) as R[] };
      },
      async *streamQuery() {},
    };
    const db = new Kysely<any>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => ({
          init: async () => {},
          acquireConnection: async () => connection,
          beginTransaction: async () => {},
          commitTransaction: async () => {},
          rollbackTransaction: async () => {},
          releaseConnection: async () => {},
          destroy: async () => {},
        }),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    });
    return { db, counted };
  }

  it('holds one query of a database that hangs, however many ask, and fails each check at the timeout', async () => {
    const { db, counted } = database('hang');
    const readiness = new Readiness(db, { timeoutMs: 100 });
    const started = Date.now();
    const states = await Promise.all(Array.from({ length: 20 }, () => readiness.check()));
    expect(Date.now() - started).toBeLessThan(1000);
    for (const state of states) expect(state).toEqual({ ready: false, reason: 'the database has not answered within 0.1 s' });
    await readiness.check();
    expect(counted.queries).toBe(1);
  });

  it('says a failing database does not answer, keeping its error for the log only', async () => {
    const { db } = database('fail');
    const state = await new Readiness(db).check();
    expect(state).toMatchObject({ ready: false, reason: 'the database does not answer' });
    expect((state.error as Error).message).toContain('ECONNREFUSED');
  });

  it('reuses an answer for a second, and says draining at once without asking the database', async () => {
    const { db, counted } = database('answer');
    const readiness = new Readiness(db, { cacheMs: 60_000 });
    for (let i = 0; i < 5; i++) expect(await readiness.check()).toEqual({ ready: true });
    expect(counted.queries).toBe(2);
    readiness.drain();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'the engine is shutting down (draining)' });
    expect(counted.queries).toBe(2);
  });
});
