/** Workers: the worker protocol server, http and mcp workers registered with a running engine. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Dispatcher, ToolCatalog } from '@quiver/core';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { clientFor, type Reply } from '@quiver/test-support/json-client';
import { toolkits } from '@quiver/toolkits';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sandboxCredentials } from '../src/auth/credentials.js';
import { engineConfig } from '../src/config.js';
import { createApiKey } from '../src/security/api-keys.js';
import { startEngine, type RunningEngine } from '../src/http-server.js';
import { httpWorkerSource } from '../src/workers/http.js';
import { signWorkerToken } from '../src/workers/protocol.js';
import { selectToolkits, startWorkerServer, type WorkerServer } from '../src/workers/worker-server.js';

const secret = 'worker-secret-0123456789abcdef';
const crm = selectToolkits('crmmarketingapi', toolkits);

/** One request to `url`: a GET, or a POST when there is a body; `token`, when given, as the bearer token. */
const call = (url: string, { method, token, body }: { method?: string; token?: string; body?: unknown } = {}): Promise<Reply> =>
  clientFor(url, token ?? null)(method ?? (body === undefined ? 'GET' : 'POST'), '', { body });

/** A worker's tool as the engine holds it, for invoking directly through a source. */
const ping = {
  name: 'Ping',
  description: '',
  parameters: [],
  output: { description: '' },
  requirements: {},
  toolkit: { name: 'Fake', version: '1.0.0', description: '' },
};
const sign = (claims: Record<string, unknown>, key = secret, expiresIn: string | number = '60s') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(key));

