/**
 * The authorization server under the findings of the attack run, each a test that failed before its
 * fix, on SQLite and on PostgreSQL: codes and refresh tokens used once however many engine processes
 * redeem them at the same moment, failed redemptions, grants an admin sees and ends, a revoked key ending
 * what it signed in, scope step-up, bounded registration with the redirect URIs the MCP specification
 * allows, and rate limits per client address. The person signs in with an API key through the engine's
 * own pages (the browser suite drives the same pages in Chromium).
 */
import { mkdtempSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { authorizationServerSettings, createApiKey, defaultRateLimits, type RateLimits } from '@quiver/engine';
import { authorize, ClientState, mcpWith, redeem, refresh, registerClient, SignInAsked, walk, type SignInClient } from '@quiver/test-support/engine-sign-in';
import { databases, startTestEngine, testDatabase, type TestEngine } from '@quiver/test-support/harness';
import { Browser } from '@quiver/test-support/oidc';
import { commerceTools } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, startEngineProcess, within } from './engine-process.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

/** Never contacted: the tests read the code from the redirect the engine answers. */
const REDIRECT = 'http://127.0.0.1:9/callback';
const READ_TOOL = 'CommerceTools_GetAvailableProducts';
const WRITE_TOOL = 'CommerceTools_CreateUser';
const unlimited: RateLimits = { register: 0, authorize: 0, token: 0 };

const engineWith = (name: 'sqlite' | 'postgres', settings: Parameters<typeof authorizationServerSettings>[0] = {}, trustedProxies: string[] = []) =>
  startTestEngine(
    name,
    { toolkits: [commerceTools] },
    { authorizationServer: authorizationServerSettings({ rateLimits: unlimited, ...settings }), trustedProxies },
  );

const callTool = (name: string, args: object = {}) => ({ method: 'tools/call', params: { name, arguments: args } });

