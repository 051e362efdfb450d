import { defineToolkit, type ToolData } from '@quiver/core';
import { revokeApiKey } from '@quiver/engine';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { crmMarketing } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A tool with behaviour of its own that reports which secrets it was handed (never their values). */
const secretProbe: ToolData = {
  name: 'SecretProbe',
  description: 'Reports the secret keys it receives.',
  parameters: [],
  output: { description: 'The keys.' },
  requirements: { secrets: [{ key: 'PROBE_KEY' }] },
};
const probeToolkit = defineToolkit(
  { name: 'Probe', version: '1.0.0', description: 'Test toolkit.', baseUrl: 'http://127.0.0.1:9', tools: [secretProbe] },
  {
    SecretProbe: async (_input, context) => ({ value: { keys: Object.keys(context.secrets), length: context.secrets.PROBE_KEY?.length ?? 0 } }),
  },
);

const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe.each(databases)('engine on $name', ({ name, skip }) => {
  let engine: TestEngine;
  let hubspot: HubspotEmulator;

  beforeAll(async () => {
    if (skip) return;
    hubspot = await startHubspotEmulator();
    hubspot.issueToken('test-token');
    engine = await startTestEngine(name, { toolkits: [crmMarketing, probeToolkit], baseUrls: { CrmMarketingApi: hubspot.url } });
  });
  afterAll(async () => {
    await engine?.close();
    await hubspot?.close();
  });

  describe.skipIf(skip)('API', () => {
    it('answers health and OpenAPI without a key', async () => {
      expect(await engine.api('GET', '/v1/health', undefined, null)).toEqual({ status: 200, body: { healthy: true } });
      const openapi = await engine.api('GET', '/v1/openapi', undefined, null);
      expect(openapi.status).toBe(200);
      expect(openapi.body.openapi).toMatch(/^3\./);
      for (const path of ['/v1/tools', '/v1/tools/execute', '/v1/scheduled_tools/{id}', '/v1/admin/secrets/{key}', '/v1/mcp']) {
        expect(Object.keys(openapi.body.paths)).toContain(path);
      }
    });

    it('refuses every other route without a valid key, as JSON', async () => {
      expect(await engine.api('GET', '/v1/tools', undefined, null)).toMatchObject({ status: 401, body: { name: 'unauthorized' } });
      expect(await engine.api('GET', '/v1/tools', undefined, 'Bearer qk_not-a-key')).toMatchObject({ status: 401, body: { name: 'unauthorized' } });
      expect((await engine.api('GET', '/v1/tools', undefined, engine.key)).status).toBe(200);
    });

    it('stops accepting a key once it is revoked', async () => {
      const { createApiKey } = await import('@quiver/engine');
      const { key, info } = await createApiKey(engine.engine.store.db, 'short-lived');
      expect((await engine.api('GET', '/v1/tools?limit=1', undefined, `Bearer ${key}`)).status).toBe(200);
      expect(await revokeApiKey(engine.engine.store.db, info.prefix)).toBe(true);
      expect((await engine.api('GET', '/v1/tools?limit=1', undefined, `Bearer ${key}`)).status).toBe(401);
    });

    it('pages tools with the envelope', async () => {
      const { status, body } = await engine.api('GET', '/v1/tools?toolkit=CrmMarketingApi&limit=10&offset=85');
      expect(status).toBe(200);
      expect(body).toMatchObject({ limit: 10, offset: 85, page_count: 5, total_count: 90 });
      expect(body.items[0]).toMatchObject({
        qualified_name: expect.stringMatching(/^CrmMarketingApi\./),
        toolkit: { name: 'CrmMarketingApi', version: '1.0.0' },
      });
      expect((await engine.api('GET', '/v1/tools?limit=101')).body).toMatchObject({ name: 'bad_request' });
    });

    it('adds the formats asked for, and evaluates requirements for the user', async () => {
      const { body } = await engine.api('GET', '/v1/tools/CrmMarketingApi.GetMarketingCampaigns?include_format=openai,anthropic&user_id=u1');
      expect(body.formatted_schema.openai).toMatchObject({ type: 'function', function: { name: 'CrmMarketingApi_GetMarketingCampaigns' } });
      expect(body.formatted_schema.anthropic).toMatchObject({ name: 'CrmMarketingApi_GetMarketingCampaigns', input_schema: { type: 'object' } });
      expect(body.requirements).toMatchObject({ met: true, authorization: { provider_id: 'hubspot' } });
      const probe = await engine.api('GET', '/v1/tools/Probe_SecretProbe');
      expect(probe.body.requirements).toMatchObject({ met: false, secrets: [{ key: 'PROBE_KEY', met: false }] });
      expect((await engine.api('GET', '/v1/tools/CrmMarketingApi.Nope')).status).toBe(404);
      expect((await engine.api('GET', '/v1/tools/CrmMarketingApi.GetMarketingCampaigns?include_format=yaml')).status).toBe(400);
    });

    it('lists and gets tools in a provider format', async () => {
      const list = await engine.api('GET', '/v1/formatted_tools?toolkit=CrmMarketingApi&format=anthropic&limit=2');
      expect(list.body.items).toHaveLength(2);
      expect(list.body.items[0]).toHaveProperty('input_schema');
      const one = await engine.api('GET', '/v1/formatted_tools/CrmMarketingApi.GetMarketingCampaigns?format=openai');
      expect(one.body).toMatchObject({ type: 'function' });
      const strict = await engine.api('GET', '/v1/formatted_tools/CrmMarketingApi.GetMarketingCampaigns?format=openai-strict');
      expect(strict.body).toMatchObject({ type: 'function', function: { strict: true, parameters: { additionalProperties: false } } });
      const gemini = await engine.api('GET', '/v1/formatted_tools?toolkit=CrmMarketingApi&format=gemini&limit=1');
      expect(gemini.body.items[0]).toMatchObject({ name: expect.any(String), parameters: { type: 'object' } });
      expect(gemini.body.items[0].parameters).not.toHaveProperty('additionalProperties');
    });

    it('answers an error for an unknown toolkit on every path', async () => {
      for (const path of ['/v1/tools?toolkit=NoSuch', '/v1/formatted_tools?toolkit=NoSuch', '/v1/tools/search?q=issue&toolkit=NoSuch']) {
        const answer = await engine.api('GET', path);
        expect({ path, status: answer.status }).toEqual({ path, status: 400 });
        expect(JSON.stringify(answer.body)).toContain("unknown toolkit 'NoSuch'");
      }
      expect((await engine.api('GET', '/v1/tools?toolkit=crmmarketingapi')).status).toBe(200);
    });

    it('executes a tool for a user against its upstream', async () => {
      const before = hubspot.requests.length;
      const { body } = await engine.api('POST', '/v1/tools/execute', {
        tool_name: 'CrmMarketingApi.CreateMarketingCampaign',
        user_id: 'u1',
        input: { mode: 'execute', request_body: JSON.stringify({ properties: { hs_name: `Engine ${name}` } }) },
      });
      expect(body).toMatchObject({
        execution_type: 'immediate',
        status: 'success',
        success: true,
        output: { value: { properties: { hs_name: `Engine ${name}` } } },
      });
      expect(body.execution_id).toBe(body.id);
      expect(hubspot.requests.length).toBe(before + 1);
    });

    it('answers tool failures as success:false with the error kind', async () => {
      const bad = await engine.api('POST', '/v1/tools/execute', { tool_name: 'CrmMarketingApi.GetCampaignDetails', user_id: 'u1', input: {} });
      expect(bad.body).toMatchObject({ success: false, status: 'failed', output: { error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false } } });
      const noUser = await engine.api('POST', '/v1/tools/execute', { tool_name: 'CrmMarketingApi.GetMarketingCampaigns', input: {} });
      expect(noUser.body.output.error.kind).toBe('TOOL_RUNTIME_CONTEXT_REQUIRED');
      expect((await engine.api('POST', '/v1/tools/execute', { input: {} })).body).toMatchObject({ name: 'bad_request' });
      expect((await engine.api('POST', '/v1/tools/execute', { tool_name: 'Nope.Nope' })).status).toBe(404);
    });

    it('keeps secret values sealed and gives a tool only what it declares', async () => {
      const stored = await engine.api('POST', '/v1/admin/secrets/PROBE_KEY', { value: 'probe-secret-value', description: 'for the probe' });
      expect(stored.status).toBe(200);
      await engine.api('POST', '/v1/admin/secrets/UNRELATED_KEY', { value: 'unrelated-secret-value' });
      expect(JSON.stringify(stored.body)).not.toContain('probe-secret-value');
      const list = await engine.api('GET', '/v1/admin/secrets');
      expect(list.body.items.map((s: { key: string }) => s.key)).toEqual(['PROBE_KEY', 'UNRELATED_KEY']);
      expect(JSON.stringify(list.body)).not.toContain('secret-value');
      const rows = await engine.engine.store.db.selectFrom('secrets').select('value_ciphertext').execute();
      for (const row of rows) expect(row.value_ciphertext).not.toContain('secret-value');

      const run = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Probe.SecretProbe', input: {} });
      expect(run.body.output.value).toEqual({ keys: ['PROBE_KEY'], length: 'probe-secret-value'.length });

      const id = stored.body.id;
      expect((await engine.api('DELETE', `/v1/admin/secrets/${id}`)).status).toBe(204);
      expect((await engine.api('DELETE', `/v1/admin/secrets/${id}`)).status).toBe(404);
      expect((await engine.api('POST', '/v1/admin/secrets/not a key', { value: 'x' })).status).toBe(400);
    });

    it('schedules an execution, runs it once when due, and records the attempt', async () => {
      const before = hubspot.requests.length;
      const scheduled = await engine.api('POST', '/v1/tools/execute', {
        tool_name: 'CrmMarketingApi.GetMarketingCampaigns',
        user_id: 'u1',
        run_at: new Date(Date.now() + 300).toISOString(),
      });
      expect(scheduled.body).toMatchObject({ execution_type: 'scheduled', status: 'scheduled', success: true });
      const later = await engine.api('POST', '/v1/tools/execute', {
        tool_name: 'CrmMarketingApi.GetMarketingCampaigns',
        user_id: 'u1',
        run_at: '2099-01-01T00:00:00Z',
      });

      const done = await waitFor(
        () => engine.api('GET', `/v1/scheduled_tools/${scheduled.body.id}`),
        (r) => r.body.execution_status === 'success',
      );
      expect(done.body).toMatchObject({ tool_name: 'CrmMarketingApi.GetMarketingCampaigns', user_id: 'u1', execution_status: 'success', input: {} });
      expect(done.body.attempts).toHaveLength(1);
      expect(done.body.attempts[0]).toMatchObject({ success: true, output: { value: { results: expect.any(Array) } } });
      expect(hubspot.requests.length).toBe(before + 1);

      expect((await engine.api('GET', `/v1/scheduled_tools/${later.body.id}`)).body.execution_status).toBe('scheduled');
      const page = await engine.api('GET', '/v1/scheduled_tools?limit=1');
      expect(page.body).toMatchObject({ limit: 1, page_count: 1, total_count: expect.any(Number) });
      expect((await engine.api('POST', '/v1/tools/execute', { tool_name: 'CrmMarketingApi.GetMarketingCampaigns', run_at: 'tomorrow' })).status).toBe(400);
      // A time without an offset could be anyone's local time: refused rather than guessed.
      expect(
        (await engine.api('POST', '/v1/tools/execute', { tool_name: 'CrmMarketingApi.GetMarketingCampaigns', run_at: '2099-01-01T00:00:00' })).status,
      ).toBe(400);
      expect((await engine.api('GET', '/v1/scheduled_tools/nope')).status).toBe(404);
    });

    it('answers unknown routes and malformed bodies as JSON', async () => {
      expect(await engine.api('GET', '/v1/nothing')).toMatchObject({ status: 404, body: { name: 'not_found' } });
      const response = await fetch(`${engine.url}/v1/tools/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${engine.key}`, 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ name: 'bad_request' });
    });
  });
});

