/**
 * The audit trail: every administrative change records exactly one event naming the acting key and its
 * role, the client address, the request, the target and what changed; a refused change records nothing;
 * no secret value reaches the trail, its answers or the log; filters, paging, retention, and admin keys
 * only. On SQLite and PostgreSQL.
 */
import { buildApp, createApiKey, engineConfig, openEngine } from '@quiver/engine';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audited } from '../src/http/audit.js';

const secretValue = 'sk-audit-VALUE-7f3a9c';
const clientSecret = 'provider-client-SECRET-42d1';
const rotatedClientSecret = 'provider-client-SECRET-rotated-88e0';
const workerSecret = 'worker-signing-SECRET-5b6c';
const rotatedWorkerSecret = 'worker-signing-SECRET-rotated-19f2';
const headerValue = 'Bearer mcp-header-SECRET-77aa';
const rotatedHeaderValue = 'Bearer mcp-header-SECRET-rotated-31bd';
const echoedValue = 'sk-echoed-by-a-careless-handler-0c4e';

describe.each(databases)('the audit trail on $name', ({ name, skip }) => {
  let engine: TestEngine;
  let me: { id: string; prefix: string; name: string };
  /** Keys created along the way: none may appear in the trail. */
  const createdKeys: string[] = [];

  beforeAll(async () => {
    if (skip) return;
    engine = await startTestEngine(name);
    me = (await engine.api('GET', '/v1/me')).body.key;
  });
  afterAll(() => engine?.close());

  const rows = () => engine.engine.store.db.selectFrom('audit_events').selectAll().execute();

  /** The events a change recorded: the rows of the trail that were not there before it. */
  async function recorded(change: () => Promise<unknown>) {
    const before = new Set((await rows()).map((row) => row.id));
    await change();
    return (await rows()).filter((row) => !before.has(row.id));
  }

  /** The one event a successful change recorded, as GET /v1/admin/audit answers it (newest first). */
  async function onlyEvent(method: string, path: string, body?: unknown, status = 200) {
    let answer: { status: number; body: any } | undefined;
    const fresh = await recorded(async () => {
      answer = await engine.api(method, path, body);
    });
    expect(answer!.status, JSON.stringify(answer!.body)).toBe(status);
    expect(fresh).toHaveLength(1);
    const newest = await engine.api('GET', '/v1/admin/audit?limit=1');
    expect(newest.body.items[0].id).toBe(fresh[0]!.id);
    return { event: newest.body.items[0], answer: answer!.body };
  }

  const byTestKey = () => ({ type: 'api_key', key_id: me.id, key_prefix: me.prefix, name: 'test', role: 'admin' });

  it.skipIf(skip)('records keys created, changed and revoked with the acting key, its role, the client address and the request', async () => {
    const { event, answer } = await onlyEvent('POST', '/v1/admin/api_keys', { name: 'ci', role: 'service' }, 201);
    createdKeys.push(answer.key);
    expect(event).toEqual({
      id: expect.any(String),
      occurred_at: expect.any(String),
      action: 'api_key.created',
      target: { type: 'api_key', id: answer.id },
      actor: byTestKey(),
      client_address: '127.0.0.1',
      request_id: expect.any(String),
      change: { name: 'ci', prefix: answer.prefix, role: 'service', user_id: null, rpm: null, concurrency: null },
    });
    expect(Math.abs(Date.parse(event.occurred_at) - Date.now())).toBeLessThan(5000);

    // Its limits changed by its prefix: what changed, from and to.
    const updated = await onlyEvent('PATCH', `/v1/admin/api_keys/${answer.prefix}`, { rpm: 120 });
    expect(updated.event).toMatchObject({
      action: 'api_key.updated',
      target: { type: 'api_key', id: answer.id },
      actor: byTestKey(),
      change: { rpm: { from: null, to: 120 } },
    });
    expect(Object.keys(updated.event.change)).toEqual(['rpm']);

    // Revoked by its prefix: the event names the key by its id.
    const revoked = await onlyEvent('DELETE', `/v1/admin/api_keys/${answer.prefix}`, undefined, 204);
    expect(revoked.event).toMatchObject({
      action: 'api_key.revoked',
      target: { type: 'api_key', id: answer.id },
      actor: byTestKey(),
      change: { name: 'ci', prefix: answer.prefix, role: 'service', user_id: null, rpm: 120, concurrency: null },
    });

    // Refused changes record nothing: an unknown key, the key making the request, a bad role.
    const refused = await recorded(async () => {
      expect((await engine.api('DELETE', `/v1/admin/api_keys/${answer.prefix}`)).status).toBe(404);
      expect((await engine.api('DELETE', `/v1/admin/api_keys/${me.prefix}`)).status).toBe(400);
      expect((await engine.api('POST', '/v1/admin/api_keys', { name: 'x', role: 'service', user_id: 'u' })).status).toBe(400);
      expect((await engine.api('PATCH', `/v1/admin/api_keys/${answer.prefix}`, { rpm: 5 })).status).toBe(404);
      expect((await engine.api('PATCH', `/v1/admin/api_keys/${me.prefix}`, { rpm: -1 })).status).toBe(400);
    });
    expect(refused).toEqual([]);
  });

  it.skipIf(skip)('records secrets set and deleted by name, never their value or its length', async () => {
    const first = await onlyEvent('POST', '/v1/admin/secrets/AUDIT_SECRET', { value: secretValue, description: 'for the audit test' });
    expect(first.event).toMatchObject({ action: 'secret.set', target: { type: 'secret', id: 'AUDIT_SECRET' }, actor: byTestKey() });
    expect(first.event.change).toEqual({ description: 'for the audit test', replaced: false });
    const second = await onlyEvent('POST', '/v1/admin/secrets/AUDIT_SECRET', { value: `${secretValue}-2` });
    expect(second.event.change).toEqual({ description: '', replaced: true });
    const deleted = await onlyEvent('DELETE', `/v1/admin/secrets/${first.answer.id}`, undefined, 204);
    expect(deleted.event).toMatchObject({ action: 'secret.deleted', target: { type: 'secret', id: 'AUDIT_SECRET' }, change: { id: first.answer.id } });
    expect(await recorded(async () => expect((await engine.api('DELETE', `/v1/admin/secrets/${first.answer.id}`)).status).toBe(404))).toEqual([]);
  });

  it.skipIf(skip)('records auth providers created, changed and deleted, the client secret only as set or removed', async () => {
    const created = await onlyEvent('POST', '/v1/admin/auth_providers', {
      id: 'gh-audit',
      provider_id: 'github',
      description: 'GitHub',
      oauth2: { client_id: 'audit-client', client_secret: clientSecret },
    });
    expect(created.event).toMatchObject({ action: 'auth_provider.created', target: { type: 'auth_provider', id: 'gh-audit' }, actor: byTestKey() });
    expect(created.event.change).toMatchObject({
      description: 'GitHub',
      provider_id: 'github',
      client_secret: 'set',
      oauth2: { client_id: 'audit-client', authorize_request: { endpoint: 'https://github.com/login/oauth/authorize' } },
    });

    const rotated = await onlyEvent('PATCH', '/v1/admin/auth_providers/gh-audit', { oauth2: { client_secret: rotatedClientSecret } });
    expect(rotated.event).toMatchObject({ action: 'auth_provider.updated', target: { type: 'auth_provider', id: 'gh-audit' } });
    expect(rotated.event.change).toEqual({ client_secret: 'set' });

    const changed = await onlyEvent('PATCH', '/v1/admin/auth_providers/gh-audit', {
      description: 'GitHub for CI',
      oauth2: { client_id: 'audit-client-2', client_secret: '' },
    });
    expect(changed.event.change).toEqual({
      description: { from: 'GitHub', to: 'GitHub for CI' },
      'oauth2.client_id': { from: 'audit-client', to: 'audit-client-2' },
      client_secret: 'removed',
    });

    const deleted = await onlyEvent('DELETE', '/v1/admin/auth_providers/gh-audit');
    expect(deleted.event).toMatchObject({
      action: 'auth_provider.deleted',
      target: { type: 'auth_provider', id: 'gh-audit' },
      change: { description: 'GitHub for CI', client_secret: 'none', oauth2: { client_id: 'audit-client-2' } },
    });
    expect(await recorded(async () => expect((await engine.api('DELETE', '/v1/admin/auth_providers/gh-audit')).status).toBe(404))).toEqual([]);
  });

  it.skipIf(skip)('records workers registered, changed, enabled, disabled and deleted, never their secret or header values', async () => {
    const http = { uri: 'http://127.0.0.1:9', secret: workerSecret };
    const registered = await onlyEvent('POST', '/v1/workers', { id: 'w-audit', type: 'http', http, allowed_secrets: ['SUPPORT_API_TOKEN'] }, 201);
    expect(registered.event).toMatchObject({ action: 'worker.registered', target: { type: 'worker', id: 'w-audit' }, actor: byTestKey() });
    expect(registered.event.change).toMatchObject({
      type: 'http',
      enabled: true,
      allowed_secrets: ['SUPPORT_API_TOKEN'],
      http: { uri: 'http://127.0.0.1:9', secret: { exists: true } },
    });

    const disabled = await onlyEvent('PATCH', '/v1/workers/w-audit', { enabled: false });
    expect(disabled.event).toMatchObject({ action: 'worker.updated', target: { type: 'worker', id: 'w-audit' } });
    expect(disabled.event.change).toEqual({ enabled: { from: true, to: false } });
    const enabled = await onlyEvent('PATCH', '/v1/workers/w-audit', { enabled: true, http: { uri: 'http://127.0.0.1:10', secret: rotatedWorkerSecret } });
    expect(enabled.event.change).toEqual({
      enabled: { from: false, to: true },
      'http.uri': { from: 'http://127.0.0.1:9', to: 'http://127.0.0.1:10' },
      'http.secret': 'set',
    });

    const mcp = await onlyEvent(
      'POST',
      '/v1/workers',
      { id: 'm-audit', type: 'mcp', mcp: { uri: 'http://127.0.0.1:9/mcp', headers: { Authorization: headerValue } } },
      201,
    );
    expect(mcp.event.change).toMatchObject({ type: 'mcp', mcp: { headers: { Authorization: '********' } } });
    const headers = await onlyEvent('PATCH', '/v1/workers/m-audit', { mcp: { headers: { Authorization: rotatedHeaderValue } } });
    expect(headers.event.change).toEqual({ 'mcp.headers': 'set' });

    // Trying an address saves nothing and records nothing.
    expect(await recorded(() => engine.api('POST', '/v1/workers/test', { type: 'http', http: { uri: 'http://127.0.0.1:9', secret: workerSecret } }))).toEqual(
      [],
    );

    const deleted = await onlyEvent('DELETE', '/v1/workers/w-audit', undefined, 204);
    expect(deleted.event).toMatchObject({
      action: 'worker.deleted',
      target: { type: 'worker', id: 'w-audit' },
      change: { type: 'http', http: { uri: 'http://127.0.0.1:10' } },
    });
    expect((await onlyEvent('DELETE', '/v1/workers/m-audit', undefined, 204)).event.action).toBe('worker.deleted');
  });

  it.skipIf(skip)('records the session verification setting, MCP sign-ins ended and connections deleted', async () => {
    const verification = await onlyEvent('PUT', '/v1/admin/settings/session_verification', { verifier_url: 'http://127.0.0.1:9/verify' });
    expect(verification.event).toMatchObject({
      action: 'session_verification.updated',
      target: { type: 'session_verification', id: null },
      actor: byTestKey(),
    });
    expect(verification.event.change).toMatchObject({ verifier_url: { from: null, to: 'http://127.0.0.1:9/verify' } });

    // A grant with a token, as the authorization server stores them.
    const db = engine.engine.store.db;
    const object = { payload: '{}', uid_hash: null, user_code_hash: null, expires_at: null, consumed_at: null, api_key_id: null, last_used_at: null };
    await db
      .insertInto('authorization_server_objects')
      .values([
        { ...object, model: 'Grant', id_hash: 'audit-grant-hash', grant_id: 'audit-grant', account_id: 'dana', client_id: 'audit-client' },
        { ...object, model: 'AccessToken', id_hash: 'audit-token-hash', grant_id: 'audit-grant', account_id: null, client_id: null },
      ])
      .execute();
    const ended = await onlyEvent('DELETE', '/v1/admin/oauth_grants/audit-grant', undefined, 204);
    expect(ended.event).toMatchObject({ action: 'oauth_grant.ended', target: { type: 'oauth_grant', id: 'audit-grant' } });
    expect(ended.event.change).toEqual({ user_id: 'dana', client_id: 'audit-client' });

    const now = new Date().toISOString();
    await db
      .insertInto('connections')
      .values({
        id: 'audit-connection',
        user_id: 'erin',
        provider_id: 'github',
        scopes: '[]',
        access_token_ciphertext: engine.engine.vault.seal('audit-access-token'),
        refresh_token_ciphertext: null,
        expires_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const deleted = await onlyEvent('DELETE', '/v1/admin/user_connections/audit-connection', undefined, 204);
    expect(deleted.event).toMatchObject({ action: 'user_connection.deleted', target: { type: 'user_connection', id: 'audit-connection' } });
    expect(deleted.event.change).toEqual({ user_id: 'erin', provider_id: 'github' });
    expect(await recorded(async () => expect((await engine.api('DELETE', '/v1/admin/user_connections/audit-connection')).status).toBe(404))).toEqual([]);
  });

  it.skipIf(skip)('filters by action, target, acting key and time, and pages newest first', async () => {
    const other = await createApiKey(engine.engine.store.db, 'second admin');
    const as = (key: string, path: string, body: unknown) => engine.api('POST', path, body, `Bearer ${key}`);
    for (const key of ['FILTER_A', 'FILTER_B', 'FILTER_C']) expect((await as(engine.key, `/v1/admin/secrets/${key}`, { value: secretValue })).status).toBe(200);
    for (const key of ['FILTER_D', 'FILTER_E']) expect((await as(other.key, `/v1/admin/secrets/${key}`, { value: secretValue })).status).toBe(200);
    const list = async (query: string) => {
      const answer = await engine.api('GET', `/v1/admin/audit?${query}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };

    const byOther = await list(`actor_key_id=${other.info.id}`);
    expect(byOther.items.map((event: any) => event.target.id)).toEqual(['FILTER_E', 'FILTER_D']);
    expect(byOther.items[0].actor).toEqual({ type: 'api_key', key_id: other.info.id, key_prefix: other.info.prefix, name: 'second admin', role: 'admin' });
    expect((await list('target_type=secret&target_id=FILTER_B')).total_count).toBe(1);
    expect((await list('action=secret.set&target_id=FILTER_C')).items[0].target.id).toBe('FILTER_C');
    expect((await list('action=secret.deleted&target_id=FILTER_C')).total_count).toBe(0);

    // Pages of two, newest first, over the five events.
    const since = (await list('target_id=FILTER_A')).items[0].occurred_at;
    const all = await list(`action=secret.set&since=${encodeURIComponent(since)}&limit=2`);
    expect(all).toMatchObject({ limit: 2, offset: 0, page_count: 2, total_count: 5 });
    expect(all.items.map((event: any) => event.target.id)).toEqual(['FILTER_E', 'FILTER_D']);
    const third = await list(`action=secret.set&since=${encodeURIComponent(since)}&limit=2&offset=4`);
    expect(third).toMatchObject({ page_count: 1, total_count: 5 });
    expect(third.items[0].target.id).toBe('FILTER_A');
    const untilD = (await list('target_id=FILTER_D')).items[0].occurred_at;
    const before = await list(`action=secret.set&since=${encodeURIComponent(since)}&until=${encodeURIComponent(untilD)}`);
    expect(before.items.map((event: any) => event.target.id)).toEqual(['FILTER_C', 'FILTER_B', 'FILTER_A']);

    expect((await engine.api('GET', '/v1/admin/audit?action=secret.leaked')).status).toBe(400);
    expect((await engine.api('GET', '/v1/admin/audit?since=yesterday')).status).toBe(400);
  });

  it.skipIf(skip)('is for admin keys only', async () => {
    const service = await createApiKey(engine.engine.store.db, 'backend', { role: 'service' });
    const user = await createApiKey(engine.engine.store.db, 'carol', { role: 'user', userId: 'carol' });
    for (const key of [service.key, user.key]) expect((await engine.api('GET', '/v1/admin/audit', undefined, `Bearer ${key}`)).status).toBe(403);
    expect((await engine.api('GET', '/v1/admin/audit', undefined, null)).status).toBe(401);
  });

  it.skipIf(skip)('deletes events past the retention, at start and on each sweep', async () => {
    const db = engine.engine.store.db;
    const day = 24 * 60 * 60_000;
    const old = (id: string, days: number) => ({
      id,
      occurred_at: new Date(Date.now() - days * day).toISOString(),
      action: 'secret.set',
      target_type: 'secret',
      target_id: id,
      actor_type: 'cli',
      actor_key_id: null,
      actor_key_prefix: null,
      actor_name: 'ops@host',
      actor_role: null,
      client_address: null,
      request_id: null,
      change: '{}',
    });
    await db
      .insertInto('audit_events')
      .values([old('retention-100', 100), old('retention-60', 60), old('retention-20', 20)])
      .execute();
    const left = async () => (await db.selectFrom('audit_events').select('id').where('id', 'like', 'retention-%').orderBy('id').execute()).map((row) => row.id);

    // The default keeps 90 days.
    expect(await engine.engine.audit.sweep()).toBe(1);
    expect(await left()).toEqual(['retention-20', 'retention-60']);

    // Another process on the same database, keeping 30 days, sweeps when it starts.
    const second = await openEngine({ config: engineConfig({ dataDir: engine.dataDir, database: engine.engine.config.database, auditRetentionDays: 30 }) });
    try {
      expect(await left()).toEqual(['retention-20']);
    } finally {
      await second.close();
    }
    // Recent events stay.
    expect((await engine.api('GET', '/v1/admin/audit?target_id=FILTER_A')).body.total_count).toBe(1);
  });

  it.skipIf(skip)("replaces the request body's write-only values in whatever a route records", async () => {
    const app = await buildApp(engine.engine, [
      (app) => {
        app.post<{ Body: { value: string } }>(
          '/v1/admin/careless',
          { config: { audit: 'secret.set' }, schema: { body: { type: 'object', properties: { value: { type: 'string', writeOnly: true } } } } },
          async (request) => {
            audited(request, 'CARELESS', { value: request.body.value, note: `was ${request.body.value}`, kept: 'plain' });
            return {};
          },
        );
      },
    ]);
    try {
      const fresh = await recorded(async () => {
        const answer = await app.inject({
          method: 'POST',
          url: '/v1/admin/careless',
          headers: { authorization: `Bearer ${engine.key}` },
          payload: { value: echoedValue },
        });
        expect(answer.statusCode).toBe(200);
      });
      expect(fresh).toHaveLength(1);
      expect(JSON.parse(fresh[0]!.change)).toEqual({ value: '[redacted]', note: '[redacted]', kept: 'plain' });
    } finally {
      await app.close();
    }
  });

  it.skipIf(skip)('refuses to start with an administrative route that records nothing', async () => {
    await expect(buildApp(engine.engine, [(app) => void app.delete('/v1/admin/forgotten/:id', async () => ({}))])).rejects.toThrow(
      'DELETE /v1/admin/forgotten/:id is administrative: declare the audit action it records',
    );
    await expect(buildApp(engine.engine, [(app) => void app.post('/v1/workers/:id/restart', async () => ({}))])).rejects.toThrow(/audit/);
  });

  it.skipIf(skip)('keeps every secret value out of the trail, its answers and the log', async () => {
    const values = [
      secretValue,
      clientSecret,
      rotatedClientSecret,
      workerSecret,
      rotatedWorkerSecret,
      headerValue,
      rotatedHeaderValue,
      echoedValue,
      ...createdKeys,
    ];
    const stored = JSON.stringify(await rows());
    const answered: unknown[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = (await engine.api('GET', `/v1/admin/audit?limit=100&offset=${offset}`)).body;
      answered.push(...page.items);
      if (page.page_count < 100) break;
    }
    expect(answered.length).toBeGreaterThan(20);
    const logged = engine.logs.join('\n');
    expect(logged).toContain('"msg":"audit event"');
    for (const text of [stored, JSON.stringify(answered), logged]) for (const value of values) expect(text).not.toContain(value);
  });
});

describe('the client address behind a trusted proxy', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await startTestEngine('sqlite', {}, { trustedProxies: ['127.0.0.1'] });
  });
  afterAll(() => engine?.close());

  it('is the address the proxy forwards for', async () => {
    const answer = await fetch(`${engine.url}/v1/admin/secrets/PROXIED`, {
      method: 'POST',
      headers: { authorization: `Bearer ${engine.key}`, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
      body: JSON.stringify({ value: secretValue }),
    });
    expect(answer.status).toBe(200);
    expect((await engine.api('GET', '/v1/admin/audit?target_id=PROXIED')).body.items[0].client_address).toBe('203.0.113.7');
  });
});