describe('worker protocol server', () => {
  let hubspot: HubspotEmulator;
  let worker: WorkerServer;

  beforeAll(async () => {
    hubspot = await startHubspotEmulator();
    hubspot.issueToken('user-token');
    worker = await startWorkerServer({ toolkits: crm, secret, port: 0, baseUrls: { CrmMarketingApi: hubspot.url } });
  });
  afterAll(async () => {
    await worker?.close();
    await hubspot?.close();
  });

  it('answers health without a token', async () => {
    const health = await call(`${worker.url}/worker/health`);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', tool_count: crm[0]!.tools.length });
  });

  it('lists ToolDefinitions for a valid token', async () => {
    const tools = await call(`${worker.url}/worker/tools`, { token: await signWorkerToken(secret) });
    expect(tools.status).toBe(200);
    expect(tools.body).toHaveLength(crm[0]!.tools.length);
    expect(tools.body[0]).toMatchObject({ qualified_name: expect.stringMatching(/^CrmMarketingApi\./), toolkit: { name: 'CrmMarketingApi' } });
  });

  it('refuses missing, wrong-audience, wrong-version, expired, wrongly signed and unsigned tokens', async () => {
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ aud: 'worker', ver: '1', exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url')}.`;
    const tokens: Record<string, string | undefined> = {
      missing: undefined,
      garbage: 'not-a-jwt',
      audience: await sign({ aud: 'engine', ver: '1' }),
      version: await sign({ aud: 'worker', ver: '2' }),
      noVersion: await sign({ aud: 'worker' }),
      expired: await sign({ aud: 'worker', ver: '1' }, secret, Math.floor(Date.now() / 1000) - 120),
      signature: await sign({ aud: 'worker', ver: '1' }, 'another-secret'),
      none,
    };
    for (const [problem, token] of Object.entries(tokens)) {
      for (const [path, body] of [
        ['/worker/tools', undefined],
        ['/worker/tools/invoke', { execution_id: 'x', tool: { name: 'GetAllMarketingEvents', toolkit: 'CrmMarketingApi' }, inputs: {} }],
      ] as const) {
        const answer = await call(`${worker.url}${path}`, { token, body });
        expect(answer.status, `${problem} ${path}`).toBe(401);
        expect(answer.body).toMatchObject({ name: 'unauthorized', message: expect.any(String) });
      }
    }
    expect(hubspot.requests).toHaveLength(0);
  });

  it('accepts a token within the clock skew', async () => {
    const late = await sign({ aud: 'worker', ver: '1' }, secret, Math.floor(Date.now() / 1000) - 5);
    expect((await call(`${worker.url}/worker/tools`, { token: late })).status).toBe(200);
  });

  it('invokes a tool with only the token it is sent', async () => {
    const token = await signWorkerToken(secret);
    const invoke = (context: object) =>
      call(`${worker.url}/worker/tools/invoke`, {
        token,
        body: { execution_id: 'e1', tool: { name: 'GetAllMarketingEvents', toolkit: 'CrmMarketingApi', version: '1.0.0' }, inputs: {}, context },
      });
    const ok = await invoke({ authorization: { token: 'user-token', user_info: {} }, user_id: 'u1' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      execution_id: 'e1',
      success: true,
      output: { value: expect.anything() },
      finished_at: expect.any(String),
      duration: expect.any(Number),
    });
    expect(hubspot.requests.at(-1)).toMatchObject({ method: 'GET', path: '/marketing/v3/marketing-events/' });

    const noToken = await invoke({});
    expect(noToken.body).toMatchObject({ success: false, output: { error: { kind: 'TOOL_REQUIREMENTS_NOT_MET' } } });

    const unknown = await call(`${worker.url}/worker/tools/invoke`, {
      token,
      body: { execution_id: 'e2', tool: { name: 'Nope', toolkit: 'CrmMarketingApi' }, inputs: {} },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.name).toBe('not_found');
  });

  it('names the unknown toolkits', () => {
    expect(() => selectToolkits('CrmMarketingApi,Nope', toolkits)).toThrow(/Nope/);
  });
});

describe('http worker source', () => {
  /** A worker that lists one tool and answers invokes as `behaviour` says, counting them. */
  async function fakeWorker(behaviour: 'hang' | 'reset' | 'fail') {
    const seen = { invokes: 0, lists: 0, bodies: [] as unknown[] };
    const server = createServer(async (request, response) => {
      if (request.url === '/worker/tools') {
        seen.lists++;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ name: 'Ping', toolkit: { name: 'Fake', version: '1.0.0' } }]));
        return;
      }
      seen.invokes++;
      let text = '';
      for await (const chunk of request) text += chunk;
      seen.bodies.push(JSON.parse(text));
      if (behaviour === 'reset') request.socket.destroy();
      if (behaviour === 'fail') {
        const error = { kind: 'UPSTREAM_RUNTIME_NOT_FOUND', message: 'no such thing token-abc', can_retry: false, status_code: 404 };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ execution_id: 'e', success: false, output: { error } }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      uri: `http://127.0.0.1:${port}`,
      seen,
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      },
    };
  }

  const invocation = { executionId: 'e', token: 'token-abc', secrets: {} };

  it('never sends an invoke twice once it may have reached the worker', async () => {
    for (const behaviour of ['hang', 'reset'] as const) {
      const fake = await fakeWorker(behaviour);
      const source = httpWorkerSource({ id: 'fake', type: 'http', enabled: true, uri: fake.uri, timeout: 1, retry: 3, allowedSecrets: [], secret });
      const [tool] = await source.tools();
      const result = await source.invoke(tool!, {}, invocation);
      expect(result, behaviour).toMatchObject({
        error: { kind: behaviour === 'hang' ? 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT' : 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE' },
      });
      expect(fake.seen.invokes, behaviour).toBe(1);
      await fake.close();
    }
  });

  it('retries an invoke whose connection was refused, then gives up', async () => {
    const source = httpWorkerSource({
      id: 'gone',
      type: 'http',
      enabled: true,
      uri: `http://127.0.0.1:${await closedPort()}`,
      timeout: 1,
      retry: 2,
      allowedSecrets: [],
      secret,
    });
    const result = await source.invoke(ping, {}, invocation);
    expect(result).toMatchObject({
      error: { kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: true, developer_message: expect.stringContaining('ECONNREFUSED') },
    });
  });

  it("keeps the worker's error, with credentials redacted", async () => {
    const fake = await fakeWorker('fail');
    const source = httpWorkerSource({ id: 'fake', type: 'http', enabled: true, uri: fake.uri, timeout: 1, retry: 0, allowedSecrets: [], secret });
    // Through the dispatcher, as every call goes: it keeps the call's credentials out of whatever a source answers.
    const dispatcher = new Dispatcher(new ToolCatalog([source]), {
      credentials: { resolve: async () => ({ token: invocation.token, secrets: { API_KEY: 'key-1' } }) },
    });
    expect(await dispatcher.call('Fake.Ping', { q: 1 }, { executionId: 'e', userId: 'u1' })).toEqual({
      error: { kind: 'UPSTREAM_RUNTIME_NOT_FOUND', message: 'no such thing [redacted]', can_retry: false, status_code: 404 },
    });
    expect(fake.seen.bodies).toEqual([
      {
        execution_id: 'e',
        tool: { name: 'Ping', toolkit: 'Fake', version: '1.0.0' },
        inputs: { q: 1 },
        context: { authorization: { token: 'token-abc', user_info: {} }, secrets: [{ key: 'API_KEY', value: 'key-1' }], user_id: 'u1' },
      },
    ]);
    await fake.close();
  });
});