describe('a read-only engine', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await startTestEngine('sqlite', { toolkits: [crmMarketing], serving: { readOnly: true } });
  });
  afterAll(() => engine?.close());

  it('lists, shows and runs only tools that read', async () => {
    const listed = await engine.api('GET', '/v1/tools?toolkit=CrmMarketingApi&limit=100');
    expect(listed.body.items.length).toBeGreaterThan(0);
    expect(listed.body.items.every((tool: { name: string }) => /^(Get|Fetch|List|Find|Query|Search|Retrieve|CrmMarketingEmailFilter)/.test(tool.name))).toBe(
      true,
    );
    expect((await engine.api('GET', '/v1/tools/CrmMarketingApi.GetMarketingCampaigns')).status).toBe(200);
    expect((await engine.api('GET', '/v1/tools/CrmMarketingApi.DeleteMarketingCampaign')).status).toBe(404);
    expect((await engine.api('GET', '/v1/formatted_tools/CrmMarketingApi.DeleteMarketingCampaign?format=openai')).status).toBe(404);
    const refused = await engine.api('POST', '/v1/tools/execute', {
      tool_name: 'CrmMarketingApi.DeleteMarketingCampaign',
      user_id: 'u1',
      input: { campaign_guid: 'x' },
    });
    expect(refused.body).toMatchObject({
      success: false,
      output: { error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', message: expect.stringContaining('read-only') } },
    });
  });
});
