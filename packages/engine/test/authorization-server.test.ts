/**
 * The engine as the OAuth 2.1 authorization server of its MCP endpoint, end to end: the MCP SDK
 * client's own OAuth support (discovery, dynamic registration, PKCE, token, refresh) against a running
 * engine, a person signing in through an OpenID Connect identity provider (oidc-provider on loopback)
 * and consenting in headless Chromium, then the failure cases a client or an attacker can cause.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { allRoutes, authorizationServerSettings, buildApp, openEngine, type Credentials } from '@quiver/engine';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { chromiumArgs, chromiumPath, haveChromium } from '@quiver/test-support/chromium';
import { ClientState, s256 } from '@quiver/test-support/engine-sign-in';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { authorizationServer, CLIENT_SECRET, listen } from '@quiver/test-support/oidc';
import { crmMarketing } from '@quiver/toolkits';
import type Provider from 'oidc-provider';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Browser flows take seconds each on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

if (!haveChromium) console.warn(`authorization server tests: no Chromium at ${chromiumPath}; the browser flows are skipped (CI installs it)`);

const READ_TOOL = 'CrmMarketingApi_GetMarketingCampaigns';
const WRITE_TOOL = 'CrmMarketingApi_CreateMarketingCampaign';
const KEY_USER = 'local-person';

/** A loopback redirect target, as a desktop client runs one: it records what the browser brings. */
async function redirectTarget(): Promise<{ url: string; server: Server; next(): Promise<URL> }> {
  const waiting: ((url: URL) => void)[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://127.0.0.1');
    if (url.pathname === '/client.json') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(clientDocument(base)));
    }
    res.end('You can close this window.');
    if (url.pathname === '/callback') waiting.shift()?.(url);
  });
  const base = await listen(server);
  return { url: `${base}/callback`, server, next: () => new Promise((resolve) => waiting.push(resolve)) };
}

