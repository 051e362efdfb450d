/**
 * Keys with roles, and one user per session: what each role may reach, whose data a call touches
 * whatever its arguments say, and who ToolEngineApi serves. The attacks of the security review
 * (an MCP session acting as another user, any key writing secrets) are among them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey, openStore } from '@quiver/engine';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { toolEngine } from '@quiver/toolkits';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/store/migrations/index.js';
import { probe, probeCredentials } from './probe-toolkit.js';

describe('keys with roles', () => {
  let engine: TestEngine;
  const keys: Record<'admin' | 'service' | 'carol', string> = { admin: '', service: '', carol: '' };
  const as = (who: keyof typeof keys, method: string, path: string, body?: unknown) => engine.api(method, path, body, `Bearer ${keys[who]}`);

  beforeAll(async () => {
    engine = await startTestEngine('sqlite', {
      toolkits: [probe, toolEngine],
      credentials: probeCredentials,
    });
    keys.admin = engine.key;
    keys.service = (await createApiKey(engine.engine.store.db, 'backend', { role: 'service' })).key;
    keys.carol = (await createApiKey(engine.engine.store.db, 'carol', { role: 'user', userId: 'carol' })).key;
  });
  afterAll(() => engine.close());

  it('GET /v1/me tells each key its role, its user and itself', async () => {
    const admin = await as('admin', 'GET', '/v1/me');
    expect(admin.body).toEqual({ role: 'admin', key: { id: expect.any(String), name: 'test', prefix: keys.admin.slice(0, 10) } });
    expect((await as('service', 'GET', '/v1/me')).body).toMatchObject({ role: 'service', key: { name: 'backend' } });
    expect((await as('service', 'GET', '/v1/me')).body.user_id).toBeUndefined();
    expect((await as('carol', 'GET', '/v1/me')).body).toMatchObject({
      role: 'user',
      user_id: 'carol',
      key: { name: 'carol', prefix: keys.carol.slice(0, 10) },
    });
  });

  it.each([
    ['POST', '/v1/admin/secrets/GIT_SERVER_URL', { value: 'https://attacker.example' }],
    ['GET', '/v1/admin/secrets', undefined],
    ['PUT', '/v1/admin/settings/session_verification', { unsafe_skip_verification: true }],
    ['GET', '/v1/admin/user_connections', undefined],
    ['GET', '/v1/admin/auth_providers', undefined],
    ['GET', '/v1/workers', undefined],
  ])('keeps %s %s for admin keys', async (method, path, body) => {
    const secrets = () => engine.engine.store.db.selectFrom('secrets').selectAll().execute();
    const before = await secrets();
    for (const who of ['service', 'carol'] as const) {
      const reply = await as(who, method, path, body);
      expect(reply.status, `${who} ${method} ${path}`).toBe(403);
      expect(reply.body).toMatchObject({ name: 'forbidden' });
    }
    expect(await secrets()).toEqual(before);
    expect((await as('admin', method, path, body)).status).toBeLessThan(400);
  });

  it('lets service keys act for any user, and no user key confirm a browser or read the schedule', async () => {
    expect((await as('service', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI', user_id: 'alice' })).body.output.value).toEqual({
      acting_as: 'alice',
    });
    expect((await as('service', 'POST', '/v1/auth/confirm_user', { flow_id: 'none', user_id: 'alice' })).status).toBe(404);
    expect((await as('carol', 'POST', '/v1/auth/confirm_user', { flow_id: 'none', user_id: 'carol' })).status).toBe(403);
    expect((await as('carol', 'GET', '/v1/scheduled_tools')).status).toBe(403);
    expect((await as('service', 'GET', '/v1/scheduled_tools')).status).toBe(200);
  });

  it('runs a user key as its user, and refuses it any other', async () => {
    expect((await as('carol', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI' })).body.output.value).toEqual({ acting_as: 'carol' });
    expect((await as('carol', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI', user_id: 'carol' })).body.output.value).toEqual({ acting_as: 'carol' });
    for (const [method, path, body] of [
      ['POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI', user_id: 'alice' }],
      ['POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI', user_id: 'alice', run_at: '2099-01-01T00:00:00Z' }],
      ['POST', '/v1/tools/authorize', { tool_name: 'Probe.WhoAmI', user_id: 'alice' }],
      ['POST', '/v1/auth/authorize', { auth_requirement: { id: 'probe' }, user_id: 'alice' }],
      ['GET', '/v1/tools?user_id=alice', undefined],
      ['GET', '/v1/formatted_tools?user_id=alice', undefined],
      ['GET', '/v1/formatted_tools/Probe.Plain?user_id=alice', undefined],
    ] as const) {
      const reply = await as('carol', method, path, body);
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body.message).toContain("This key acts only as user 'carol': it cannot act as 'alice'.");
    }
    const scheduled = await as('carol', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI', run_at: '2099-01-01T00:00:00Z' });
    expect((await as('admin', 'GET', `/v1/scheduled_tools/${scheduled.body.id}`)).body.user_id).toBe('carol');
    expect((await as('carol', 'POST', '/v1/tools/authorize', { tool_name: 'Probe.Plain' })).body.user_id).toBe('carol');
  });

  it('serves ToolEngineApi to admin keys only, over HTTP', async () => {
    const names = async (who: keyof typeof keys) =>
      ((await as(who, 'GET', '/v1/tools?limit=100')).body.items as Array<{ toolkit: { name: string } }>).map((t) => t.toolkit.name);
    expect(await names('admin')).toContain('ToolEngineApi');
    for (const who of ['service', 'carol'] as const) {
      expect(await names(who)).not.toContain('ToolEngineApi');
      const refused = await as(who, 'POST', '/v1/tools/execute', { tool_name: 'ToolEngineApi.ListAuthConnections' });
      expect(refused.body.output.error.message).toContain('ToolEngineApi is served to admin keys only');
    }
  });

  it('suggests the tools an unknown name may mean, on GET /v1/tools/{name} and POST /v1/tools/execute', async () => {
    const notFound = { name: 'not_found', message: 'tool Probe.WhoAmIx not found. Did you mean Probe.WhoAmI?' };
    expect(await as('service', 'GET', '/v1/tools/Probe.WhoAmIx')).toMatchObject({ status: 404, body: notFound });
    expect(await as('service', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmIx', user_id: 'alice' })).toMatchObject({ status: 404, body: notFound });
    const scheduled = await as('service', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmIx', user_id: 'alice', run_at: '2099-01-01T00:00:00Z' });
    expect(scheduled).toMatchObject({ status: 404, body: notFound });
    // Only what the key is offered is suggested; a name like none stays a plain not found.
    const administration = await as('service', 'GET', '/v1/tools/ToolEngineApi.ListAuthConnection');
    expect(administration.status).toBe(404);
    expect(administration.body.message).not.toContain('Did you mean');
    expect((await as('admin', 'GET', '/v1/tools/ToolEngineApi.ListAuthConnection')).body.message).toContain('Did you mean ToolEngineApi.ListAuthConnections');
    // Spelt like no tool, but in the words of one.
    for (const [method, path, body] of [
      ['GET', '/v1/tools/ToolEngineApi.RemoveWorker', undefined],
      ['GET', '/v1/formatted_tools/ToolEngineApi.RemoveWorker', undefined],
      ['POST', '/v1/tools/execute', { tool_name: 'ToolEngineApi.RemoveWorker' }],
    ] as const) {
      expect((await as('admin', method, path, body)).body.message).toContain('Did you mean ToolEngineApi.DeleteWorker');
    }
    expect((await as('service', 'GET', '/v1/tools/SendAFaxToGrandma')).body).toEqual({ name: 'not_found', message: 'tool SendAFaxToGrandma not found' });
  });

  describe('one user per MCP session', () => {
    async function session(key: string, userHeader?: string): Promise<Client> {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...(userHeader && { 'quiver-user-id': userHeader }) };
      const client = new Client({ name: 'roles-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp?discovery=false`), { requestInit: { headers } }));
      return client;
    }
    const text = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text);

    it('runs every call of a user key session as its user, and refuses a header naming another', async () => {
      const carol = await session(keys.carol);
      expect(text(await carol.callTool({ name: 'Probe_WhoAmI', arguments: {} }))).toEqual({ acting_as: 'carol' });
      const tools = (await carol.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('Probe_WhoAmI');
      expect(tools.filter((name) => name.startsWith('ToolEngineApi_'))).toEqual([]);
      // The attack: a session steered into ToolEngineApi to run a tool as alice, or to list everyone's connections.
      const steered = await carol.callTool({ name: 'ToolEngineApi_ExecuteTool', arguments: { tool_name: 'Probe.WhoAmI', user_id: 'alice' } });
      expect(steered.isError).toBe(true);
      expect((steered.content as Array<{ text: string }>)[0]!.text).toContain('ToolEngineApi is served to admin keys only');
      const listing = await carol.callTool({ name: 'ToolEngineApi_ListAuthConnections', arguments: {} });
      expect(listing.isError).toBe(true);
      await carol.close();

      await expect(session(keys.carol, 'alice')).rejects.toThrow(/forbidden.*cannot act as 'alice'/);
    });

    it("tells a key's session naming no user to send the Quiver-User-ID header, where the HTTP API says user_id", async () => {
      for (const key of [keys.admin, keys.service]) {
        const anonymous = await session(key);
        const refused = await anonymous.callTool({ name: 'Probe_WhoAmI', arguments: {} });
        expect(refused.isError).toBe(true);
        expect((refused.content as Array<{ text: string }>)[0]!.text).toBe('Probe.WhoAmI acts for a user: send the acting user in the Quiver-User-ID header.');
        await anonymous.close();
      }
      const discovery = new Client({ name: 'roles-test', version: '1' });
      await discovery.connect(
        new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp?discovery=true`), {
          requestInit: { headers: { authorization: `Bearer ${keys.admin}` } },
        }),
      );
      const viaMeta = await discovery.callTool({ name: 'call_tool', arguments: { name: 'Probe.WhoAmI', arguments: {} } });
      expect((viaMeta.content as Array<{ text: string }>)[0]!.text).toContain('Quiver-User-ID header');
      await discovery.close();
      const rest = await as('service', 'POST', '/v1/tools/execute', { tool_name: 'Probe.WhoAmI' });
      expect(rest.body.output.error).toMatchObject({ kind: 'TOOL_RUNTIME_CONTEXT_REQUIRED', message: 'Probe.WhoAmI acts for a user: pass user_id.' });
    });

    it('runs a service session as the user its header names, without ToolEngineApi', async () => {
      const backend = await session(keys.service, 'dave');
      expect(text(await backend.callTool({ name: 'Probe_WhoAmI', arguments: {} }))).toEqual({ acting_as: 'dave' });
      expect((await backend.listTools()).tools.some((tool) => tool.name.startsWith('ToolEngineApi_'))).toBe(false);
      await backend.close();
      const admin = await session(keys.admin, 'dave');
      expect((await admin.listTools()).tools.some((tool) => tool.name.startsWith('ToolEngineApi_'))).toBe(true);
      await admin.close();
    });
  });
});

describe('migration 0003_key_roles', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-roles-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('makes every key created before roles an admin key', async () => {
    const file = join(dataDir, 'quiver.db');
    const before = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const provider = { getMigrations: async () => ({ '0001_initial': migrations['0001_initial']!, '0002_oauth_flows': migrations['0002_oauth_flows']! }) };
    expect((await new Migrator({ db: before, provider }).migrateToLatest()).error).toBeUndefined();
    await before
      .insertInto('api_keys')
      .values({ id: 'k1', name: 'old', key_hash: 'h', prefix: 'qk_old', created_at: new Date().toISOString(), last_used_at: null, revoked_at: null })
      .execute();
    await before.destroy();

    const store = await openStore(file);
    try {
      expect(await store.db.selectFrom('api_keys').select(['id', 'role', 'user_id']).execute()).toEqual([{ id: 'k1', role: 'admin', user_id: null }]);
    } finally {
      await store.close();
    }
  });
});
