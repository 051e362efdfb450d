/**
 * End-to-end tests of every ToolEngineApi tool: the tools, called through the dispatcher, against a
 * test engine (its HTTP API on a loopback port), which in turn runs CrmMarketingApi
 * tools against the HubSpot emulator, registers a real worker, and completes OAuth flows with a small
 * authorization server. Each tool is called at least once with its answer or its effect asserted; the
 * last test checks that all 29 catalog tools were called successfully.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamClient, type ToolError } from '@quiver/core';
import { createApiKey, revokeApiKey, startWorkerServer, type WorkerServer } from '@quiver/engine';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { TEST_TOKEN } from '@quiver/test-support/json-client';
import { crmMarketing, toolEngine } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolClient } from './tool-client.helpers.js';

const TOOLKIT = 'ToolEngineApi';
const catalog = JSON.parse(readFileSync(new URL('../src/tool-engine/catalog.json', import.meta.url), 'utf8')) as { tools: Array<{ name: string }> };

/** Values that must never appear in a tool's result or error. */
const WORKER_SECRET = 'worker-secret-0123456789abcdef';
const CLIENT_SECRET = 'oauth-client-secret-42';

const covered = new Set<string>();
/** Every result the tools returned, serialised, to search for credentials at the end. */
const answers: string[] = [];
// No retries: every call reaches the engine at most once.
const client = new UpstreamClient({ maxRetries: 0 });

let engine: TestEngine;
let emulator: HubspotEmulator;

/** A client with the engine's API key as its secret, unless the test gives other secrets. */
const withSecrets = (secrets: Record<string, string> = { ENGINE_API_KEY: engine.key }) =>
  new ToolClient(toolEngine, { upstream: { url: engine.url }, secrets, covered, results: answers, client });

/** The value; an error fails the test with the tool's own message. */
const call = (tool: string, input: Record<string, unknown> = {}, secrets?: Record<string, string>) => withSecrets(secrets).call(tool, input);

/** The error of a call that must fail. */
const fail = (tool: string, input: Record<string, unknown> = {}, secrets?: Record<string, string>): Promise<ToolError> =>
  withSecrets(secrets).fail(tool, input);

/** ExecuteTool in mode execute with the engine's execute body. */
const execute = (body: Record<string, unknown>) => call('ExecuteTool', { mode: 'execute', request_body: JSON.stringify(body) });

