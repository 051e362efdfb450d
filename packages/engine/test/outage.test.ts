/**
 * Losing PostgreSQL never ends an engine process. Its connections ended by the server (as a failover or
 * `pg_terminate_backend` does), the LISTEN one included, it serves on and listens again. With the database
 * refusing connections for a while (a loopback proxy between them, cut and opened again), requests that
 * need it answer 503 `database_unavailable`, `/v1/ready` says why, a tool call that needs its credentials
 * gets a retryable tool error (over HTTP and MCP), and the rest is served; once the database is back,
 * everything works without a restart: the scheduled execution that fell due meanwhile runs, the records of
 * the calls answered meanwhile are written, and the log said the loss and the return once each. A database
 * that accepts connections and never answers gets 503 within the connection timeout rather than a request
 * left waiting. Each engine is a separate process, so an error nobody heard would end it for real.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { havePostgres, postgresUrl, testDatabase } from '@quiver/test-support/harness';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/security/api-keys.js';
import { openStore } from '../src/store/db.js';
import { api, startEngineProcess, within } from './engine-process.js';
import { proxied, type TcpProxy } from './tcp-proxy.js';

const databaseUnavailable = {
  name: 'database_unavailable',
  message: "The engine's database is unavailable for now (a restart or a lost connection); try again in a few seconds.",
};

/** The messages of the process's log lines so far. */
const logged = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).msg as string);

