/**
 * Workers that route: a registered worker's toolkit is served by the worker alone (each tool listed
 * once, in the API and over MCP), a worker that is down or disabled is refused by name with no
 * fallback to the built-in toolkit, and every engine process sharing the database follows
 * registrations, updates, deletions and key revocations within the promised time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { databases, havePostgres, startTestEngine, testDatabase, type TestEngine } from '@quiver/test-support/harness';
import { crmMarketing, taskboard } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/security/api-keys.js';
import { openStore } from '../src/store/db.js';
import { startWorkerServer, type WorkerServer } from '../src/workers/worker-server.js';
import { api, startEngineProcess, within } from './engine-process.js';

const secret = 'routing-secret-0123456789abcdef';
const crmTools = crmMarketing.tools.length;
const builtinTools = crmTools + taskboard.tools.length;
const marketingEvents = { tool_name: 'CrmMarketingApi.GetAllMarketingEvents', input: {}, user_id: 'u1' };

describe.each(databases)('worker routing on $name', ({ name, skip }) => {
  /** The built-in CrmMarketingApi calls this one; the worker calls the other. */
  let builtinUpstream: HubspotEmulator;
  let workerUpstream: HubspotEmulator;
  let worker: WorkerServer;
  let engine: TestEngine;

  beforeAll(async () => {
    if (skip) return;
    [builtinUpstream, workerUpstream] = await Promise.all([startHubspotEmulator(), startHubspotEmulator()]);
    for (const upstream of [builtinUpstream, workerUpstream]) upstream.issueToken('test-token');
    worker = await startWorkerServer({ toolkits: [crmMarketing], secret, port: 0, baseUrls: { CrmMarketingApi: workerUpstream.url } });
    engine = await startTestEngine(name, { toolkits: [crmMarketing, taskboard], baseUrls: { CrmMarketingApi: builtinUpstream.url } });
  });
  afterAll(async () => {
    await engine?.close();
    await worker?.close();
    await builtinUpstream?.close();
    await workerUpstream?.close();
  });

  async function mcpToolNames(): Promise<string[]> {
    const client = new Client({ name: 'routing-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'u1' } },
      }),
    );
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  }

  it.skipIf(skip)('serves a toolkit a worker serves through the worker only, each tool listed once', async () => {
    expect((await engine.api('POST', '/v1/workers', { id: 'crm', type: 'http', http: { uri: worker.url, secret, timeout: 5, retry: 0 } })).status).toBe(201);

    const names: string[] = [];
    for (let offset = 0; offset < builtinTools; offset += 50) {
      const listed = await engine.api('GET', `/v1/tools?limit=50&offset=${offset}`);
      expect(listed.body.total_count).toBe(builtinTools);
      names.push(...listed.body.items.map((item: { qualified_name: string }) => item.qualified_name));
    }
    expect(names).toHaveLength(builtinTools);
    expect(new Set(names).size).toBe(names.length);
    const overMcp = await mcpToolNames();
    expect(overMcp).toHaveLength(builtinTools);
    expect(new Set(overMcp).size).toBe(overMcp.length);

    const [builtinBefore, workerBefore] = [builtinUpstream.requests.length, workerUpstream.requests.length];
    const executed = await engine.api('POST', '/v1/tools/execute', marketingEvents);
    expect(executed.body).toMatchObject({ success: true });
    expect(workerUpstream.requests.length).toBe(workerBefore + 1);
    expect(builtinUpstream.requests.length).toBe(builtinBefore);
  });

  it.skipIf(skip)('refuses by name, never falls back to the built-in toolkit, when the worker is down', async () => {
    await worker.close();
    const builtinBefore = builtinUpstream.requests.length;
    const down = await engine.api('POST', '/v1/tools/execute', marketingEvents);
    expect(down.body).toMatchObject({ success: false, output: { error: { kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: true } } });
    expect(JSON.stringify(down.body.output.error)).toMatch(/worker crm\b/i);
    expect(builtinUpstream.requests.length).toBe(builtinBefore);
    expect((await engine.api('DELETE', '/v1/workers/crm')).status).toBe(204);
  });

  it.skipIf(skip)('refuses naming a disabled worker, and serves the built-in toolkit again once it is deleted', async () => {
    worker = await startWorkerServer({ toolkits: [crmMarketing], secret, port: 0, baseUrls: { CrmMarketingApi: workerUpstream.url } });
    await engine.api('POST', '/v1/workers', { id: 'crm2', type: 'http', http: { uri: worker.url, secret, timeout: 5, retry: 0 } });
    expect((await engine.api('GET', '/v1/tools?toolkit=CrmMarketingApi')).body.total_count).toBe(crmTools);

    await engine.api('PATCH', '/v1/workers/crm2', { enabled: false });
    const builtinBefore = builtinUpstream.requests.length;
    const disabled = await engine.api('POST', '/v1/tools/execute', marketingEvents);
    expect(disabled.body).toMatchObject({
      success: false,
      output: { error: { kind: 'TOOL_RUNTIME_FATAL', can_retry: false, message: expect.stringMatching(/worker crm2 is disabled/) } },
    });
    expect((await engine.api('GET', '/v1/tools?toolkit=CrmMarketingApi')).body.total_count).toBe(0);
    expect(builtinUpstream.requests.length).toBe(builtinBefore);

    expect((await engine.api('DELETE', '/v1/workers/crm2')).status).toBe(204);
    expect((await engine.api('POST', '/v1/tools/execute', marketingEvents)).body).toMatchObject({ success: true });
    expect(builtinUpstream.requests.length).toBe(builtinBefore + 1);
    await worker.close();
  });
});

