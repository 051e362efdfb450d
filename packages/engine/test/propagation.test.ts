/**
 * Changes reach every engine process. On PostgreSQL by LISTEN/NOTIFY: a key revoked through one process
 * (or from outside, as `quiver keys revoke` does) is refused by another, every time, with separate processes
 * that poll nothing while they listen; every watched table notifies, whoever writes, and a key's or a
 * secret's last use does not; the LISTEN connection ended by the server is said once, polled around, and
 * back by itself, with every cache refreshed once. On SQLite (no notifications) by polling. How soon is the
 * benchmark's to say (bench/engine.mjs, propagationBench): a bound here only says it arrives.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { havePostgres, postgresUrl, testDatabase } from '@quiver/test-support/harness';
import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../src/security/api-keys.js';
import { ChangeWatcher, type WatchedTable } from '../src/store/changes.js';
import { openStore, type Store } from '../src/store/db.js';
import { api, startEngineProcess, type EngineProcess } from './engine-process.js';

/** How long until `check` holds, asked every 2 ms; fails after `ms`. */
async function measure(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const refuses = async (engine: EngineProcess, key: string) => (await api(engine, 'GET', '/v1/me', undefined, key)).status === 401;

/** A database of its own for one test, with a name on its PostgreSQL connections to find them by. */
async function database(kind: 'sqlite' | 'postgres') {
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-propagation-'));
  const db = await testDatabase(kind, dataDir);
  const applicationName = `quiver_test_${randomBytes(4).toString('hex')}`;
  let url = db.database;
  if (kind === 'postgres') {
    const withName = new URL(db.database);
    withName.searchParams.set('application_name', applicationName);
    url = withName.toString();
  }
  return { dataDir, url, applicationName, drop: db.drop };
}

/** Ends every connection of the processes that carry this application name, as a failover does. */
async function terminate(applicationName: string, which = ''): Promise<number> {
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(`select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 ${which}`, [
      applicationName,
    ]);
    return rows.length;
  } finally {
    await admin.end();
  }
}

describe.skipIf(!havePostgres)('propagation on PostgreSQL, separate processes', () => {
  it('refuses a key revoked through another process, every time', async () => {
    const db = await database('postgres');
    const env = { QUIVER_DATA_DIR: db.dataDir, DATABASE_URL: db.url };
    try {
      const [a, b] = [await startEngineProcess(env), await startEngineProcess(env)];
      const times: number[] = [];
      for (let i = 0; i < 8; i++) {
        const created = await api(a, 'POST', '/v1/admin/api_keys', { name: `revoked-${i}` });
        expect(created.status).toBe(201);
        // Known to b, which keeps it in memory from now on.
        expect((await api(b, 'GET', '/v1/me', undefined, created.body.key)).status).toBe(200);
        const started = performance.now();
        expect((await api(a, 'DELETE', `/v1/admin/api_keys/${created.body.id}`)).status).toBe(204);
        // From the moment the revocation is sent, not from its answer.
        times.push(performance.now() - started + (await measure(1_000, () => refuses(b, created.body.key))));
      }
      // Revoked from outside every engine process, as `quiver keys revoke` does: both refuse it.
      for (let i = 0; i < 4; i++) {
        const created = await api(a, 'POST', '/v1/admin/api_keys', { name: `outside-${i}` });
        for (const engine of [a, b]) expect((await api(engine, 'GET', '/v1/me', undefined, created.body.key)).status).toBe(200);
        const store = await openStore(db.url);
        try {
          const started = performance.now();
          expect(await revokeApiKey(store.db, created.body.id)).toBe(true);
          const revokedIn = performance.now() - started;
          const [inA, inB] = await Promise.all([a, b].map((engine) => measure(1_000, () => refuses(engine, created.body.key))));
          times.push(revokedIn + Math.max(inA!, inB!));
        } finally {
          await store.close();
        }
      }
      expect(times).toHaveLength(12);
      console.info(`a revoked key refused by the other process after ${times.map((ms) => ms.toFixed(1)).join(', ')} ms`);
    } finally {
      await db.drop();
    }
  }, 60_000);
});