const clientDocument = (base: string) => ({
  client_id: `${base}/client.json`,
  client_name: 'Metadata Document Client',
  redirect_uris: [`${base}/callback`],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

describe.each(databases)('authorization server on $name', ({ name, skip }) => {
  let engine: TestEngine;
  let hubspot: HubspotEmulator;
  let idp: Provider;
  let idpServer: Server;
  let target: Awaited<ReturnType<typeof redirectTarget>>;
  let browser: Browser | undefined;
  let context: BrowserContext;
  /** The user every upstream token was asked for: proof of who a call ran as. */
  const tokenUsers: string[] = [];

  const credentials = (): Credentials => ({
    token: async (userId) => {
      tokenUsers.push(userId);
      return { token: 'test-token' };
    },
    grants: async () => () => true,
  });

  beforeAll(async () => {
    if (skip) return;
    hubspot = await startHubspotEmulator();
    hubspot.issueToken('test-token');
    idpServer = createServer();
    const idpUrl = await listen(idpServer);
    const settings = authorizationServerSettings({
      identityProvider: { issuer: idpUrl, clientId: 'quiver', clientSecret: CLIENT_SECRET, scopes: ['openid'], name: 'Test Identity' },
      keyUser: KEY_USER,
      insecureClientDocuments: true,
    });
    engine = await startTestEngine(
      name,
      { toolkits: [crmMarketing], baseUrls: { CrmMarketingApi: hubspot.url }, credentials },
      { authorizationServer: settings },
    );
    idp = authorizationServer(idpUrl, `${engine.url}/oauth/sign-in/callback`);
    idpServer.on('request', idp.callback());
    target = await redirectTarget();
    if (haveChromium) {
      // A fresh profile per launch (playwright's own temporary user-data-dir).
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: chromiumArgs,
      });
      context = await browser.newContext();
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.close();
    await hubspot?.close();
    idpServer?.close();
    target?.server.close();
  });

  const mcpUrl = () => new URL(`${engine.url}/v1/mcp`);

  /** Connects the SDK client with its OAuth provider; the tools it lists. */
  async function connect(state: ClientState, url = mcpUrl()): Promise<Client> {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: state }));
    return client;
  }

  /** The browser at `url` until it reaches the redirect target; `act` does the person's part on each engine page. */
  async function browse(url: string, act: (page: import('playwright-core').Page) => Promise<void>, inContext = context): Promise<URL> {
    const arrived = target.next();
    const page = await inContext.newPage();
    page.setDefaultTimeout(10_000);
    const stuck = async (cause: unknown) => {
      throw new Error(
        `${String(cause)}\n  stuck at ${page.url()}: ${(await page.content().catch(() => '')).replace(/<style>.*?<\/style>/s, '').slice(0, 1200)}`,
      );
    };
    try {
      await page.goto(url);
      await Promise.race([arrived, act(page).catch(stuck)]);
      return await Promise.race([arrived, new Promise<never>((_, reject) => setTimeout(() => void stuck('no redirect').catch(reject), 10_000))]);
    } finally {
      // Closing can wait on the page's last requests; the context's end closes it for sure.
      void page.close().catch(() => {});
    }
  }

  /** Signs in at the identity provider (its dev login and consent forms) and allows on the engine's page. */
  const signInAndAllow = (account: string) => async (page: import('playwright-core').Page) => {
    await page.click('#sign-in-idp');
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', account);
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    // The identity provider's own consent for the engine (first time only), then the engine's consent for the client.
    const next = await page.waitForSelector('#allow, input[name="prompt"][value="consent"]', { state: 'attached' });
    if ((await next.getAttribute('id')) !== 'allow') await page.click('button[type="submit"]');
    await page.waitForSelector('#allow');
    expect(await page.textContent('body')).toContain('Test MCP Client');
    await page.click('#allow');
  };

  const form = (values: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values),
  });
  const token = async (values: Record<string, string>) => {
    const response = await fetch(`${engine.url}/oauth/token`, form(values));
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  const mcpStatus = async (accessToken: string, path = '/v1/mcp', base = engine.url) => {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };
  /** An authorization request of a registered client, as the browser sends it; with PKCE unless told. */
  const authorizeUrl = (clientId: string, params: Record<string, string | undefined> = {}) => {
    const url = new URL(`${engine.url}/oauth/authorize`);
    const values = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: target.url,
      scope: 'tools:read tools:write',
      state: randomBytes(8).toString('hex'),
      ...params,
    };
    for (const [key, value] of Object.entries(values)) if (value !== undefined) url.searchParams.set(key, value);
    return url.href;
  };

  describe.skipIf(skip)('discovery', () => {
    it('answers 401 with a challenge that points at the protected-resource metadata', async () => {
      const { status, challenge } = await mcpStatus('not-a-token');
      expect(status).toBe(401);
      expect(challenge).toContain(`resource_metadata="${engine.url}/.well-known/oauth-protected-resource/v1/mcp"`);
      expect(challenge).toContain('error="invalid_token"');
      const none = await fetch(`${engine.url}/v1/mcp`, { method: 'POST' });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    });

    it('serves protected-resource and authorization-server metadata', async () => {
      const resourceResponse = await fetch(`${engine.url}/.well-known/oauth-protected-resource/v1/mcp`);
      expect(resourceResponse.headers.get('access-control-allow-origin')).toBe('*');
      const resource = await resourceResponse.json();
      expect(resource).toMatchObject({
        resource: `${engine.url}/v1/mcp`,
        authorization_servers: [engine.url],
        scopes_supported: ['tools:read', 'tools:write'],
      });
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const metadata = await (await fetch(engine.url + path)).json();
        expect(metadata).toMatchObject({
          issuer: engine.url,
          authorization_endpoint: `${engine.url}/oauth/authorize`,
          token_endpoint: `${engine.url}/oauth/token`,
          registration_endpoint: `${engine.url}/oauth/register`,
          revocation_endpoint: `${engine.url}/oauth/revoke`,
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          response_types_supported: ['code'],
          client_id_metadata_document_supported: true,
          authorization_response_iss_parameter_supported: true,
        });
      }
    });

    it('keeps API keys working beside OAuth', async () => {
      const client = new Client({ name: 'script', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'script-user' } } }),
      );
      const result = await client.callTool({ name: READ_TOOL, arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(tokenUsers.at(-1)).toBe('script-user');
      await client.close();
      // The raw key, as every other route takes it.
      const raw = await fetch(`${engine.url}/v1/mcp`, {
        method: 'POST',
        headers: { authorization: engine.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(raw.status).toBe(200);
    });

    it('registers public clients only, with exact redirect URIs', async () => {
      const register = (metadata: object) =>
        fetch(`${engine.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
      const confidential = await register({ redirect_uris: [target.url], token_endpoint_auth_method: 'client_secret_basic' });
      expect(confidential.status).toBe(400);
      expect(await confidential.json()).toMatchObject({ error: 'invalid_client_metadata' });
      const implicit = await register({ redirect_uris: [target.url], response_types: ['token'], grant_types: ['implicit'] });
      expect(implicit.status).toBe(400);
      const publicClient = await register({ redirect_uris: [target.url] });
      expect(publicClient.status).toBe(201);
      expect(await publicClient.json()).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: [target.url] });
    });
  });

  describe.skipIf(skip || !haveChromium)('a person signs in from an MCP client', () => {
    const state = () => client;
    let client: ClientState;
    let firstTokens: OAuthTokens;

    it('registers, authorizes with PKCE through sign-in and consent, and calls tools as that person', async () => {
      client = new ClientState(target.url);
      await expect(connect(client)).rejects.toThrow(/Unauthorized/i);
      expect(client.information?.client_id).toBeTruthy();
      const authorizationUrl = client.authorizationUrl!;
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(`${engine.url}/v1/mcp`);

      const back = await browse(authorizationUrl.href, signInAndAllow('alice'));
      expect(back.searchParams.get('iss')).toBe(engine.url);
      const code = back.searchParams.get('code')!;
      expect(code).toBeTruthy();
      expect(await auth(client, { serverUrl: mcpUrl(), authorizationCode: code })).toBe('AUTHORIZED');
      firstTokens = client.saved!;
      expect(firstTokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'tools:read tools:write', refresh_token: expect.any(String) });
      expect(firstTokens.expires_in).toBeLessThanOrEqual(600);

      const mcp = await connect(client);
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([READ_TOOL, WRITE_TOOL]));
      const before = hubspot.requests.length;
      const result = await mcp.callTool({ name: READ_TOOL, arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(hubspot.requests.length).toBe(before + 1);
      // The identity provider's subject is the user; a Quiver-User-ID header cannot change it.
      expect(tokenUsers.at(-1)).toBe('alice');
      await mcp.close();
      const spoofed = new Client({ name: 'spoof', version: '1.0.0' });
      await spoofed.connect(
        new StreamableHTTPClientTransport(mcpUrl(), {
          requestInit: { headers: { authorization: `Bearer ${firstTokens.access_token}`, 'quiver-user-id': 'mallory' } },
        }),
      );
      await spoofed.callTool({ name: READ_TOOL, arguments: {} });
      expect(tokenUsers.at(-1)).toBe('alice');
      await spoofed.close();
    });

    it('stores codes and tokens hashed, and logs none', async () => {
      const rows = await engine.engine.store.db.selectFrom('authorization_server_objects').selectAll().execute();
      expect(rows.length).toBeGreaterThan(0);
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(firstTokens.access_token);
      expect(dump).not.toContain(firstTokens.refresh_token!);
      expect(rows.map((row) => row.model)).toEqual(expect.arrayContaining(['AccessToken', 'RefreshToken', 'Grant', 'Client']));
      // Nor in the logs: no token, and not the identity provider's code either.
      const logs = engine.logs.join('\n');
      expect(logs).toContain('/oauth/authorize');
      for (const secret of [firstTokens.access_token, firstTokens.refresh_token!, 'sign-in/callback?code=']) expect(logs).not.toContain(secret);
    });

    it('rotates the refresh token on use, and a replayed one ends the grant', async () => {
      expect(await auth(state(), { serverUrl: mcpUrl() })).toBe('AUTHORIZED');
      const second = client.saved!;
      expect(second.access_token).not.toBe(firstTokens.access_token);
      expect(second.refresh_token).toBeTruthy();
      expect(second.refresh_token).not.toBe(firstTokens.refresh_token);
      expect((await mcpStatus(second.access_token)).status).toBe(200);

      const replay = await token({ grant_type: 'refresh_token', refresh_token: firstTokens.refresh_token!, client_id: client.information!.client_id });
      expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // Refresh token reuse means theft (OAuth 2.1 §4.3.1): everything of the grant is revoked.
      expect((await mcpStatus(second.access_token)).status).toBe(401);
      expect(await token({ grant_type: 'refresh_token', refresh_token: second.refresh_token!, client_id: client.information!.client_id })).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant' },
      });
    });

    it('revokes access and refresh tokens (RFC 7009)', async () => {
      // Signed in already: the next authorization needs no page, the grant stands.
      client.saved = undefined;
      await expect(connect(client)).rejects.toThrow(/Unauthorized/i);
      const back = await browse(client.authorizationUrl!.href, async (page) => {
        await page
          .waitForSelector('#allow', { timeout: 5_000 })
          .then(() => page.click('#allow'))
          .catch(() => {});
      });
      expect(await auth(client, { serverUrl: mcpUrl(), authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
      const tokens = client.saved!;
      expect((await mcpStatus(tokens.access_token)).status).toBe(200);
      const clientId = client.information!.client_id;
      const revoke = (value: string) => fetch(`${engine.url}/oauth/revoke`, form({ token: value, client_id: clientId }));
      expect((await revoke(tokens.access_token)).status).toBe(200);
      const refused = await mcpStatus(tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain('error="invalid_token"');
      expect((await revoke(tokens.refresh_token!)).status).toBe(200);
      expect(await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId })).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant' },
      });
    });
  });

  describe.skipIf(skip || !haveChromium)('failures', () => {
    let clientId: string;
    let bob: BrowserContext;
    const verifier = randomBytes(32).toString('base64url');

    /** A code for the registered client, through a browser already signed in (consenting if asked). */
    const code = async (params: Record<string, string | undefined> = {}) => {
      const back = await browse(
        authorizeUrl(clientId, { code_challenge: s256(verifier), code_challenge_method: 'S256', ...params }),
        async (page) => {
          await page
            .waitForSelector('#allow', { timeout: 5_000 })
            .then(() => page.click('#allow'))
            .catch(() => {});
        },
        bob,
      );
      return back;
    };
    const exchange = (value: string, extra: Record<string, string | undefined> = {}) => {
      const values: Record<string, string> = {
        grant_type: 'authorization_code',
        code: value,
        redirect_uri: target.url,
        client_id: clientId,
        code_verifier: verifier,
      };
      for (const [key, given] of Object.entries(extra)) {
        if (given === undefined) delete values[key];
        else values[key] = given;
      }
      return token(values);
    };

    beforeAll(async () => {
      if (skip || !haveChromium) return;
      const registered = await fetch(`${engine.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Test MCP Client', redirect_uris: [target.url], grant_types: ['authorization_code', 'refresh_token'] }),
      });
      clientId = ((await registered.json()) as { client_id: string }).client_id;
      // Bob's own browser, signed in once.
      bob = await browser!.newContext();
      await browse(authorizeUrl(clientId, { code_challenge: s256(verifier), code_challenge_method: 'S256' }), signInAndAllow('bob'), bob);
    });

    it('refuses a redirect URI that is not registered exactly, without redirecting', async () => {
      for (const redirect of [`${target.url}/other`, `${target.url}?x=1`, target.url.replace('127.0.0.1', 'localhost'), 'https://attacker.example/callback']) {
        const response = await fetch(authorizeUrl(clientId, { redirect_uri: redirect, code_challenge: s256(verifier), code_challenge_method: 'S256' }), {
          redirect: 'manual',
        });
        expect(response.status, redirect).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(await response.text()).toContain('redirect_uri');
      }
    });

    it('requires PKCE with S256', async () => {
      const missing = await fetch(authorizeUrl(clientId), { redirect: 'manual' });
      expect(new URL(missing.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
      const plain = await fetch(authorizeUrl(clientId, { code_challenge: verifier, code_challenge_method: 'plain' }), { redirect: 'manual' });
      expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    });

    it('refuses a wrong or missing code verifier, and a replayed code', async () => {
      const wrong = (await code()).searchParams.get('code')!;
      expect(await exchange(wrong, { code_verifier: randomBytes(32).toString('base64url') })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const missing = (await code()).searchParams.get('code')!;
      expect((await exchange(missing, { code_verifier: undefined })).status).toBe(400);

      const once = (await code()).searchParams.get('code')!;
      const first = await exchange(once);
      expect(first.status).toBe(200);
      expect((await mcpStatus(first.body.access_token!)).status).toBe(200);
      expect(await exchange(once)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // A replayed code revokes what it was exchanged for.
      expect((await mcpStatus(first.body.access_token!)).status).toBe(401);
    });

    it('binds tokens to their resource: a token for another resource is refused', async () => {
      const elsewhere = await fetch(
        authorizeUrl(clientId, { resource: 'https://elsewhere.example/mcp', code_challenge: s256(verifier), code_challenge_method: 'S256' }),
        {
          redirect: 'manual',
        },
      );
      expect(new URL(elsewhere.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');

      const short = (await code({ resource: `${engine.url}/mcp` })).searchParams.get('code')!;
      const issued = await exchange(short, { resource: `${engine.url}/mcp` });
      expect(issued.status).toBe(200);
      expect((await mcpStatus(issued.body.access_token!, '/mcp')).status).toBe(200);
      const refused = await mcpStatus(issued.body.access_token!, '/v1/mcp');
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain('error="invalid_token"');
    });

    it('refuses an expired access token', async () => {
      const issued = await exchange((await code()).searchParams.get('code')!);
      expect((await mcpStatus(issued.body.access_token!)).status).toBe(200);
      // Time passes: the stored token's expiry is moved into the past.
      const idHash = createHash('sha256').update(issued.body.access_token!).digest('hex');
      const db = engine.engine.store.db;
      const row = await db
        .selectFrom('authorization_server_objects')
        .select('payload')
        .where('model', '=', 'AccessToken')
        .where('id_hash', '=', idHash)
        .executeTakeFirstOrThrow();
      const past = Math.floor(Date.now() / 1000) - 5;
      await db
        .updateTable('authorization_server_objects')
        .set({ payload: JSON.stringify({ ...JSON.parse(row.payload), exp: past }), expires_at: new Date(past * 1000).toISOString() })
        .where('model', '=', 'AccessToken')
        .where('id_hash', '=', idHash)
        .execute();
      expect((await mcpStatus(issued.body.access_token!)).status).toBe(401);
    });

    it('narrows a tools:read session to the tools that only read', async () => {
      const issued = await exchange((await code({ scope: 'tools:read' })).searchParams.get('code')!);
      expect(issued.body.scope).toBe('tools:read');
      const mcp = new Client({ name: 'reader', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${issued.body.access_token}` } } }));
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain(READ_TOOL);
      expect(names).not.toContain(WRITE_TOOL);
      const before = hubspot.requests.length;
      // 403 insufficient_scope (step-up: the attack tests follow it through), and nothing sent upstream.
      await expect(mcp.callTool({ name: WRITE_TOOL, arguments: { mode: 'execute', request_body: '{"properties":{"hs_name":"No"}}' } })).rejects.toThrow(
        /needs tools:write/,
      );
      expect(hubspot.requests.length).toBe(before);
      expect((await mcp.callTool({ name: READ_TOOL, arguments: {} })).isError).toBeFalsy();
      expect(tokenUsers.at(-1)).toBe('bob');
      await mcp.close();
    });

    it('accepts a client described by a client ID metadata document', async () => {
      const documentId = clientDocument(new URL(target.url).origin).client_id;
      const back = await browse(
        authorizeUrl(documentId, { code_challenge: s256(verifier), code_challenge_method: 'S256' }),
        async (page) => {
          await page.waitForSelector('#allow');
          expect(await page.textContent('body')).toContain('Metadata Document Client');
          await page.click('#allow');
        },
        bob,
      );
      const issued = await token({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: target.url,
        client_id: documentId,
        code_verifier: verifier,
      });
      expect(issued.status).toBe(200);
      expect((await mcpStatus(issued.body.access_token!)).status).toBe(200);
    });

    it('shares clients, grants and tokens between engine processes on one database', async () => {
      // A second engine on the same database and master key, behind the same public URL.
      const other = await openEngine({
        config: { ...engine.engine.config, publicUrl: engine.url },
        toolkits: [crmMarketing],
        baseUrls: { CrmMarketingApi: hubspot.url },
        credentials,
      });
      const app = await buildApp(other, allRoutes);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const otherUrl = `http://127.0.0.1:${(app.server.address() as import('node:net').AddressInfo).port}`;
      try {
        const issued = await exchange((await code()).searchParams.get('code')!);
        const status = async (base: string, accessToken: string) => (await mcpStatus(accessToken, '/v1/mcp', base)).status;
        expect(await status(otherUrl, issued.body.access_token!)).toBe(200);
        const refreshed = await fetch(
          `${otherUrl}/oauth/token`,
          form({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token!, client_id: clientId }),
        );
        expect(refreshed.status).toBe(200);
        const next = (await refreshed.json()) as Record<string, string>;
        expect(await status(engine.url, next.access_token!)).toBe(200);
        expect((await fetch(`${otherUrl}/oauth/revoke`, form({ token: next.access_token!, client_id: clientId }))).status).toBe(200);
        expect(await status(engine.url, next.access_token!)).toBe(401);
      } finally {
        await app.close();
        await other.close();
      }
    });

    it('asks for both tool scopes when a client names none, and reports a denial to the client', async () => {
      const issued = await exchange((await code({ scope: undefined })).searchParams.get('code')!);
      expect(issued.body.scope).toBe('tools:read tools:write');

      const registered = await fetch(`${engine.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Declined Client', redirect_uris: [target.url] }),
      });
      const declined = ((await registered.json()) as { client_id: string }).client_id;
      const back = await browse(
        authorizeUrl(declined, { code_challenge: s256(verifier), code_challenge_method: 'S256' }),
        async (page) => {
          await page.waitForSelector('#deny');
          expect(await page.textContent('body')).toContain('Declined Client');
          await page.click('#deny');
        },
        bob,
      );
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('refuses an identity provider answer that this browser did not ask for', async () => {
      const forged = await fetch(`${engine.url}/oauth/sign-in/callback?code=stolen&state=unknown`, { redirect: 'manual' });
      expect(forged.status).toBe(400);
      expect(forged.headers.get('location')).toBeNull();
      expect(await forged.text()).toContain('start again');
    });

    it('lets a single person sign in with an API key', async () => {
      const fresh = await browser!.newContext();
      try {
        const back = await browse(
          authorizeUrl(clientId, { code_challenge: s256(verifier), code_challenge_method: 'S256' }),
          async (page) => {
            await page.fill('#key', 'qk_wrong');
            await page.click('#sign-in-key');
            await page.waitForSelector('[role="alert"]');
            await page.fill('#key', engine.key);
            await page.click('#sign-in-key');
            await page.waitForSelector('#allow');
            expect(await page.textContent('body')).toContain(KEY_USER);
            await page.click('#allow');
          },
          fresh,
        );
        const issued = await exchange(back.searchParams.get('code')!);
        const mcp = new Client({ name: 'local', version: '1.0.0' });
        await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${issued.body.access_token}` } } }));
        await mcp.callTool({ name: READ_TOOL, arguments: {} });
        expect(tokenUsers.at(-1)).toBe(KEY_USER);
        await mcp.close();
      } finally {
        await fresh.close();
      }
    });

    it('signs a user key in as its own user, and refuses a service key', async () => {
      const { createApiKey } = await import('@quiver/engine');
      const userKey = (await createApiKey(engine.engine.store.db, 'kim', { role: 'user', userId: 'kim' })).key;
      const serviceKey = (await createApiKey(engine.engine.store.db, 'backend', { role: 'service' })).key;
      const fresh = await browser!.newContext();
      try {
        const back = await browse(
          authorizeUrl(clientId, { code_challenge: s256(verifier), code_challenge_method: 'S256' }),
          async (page) => {
            await page.fill('#key', serviceKey);
            await page.click('#sign-in-key');
            await page.waitForSelector('[role="alert"]');
            await page.fill('#key', userKey);
            await page.click('#sign-in-key');
            await page.waitForSelector('#allow');
            expect(await page.textContent('body')).toContain('kim');
            await page.click('#allow');
          },
          fresh,
        );
        const issued = await exchange(back.searchParams.get('code')!);
        const mcp = new Client({ name: 'kim', version: '1.0.0' });
        await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${issued.body.access_token}` } } }));
        await mcp.callTool({ name: READ_TOOL, arguments: {} });
        expect(tokenUsers.at(-1)).toBe('kim');
        await mcp.close();
      } finally {
        await fresh.close();
      }
    });
  });
});