describe.each(databases)('the authorization server under attack, on $name', ({ name, skip }) => {
  describe.skipIf(skip)('two engine processes on one database', () => {
    /** Two processes on one new database, the second behind the first's address (one issuer). */
    async function pair() {
      const dataDir = mkdtempSync(join(tmpdir(), 'quiver-auth-attack-'));
      const { database, drop } = await testDatabase(name, dataDir);
      const env = { QUIVER_DATA_DIR: dataDir, DATABASE_URL: database, QUIVER_AUTH_RATE_LIMIT: 'register:0,authorize:0,token:0' };
      const a = await startEngineProcess(env);
      const b = await startEngineProcess({ ...env, QUIVER_PUBLIC_URL: a.url });
      const made = await api(a, 'POST', '/v1/admin/api_keys', { name: 'ursula', role: 'user', user_id: 'ursula' });
      expect(made.status).toBe(201);
      const client: SignInClient = { engine: a.url, clientId: await registerClient(a.url, REDIRECT), redirectUri: REDIRECT };
      return { a, b, client, userKey: made.body.key as string, keyId: made.body.id as string, drop };
    }

    it('redeems a code, and a refresh token, exactly once among 16 concurrent requests, and the replays end the grant', async () => {
      const { a, b, client, userKey, drop } = await pair();
      try {
        const browser = new Browser();
        const first = await authorize(client, browser, userKey);
        const redemptions = await Promise.all(Array.from({ length: 16 }, (_, i) => redeem(client, first, i % 2 ? b.url : a.url)));
        const won = redemptions.filter((answer) => answer.status === 200);
        expect(won).toHaveLength(1);
        expect(redemptions.filter((answer) => answer.status === 400 && answer.body.error === 'invalid_grant')).toHaveLength(15);
        const winner = won[0]!.body;
        for (const engine of [a.url, b.url]) expect((await mcpWith(engine, winner.access_token!)).status).toBe(401);
        expect(await refresh(client, winner.refresh_token!, b.url)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

        const second = await redeem(client, await authorize(client, browser, userKey));
        expect(second.status).toBe(200);
        expect((await mcpWith(b.url, second.body.access_token!)).status).toBe(200);
        const refreshes = await Promise.all(Array.from({ length: 16 }, (_, i) => refresh(client, second.body.refresh_token!, i % 2 ? a.url : b.url)));
        const refreshed = refreshes.filter((answer) => answer.status === 200);
        expect(refreshed).toHaveLength(1);
        expect(refreshes.filter((answer) => answer.status === 400 && answer.body.error === 'invalid_grant')).toHaveLength(15);
        const rotated = refreshed[0]!.body;
        for (const token of [rotated.access_token!, second.body.access_token!]) expect((await mcpWith(a.url, token)).status).toBe(401);
        expect(await refresh(client, rotated.refresh_token!, a.url)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      } finally {
        await drop();
      }
    });

    it('lists grants, and ending one or revoking the key that signed it in stops its tokens at once in every process', async () => {
      const { a, b, client, userKey, keyId, drop } = await pair();
      try {
        const browser = new Browser();
        const tokens = (await redeem(client, await authorize(client, browser, userKey))).body;
        expect((await mcpWith(b.url, tokens.access_token!)).status).toBe(200);

        // Its use is noted off the request's path, so the listing may take a moment to show it.
        const grants = () => api(b, 'GET', '/v1/admin/oauth_grants');
        await within(2000, async () => (await grants()).body.items[0]?.last_used_at !== null);
        const listed = await grants();
        expect(listed.status).toBe(200);
        expect(listed.body.items).toEqual([
          {
            id: expect.any(String),
            client_id: client.clientId,
            client_name: 'Attack Test Client',
            user_id: 'ursula',
            scopes: ['tools:read', 'tools:write'],
            resources: [`${a.url}/v1/mcp`],
            api_key: { id: keyId, prefix: userKey.slice(0, 10), name: 'ursula', revoked: false },
            created_at: expect.any(String),
            last_used_at: expect.any(String),
            expires_at: expect.any(String),
          },
        ]);
        const grantId = listed.body.items[0].id as string;
        expect((await api(a, 'GET', '/v1/admin/oauth_grants?user_id=someone-else')).body.total_count).toBe(0);
        expect((await api(a, 'GET', `/v1/admin/oauth_grants?client_id=${client.clientId}&user_id=ursula`)).body.total_count).toBe(1);
        // Not for a user key.
        expect((await api(a, 'GET', '/v1/admin/oauth_grants', undefined, userKey)).status).toBe(403);

        expect((await api(a, 'DELETE', `/v1/admin/oauth_grants/${grantId}`)).status).toBe(204);
        for (const engine of [b.url, a.url]) expect((await mcpWith(engine, tokens.access_token!)).status).toBe(401);
        expect(await refresh(client, tokens.refresh_token!, b.url)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
        expect((await api(b, 'DELETE', `/v1/admin/oauth_grants/${grantId}`)).status).toBe(404);

        // The browser is still signed in: it is asked to consent again, not to sign in, and gets new tokens.
        const again = await authorize(client, browser, undefined);
        expect(again.pages).toEqual(['consent']);
        const renewed = (await redeem(client, again)).body;
        expect((await mcpWith(a.url, renewed.access_token!)).status).toBe(200);

        // Revoking the key ends the grant and the browser's sign-in.
        expect((await api(b, 'DELETE', `/v1/admin/api_keys/${keyId}`)).status).toBe(204);
        for (const engine of [a.url, b.url]) expect((await mcpWith(engine, renewed.access_token!)).status).toBe(401);
        expect(await refresh(client, renewed.refresh_token!, a.url)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
        await expect(authorize(client, browser, undefined)).rejects.toBeInstanceOf(SignInAsked);
        expect((await api(a, 'GET', '/v1/admin/oauth_grants')).body.total_count).toBe(0);
      } finally {
        await drop();
      }
    });
  });

  describe.skipIf(skip)('one engine', () => {
    let engine: TestEngine;
    let client: SignInClient;
    let userKey: string;
    const browser = new Browser();

    beforeAll(async () => {
      if (skip) return;
      engine = await engineWith(name);
      userKey = (await createApiKey(engine.engine.store.db, 'uma', { role: 'user', userId: 'uma' })).key;
      client = { engine: engine.url, clientId: await registerClient(engine.url, REDIRECT), redirectUri: REDIRECT };
    });
    afterAll(() => engine?.close());

    it('ends a sign-in under way when its key is revoked, before the person consents', async () => {
      const { key, info } = await createApiKey(engine.engine.store.db, 'vera', { role: 'user', userId: 'vera' });
      const person = new Browser();
      const open = await authorize(client, person, key, {}, { until: 'consent' });
      expect(open.pages).toEqual(['sign-in', 'consent']);
      expect((await engine.api('DELETE', `/v1/admin/api_keys/${info.id}`)).status).toBe(204);
      // Allowing now finds no sign-in behind the page: no code.
      const uid = /\/oauth\/interaction\/([^/?]+)/.exec(open.back.pathname)![1]!;
      const allowed = await person.fetch(`${engine.url}/oauth/interaction/${uid}/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(allowed.status).toBe(400);
      expect(allowed.headers.get('location')).toBeNull();
      // And the browser is asked to sign in again, with no grant left behind.
      await expect(authorize(client, person, undefined)).rejects.toBeInstanceOf(SignInAsked);
      expect((await engine.api('GET', '/v1/admin/oauth_grants?user_id=vera')).body.total_count).toBe(0);
    });

    it('leaves a refresh token usable when the refresh fails on its resource or scope', async () => {
      const tokens = (await redeem(client, await authorize(client, browser, userKey))).body;
      for (const resource of ['https://elsewhere.example/mcp', `${engine.url}/mcp`]) {
        expect(await refresh(client, tokens.refresh_token!, engine.url, { resource })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
      }
      expect(await refresh(client, tokens.refresh_token!, engine.url, { scope: 'tools:read tools:write openid' })).toMatchObject({
        status: 400,
        body: { error: 'invalid_scope' },
      });
      const next = await refresh(client, tokens.refresh_token!, engine.url, { resource: `${engine.url}/v1/mcp` });
      expect(next.status).toBe(200);
      expect((await mcpWith(engine.url, next.body.access_token!)).status).toBe(200);
    });

    it('uses up a code whose redemption fails, a wrong PKCE verifier included', async () => {
      const wrongVerifier = await authorize(client, browser, userKey);
      expect(await redeem(client, { ...wrongVerifier, verifier: 'x'.repeat(43) })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(await redeem(client, wrongVerifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const wrongRedirect = await authorize(client, browser, userKey);
      expect((await redeem(client, wrongRedirect, engine.url, { redirect_uri: 'http://127.0.0.1:9/other' })).status).toBe(400);
      expect(await redeem(client, wrongRedirect)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // At the token endpoint however its path is spelt.
      const elsewhere = await authorize(client, browser, userKey);
      const spelt = await fetch(`${engine.url}/oauth/Token/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: elsewhere.back.searchParams.get('code')!,
          redirect_uri: REDIRECT,
          client_id: client.clientId,
          code_verifier: 'x'.repeat(43),
        }),
      });
      expect(spelt.status).toBe(400);
      expect(await redeem(client, elsewhere)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('answers a read-only session calling a tool that writes with 403 insufficient_scope, naming the scope to ask for', async () => {
      const reader = (await redeem(client, await authorize(client, browser, userKey, { scope: 'tools:read' }))).body;
      expect(reader.scope).toBe('tools:read');
      expect((await mcpWith(engine.url, reader.access_token!, callTool(READ_TOOL))).status).toBe(200);
      const refused = await mcpWith(engine.url, reader.access_token!, callTool(WRITE_TOOL, { mode: 'get_request_schema' }));
      expect(refused.status).toBe(403);
      expect(refused.challenge).toMatch(/^Bearer /);
      expect(refused.challenge).toContain('error="insufficient_scope"');
      expect(refused.challenge).toContain('scope="tools:read tools:write"');
      expect(refused.challenge).toContain(`resource_metadata="${engine.url}/.well-known/oauth-protected-resource/v1/mcp"`);
      expect(refused.body.message).toContain('scope is tools:read: CommerceTools_CreateUser changes data and needs tools:write');
      expect(refused.body.message).not.toContain('--read-only');
      // Through the discovery meta-tool too.
      const meta = await mcpWith(engine.url, reader.access_token!, callTool('call_tool', { name: WRITE_TOOL, arguments: {} }), '/v1/mcp?discovery=true');
      expect(meta.status).toBe(403);
    });

    it("lets the MCP SDK client step up from tools:read to tools:write on the engine's 403", async () => {
      const sdkClient: SignInClient = { ...client, clientId: await registerClient(engine.url, REDIRECT, { client_name: 'Step-up Client' }) };
      const reader = (await redeem(sdkClient, await authorize(sdkClient, browser, userKey, { scope: 'tools:read' }))).body;
      const state = new ClientState(REDIRECT);
      state.information = { client_id: sdkClient.clientId };
      // A client holding no refresh token: SDK 1.x refreshes first when it holds one, and a refresh
      // cannot widen a scope (RFC 6749 §6), so that client stops at the 403 (see the README).
      const { refresh_token: _notKept, ...held } = reader;
      state.saved = held as unknown as OAuthTokens;
      const mcpUrl = new URL(`${engine.url}/v1/mcp`);
      const connect = async () => {
        const mcp = new Client({ name: 'step-up', version: '1.0.0' });
        await mcp.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: state }));
        return mcp;
      };
      const mcp = await connect();
      expect((await mcp.callTool({ name: READ_TOOL, arguments: {} })).isError).toBeFalsy();
      await expect(mcp.callTool({ name: WRITE_TOOL, arguments: { mode: 'get_request_schema' } })).rejects.toThrow(/Unauthorized/i);
      // The client was sent to authorize again, asking for the scope the challenge named.
      expect(state.authorizationUrl?.searchParams.get('scope')).toBe('tools:read tools:write');
      const consented = await walk(sdkClient, browser, userKey, state.authorizationUrl!.href);
      expect(consented.pages).toEqual(['consent']);
      expect(await auth(state, { serverUrl: mcpUrl, authorizationCode: consented.back.searchParams.get('code')! })).toBe('AUTHORIZED');
      expect(state.saved?.scope).toBe('tools:read tools:write');
      await mcp.close();
      const writer = await connect();
      expect((await writer.callTool({ name: WRITE_TOOL, arguments: { mode: 'get_request_schema' } })).isError).toBeFalsy();
      await writer.close();
    });

    it('registers only HTTPS or loopback redirect URIs, and no field or list without bound', async () => {
      const register = async (metadata: object) => {
        const response = await fetch(`${engine.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(metadata),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      for (const uri of ['http://evil.example/cb', 'http://127.0.0.1.evil.example/cb', 'http://10.0.0.7/cb']) {
        expect(await register({ redirect_uris: [uri] }), uri).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
      }
      expect(await register({ redirect_uris: ['com.example.app:/cb'], application_type: 'native' })).toMatchObject({
        status: 400,
        body: { error: 'invalid_redirect_uri' },
      });
      for (const uri of ['https://client.example/cb', 'http://127.0.0.1:8123/cb', 'http://[::1]:8123/cb', 'http://localhost:8123/cb']) {
        const answer = await register({ redirect_uris: [uri] });
        expect(answer.status, uri).toBe(201);
        expect(answer.body).not.toHaveProperty('registration_access_token');
      }
      expect(await register({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(50_000) })).toMatchObject({
        status: 400,
        body: { error: 'invalid_client_metadata', error_description: expect.stringContaining('client_name') },
      });
      const many = Array.from({ length: 11 }, (_, i) => `https://client.example/cb${i}`);
      expect(await register({ redirect_uris: many })).toMatchObject({ status: 400, body: { error_description: expect.stringContaining('redirect_uris') } });
      const long = (path: string) => `https://client.example/${path}/${'x'.repeat(1900)}`;
      const heavy = {
        redirect_uris: [REDIRECT],
        client_uri: long('a'),
        logo_uri: long('b'),
        tos_uri: long('c'),
        policy_uri: long('d'),
        initiate_login_uri: long('e'),
      };
      expect(await register(heavy)).toMatchObject({ status: 400, body: { error_description: expect.stringContaining('bytes') } });
    });

    it('fetches nothing a registration names: a sector identifier, a JWKS', async () => {
      let connections = 0;
      const listener = createTcpServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const { port } = listener.address() as AddressInfo;
      try {
        for (const field of ['sector_identifier_uri', 'jwks_uri']) {
          const response = await fetch(`${engine.url}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [REDIRECT], [field]: `https://127.0.0.1:${port}/sector` }),
          });
          expect(response.status, field).toBe(400);
          expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining(field) });
        }
        expect(connections).toBe(0);
      } finally {
        listener.close();
      }
    });

    it('forgets a registration no person allowed within a day, and keeps one that was used', async () => {
      const objects = () => engine.engine.store.db.selectFrom('authorization_server_objects').select(['id_hash', 'expires_at']).where('model', '=', 'Client');
      const before = new Set((await objects().execute()).map((row) => row.id_hash));
      const unused = await registerClient(engine.url, REDIRECT);
      const [row] = (await objects().execute()).filter((candidate) => !before.has(candidate.id_hash));
      const expiresIn = Date.parse(row!.expires_at!) - Date.now();
      expect(expiresIn).toBeGreaterThan(23 * 3600_000);
      expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);
      // A client that has been allowed is kept.
      const kept = await engine.engine.store.db
        .selectFrom('authorization_server_objects')
        .select('expires_at')
        .where('model', '=', 'Grant')
        .where('client_id', '=', client.clientId)
        .executeTakeFirst();
      expect(kept).toBeDefined();
      expect((await objects().execute()).filter((candidate) => candidate.expires_at === null).length).toBeGreaterThanOrEqual(1);
      // Time passes: the unused registration is unknown.
      await engine.engine.store.db
        .updateTable('authorization_server_objects')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id_hash', '=', row!.id_hash)
        .execute();
      const refused = await fetch(
        `${engine.url}/oauth/authorize?response_type=code&client_id=${unused}&redirect_uri=${encodeURIComponent(REDIRECT)}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
        { redirect: 'manual' },
      );
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('invalid_client');
    });

    it('matches loopback redirect ports as RFC 8252 §7.3 says for native clients, exactly for web clients', async () => {
      const request = (clientId: string, redirect: string) =>
        fetch(
          `${engine.url}/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(redirect)}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256&scope=tools:read`,
          { redirect: 'manual' },
        );
      const native = await registerClient(engine.url, 'http://127.0.0.1/callback', { application_type: 'native' });
      const web = await registerClient(engine.url, 'http://127.0.0.1:8000/callback');
      expect((await request(native, 'http://127.0.0.1:54321/callback')).status).toBe(303);
      expect((await request(native, 'http://127.0.0.1:54321/other')).status).toBe(400);
      expect((await request(web, 'http://127.0.0.1:8000/callback')).status).toBe(303);
      expect((await request(web, 'http://127.0.0.1:8001/callback')).status).toBe(400);
    });
  });

  describe.skipIf(skip)('rate limits per client address', () => {
    it('answers 429 with Retry-After past the limit at register, authorize and token', async () => {
      const engine = await engineWith(name, { rateLimits: { register: 3, authorize: 4, token: 4 } });
      try {
        const register = () =>
          fetch(`${engine.url}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [REDIRECT] }),
          });
        for (let i = 0; i < 3; i++) expect((await register()).status).toBe(201);
        const limited = await register();
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await limited.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringContaining('try again in') });

        const statuses = [];
        for (let i = 0; i < 5; i++) statuses.push((await fetch(`${engine.url}/oauth/authorize?client_id=x`, { redirect: 'manual' })).status);
        expect(statuses.slice(0, 4)).not.toContain(429);
        expect(statuses[4]).toBe(429);
        const tokens = [];
        for (let i = 0; i < 5; i++) {
          tokens.push(
            (
              await fetch(`${engine.url}/oauth/token`, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: 'grant_type=x',
              })
            ).status,
          );
        }
        expect(tokens).toEqual([400, 400, 400, 400, 429]);
        // However the path is spelt, as oidc-provider's router reads it; revocation counts as the token endpoint.
        for (const path of ['/oauth/register/', '/oauth/REGISTER', '/oauth//register', '/oauth/%72egister']) {
          const response = await fetch(`${engine.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [REDIRECT] }),
          });
          expect(response.status, path).toBe(429);
        }
        for (const path of ['/oauth/token/', '/oauth/Token', '/oauth/revoke']) {
          const response = await fetch(`${engine.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'token=x',
          });
          expect(response.status, path).toBe(429);
        }
        expect((await fetch(`${engine.url}/oauth/authorize/?client_id=x`, { redirect: 'manual' })).status).toBe(429);
        // Pushed authorization requests are not offered at all.
        expect(
          (await fetch(`${engine.url}/oauth/par`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=x' }))
            .status,
        ).not.toBe(201);
        // Without a trusted proxy, X-Forwarded-For changes nothing: the peer's address counts.
        const forwarded = await fetch(`${engine.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
          body: JSON.stringify({ redirect_uris: [REDIRECT] }),
        });
        expect(forwarded.status).toBe(429);
      } finally {
        await engine.close();
      }
    });

    it('counts by the address a trusted proxy forwards for', async () => {
      const engine = await engineWith(name, { rateLimits: { ...defaultRateLimits, register: 1 } }, ['127.0.0.1']);
      try {
        const register = (from: string) =>
          fetch(`${engine.url}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
            body: JSON.stringify({ redirect_uris: [REDIRECT] }),
          });
        expect((await register('203.0.113.7')).status).toBe(201);
        expect((await register('203.0.113.7')).status).toBe(429);
        expect((await register('198.51.100.4')).status).toBe(201);
        // An IPv6 client is counted by its /64: another address of the same block is the same client.
        expect((await register('2001:db8:1:2::1')).status).toBe(201);
        expect((await register('2001:db8:1:2::ffff')).status).toBe(429);
        expect((await register('2001:db8:1:3::1')).status).toBe(201);
      } finally {
        await engine.close();
      }
    });
  });
});