describe('engine processes sharing PostgreSQL', () => {
  let builtinUpstream: HubspotEmulator;
  let workerUpstream: HubspotEmulator;
  let worker: WorkerServer;
  beforeAll(async () => {
    if (!havePostgres) return;
    [builtinUpstream, workerUpstream] = await Promise.all([startHubspotEmulator(), startHubspotEmulator()]);
    for (const upstream of [builtinUpstream, workerUpstream]) upstream.issueToken('test-token');
    worker = await startWorkerServer({ toolkits: [crmMarketing], secret, port: 0, baseUrls: { CrmMarketingApi: workerUpstream.url } });
  });
  afterAll(async () => {
    await worker?.close();
    await builtinUpstream?.close();
    await workerUpstream?.close();
  });

  it.skipIf(!havePostgres)(
    'see registrations, updates and deletions within 2 s, and revoked keys within 1 s',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'quiver-routing-'));
      const db = await testDatabase('postgres', dataDir);
      const env = { QUIVER_DATA_DIR: dataDir, DATABASE_URL: db.database, BASE_URLS: JSON.stringify({ CrmMarketingApi: builtinUpstream.url }) };
      try {
        const [a, b] = [await startEngineProcess(env), await startEngineProcess(env)];
        const upstreamOfB = async () => {
          const [before, workerBefore] = [builtinUpstream.requests.length, workerUpstream.requests.length];
          const answer = await api(b, 'POST', '/v1/tools/execute', marketingEvents);
          if (workerUpstream.requests.length > workerBefore) return 'worker';
          if (builtinUpstream.requests.length > before) return 'builtin';
          return answer.body.output?.error?.message ?? 'none';
        };
        expect(await upstreamOfB()).toBe('builtin');

        expect((await api(a, 'POST', '/v1/workers', { id: 'shared', type: 'http', http: { uri: worker.url, secret, timeout: 5, retry: 0 } })).status).toBe(201);
        expect(await within(2000, async () => (await upstreamOfB()) === 'worker')).toBeLessThanOrEqual(2000);

        await api(a, 'PATCH', '/v1/workers/shared', { enabled: false });
        expect(await within(2000, async () => /worker shared is disabled/.test(await upstreamOfB()))).toBeLessThanOrEqual(2000);

        // A process started while the worker is down has never listed its tools: the toolkit it served
        // last is still routed to it, and refused by name.
        await api(a, 'PATCH', '/v1/workers/shared', { enabled: true });
        await worker.close();
        const c = await startEngineProcess(env);
        const whileDown = await api(c, 'POST', '/v1/tools/execute', marketingEvents);
        expect(whileDown.body).toMatchObject({ success: false, output: { error: { kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE' } } });
        expect(JSON.stringify(whileDown.body.output.error)).toMatch(/worker shared\b/i);

        await api(a, 'DELETE', '/v1/workers/shared');
        expect(await within(2000, async () => (await upstreamOfB()) === 'builtin')).toBeLessThanOrEqual(2000);

        // A key revoked from outside both processes (as `quiver keys revoke` does) is refused by each within 1 s.
        expect((await api(b, 'GET', '/v1/tools?limit=1', undefined, a.key)).status).toBe(200);
        const store = await openStore(db.database);
        try {
          expect(await revokeApiKey(store.db, a.key.slice(0, 10))).toBe(true);
        } finally {
          await store.close();
        }
        for (const engine of [a, b])
          expect(await within(1000, async () => (await api(engine, 'GET', '/v1/tools?limit=1', undefined, a.key)).status === 401)).toBeLessThanOrEqual(1000);
      } finally {
        await db.drop();
      }
    },
    60_000,
  );
});