describe.skipIf(!havePostgres)('the change watcher on PostgreSQL', () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const thing of opened.splice(0).reverse()) await thing.close();
  });

  /** Two stores on one database, as two processes have, and a watcher on the second with its log. */
  async function setup() {
    const db = await database('postgres');
    opened.push({ close: db.drop });
    const writer = await openStore(db.url);
    const reader = await openStore(db.url);
    opened.push(writer, reader);
    const lines: Array<{ level: string; message: string }> = [];
    const log = {
      info: (_: object, message: string) => lines.push({ level: 'info', message }),
      warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
    };
    const watcher = new ChangeWatcher(reader, { log: () => log });
    const heard: WatchedTable[] = [];
    for (const table of ['api_keys', 'secrets', 'connections', 'auth_providers', 'workers'] as const) watcher.on(table, () => heard.push(table));
    await watcher.start();
    opened.push({ close: () => watcher.stop() });
    return { db, writer, watcher, heard, lines };
  }

  it('hears every watched table written by any writer, and not a last use', async () => {
    const { writer, heard, watcher } = await setup();
    expect(watcher.degraded()).toBeUndefined();
    const now = new Date().toISOString();
    const writes: Record<WatchedTable, () => Promise<unknown>> = {
      api_keys: () => createApiKey(writer.db, 'heard'),
      secrets: () =>
        writer.db
          .insertInto('secrets')
          .values({ id: 's1', key: 'K', description: '', value_ciphertext: 'x', created_at: now, updated_at: now, last_accessed_at: null })
          .execute(),
      connections: () =>
        writer.db
          .insertInto('connections')
          .values({
            id: 'c1',
            user_id: 'u',
            provider_id: 'github',
            scopes: '[]',
            access_token_ciphertext: 'x',
            refresh_token_ciphertext: null,
            expires_at: null,
            created_at: now,
            updated_at: now,
          })
          .execute(),
      auth_providers: () =>
        writer.db
          .insertInto('auth_providers')
          .values({
            id: 'p1',
            description: '',
            provider_id: 'github',
            type: 'oauth2',
            oauth2: '{}',
            client_secret_ciphertext: null,
            created_at: now,
            updated_at: now,
          })
          .execute(),
      workers: () =>
        writer.db
          .insertInto('workers')
          .values({ id: 'w1', type: 'http', enabled: 1, config: '{}', secret_ciphertext: null, toolkits: null, created_at: now, updated_at: now })
          .execute(),
    };
    const times: string[] = [];
    for (const [table, write] of Object.entries(writes) as Array<[WatchedTable, () => Promise<unknown>]>) {
      heard.length = 0;
      await write();
      const ms = await measure(1_000, async () => heard.includes(table));
      times.push(`${table} ${ms.toFixed(1)}`);
      expect(heard).toEqual([table]);
    }
    console.info(`notifications heard after (ms): ${times.join(', ')}`);

    // What no process keeps wakes none: a key's last use, a secret's, the toolkits a worker was seen serving.
    heard.length = 0;
    await writer.db.updateTable('api_keys').set({ last_used_at: new Date().toISOString() }).execute();
    await writer.db.updateTable('secrets').set({ last_accessed_at: new Date().toISOString() }).execute();
    await writer.db.updateTable('workers').set({ toolkits: '["CrmMarketingApi"]' }).execute();
    // A change the poll would miss is heard: a worker disabled without touching updated_at.
    await writer.db.updateTable('workers').set({ enabled: 0 }).execute();
    await measure(1_000, async () => heard.includes('workers'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard).toEqual(['workers']);
  });

  it('says a lost LISTEN connection once, polls meanwhile, and is back by itself with every cache refreshed', async () => {
    const { db, writer, watcher, heard, lines } = await setup();
    // Only the watcher's connection: its pool keeps working.
    expect(await terminate(db.applicationName, "and query ilike 'listen%'")).toBe(1);
    // The first change after the loss is found by polling (or, once back, by the notification): never lost.
    const now = new Date().toISOString();
    heard.length = 0;
    await writer.db
      .insertInto('secrets')
      .values({ id: 's2', key: 'K2', description: '', value_ciphertext: 'x', created_at: now, updated_at: now, last_accessed_at: null })
      .execute();
    await measure(2_000, async () => heard.includes('secrets'));
    await measure(3_000, async () => lines.some((line) => line.message.startsWith('change notifications back')));
    expect(lines.map((line) => [line.level, line.message.split(':')[0]])).toEqual([
      ['warn', 'change notifications lost'],
      ['info', 'change notifications back'],
    ]);
    // Back: what changed meanwhile is unknown, so every cache was told once.
    for (const table of ['api_keys', 'connections', 'auth_providers', 'workers'] as const) expect(heard).toContain(table);
    expect(watcher.degraded()).toBeUndefined();
    heard.length = 0;
    await createApiKey(writer.db, 'after');
    await measure(1_000, async () => heard.includes('api_keys'));
  });

  it('polls while it cannot listen, and says why in a word for GET /v1/ready', async () => {
    const { db, writer, watcher, heard } = await setup();
    await createApiKey(writer.db, 'to revoke');
    // Ended again each time it comes back, for a while: it keeps polling and keeps trying.
    const started = Date.now();
    let degraded: string | undefined;
    while (Date.now() - started < 1_500) {
      await terminate(db.applicationName, "and query ilike 'listen%'");
      degraded ??= watcher.degraded();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(degraded).toBe('change notifications are lost for now: changes made through other processes are polled every 0.5 s');
    heard.length = 0;
    await sql`update api_keys set revoked_at = ${new Date().toISOString()}`.execute(writer.db);
    await measure(2_000, async () => heard.includes('api_keys'));
    expect(heard).toContain('api_keys');
  });
});

describe('the change watcher on SQLite', () => {
  it('keeps its default interval for an option given as undefined, as the engine gives an unset one', () => {
    // Without a connection to listen on, the watcher says how often it polls instead.
    const unheard = { db: {} as Store['db'], dedicatedConnection: async () => Promise.reject(new Error('no connection')) };
    expect(new ChangeWatcher(unheard, { pollMs: undefined }).degraded()).toMatch(/polled every 0\.5 s$/);
    expect(new ChangeWatcher(unheard, { pollMs: 2_000 }).degraded()).toMatch(/polled every 2 s$/);
  });

  it('polls: a change through another connection to the file is heard within a poll, and nothing is degraded', async () => {
    const db = await database('sqlite');
    const [writer, reader] = [await openStore(db.url), await openStore(db.url)];
    const watcher = new ChangeWatcher(reader, { pollMs: 100 });
    const heard: WatchedTable[] = [];
    watcher.on('api_keys', () => heard.push('api_keys'));
    await watcher.start();
    try {
      expect(reader.dedicatedConnection).toBeUndefined();
      const { info } = await createApiKey(writer.db, 'polled');
      await revokeApiKey(writer.db, info.id);
      expect(await measure(1_000, async () => heard.includes('api_keys'))).toBeLessThan(1_000);
      expect(watcher.degraded()).toBeUndefined();
    } finally {
      await watcher.stop();
      await writer.close();
      await reader.close();
    }
  });
});