/** Setup the toolkit has no tool for (creating secrets and auth providers), straight over HTTP. */
async function api(method: string, path: string, body?: unknown): Promise<any> {
  const answer = await engine.api(method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

beforeAll(async () => {
  emulator = await startHubspotEmulator();
  emulator.issueToken(TEST_TOKEN);
  engine = await startTestEngine('sqlite', { baseUrls: { CrmMarketingApi: emulator.url } });
});

afterAll(async () => {
  await engine?.close();
  await emulator?.close();
  await client.close();
  if (engine) rmSync(engine.dataDir, { recursive: true, force: true });
});

describe('health and the API description (no key needed)', () => {
  it('CheckToolEngineHealth answers healthy without a key', async () => {
    expect(await call('CheckToolEngineHealth', {}, {})).toEqual({ healthy: true });
  });

  it('GetOpenapiSpecification returns the OpenAPI document without a key', async () => {
    const document = await call('GetOpenapiSpecification', {}, {});
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/tools/execute', '/v1/workers', '/v1/projects/{project_id}']));
  });
});

describe('tool listings', () => {
  it('GetToolsList pages the tools of one toolkit, with a format included', async () => {
    const page = await call('GetToolsList', {
      toolkit_name: 'CrmMarketingApi',
      items_per_page: 5,
      start_offset: 2,
      include_formats: ['openai'],
      user_id: 'ada',
    });
    expect(page).toMatchObject({ limit: 5, offset: 2, page_count: 5, total_count: crmMarketing.tools.length });
    expect(page.items[0]).toMatchObject({ qualified_name: `CrmMarketingApi.${crmMarketing.tools[2]!.name}`, toolkit: { name: 'CrmMarketingApi' } });
    expect(page.items[0].formatted_schema.openai).toMatchObject({ type: 'function', function: { name: `CrmMarketingApi_${crmMarketing.tools[2]!.name}` } });
  });

  // Fails until core can send an array query parameter as one comma-joined value (include_format=openai,anthropic):
  // today it repeats the key (include_format=openai&include_format=anthropic), which the engine refuses with 400.
  it('GetToolsList includes several formats at once, sent as one comma-separated include_format', async () => {
    const result = await withSecrets().attempt('GetToolsList', { toolkit_name: TOOLKIT, items_per_page: 1, include_formats: ['openai', 'anthropic'] });
    expect(result, 'needs core support for comma-joined array query parameters').toHaveProperty('value');
    const [tool] = (result as { value: { items: any[] } }).value.items;
    expect(Object.keys(tool.formatted_schema)).toEqual(['openai', 'anthropic']);
  });

  it('GetToolSpecification returns one ToolDefinition with requirements evaluated for the user', async () => {
    const definition = await call('GetToolSpecification', {
      tool_name: 'CrmMarketingApi.GetMarketingCampaigns',
      formats_to_include: ['anthropic'],
      user_identifier: 'ada',
    });
    expect(definition).toMatchObject({
      fully_qualified_name: 'CrmMarketingApi.GetMarketingCampaigns@1.0.0',
      requirements: { met: true, authorization: { provider_id: 'hubspot' } },
      formatted_schema: { anthropic: { name: 'CrmMarketingApi_GetMarketingCampaigns', input_schema: { type: 'object' } } },
    });
    expect(await fail('GetToolSpecification', { tool_name: 'CrmMarketingApi.NoSuchTool' })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
      status_code: 404,
    });
  });

  it('RetrieveFormattedToolsList lists a toolkit in a provider format', async () => {
    const page = await call('RetrieveFormattedToolsList', {
      filter_by_toolkit: TOOLKIT,
      provider_format: 'anthropic',
      number_of_items_to_return: 100,
      offset_start_index: 0,
      user_identifier: 'ada',
    });
    expect(page.total_count).toBe(catalog.tools.length);
    expect(page.items.map((tool: { name: string }) => tool.name)).toEqual(catalog.tools.map((tool) => `${TOOLKIT}_${tool.name}`));
    expect(page.items[0]).toHaveProperty('input_schema');
  });

  it('GetFormattedToolSpecification returns one tool in a provider format', async () => {
    const tool = await call('GetFormattedToolSpecification', { tool_name: 'ToolEngineApi.ListWorkers', provider_format: 'openai', user_id: 'ada' });
    expect(tool).toMatchObject({ type: 'function', function: { name: 'ToolEngineApi_ListWorkers', parameters: { type: 'object' } } });
  });

  // A BAD_INPUT_VALUE error comes from the tool's own validation; the engine would answer 400 (BAD_REQUEST).
  it('refuses page sizes and waits beyond the engine limits before sending', async () => {
    expect(await fail('GetToolsList', { items_per_page: 101 })).toMatchObject({
      kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
      message: expect.stringContaining('items_per_page'),
    });
    expect(await fail('ListWorkers', { start_offset: -1 })).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(await fail('CheckAuthStatus', { authorization_id: 'x', timeout_in_seconds: 60 })).toMatchObject({
      kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
      message: expect.stringContaining('timeout_in_seconds'),
    });
  });
});

describe('executions', () => {
  it('ExecuteTool gives its request schema without calling the engine', async () => {
    const answer = await call('ExecuteTool', { mode: 'get_request_schema' }, {});
    expect(answer.request_body_schema).toMatchObject({ type: 'object', required: ['tool_name'], properties: { run_at: { type: 'string' } } });
  });

  it('ExecuteTool runs a CrmMarketingApi tool against the HubSpot emulator', async () => {
    const name = `Engine campaign ${Date.now()}`;
    const created = await execute({
      tool_name: 'CrmMarketingApi.CreateMarketingCampaign',
      user_id: 'ada',
      input: { mode: 'execute', request_body: JSON.stringify({ properties: { hs_name: name } }) },
    });
    expect(created).toMatchObject({ execution_type: 'immediate', status: 'success', success: true, output: { value: { id: expect.any(String) } } });

    const read = await execute({
      tool_name: 'CrmMarketingApi.GetCampaignDetails',
      tool_version: '1.0.0',
      user_id: 'ada',
      input: { campaign_guid: created.output.value.id, properties_list: ['hs_name'] },
    });
    expect(read.output.value).toMatchObject({ id: created.output.value.id, properties: { hs_name: name } });
  });

  it("ExecuteTool reports the tool's own error in output.error", async () => {
    const answer = await execute({
      tool_name: 'CrmMarketingApi.GetCampaignDetails',
      user_id: 'ada',
      input: { campaign_guid: '00000000-0000-0000-0000-000000000000' },
    });
    expect(answer).toMatchObject({ success: false, status: 'failed', output: { error: { kind: 'UPSTREAM_RUNTIME_NOT_FOUND', can_retry: false } } });
  });

  it('ExecuteTool refuses a body that breaks the schema, with a RETRY error, and sends nothing', async () => {
    const error = await fail('ExecuteTool', { mode: 'execute', request_body: JSON.stringify({ input: {} }) });
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', message: expect.stringContaining('tool_name') });
  });

  it('schedules a run with run_at; GetScheduledToolExecutions lists it and GetScheduledToolDetails shows it ran', async () => {
    const input = { max_results_limit: 5 };
    const scheduled = await execute({ tool_name: 'CrmMarketingApi.GetMarketingCampaigns', user_id: 'ada', input, run_at: new Date().toISOString() });
    expect(scheduled).toMatchObject({ execution_type: 'scheduled', status: 'scheduled', id: expect.any(String) });

    const page = await call('GetScheduledToolExecutions', { items_limit: 10, list_offset: 0 });
    expect(page.items.map((execution: { id: string }) => execution.id)).toContain(scheduled.id);

    let details: any;
    for (let tries = 0; tries < 100; tries++) {
      details = await call('GetScheduledToolDetails', { scheduled_execution_id: scheduled.id });
      if (!['scheduled', 'running'].includes(details.execution_status)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(details).toMatchObject({ id: scheduled.id, tool_name: 'CrmMarketingApi.GetMarketingCampaigns', execution_status: 'success', input });
    expect(details.attempts).toEqual([expect.objectContaining({ success: true })]);
  });
});

describe('workers', () => {
  let worker: WorkerServer;
  beforeAll(async () => {
    worker = await startWorkerServer({ toolkits: [crmMarketing], secret: WORKER_SECRET, port: 0, baseUrls: { CrmMarketingApi: emulator.url } });
  });
  afterAll(async () => {
    await worker?.close();
  });

  it('TestWorkerConnection checks an address without registering it', async () => {
    expect(await call('TestWorkerConnection', { worker_connection_type: 'http', http_uri: worker.url })).toMatchObject({ healthy: true });
    expect(await call('TestWorkerConnection', { worker_connection_type: 'mcp', mcp_uri: 'http://127.0.0.1:9/mcp' })).toMatchObject({ healthy: false });
    expect((await call('ListWorkers')).total_count).toBe(0);
  });

  it('CreateWorker registers an http worker; GetWorkerById, ListWorkers, health, tools and authorization read it; DeleteWorker removes it', async () => {
    const created = await call('CreateWorker', {
      worker_id: 'crm-worker',
      worker_type: 'http',
      enable_worker: true,
      worker_http_uri: worker.url,
      http_secret_key: WORKER_SECRET,
      http_timeout_seconds: 10,
      http_retry_attempts: 1,
    });
    expect(created).toMatchObject({
      id: 'crm-worker',
      type: 'http',
      enabled: true,
      http: { uri: worker.url, timeout: 10, retry: 1, secret: { exists: true } },
    });

    expect(await call('GetWorkerById', { worker_id: 'crm-worker' })).toEqual(created);
    expect(await call('ListWorkers', { number_of_items_to_return: 10, start_offset: 0 })).toMatchObject({ total_count: 1, items: [created] });
    expect(await call('GetWorkerHealthStatus', { worker_id: 'crm-worker' })).toMatchObject({ id: 'crm-worker', enabled: true, healthy: true });
    const tools = await call('FetchToolsPage', { worker_id: 'crm-worker', number_of_items: 3, start_offset: 1 });
    expect(tools).toMatchObject({ limit: 3, offset: 1, page_count: 3, total_count: crmMarketing.tools.length });
    expect(tools.items[0].qualified_name).toBe(`CrmMarketingApi.${crmMarketing.tools[1]!.name}`);
    expect(await call('AuthorizeWorker', { worker_id: 'crm-worker' })).toMatchObject({ id: 'crm-worker', status: 'not_required' });

    expect(await fail('CreateWorker', { worker_id: 'crm-worker', worker_http_uri: worker.url, http_secret_key: WORKER_SECRET })).toMatchObject({
      status_code: 409,
    });
    expect(await call('DeleteWorker', { worker_id: 'crm-worker' })).toEqual({ success: true, status: 204 });
    expect(await fail('GetWorkerById', { worker_id: 'crm-worker' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });

  it('CreateWorker places the mcp settings in the mcp block', async () => {
    const created = await call('CreateWorker', {
      worker_id: 'mcp-worker',
      worker_type: 'mcp',
      enable_worker: false,
      worker_resource_uri: 'http://127.0.0.1:9/mcp',
      mcp_timeout_duration: 5,
      mcp_retry_attempts: 0,
    });
    expect(created).toMatchObject({ id: 'mcp-worker', type: 'mcp', enabled: false, mcp: { uri: 'http://127.0.0.1:9/mcp', timeout: 5, retry: 0 } });
    expect(await call('DeleteWorker', { worker_id: 'mcp-worker' })).toEqual({ success: true, status: 204 });
  });
});

describe('OAuth: auth providers, authorizations, connections, session verification', () => {
  /** A minimal authorization server: approves at once, and issues a token for any code. */
  let server: Server;
  let issuer: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url!, 'http://localhost');
      if (url.pathname === '/authorize') {
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'code-1');
        back.searchParams.set('state', url.searchParams.get('state')!);
        response.writeHead(302, { location: back.href }).end();
      } else if (url.pathname === '/token' && request.method === 'POST') {
        request.resume().on('end', () => {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ access_token: 'access-1', token_type: 'Bearer', expires_in: 3600 }));
        });
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await api('POST', '/v1/admin/auth_providers', {
      id: 'hubspot',
      type: 'oauth2',
      oauth2: {
        client_id: 'quiver-tests',
        client_secret: CLIENT_SECRET,
        authorize_request: { endpoint: `${issuer}/authorize` },
        token_request: { endpoint: `${issuer}/token` },
      },
    });
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('ListAvailableAuthProviders and GetAuthProviderDetails show the provider, never its client secret', async () => {
    const page = await call('ListAvailableAuthProviders');
    expect(page.items.map((provider: { id: string }) => provider.id)).toContain('hubspot');
    expect(await call('GetAuthProviderDetails', { auth_provider_id: 'hubspot' })).toMatchObject({ id: 'hubspot', provider_id: 'hubspot', type: 'oauth2' });
  });

  it('UpdateSessionVerificationSettings switches between a verifier URL and skipping the check', async () => {
    expect(await call('UpdateSessionVerificationSettings', { verifier_url: 'https://app.example/verify' })).toMatchObject({
      verifier_url: 'https://app.example/verify',
      unsafe_skip_verification: false,
    });
    expect(await call('UpdateSessionVerificationSettings', { unsafe_skip_verification: true })).toMatchObject({ unsafe_skip_verification: true });
  });

  it('AuthorizeUserToolAccess starts a flow; CheckAuthStatus waits for it; ListAuthConnections and DeleteUserAuthConnection manage the connection', async () => {
    const started = await call('AuthorizeUserToolAccess', {
      tool_name_for_authorization: 'CrmMarketingApi.GetMarketingCampaigns',
      tool_version: '1.0.0',
      user_id: 'ada',
      redirect_uri_after_authorization: 'https://app.example/done',
    });
    expect(started).toMatchObject({ status: 'pending', provider_id: 'hubspot', user_id: 'ada', url: expect.stringContaining(`${issuer}/authorize`) });
    expect(await call('CheckAuthStatus', { authorization_id: started.id })).toMatchObject({ id: started.id, status: 'pending' });

    // The user's browser: the provider approves and redirects to the engine's callback, which redeems the code.
    const waiting = call('CheckAuthStatus', { authorization_id: started.id, timeout_in_seconds: 10 });
    const approval = await fetch(started.url, { redirect: 'manual' });
    const callback = await fetch(approval.headers.get('location')!, { redirect: 'manual' });
    expect(callback.headers.get('location')).toBe('https://app.example/done');
    expect(await waiting).toMatchObject({ id: started.id, status: 'completed' });

    const connections = await call('ListAuthConnections', { user_id: 'ada', provider_id: 'hubspot', page_size: 10, page_offset: 0 });
    expect(connections).toMatchObject({ total_count: 1, items: [{ user_id: 'ada', provider_id: 'hubspot', connection_status: 'active' }] });
    const [connection] = connections.items;
    expect(await call('DeleteUserAuthConnection', { connection_id: connection.id })).toEqual({ success: true, status: 204 });
    expect((await call('ListAuthConnections', { user_id: 'ada' })).total_count).toBe(0);
  });

  it('DeleteAuthProvider deletes the provider', async () => {
    expect(await call('DeleteAuthProvider', { auth_provider_id: 'hubspot' })).toMatchObject({ id: 'hubspot' });
    expect(await fail('GetAuthProviderDetails', { auth_provider_id: 'hubspot' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });
});

describe('secrets, projects and the MCP endpoint', () => {
  it('DeleteSecretById deletes a secret permanently', async () => {
    const secret = await api('POST', '/v1/admin/secrets/TEMPORARY_TOKEN', { value: 'temporary-value-123' });
    expect(await call('DeleteSecretById', { secret_id: secret.id })).toEqual({ success: true, status: 204 });
    expect((await api('GET', '/v1/admin/secrets')).items).toEqual([]);
    expect(await fail('DeleteSecretById', { secret_id: secret.id })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });

  it('ListAccessibleProjects and GetProjectDetails take the caller credential as the Authorization header', async () => {
    const page = await call('ListAccessibleProjects', { bearer_token: engine.key, items_to_skip: 0, maximum_items_to_return: 10 });
    expect(page).toEqual({ items: [{ id: 'default', name: 'Quiver' }], limit: 10, offset: 0, page_count: 1, total_count: 1 });
    expect(await call('GetProjectDetails', { authorization_token: `Bearer ${engine.key}`, project_id: 'default' })).toEqual({ id: 'default', name: 'Quiver' });
    expect(await fail('GetProjectDetails', { authorization_token: `Bearer ${engine.key}`, project_id: 'other' })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
    });
    // The header parameter is the credential that counts, even when the tool's key is valid.
    expect(await fail('ListAccessibleProjects', { bearer_token: 'Bearer not-a-key' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_AUTH_ERROR', status_code: 401 });
  });

  it('DeleteMcpEndpoint is answered with success: the engine serves MCP statelessly, so there is no session to end', async () => {
    expect(await call('DeleteMcpEndpoint')).toEqual({ success: true, status: 200 });
  });
});

describe('the API key', () => {
  it('is required: without it nothing is sent', async () => {
    const error = await fail('ListWorkers', {}, {});
    expect(error).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET', message: expect.stringContaining('ENGINE_API_KEY') });
    // The engine refuses a request without one, too.
    expect((await fetch(`${engine.url}/v1/workers`)).status).toBe(401);
  });

  it('an unknown key gives UPSTREAM_RUNTIME_AUTH_ERROR, and the key never appears in the error', async () => {
    const wrong = 'qk_this-key-does-not-exist';
    const error = await fail('GetScheduledToolExecutions', {}, { ENGINE_API_KEY: wrong });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_AUTH_ERROR', status_code: 401, can_retry: false });
    expect(JSON.stringify(error)).not.toContain(wrong);
  });

  it('a revoked key gives UPSTREAM_RUNTIME_AUTH_ERROR', async () => {
    const { key: revoked, info } = await createApiKey(engine.engine.store.db, 'revoked');
    expect(await call('ListWorkers', {}, { ENGINE_API_KEY: revoked })).toMatchObject({ items: [] });
    await revokeApiKey(engine.engine.store.db, info.id);
    expect(await fail('ListWorkers', {}, { ENGINE_API_KEY: revoked })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_AUTH_ERROR' });
  });
});

describe('coverage', () => {
  it('no result or error contained the API key or another secret', () => {
    // The project tools are given the key as their own parameter; their answers must not echo it either.
    for (const value of [engine.key, WORKER_SECRET, CLIENT_SECRET]) expect(answers.filter((answer) => answer.includes(value))).toEqual([]);
  });

  it(`every ${TOOLKIT} tool was called successfully`, () => {
    expect(catalog.tools).toHaveLength(29);
    expect(catalog.tools.map((tool) => tool.name).filter((name) => !covered.has(name))).toEqual([]);
  });
});