describe.skipIf(!havePostgres)('PostgreSQL going away under an engine process', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let drop: () => Promise<void>;
  let dataDir: string;
  let database: string;
  const applicationName = `quiver_test_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    // ToolEngineApi's health check answers here: a tool that needs no credential.
    upstream = createServer((_request, response) => response.setHeader('content-type', 'application/json').end('{"healthy":true}'));
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'quiver-outage-'));
    const db = await testDatabase('postgres', dataDir);
    drop = db.drop;
    const url = new URL(db.database);
    // A name on the engine's connections, to end exactly those.
    url.searchParams.set('application_name', applicationName);
    database = url.toString();
  });
  afterAll(async () => {
    upstream?.close();
    await drop?.();
  });

  const start = (databaseUrl: string, log: string) =>
    startEngineProcess({
      QUIVER_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      BASE_URLS: JSON.stringify({ ToolEngineApi: upstreamUrl }),
      QUIVER_TEST_LOG: log,
    });

  async function terminate(): Promise<number> {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [applicationName]);
      return rows.length;
    } finally {
      await admin.end();
    }
  }

  it('serves on with its connections ended by the server, the LISTEN one included, and listens again', async () => {
    const log = join(dataDir, 'terminated.log');
    const engine = await start(database, log);
    expect((await api(engine, 'GET', '/v1/admin/secrets')).status).toBe(200);
    for (let round = 1; round <= 3; round++) {
      // The pool's connections and the watcher's own.
      expect(await terminate()).toBeGreaterThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(engine.child.exitCode).toBeNull();
      await within(5_000, async () => (await api(engine, 'GET', '/v1/admin/secrets')).status === 200);
      await within(5_000, async () => logged(log).filter((message) => message.startsWith('change notifications back')).length === round);
    }
    expect(logged(log).filter((message) => message.startsWith('change notifications lost'))).toHaveLength(3);

    // Listening again (the log said so after each round, and the polling loop ends once it does): a key
    // revoked from outside is refused. How fast is the benchmark's business, not a test's on a shared machine.
    const created = await api(engine, 'POST', '/v1/admin/api_keys', { name: 'after the failover' });
    expect((await api(engine, 'GET', '/v1/me', undefined, created.body.key)).status).toBe(200);
    const store = await openStore(database.replace(applicationName, `${applicationName}_cli`));
    try {
      await revokeApiKey(store.db, created.body.id);
      await within(5_000, async () => (await api(engine, 'GET', '/v1/me', undefined, created.body.key)).status === 401);
    } finally {
      await store.close();
    }
    expect(engine.child.exitCode).toBeNull();
  }, 60_000);

  describe('behind a proxy between it and the database', () => {
    let proxy: TcpProxy | undefined;
    afterEach(() => proxy?.close());

    /** An engine process that reaches the database through a proxy the test cuts, opens and makes hang. */
    async function behindProxy(name: string) {
      const through = await proxied(database);
      proxy = through.proxy;
      const log = join(dataDir, `${name}.log`);
      return { engine: await start(through.url, log), proxy: through.proxy, log: () => log };
    }

    it('answers 503 where the database is needed, serves the rest, and recovers by itself', async () => {
      const { engine, proxy, log } = await behindProxy('refused');
      expect((await api(engine, 'GET', '/v1/me')).status).toBe(200);
      const dueAt = Date.now() + 2_500;
      const scheduled = await api(engine, 'POST', '/v1/tools/execute', {
        tool_name: 'ToolEngineApi.CheckToolEngineHealth',
        input: {},
        user_id: 'outage',
        run_at: new Date(dueAt).toISOString(),
      });
      expect(scheduled.status).toBe(200);

      proxy.cut();
      // A request that needs the database: 503 with a word, not a 500, not a hang.
      const secrets = await api(engine, 'GET', '/v1/admin/secrets');
      expect(secrets).toEqual({ status: 503, body: databaseUnavailable });
      const ready = await within(5_000, async () => (await fetch(`${engine.url}/v1/ready`)).status === 503);
      expect(ready).toBeLessThan(5_000);
      expect(await (await fetch(`${engine.url}/v1/ready`)).json()).toEqual({ ready: false, reason: 'the database does not answer' });
      expect((await fetch(`${engine.url}/v1/health`)).status).toBe(200);

      // A tool whose secret must be read: refused before anything is sent, retryable, over HTTP and MCP.
      const needsSecret = { tool_name: 'ToolEngineApi.GetWorkerHealthStatus', input: { worker_id: 'w1' }, user_id: 'outage' };
      const refused = await api(engine, 'POST', '/v1/tools/execute', needsSecret);
      expect(refused.status).toBe(200);
      expect(refused.body.output.error).toMatchObject({ kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: true });
      expect(refused.body.output.error.message).toBe(
        "ToolEngineApi.GetWorkerHealthStatus cannot get its credentials: the engine's database is unavailable for now. Nothing was sent; try again in a few seconds.",
      );
      const mcp = new Client({ name: 'outage-test', version: '1' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'outage' } },
        }),
      );
      try {
        const result = await mcp.callTool({ name: 'ToolEngineApi_GetWorkerHealthStatus', arguments: { worker_id: 'w1' } });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result.content)).toContain("the engine's database is unavailable for now");
      } finally {
        await mcp.close();
      }

      // What needs no database is served: a known key, a tool without credentials.
      const served = await api(engine, 'POST', '/v1/tools/execute', { tool_name: 'ToolEngineApi.CheckToolEngineHealth', input: {}, user_id: 'outage' });
      expect(served.body).toMatchObject({ success: true, output: { value: { healthy: true } } });

      // Away past the scheduled execution's time, then back.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt + 1_000 - Date.now())));
      expect(engine.child.exitCode).toBeNull();
      await proxy.open();
      await within(10_000, async () => (await fetch(`${engine.url}/v1/ready`)).status === 200);
      expect((await api(engine, 'GET', '/v1/admin/secrets')).status).toBe(200);
      await within(10_000, async () => (await api(engine, 'GET', `/v1/scheduled_tools/${scheduled.body.id}`)).body.execution_status === 'success');
      const activity = (await api(engine, 'GET', '/v1/activity/executions?limit=100')).body.items.map((item: { id: string }) => item.id);
      expect(activity).toContain(served.body.execution_id);
      expect(activity).toContain(refused.body.execution_id);

      // Said once each, however many requests failed meanwhile.
      const messages = logged(log());
      expect(messages.filter((message) => message.startsWith('database lost'))).toHaveLength(1);
      expect(messages.filter((message) => message.startsWith('database back'))).toHaveLength(1);
      expect(messages.filter((message) => message.startsWith('change notifications lost'))).toHaveLength(1);
      await within(5_000, async () => logged(log()).some((message) => message.startsWith('change notifications back')));
      expect(engine.child.exitCode).toBeNull();
    }, 60_000);

    it('answers 503 within the connection timeout when the database accepts connections and never answers', async () => {
      const { engine, proxy } = await behindProxy('hanging');
      expect((await api(engine, 'GET', '/v1/admin/secrets')).status).toBe(200);
      proxy.hang();
      try {
        const started = Date.now();
        const answer = await api(engine, 'GET', '/v1/admin/secrets');
        expect(answer).toEqual({ status: 503, body: databaseUnavailable });
        expect(Date.now() - started).toBeLessThan(7_000);
      } finally {
        proxy.cut();
        await proxy.open();
      }
      await within(10_000, async () => (await api(engine, 'GET', '/v1/admin/secrets')).status === 200);
      expect(engine.child.exitCode).toBeNull();
    }, 30_000);
  });
});
