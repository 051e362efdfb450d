/**
 * The npm package @arcadeai/arcadejs, an existing client of this API's shape, used unchanged against
 * the engine: list tools, get a formatted tool, authorize and wait for completion, execute, list
 * workers and scheduled executions.
 */
import { createServer, type Server } from 'node:http';
import Arcade from '@arcadeai/arcadejs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import {
  authorizationServer,
  Browser,
  checkTokens,
  CLIENT_SECRET,
  listen,
  providerSettings,
  recordingUpstream,
  upstreamToolkit,
} from '@quiver/test-support/oidc';
import type Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
    const toolkit = upstreamToolkit(upstreamUrl);
    engine = await startTestEngine('sqlite', { toolkits: [toolkit], credentials: undefined });
    provider = authorizationServer(issuer, `${engine.url}/v1/oauth/callback`);
    asServer.on('request', provider.callback());
    upstream.on(
      'request',
      checkTokens(provider, (token) => tokens.push(token)),
    );
    await engine.api('POST', '/v1/admin/auth_providers', {
      id: 'testidp',
      oauth2: providerSettings(issuer),
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

    // A user who holds a token with the scopes is authorized already: completed, and no URL to visit.
    const again = await client.tools.authorize({ tool_name: 'Upstream.WhoAmI', user_id: 'alice' });
    expect(again.status).toBe('completed');
    expect(again.url).toBeUndefined();
    const started = await client.auth.start('alice', 'testidp', { scopes: ['read'] });
    expect(started).toMatchObject({ status: 'completed' });
    expect(started.url).toBeUndefined();
  });

  it('answers an MCP tool call for a user without a token with the authorization URL', async () => {
    const mcp = new Client({ name: 'quiver-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'bob' } },
      }),
    );
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
    const scheduled = await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'alice', run_at: '2099-01-01T00:00:00Z' });
    expect(scheduled).toMatchObject({ success: true, execution_type: 'scheduled' });
    const list = await client.tools.scheduled.list();
    expect(list.items.map((item) => item.id)).toContain(scheduled.execution_id);
  });
});

describe('@arcadeai/arcadejs against the sandbox', () => {
  const sandboxToken = 'sandbox-granted-token-0123456789';
  let engine: TestEngine;
  let client: Arcade;
  /** The Authorization header of every request the upstream received is in `upstream.seen`. */
  let upstream: Awaited<ReturnType<typeof recordingUpstream>>;

  beforeAll(async () => {
    upstream = await recordingUpstream();
    engine = await startTestEngine('sqlite', { toolkits: [upstreamToolkit(upstream.url)], credentials: undefined, sandbox: { token: sandboxToken } });
    client = new Arcade({ apiKey: engine.key, baseURL: engine.url });
  });
  afterAll(async () => {
    await engine?.close();
    await upstream.close();
  });

  it('has every provider: a new user holds the token, authorize answers completed, and the tool runs', async () => {
    const definition = await client.tools.get('Upstream.WhoAmI', { user_id: 'sam' });
    expect(definition.requirements).toMatchObject({ met: true });
    const auth = await client.tools.authorize({ tool_name: 'Upstream.WhoAmI', user_id: 'sam' });
    expect(auth).toMatchObject({ status: 'completed' });
    expect(auth.url).toBeUndefined();
    expect(await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'sam' })).toMatchObject({
      success: true,
      output: { value: { account: 'sandbox' } },
    });
    expect(upstream.seen.at(-1)).toBe(`Bearer ${sandboxToken}`);
  });

  it('runs a whole flow through its own consent page once a connection is removed', async () => {
    await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'tess' });
    const connections = await engine.api('GET', '/v1/admin/user_connections?user_id=tess');
    expect(connections.body.items).toHaveLength(1);
    expect((await engine.api('DELETE', `/v1/admin/user_connections/${connections.body.items[0].id}`)).status).toBe(204);

    const auth = await client.tools.authorize({ tool_name: 'Upstream.WhoAmI', user_id: 'tess' });
    expect(auth.status).toBe('pending');
    expect(auth.url).toMatch(new RegExp(`^${engine.url}/v1/sandbox/oauth/authorize\\?`));
    const completion = client.auth.waitForCompletion(auth);

    // The person's browser: the consent page names the user and the scope; Allow posts the form back.
    const consent = await fetch(auth.url!);
    expect(consent.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await consent.text();
    expect(html).toContain('<strong>tess</strong>');
    expect(html).toContain('<code>read</code>');
    const form = new URLSearchParams([...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, name, value]) => [name!, value!.replace(/&amp;/g, '&')]));
    form.set('decision', 'allow');
    const decided = await fetch(`${engine.url}/v1/sandbox/oauth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
    expect(decided.status).toBe(303);
    const callback = decided.headers.get('location')!;
    expect(callback.startsWith(`${engine.url}/v1/oauth/callback?`)).toBe(true);
    expect((await fetch(callback)).status).toBe(200);
    expect((await completion).status).toBe('completed');
    expect(await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'tess' })).toMatchObject({ success: true });
  });

  it("refuses a consent request that is not the engine's, and a code redeemed twice or without its verifier", async () => {
    const bad = await fetch(
      `${engine.url}/v1/sandbox/oauth/authorize?response_type=code&client_id=quiver-sandbox&redirect_uri=https://evil.example/cb&state=s&code_challenge=c&code_challenge_method=S256`,
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('redirect_uri is not the registered callback');

    const callbackUrl = `${engine.url}/v1/oauth/callback`;
    const verifier = 'a-verifier-of-forty-three-characters-or-more-00000';
    const { createHash } = await import('node:crypto');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const form = new URLSearchParams({
      response_type: 'code',
      client_id: 'quiver-sandbox',
      redirect_uri: callbackUrl,
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      decision: 'allow',
    });
    const decided = await fetch(`${engine.url}/v1/sandbox/oauth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
    const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
    const redeem = (fields: Record<string, string>) =>
      fetch(`${engine.url}/v1/sandbox/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'quiver-sandbox', redirect_uri: callbackUrl, code, ...fields }),
      });
    const wrong = await redeem({ code_verifier: 'not-the-verifier-not-the-verifier-not-the-verifier' });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    // The failed attempt used the code up (RFC 6749 §4.1.2): the right verifier is too late now.
    expect((await redeem({ code_verifier: verifier })).status).toBe(400);
  });
});

describe('a provider that is not configured', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    const toolkit = upstreamToolkit('http://127.0.0.1:9');
    engine = await startTestEngine('sqlite', { toolkits: [toolkit], credentials: undefined });
  });
  afterAll(() => engine?.close());

  it('is named, with the admin route and the config file key that add it', async () => {
    const client = new Arcade({ apiKey: engine.key, baseURL: engine.url });
    const result = await client.tools.execute({ tool_name: 'Upstream.WhoAmI', user_id: 'uma' });
    expect(result.success).toBe(false);
    expect(result.output?.authorization).toBeUndefined();
    expect(result.output?.error).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET' });
    expect(result.output?.error?.message).toMatch(/No auth provider 'testidp' is configured: add one with POST \/v1\/admin\/auth_providers.*"authProviders"/);
    const refused = await engine.api('POST', '/v1/tools/authorize', { tool_name: 'Upstream.WhoAmI', user_id: 'uma' });
    expect(refused.status).toBe(404);
    expect(refused.body.message).toMatch(/POST \/v1\/admin\/auth_providers/);
  });
});
