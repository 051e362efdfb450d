/**
 * The npm package @arcadeai/arcadejs, an existing client of this API's shape, used unchanged against
 * the engine: list tools, get a formatted tool, authorize and wait for completion, execute, list
 * workers and scheduled executions.
 */
import { createServer, type Server } from 'node:http';
import Arcade from '@arcadeai/arcadejs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defineToolkit } from '@quiver/core';
import type Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from './harness.js';
import { authorizationServer, Browser, checkTokens, CLIENT_SECRET, listen, tool } from './oidc.js';

describe('@arcadeai/arcadejs against the engine', () => {
  let engine: TestEngine;
  let client: Arcade;
  let provider: Provider;
  const servers: Server[] = [];
  /** Every access token the upstream was shown. */
  const tokens: string[] = [];

  beforeAll(async () => {
    const [asServer, upstream] = [createServer(), createServer()];
    servers.push(asServer, upstream);
    const issuer = await listen(asServer);
    const upstreamUrl = await listen(upstream);
    const toolkit = defineToolkit({ name: 'Upstream', version: '1.0.0', description: 'A resource server.', baseUrl: upstreamUrl, tools: [tool('WhoAmI', ['read'])] });
    engine = await startTestEngine('sqlite', { toolkits: [toolkit], credentials: undefined });
    provider = authorizationServer(issuer, `${engine.url}/v1/oauth/callback`);
    asServer.on('request', provider.callback());
    upstream.on('request', checkTokens(provider, (token) => tokens.push(token)));
    await engine.api('POST', '/v1/admin/auth_providers', {
      id: 'testidp',
      oauth2: { client_id: 'quiver', client_secret: CLIENT_SECRET, authorize_request: { endpoint: `${issuer}/auth` }, token_request: { endpoint: `${issuer}/token`, auth_method: 'client_secret_basic' }, issuer },
    });
    client = new Arcade({ apiKey: engine.key, baseURL: engine.url });
  });

  afterAll(async () => {
    await engine?.close();
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('lists tools and gets one in a provider format', async () => {
    const page = await client.tools.list({ toolkit: 'Upstream' });
    expect(page.items.map((t) => t.qualified_name)).toEqual(['Upstream.WhoAmI']);
    expect(page.total_count).toBe(1);
    const formatted = await client.tools.formatted.get('Upstream.WhoAmI', { format: 'openai' });
    expect(formatted).toMatchObject({ type: 'function', function: { name: 'Upstream_WhoAmI' } });
    const definition = await client.tools.get('Upstream.WhoAmI', { include_format: ['openai', 'anthropic'], user_id: 'alice' });
    expect(definition.requirements).toMatchObject({ met: false, authorization: { provider_id: 'testidp' } });
  });

  it('authorizes a user, waits for completion, then executes with the token', async () => {
    const pending = await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'alice' });
    expect(pending.success).toBe(false);
    expect(pending.output?.authorization?.url).toBeTruthy();

    const auth = await client.tools.authorize({ tool_name: 'Upstream.WhoAmI', user_id: 'alice' });
    expect(auth.status).toBe('pending');
    const completion = client.auth.waitForCompletion(auth);
    const callback = await new Browser().authorize(auth.url!, 'alice', `${engine.url}/v1/oauth/callback`);
    expect((await fetch(callback, { redirect: 'manual' })).status).toBeLessThan(400);
    expect((await completion).status).toBe('completed');

    const result = await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'alice' });
    expect(result).toMatchObject({ success: true, output: { value: { account: 'alice', scope: 'read' } } });
    const status = await client.auth.status({ id: auth.id! });
    expect(status.status).toBe('completed');
  });

  it('answers an MCP tool call for a user without a token with the authorization URL', async () => {
    const mcp = new Client({ name: 'quiver-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'bob' } } }));
    try {
      const result = await mcp.callTool({ name: 'Upstream_WhoAmI', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result._meta).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET' });
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/needs the user's authorization with testidp: http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    } finally {
      await mcp.close();
    }
  });

  it('never logs the API key, a token or the client secret', async () => {
    const text = engine.logs.join('');
    expect(engine.logs.length).toBeGreaterThan(5);
    expect(text).toContain('tool executed');
    expect(text).not.toContain(engine.key);
    expect(text).not.toContain(CLIENT_SECRET);
    for (const token of tokens) expect(text).not.toContain(token);
    expect(tokens.length).toBeGreaterThan(0);
  });

  it('lists workers and scheduled executions', async () => {
    const workers = await client.workers.list();
    expect(workers.items).toEqual([]);
    const scheduled = await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'alice', run_at: '2099-01-01T00:00:00' });
    expect(scheduled).toMatchObject({ success: true, execution_type: 'scheduled' });
    const list = await client.tools.scheduled.list();
    expect(list.items.map((item) => item.id)).toContain(scheduled.execution_id);
  });
});
