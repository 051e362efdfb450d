/**
 * The routes the web console uses (and any client may): the caller's key, API keys, the tool index, the
 * activity record with its statistics, and the console's static files with their security headers.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolkits } from '@quiver/toolkits';
import { Activity } from '../src/activity.js';
import { ExecutionLog } from '../src/executions.js';
import { consoleDirectory } from '../src/http/routes/console.js';

const builtinCount = toolkits.reduce((n, toolkit) => n + toolkit.tools.length, 0);

describe.each(databases)('console API on $name', ({ name, skip }) => {
  let engine: TestEngine;

  beforeAll(async () => {
    if (!skip) engine = await startTestEngine(name);
  });
  afterAll(async () => {
    await engine?.close();
  });

  describe.skipIf(skip)('routes', () => {
    it('documents its routes in the OpenAPI document, and not the console files', async () => {
      const paths = Object.keys((await engine.api('GET', '/v1/openapi', undefined, null)).body.paths);
      expect(paths).toEqual(
        expect.arrayContaining(['/v1/me', '/v1/admin/api_keys', '/v1/admin/api_keys/{id}', '/v1/tool_index', '/v1/activity/executions', '/v1/activity/stats']),
      );
      // Beside /v1, only the Prometheus scrape, at the path scrapers expect.
      expect(paths.filter((path) => !path.startsWith('/v1/'))).toEqual(['/metrics']);
    });

    it('names the calling key and its role', async () => {
      const me = await engine.api('GET', '/v1/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ role: 'admin', key: { name: 'test', prefix: engine.key.slice(0, 10) } });
      expect(JSON.stringify(me.body)).not.toContain(engine.key);
      expect((await engine.api('GET', '/v1/me', undefined, null)).status).toBe(401);
    });

    it('creates a key shown once, lists keys without them, revokes one, and will not revoke the key in use', async () => {
      const created = await engine.api('POST', '/v1/admin/api_keys', { name: 'ci' });
      expect(created.status).toBe(201);
      expect(created.body.key).toMatch(/^qk_/);
      expect((await engine.api('GET', '/v1/me', undefined, `Bearer ${created.body.key}`)).body.key.id).toBe(created.body.id);
      const listed = await engine.api('GET', '/v1/admin/api_keys');
      expect(listed.body.items.map((key: { name: string }) => key.name)).toEqual(expect.arrayContaining(['test', 'ci']));
      expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
      expect((await engine.api('POST', '/v1/admin/api_keys', { name: '' })).status).toBe(400);
      expect(await engine.api('DELETE', `/v1/admin/api_keys/${created.body.id}`)).toEqual({ status: 204, body: undefined });
      expect((await engine.api('GET', '/v1/me', undefined, `Bearer ${created.body.key}`)).status).toBe(401);
      expect((await engine.api('DELETE', `/v1/admin/api_keys/${created.body.id}`)).status).toBe(404);
      const me = await engine.api('GET', '/v1/me');
      const own = await engine.api('DELETE', `/v1/admin/api_keys/${me.body.key.id}`);
      expect(own).toMatchObject({ status: 400, body: { name: 'bad_request' } });
      expect((await engine.api('DELETE', `/v1/admin/api_keys/${me.body.key.prefix}`)).status).toBe(400);
      expect((await engine.api('GET', '/v1/me')).status).toBe(200);
    });

    it('indexes every tool briefly, with its annotations, requirements and route', async () => {
      const index = await engine.api('GET', '/v1/tool_index');
      expect(index.status).toBe(200);
      expect(index.body.total_count).toBe(builtinCount);
      expect(index.body.items).toHaveLength(builtinCount);
      const byName = new Map(index.body.items.map((tool: { name: string }) => [tool.name, tool]));
      expect(byName.get('RepoHostApi.GetRepohostRepositoryDetails')).toMatchObject({
        toolkit: 'RepoHostApi',
        read_only: true,
        destructive: false,
        oauth_provider: 'github',
        // The server URL has a default: it is optional, and "needs secrets" does not count it.
        secrets: [],
        optional_secrets: ['GIT_SERVER_URL'],
        routed_to: 'builtin',
      });
      expect(index.body.items.filter((tool: { secrets: string[] }) => tool.secrets.length > 0).length).toBeLessThan(100);
      expect(byName.get('CrmMarketingApi.ArchiveCampaignsBatch')).toMatchObject({ destructive: true, oauth_provider: 'hubspot' });
      expect(byName.get('TrackingApi.UpdateOrAddPerson')).toMatchObject({
        oauth_provider: null,
        secrets: ['TRACKING_SITE_ID', 'TRACKING_API_KEY'],
      });
      for (const tool of index.body.items) expect(tool.summary.length).toBeLessThanOrEqual(200);
      const zipped = await engine.app.inject({
        method: 'GET',
        url: '/v1/tool_index',
        headers: { authorization: `Bearer ${engine.key}`, 'accept-encoding': 'gzip' },
      });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(gunzipSync(zipped.rawPayload).toString())).toEqual(index.body);
      const plain = await engine.app.inject({ method: 'GET', url: '/v1/tool_index', headers: { authorization: `Bearer ${engine.key}` } });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.json()).toEqual(index.body);
    });

    it('answers a search with names and scores only when asked, with every match counted, gzipped when accepted', async () => {
      const full = await engine.api('GET', '/v1/tools/search?q=open%20an%20issue&limit=100');
      const names = await engine.api('GET', '/v1/tools/search?q=open%20an%20issue&limit=100&view=names');
      expect(names.body.items).toEqual(full.body.items.map((hit: any) => ({ name: hit.tool.qualified_name, score: Math.round(hit.score * 1000) / 1000 })));
      // The count is every tool that matched, not the page's.
      expect(names.body.total_count).toBeGreaterThan(100);
      expect(names.body).toMatchObject({ limit: 100, page_count: 100 });
      const zipped = await engine.app.inject({
        method: 'GET',
        url: '/v1/tools/search?q=open%20an%20issue&limit=100&view=names',
        headers: { authorization: `Bearer ${engine.key}`, 'accept-encoding': 'gzip' },
      });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(gunzipSync(zipped.rawPayload).toString())).toEqual(names.body);
      // Under a tenth of the full answer on the wire: what a console typing a query pays for each search.
      expect(zipped.rawPayload.length).toBeLessThan(JSON.stringify(full.body).length / 10);
      expect((await engine.api('GET', '/v1/tools/search?q=x&view=everything')).status).toBe(400);
    });

    it('records immediate calls and lists them with scheduled attempts, filtered', async () => {
      const schema = await engine.api('POST', '/v1/tools/execute', {
        tool_name: 'CrmMarketingApi.CreateMarketingCampaign',
        input: { mode: 'get_request_schema' },
        user_id: 'ada',
      });
      expect(schema.body.success).toBe(true);
      const bad = await engine.api('POST', '/v1/tools/execute', {
        tool_name: 'RepoHostApi.GetRepohostRepositoryDetails',
        input: { repository_owner: 'octocat' },
        user_id: 'bob',
      });
      expect(bad.body.success).toBe(false);
      const scheduled = await engine.api('POST', '/v1/tools/execute', {
        tool_name: 'CrmMarketingApi.CreateMarketingCampaign',
        input: { mode: 'get_request_schema' },
        user_id: 'ada',
        run_at: new Date().toISOString(),
      });
      for (let i = 0; i < 100 && (await engine.api('GET', `/v1/scheduled_tools/${scheduled.body.id}`)).body.execution_status !== 'success'; i++)
        await new Promise((r) => setTimeout(r, 50));

      // A call is recorded just after its answer has left.
      let all = await engine.api('GET', '/v1/activity/executions');
      for (let i = 0; i < 50 && all.body.total_count < 3; i++)
        all = await new Promise((r) => setTimeout(r, 20)).then(() => engine.api('GET', '/v1/activity/executions'));
      expect(all.status).toBe(200);
      expect(all.body.total_count).toBe(3);
      expect(all.body.items.map((item: { execution_type: string; tool_name: string }) => `${item.execution_type} ${item.tool_name}`)).toEqual([
        'scheduled CrmMarketingApi.CreateMarketingCampaign',
        'immediate RepoHostApi.GetRepohostRepositoryDetails',
        'immediate CrmMarketingApi.CreateMarketingCampaign',
      ]);
      const failed = await engine.api('GET', '/v1/activity/executions?outcome=failed');
      expect(failed.body.items).toEqual([
        expect.objectContaining({ user_id: 'bob', success: false, error_kind: bad.body.output.error.kind, toolkit_name: 'RepoHostApi' }),
      ]);
      expect((await engine.api('GET', '/v1/activity/executions?user_id=ada')).body.total_count).toBe(2);
      expect((await engine.api('GET', '/v1/activity/executions?toolkit=CrmMarketingApi&outcome=success')).body.total_count).toBe(2);
      expect((await engine.api('GET', '/v1/activity/executions?tool=RepoHostApi.GetRepohostRepositoryDetails')).body.total_count).toBe(1);
      expect((await engine.api('GET', `/v1/activity/executions?since=${new Date(Date.now() + 60_000).toISOString()}`)).body.total_count).toBe(0);
      expect((await engine.api('GET', '/v1/activity/executions?limit=1&offset=1')).body).toMatchObject({
        limit: 1,
        offset: 1,
        page_count: 1,
        total_count: 3,
      });
      expect((await engine.api('GET', '/v1/activity/executions?outcome=maybe')).status).toBe(400);

      const stats = await engine.api('GET', '/v1/activity/stats?minutes=60');
      expect(stats.body.minutes).toHaveLength(60);
      const crm = stats.body.toolkits.find((series: { toolkit: string }) => series.toolkit === 'CrmMarketingApi');
      expect(crm).toMatchObject({ calls: 2, errors: 0, error_rate: 0 });
      expect(crm.points.reduce((n: number, point: { calls: number }) => n + point.calls, 0)).toBe(2);
      expect(stats.body.toolkits.find((series: { toolkit: string }) => series.toolkit === 'RepoHostApi')).toMatchObject({
        calls: 1,
        errors: 1,
        error_rate: 1,
      });
      expect((await engine.api('GET', '/v1/activity/stats?minutes=0')).status).toBe(400);
    });

    it('writes calls in batches: when a batch is full, when the time is up, and before any read', async () => {
      const db = engine.engine.store.db;
      const stored = async () =>
        Number(
          (
            await db
              .selectFrom('executions')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('tool_name', '=', 'Batch.Probe')
              .executeTakeFirstOrThrow()
          ).n,
        );
      const call = () => ({
        execution_id: randomUUID(),
        tool: 'Batch.Probe',
        toolkit: 'Batch',
        version: '1',
        success: true,
        duration_ms: 1,
        started_at: new Date().toISOString(),
      });
      const log = new ExecutionLog(db, 60_000, 3);
      const activity = new Activity(db, log);
      log.record(call());
      log.record(call());
      await new Promise((r) => setTimeout(r, 50));
      expect(await stored()).toBe(0);
      log.record(call());
      await log.flush();
      expect(await stored()).toBe(3);
      log.record(call());
      expect((await activity.list({ tool: 'Batch.Probe' }, 10, 0)).total_count).toBe(4);
      const timed = new ExecutionLog(db, 30);
      timed.record(call());
      for (let i = 0; i < 50 && (await stored()) < 5; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await stored()).toBe(5);
    });

    it('computes per-minute calls, errors and nearest-rank p50/p99 per toolkit', async () => {
      const log = new ExecutionLog(engine.engine.store.db);
      const activity = new Activity(engine.engine.store.db, log);
      const now = new Date('2031-01-01T12:00:30Z');
      const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
      for (let i = 1; i <= 100; i++) {
        log.record({
          execution_id: randomUUID(),
          tool: 'Probe.Fast',
          toolkit: 'Probe',
          success: i % 10 !== 0,
          ...(i % 10 === 0 && { kind: 'TOOL_RUNTIME_FATAL' as const }),
          duration_ms: i,
          started_at: at(i <= 50 ? 1 : 3),
        });
      }
      log.record({ execution_id: randomUUID(), tool: 'Probe.Old', toolkit: 'Probe', success: true, duration_ms: 9999, started_at: at(61) });
      const stats = await activity.stats(5, now);
      expect(stats.minutes).toEqual(['2031-01-01T11:56', '2031-01-01T11:57', '2031-01-01T11:58', '2031-01-01T11:59', '2031-01-01T12:00']);
      const probe = stats.toolkits.find((series) => series.toolkit === 'Probe')!;
      expect(probe).toMatchObject({ calls: 100, errors: 10, error_rate: 0.1, p50_ms: 50, p99_ms: 99 });
      expect(probe.points.map((point) => point.calls)).toEqual([0, 50, 0, 50, 0]);
      expect(probe.points[1]).toMatchObject({ minute: '2031-01-01T11:57', calls: 50, errors: 5, p50_ms: 75, p99_ms: 100 });
      expect(probe.points[3]).toMatchObject({ minute: '2031-01-01T11:59', calls: 50, errors: 5, p50_ms: 25, p99_ms: 50 });
      expect(probe.points[0]).toMatchObject({ calls: 0, p50_ms: null, p99_ms: null });
    });
  });
});

describe('the console files', () => {
  let engine: TestEngine;
  const built = consoleDirectory() !== undefined;
  if (!built) console.warn('console file tests need the built console: npm run build (npm test builds it first)');

  beforeAll(async () => {
    engine = await startTestEngine('sqlite');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it.skipIf(!built)('serves the page at / without a key, with a strict CSP, gzipped when asked', async () => {
    const page = await fetch(`${engine.url}/`, { headers: { 'accept-encoding': 'identity' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    // No inline script or style: the CSP would block them.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    const script = /<script[^>]*src="([^"]+)"/.exec(html)![1]!;
    expect(script).toMatch(/^\/assets\/.+\.js$/);

    const zipped = await engine.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['cache-control']).toContain('immutable');
    expect(zipped.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const plain = await engine.app.inject({ method: 'GET', url: script });
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
  });

  it('keeps /v1 and every other path behind the key, and answers unknown console files as JSON 404s', async () => {
    expect((await engine.api('GET', '/v1/tools', undefined, null)).status).toBe(401);
    expect((await engine.api('GET', '/v1/no-such-route', undefined, null)).status).toBe(401);
    const missing = await engine.api('GET', '/assets/nothing.js', undefined, null);
    expect(missing).toMatchObject({ status: 404, body: { name: 'not_found' } });
    // A path that leaves /assets is no console file: like any other path it needs a key, and then is not found.
    expect((await engine.app.inject({ method: 'GET', url: '/assets/../../package.json' })).statusCode).toBe(401);
    const outside = await engine.app.inject({
      method: 'GET',
      url: '/assets/../../package.json',
      headers: { authorization: `Bearer ${engine.key}` },
    });
    expect(outside.statusCode).toBe(404);
    const encoded = await engine.app.inject({ method: 'GET', url: '/assets/..%2F..%2Fpackage.json' });
    expect(encoded.statusCode).toBe(404);
  });
});