describe('http worker source under the upstream client', () => {
  /** A worker whose answers are scripted per route, each answer used once, the last one kept; counts the requests. */
  async function scriptedWorker(script: Record<string, Array<{ status: number; body?: unknown; headers?: Record<string, string> }>>) {
    const seen: Record<string, number> = {};
    const server = createServer((request, response) => {
      const route = request.url!;
      seen[route] = (seen[route] ?? 0) + 1;
      const answers = script[route] ?? [{ status: 404 }];
      const { status, body, headers } = answers.length > 1 ? answers.shift()! : answers[0]!;
      request.resume();
      request.on('end', () =>
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? undefined : JSON.stringify(body)),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { uri: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  const listing = [{ name: 'Ping', toolkit: { name: 'Fake', version: '1.0.0' } }];
  const invocation = { executionId: 'e', secrets: {} };

  it('repeats a listing after a server error, never an invoke', async () => {
    const fake = await scriptedWorker({
      '/worker/tools': [
        { status: 503, body: { name: 'busy', message: 'starting' } },
        { status: 200, body: listing },
      ],
      '/worker/tools/invoke': [{ status: 503, body: { name: 'busy', message: 'starting' } }],
    });
    const source = httpWorkerSource({ id: 'fake', type: 'http', enabled: true, uri: fake.uri, timeout: 5, retry: 2, allowedSecrets: [], secret });
    const [tool] = await source.tools();
    expect(tool).toMatchObject({ name: 'Ping', toolkit: { name: 'Fake' } });
    expect(fake.seen['/worker/tools']).toBe(2);
    expect(await source.invoke(tool!, {}, invocation)).toMatchObject({
      error: { kind: 'TOOL_RUNTIME_FATAL', developer_message: expect.stringContaining('worker fake: the worker answered 503: starting') },
    });
    expect(fake.seen['/worker/tools/invoke']).toBe(1);
    await fake.close();
  });

  it("names the worker's reason for refusing the engine's token, and follows no redirect", async () => {
    const fake = await scriptedWorker({
      '/worker/health': [{ status: 200, body: { status: 'ok', tool_count: 1 } }],
      '/worker/tools': [{ status: 401, body: { name: 'unauthorized', message: 'the token has expired' } }],
      '/worker/tools/invoke': [{ status: 307, headers: { location: 'http://127.0.0.1:9/elsewhere' } }],
    });
    const source = httpWorkerSource({ id: 'fake', type: 'http', enabled: true, uri: fake.uri, timeout: 5, retry: 2, allowedSecrets: [], secret });
    expect(await source.check()).toEqual({
      healthy: false,
      message: "worker fake: the worker refused the engine's token (is the secret the worker's?): the token has expired",
    });
    // A refusal is not repeated.
    expect(fake.seen['/worker/tools']).toBe(1);
    expect(await source.invoke(ping, {}, invocation)).toMatchObject({
      error: { kind: 'TOOL_RUNTIME_FATAL', developer_message: 'worker fake: the worker answered 307' },
    });
    await fake.close();
  });

  it('reads no more of an answer than the upstream limit', async () => {
    const huge = 'x'.repeat(11 * 1024 * 1024);
    const fake = await scriptedWorker({ '/worker/tools': [{ status: 200, body: [{ ...listing[0], description: huge }] }] });
    const source = httpWorkerSource({ id: 'fake', type: 'http', enabled: true, uri: fake.uri, timeout: 5, retry: 0, allowedSecrets: [], secret });
    await expect(source.tools()).rejects.toThrow(/worker fake: GET .*\/worker\/tools: response body over \d+ bytes/);
    await fake.close();
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An MCP server with `add` and `fail`, requiring `x-api-key: k-123`; records the headers it sees. */
async function startMcpServer(): Promise<{ url: string; headers: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer(async (request, response) => {
    headers.push(request.headers);
    if (request.headers['x-api-key'] !== 'k-123') {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"unauthorized"}');
      return;
    }
    const mcp = new McpServer({ name: 'calculator', version: '2.1.0' });
    mcp.registerTool(
      'add',
      {
        description: 'Adds two numbers.',
        inputSchema: { a: z.number().describe('First'), b: z.number().describe('Second') },
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }] }),
    );
    mcp.registerTool('fail.hard', { description: 'Always fails.', inputSchema: { reason: z.string().optional() } }, async ({ reason }) => ({
      isError: true,
      content: [{ type: 'text', text: `failed: ${reason ?? 'no reason'}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('workers registered with the engine', () => {
  let hubspot: HubspotEmulator;
  let worker: WorkerServer;
  let mcp: Awaited<ReturnType<typeof startMcpServer>>;
  let engine: RunningEngine;
  let key: string;
  let dataDir: string;
  /** Every answer the API gave, to check that no secret ever left it. */
  const answers: string[] = [];

  const start = () => startEngine({ config: engineConfig({ dataDir, port: 0 }), toolkits: [], credentials: () => sandboxCredentials('t') });

  async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Reply> {
    const answer = await call(`${engine.url}${path}`, { ...init, token: key });
    answers.push(answer.text);
    return answer;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'quiver-workers-'));
    hubspot = await startHubspotEmulator();
    hubspot.issueToken('t');
    worker = await startWorkerServer({ toolkits: crm, secret, port: 0, baseUrls: { CrmMarketingApi: hubspot.url } });
    mcp = await startMcpServer();
    engine = await start();
    key = (await createApiKey(engine.engine.store.db, 'test')).key;
  });
  afterAll(async () => {
    await engine?.close();
    await worker?.close();
    await mcp?.close();
    await hubspot?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('needs an API key', async () => {
    expect((await call(`${engine.url}/v1/workers`)).status).toBe(401);
  });

  it('registers an http worker and routes executions to it', async () => {
    const created = await api('/v1/workers', { body: { id: 'crm', type: 'http', http: { uri: worker.url, secret, timeout: 5, retry: 1 } } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: 'crm',
      type: 'http',
      enabled: true,
      managed: false,
      allowed_secrets: [],
      http: { uri: worker.url, timeout: 5, retry: 1, secret: { binding: 'static', editable: true, exists: true } },
    });

    const listed = await api('/v1/tools?toolkit=CrmMarketingApi&limit=100');
    expect(listed.body.total_count).toBe(crm[0]!.tools.length);
    expect(listed.body.items.map((item: { name: string }) => item.name)).toContain('GetAllMarketingEvents');

    const formatted = await api('/v1/formatted_tools/CrmMarketingApi.GetAllMarketingEvents?format=openai');
    expect(formatted.body).toMatchObject({ type: 'function', function: { name: 'CrmMarketingApi_GetAllMarketingEvents' } });

    const before = hubspot.requests.length;
    const executed = await api('/v1/tools/execute', { body: { tool_name: 'CrmMarketingApi.GetAllMarketingEvents', input: {}, user_id: 'u1' } });
    expect(executed.body).toMatchObject({ success: true, status: 'success', output: { value: expect.anything() } });
    expect(hubspot.requests.slice(before)).toEqual([expect.objectContaining({ method: 'GET', path: '/marketing/v3/marketing-events/' })]);

    // Errors come back as the worker reports them: a bad input never reaches the upstream.
    const invalid = await api('/v1/tools/execute', {
      body: { tool_name: 'CrmMarketingApi_GetAllMarketingEvents', input: { response_limit: 'many' }, user_id: 'u1' },
    });
    expect(invalid.body).toMatchObject({ success: false, output: { error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } } });
    expect(hubspot.requests.length).toBe(before + 1);

    // The tool acts for a user: without one it stops in the engine, as built-in tools do.
    const anonymous = await api('/v1/tools/execute', { body: { tool_name: 'CrmMarketingApi.GetAllMarketingEvents', input: {} } });
    expect(anonymous.body.output.error.kind).toBe('TOOL_RUNTIME_CONTEXT_REQUIRED');
  });

  it('reports health, tests addresses and lists a worker’s tools', async () => {
    expect((await api('/v1/workers/crm/health')).body).toEqual({ id: 'crm', enabled: true, healthy: true, message: `ok: ${crm[0]!.tools.length} tools` });

    const page = await api('/v1/workers/crm/tools?limit=5&offset=2');
    expect(page.body).toMatchObject({ limit: 5, offset: 2, page_count: 5, total_count: crm[0]!.tools.length });
    expect(page.body.items[0]).toMatchObject({ toolkit: { name: 'CrmMarketingApi' }, requirements: { authorization: { provider_id: 'hubspot' } } });

    expect((await api('/v1/workers/test', { body: { type: 'http', http: { uri: worker.url } } })).body).toEqual({
      healthy: true,
      message: `ok: ${crm[0]!.tools.length} tools`,
    });
    const down = await api('/v1/workers/test', { body: { type: 'http', http: { uri: `http://127.0.0.1:${await closedPort()}` } } });
    expect(down.body).toMatchObject({ healthy: false, message: expect.stringContaining('ECONNREFUSED') });

    expect((await api('/v1/workers/crm/authorize')).body).toMatchObject({ id: 'crm', status: 'not_required' });
    expect((await api('/v1/workers/nope/health')).status).toBe(404);
  });

  it('says when the worker refuses the engine’s secret', async () => {
    await api('/v1/workers', { body: { id: 'wrong', http: { uri: worker.url, secret: 'not-the-secret', retry: 0 } } });
    const health = await api('/v1/workers/wrong/health');
    expect(health.body).toMatchObject({ id: 'wrong', healthy: false, message: expect.stringContaining('secret') });
    expect((await api('/v1/workers/wrong/tools')).body).toMatchObject({ name: 'worker_unavailable' });
    expect((await api('/v1/workers/wrong', { method: 'DELETE' })).status).toBe(204);
    expect((await api('/v1/workers/wrong')).status).toBe(404);
  });

  it('validates registrations', async () => {
    const bad = async (body: unknown) => {
      const answer = await api('/v1/workers', { body });
      expect(answer.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(answer.body).toMatchObject({ name: expect.any(String), message: expect.any(String) });
      return answer.status;
    };
    expect(await bad({ id: 'crm', http: { uri: worker.url, secret } })).toBe(409);
    expect(await bad({ id: 'x', http: { uri: worker.url } })).toBe(400);
    expect(await bad({ id: 'x', http: { uri: 'ftp://host', secret } })).toBe(400);
    expect(await bad({ id: 'x' })).toBe(400);
    expect(await bad({ id: 'bad id', http: { uri: worker.url, secret } })).toBe(400);
    expect(await bad({ id: 'builtin', http: { uri: worker.url, secret } })).toBe(400);
    expect(await bad({ id: 'x', type: 'mcp', mcp: { uri: mcp.url, oauth2: { client_id: 'c' } } })).toBe(400);
  });

  it('disables, enables and updates a worker', async () => {
    const disabled = await api('/v1/workers/crm', { method: 'PATCH', body: { enabled: false } });
    expect(disabled.body).toMatchObject({ id: 'crm', enabled: false, http: { secret: { exists: true } } });
    expect((await api('/v1/tools?toolkit=CrmMarketingApi')).body.total_count).toBe(0);
    // A disabled worker keeps its toolkit: the call is refused naming the worker, never run elsewhere.
    const refused = await api('/v1/tools/execute', { body: { tool_name: 'CrmMarketingApi.GetAllMarketingEvents', user_id: 'u1' } });
    expect(refused.body).toMatchObject({
      success: false,
      output: { error: { kind: 'TOOL_RUNTIME_FATAL', message: expect.stringContaining('worker crm is disabled') } },
    });

    const enabled = await api('/v1/workers/crm', { method: 'PATCH', body: { enabled: true, http: { timeout: 7 } } });
    expect(enabled.body).toMatchObject({ enabled: true, http: { uri: worker.url, timeout: 7, retry: 1 } });
    expect((await api('/v1/tools?toolkit=CrmMarketingApi')).body.total_count).toBe(crm[0]!.tools.length);
    expect((await api('/v1/workers/crm', { method: 'PATCH', body: { mcp: { uri: mcp.url } } })).status).toBe(400);

    await api('/v1/workers/crm', { method: 'PATCH', body: { http: { secret: 'not-the-secret' } } });
    expect((await api('/v1/workers/crm/health')).body.healthy).toBe(false);
    await api('/v1/workers/crm', { method: 'PATCH', body: { http: { secret } } });
    expect((await api('/v1/workers/crm/health')).body.healthy).toBe(true);
  });

  it('serves the tools of an mcp worker as <worker-id>.<tool>', async () => {
    const created = await api('/v1/workers', {
      body: { id: 'calc', type: 'mcp', mcp: { uri: mcp.url, timeout: 5, retry: 0, headers: { 'x-api-key': 'k-123' } } },
    });
    expect(created.status).toBe(201);
    expect(created.body.mcp).toEqual({ uri: mcp.url, timeout: 5, retry: 0, headers: { 'x-api-key': '********' } });

    const listed = await api('/v1/tools?toolkit=calc');
    expect(listed.body.items.map((item: { qualified_name: string }) => item.qualified_name).sort()).toEqual(['calc.add', 'calc.fail_hard']);
    const add = listed.body.items.find((item: { name: string }) => item.name === 'add');
    expect(add).toMatchObject({ fully_qualified_name: 'calc.add@2.1.0', description: 'Adds two numbers.' });
    expect(add.input.parameters).toEqual([
      expect.objectContaining({ name: 'a', required: true, description: 'First', value_schema: { val_type: 'number' } }),
      expect.objectContaining({ name: 'b', required: true, description: 'Second', value_schema: { val_type: 'number' } }),
    ]);
    const anthropic = await api('/v1/formatted_tools/calc.add?format=anthropic');
    expect(anthropic.body).toMatchObject({ name: 'calc_add', input_schema: { properties: { a: { type: 'number' } }, required: ['a', 'b'] } });

    const sum = await api('/v1/tools/execute', { body: { tool_name: 'calc.add', input: { a: 2, b: 3 } } });
    expect(sum.body).toMatchObject({ success: true, output: { value: { sum: 5 } } });
    expect((await api('/v1/tools/execute', { body: { tool_name: 'calc_add', input: { a: 1, b: 1 } } })).body.output.value).toEqual({ sum: 2 });

    const failed = await api('/v1/tools/execute', { body: { tool_name: 'calc.fail_hard', input: { reason: 'because' } } });
    expect(failed.body).toMatchObject({ success: false, status: 'failed', output: { error: { kind: 'TOOL_RUNTIME_FATAL', message: 'failed: because' } } });

    const invalid = await api('/v1/tools/execute', { body: { tool_name: 'calc.add', input: { a: 'two' } } });
    expect(invalid.body).toMatchObject({ success: false, output: { error: { message: expect.stringMatching(/./) } } });

    expect(mcp.headers.length).toBeGreaterThan(0);
    expect(mcp.headers.every((headers) => headers['x-api-key'] === 'k-123')).toBe(true);

    expect((await api('/v1/workers/calc/health')).body).toEqual({ id: 'calc', enabled: true, healthy: true, message: 'ok: 2 tools' });
    expect((await api('/v1/workers/calc/tools')).body.total_count).toBe(2);
    expect((await api('/v1/workers/calc/authorize')).body).toMatchObject({ status: 'not_required' });
  });

  it('keeps mcp header values sealed and reports an MCP server that wants authorization', async () => {
    // A masked value sent back keeps the stored one.
    await api('/v1/workers/calc', { method: 'PATCH', body: { mcp: { headers: { 'x-api-key': '********' } } } });
    expect((await api('/v1/workers/calc/health')).body.healthy).toBe(true);

    await api('/v1/workers', { body: { id: 'locked', mcp: { uri: mcp.url, retry: 0 } } });
    expect((await api('/v1/workers/locked/authorize')).body).toMatchObject({ id: 'locked', type: 'mcp', status: 'required' });
    expect((await api('/v1/workers/locked/health')).body).toMatchObject({ healthy: false, message: expect.stringContaining('401') });
    expect((await api('/v1/workers/test', { body: { type: 'mcp', mcp: { uri: mcp.url } } })).body.healthy).toBe(false);
    expect((await api('/v1/workers/test', { body: { type: 'mcp', mcp: { uri: mcp.url, headers: { 'x-api-key': 'k-123' } } } })).body).toEqual({
      healthy: true,
      message: 'ok: 2 tools',
    });
  });

  it('reloads persisted workers after a restart', async () => {
    await engine.close();
    engine = await start();
    const listed = await api('/v1/workers');
    expect(listed.body).toMatchObject({ total_count: 3, items: [{ id: 'crm', enabled: true }, { id: 'calc' }, { id: 'locked' }] });

    const before = hubspot.requests.length;
    const executed = await api('/v1/tools/execute', { body: { tool_name: 'CrmMarketingApi.GetAllMarketingEvents', input: {}, user_id: 'u2' } });
    expect(executed.body.success).toBe(true);
    expect(hubspot.requests.length).toBe(before + 1);
    expect((await api('/v1/tools/execute', { body: { tool_name: 'calc.add', input: { a: 20, b: 22 } } })).body.output.value).toEqual({ sum: 42 });
  });

  it('removes a deleted worker’s tools', async () => {
    expect((await api('/v1/workers/calc', { method: 'DELETE' })).status).toBe(204);
    expect((await api('/v1/tools?toolkit=calc')).status).toBe(400);
    expect((await api('/v1/workers/calc', { method: 'DELETE' })).status).toBe(404);
  });

  it('documents the worker routes in the OpenAPI document', async () => {
    const openapi = await call(`${engine.url}/v1/openapi`);
    expect(Object.keys(openapi.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/workers',
        '/v1/workers/{id}',
        '/v1/workers/{id}/health',
        '/v1/workers/test',
        '/v1/workers/{id}/tools',
        '/v1/workers/{id}/authorize',
      ]),
    );
  });

  it('never returned a secret', () => {
    const leaked = answers.filter((text) => text.includes(secret) || text.includes('k-123') || text.includes('not-the-secret'));
    expect(leaked).toEqual([]);
  });
});
