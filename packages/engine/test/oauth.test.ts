/**
 * OAuth 2.0 end to end against a real authorization server (oidc-provider on loopback: PKCE required,
 * rotating refresh tokens, 62 s access tokens that the engine refreshes within 60 s of expiry), a
 * resource server that checks each bearer token with that authorization server, and a scripted
 * browser that logs in and consents through the server's own interaction pages.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { authorizationServer, Browser, checkTokens, CLIENT_SECRET, listen, providerSettings, tool, upstreamToolkit } from '@quiver/test-support/oidc';
import type Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAuthProviders } from '../src/auth/providers.js';

describe.each(databases)('OAuth on $name', ({ name, skip }) => {
  let engine: TestEngine;
  let issuer: string;
  let provider: Provider;
  let asServer: Server;
  let upstream: Server;
  let verifier: Server;
  let verifierUrl: string;
  let callback: string;
  /** Every bearer token the upstream saw, in order. */
  const seen: string[] = [];
  /** Every response body the API gave, to look for secrets in. */
  const bodies: string[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const result = await engine.api(method, path, body);
    bodies.push(JSON.stringify(result.body ?? ''));
    return result;
  };
  const execute = (toolName: string, user: string) => api('POST', '/v1/tools/execute', { tool_name: toolName, user_id: user });
  const connectionOf = (user: string) =>
    engine.engine.store.db.selectFrom('connections').selectAll().where('user_id', '=', user).where('provider_id', '=', 'testidp').executeTakeFirst();
  /** Drives the browser through the flow and delivers the redirect to the engine. */
  const consent = async (url: string, account: string) => {
    const back = await new Browser().authorize(url, account, callback);
    return fetch(back, { redirect: 'manual' });
  };

  beforeAll(async () => {
    if (skip) return;
    asServer = createServer();
    upstream = createServer();
    verifier = createServer((_req, res) => res.end('verifier'));
    issuer = await listen(asServer);
    const upstreamUrl = await listen(upstream);
    verifierUrl = `${await listen(verifier)}/verify`;

    const toolkit = upstreamToolkit(upstreamUrl, [tool('WhoAmI', ['read']), tool('Write', ['write'])]);
    engine = await startTestEngine(name, { toolkits: [toolkit], credentials: undefined });
    callback = `${engine.url}/v1/oauth/callback`;

    provider = authorizationServer(issuer, callback);
    asServer.on('request', provider.callback());

    upstream.on(
      'request',
      checkTokens(provider, (token) => seen.push(token)),
    );

    const created = await api('POST', '/v1/admin/auth_providers', {
      id: 'testidp',
      description: 'Test authorization server',
      oauth2: providerSettings(issuer),
    });
    expect(created.status).toBe(200);
  });

  afterAll(async () => {
    await engine?.close();
    for (const server of [asServer, upstream, verifier]) server?.closeAllConnections();
    await Promise.all([asServer, upstream, verifier].map((server) => server && new Promise((resolve) => server.close(resolve))));
  });

  it.skipIf(skip)('keeps the client secret sealed: providers read back with {exists, editable}', async () => {
    const { body } = await api('GET', '/v1/admin/auth_providers/testidp');
    expect(body.oauth2).toMatchObject({
      client_id: 'quiver',
      client_secret: { exists: true, editable: true },
      redirect_uri: callback,
      pkce: { enabled: true },
    });
    const row = await engine.engine.store.db.selectFrom('auth_providers').selectAll().where('id', '=', 'testidp').executeTakeFirstOrThrow();
    expect(row.client_secret_ciphertext).not.toContain(CLIENT_SECRET);
    expect(engine.engine.vault.open(row.client_secret_ciphertext!)).toBe(CLIENT_SECRET);
  });

  it.skipIf(skip)('fills in presets from a client id and secret, and edits and deletes providers', async () => {
    const created = await api('POST', '/v1/admin/auth_providers', { id: 'github', oauth2: { client_id: 'gh-client', client_secret: CLIENT_SECRET } });
    expect(created.body).toMatchObject({
      id: 'github',
      provider_id: 'github',
      oauth2: {
        authorize_request: { endpoint: 'https://github.com/login/oauth/authorize' },
        token_request: { endpoint: 'https://github.com/login/oauth/access_token' },
        client_secret: { exists: true },
      },
    });
    expect((await api('POST', '/v1/admin/auth_providers', { id: 'github', oauth2: { client_id: 'again' } })).status).toBe(409);
    expect((await api('POST', '/v1/admin/auth_providers', { id: 'custom', oauth2: { client_id: 'x' } })).body.name).toBe('bad_request');
    expect(
      (
        await api('POST', '/v1/admin/auth_providers', {
          id: 'plain',
          oauth2: { client_id: 'x', authorize_request: { endpoint: 'http://example.com/a' }, token_request: { endpoint: 'https://example.com/t' } },
        })
      ).status,
    ).toBe(400);
    const patched = await api('PATCH', '/v1/admin/auth_providers/github', { description: 'GitHub (test)', oauth2: { client_secret: '' } });
    expect(patched.body).toMatchObject({ description: 'GitHub (test)', oauth2: { client_id: 'gh-client', client_secret: { exists: false } } });
    const list = await api('GET', '/v1/admin/auth_providers');
    expect(list.body).toMatchObject({ total_count: 2, offset: 0 });
    expect((await api('DELETE', '/v1/admin/auth_providers/github')).body.id).toBe('github');
    expect((await api('GET', '/v1/admin/auth_providers/github')).status).toBe(404);
  });

  it.skipIf(skip)('runs the whole flow: pending tool call, login and consent, sealed tokens, tool call, refresh', async () => {
    const first = await execute('Upstream.WhoAmI', 'alice');
    expect(first.body).toMatchObject({
      success: false,
      output: {
        error: { kind: 'TOOL_REQUIREMENTS_NOT_MET' },
        authorization: { status: 'pending', provider_id: 'testidp', user_id: 'alice', scopes: ['read'] },
      },
    });
    const { id, url } = first.body.output.authorization;
    const request = new URL(url);
    expect(request.origin + request.pathname).toBe(`${issuer}/auth`);
    expect(Object.fromEntries(request.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'quiver',
      redirect_uri: callback,
      scope: 'read',
      code_challenge_method: 'S256',
    });
    expect(url).not.toContain(CLIENT_SECRET);

    // The challenge is S256 of the verifier the engine keeps sealed.
    const row = await engine.engine.store.db.selectFrom('authorizations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.state).toBe(request.searchParams.get('state'));
    const codeVerifier = engine.engine.vault.open(row.code_verifier_ciphertext);
    expect(createHash('sha256').update(codeVerifier).digest('base64url')).toBe(request.searchParams.get('code_challenge'));

    // The same call again hands out the same authorization.
    expect((await execute('Upstream.WhoAmI', 'alice')).body.output.authorization.id).toBe(id);

    // A long poll that answers as soon as the flow completes.
    const started = Date.now();
    const polled = api('GET', `/v1/auth/status?id=${id}&wait=30`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const landing = await consent(url, 'alice-account');
    expect(landing.status).toBe(200);
    expect(await landing.text()).toMatch(/close this window/);
    const status = await polled;
    expect(status.body).toMatchObject({ id, status: 'completed', user_id: 'alice' });
    expect(status.body.url).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(10_000);

    // Tokens are sealed at rest.
    const connection = await connectionOf('alice');
    expect(connection).toBeDefined();
    const accessToken = engine.engine.vault.open(connection!.access_token_ciphertext);
    expect(connection!.access_token_ciphertext).not.toContain(accessToken);
    expect(connection!.refresh_token_ciphertext).toBeTruthy();
    expect(engine.engine.vault.open(connection!.refresh_token_ciphertext!)).not.toBe(connection!.refresh_token_ciphertext);
    expect(JSON.parse(connection!.scopes)).toEqual(['read']);

    const second = await execute('Upstream.WhoAmI', 'alice');
    expect(second.body).toMatchObject({ success: true, output: { value: { account: 'alice-account' } } });
    expect(JSON.stringify(second.body)).not.toContain(accessToken);
    const definition = await api('GET', '/v1/tools/Upstream.WhoAmI?user_id=alice');
    expect(definition.body.requirements.met).toBe(true);

    // 62 s tokens are refreshed from 60 s before expiry: after two seconds the next call refreshes.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const third = await execute('Upstream.WhoAmI', 'alice');
    expect(third.body).toMatchObject({ success: true, output: { value: { account: 'alice-account' } } });
    const refreshed = await connectionOf('alice');
    expect(engine.engine.vault.open(refreshed!.access_token_ciphertext)).not.toBe(accessToken);
    expect(seen.at(-1)).toBe(engine.engine.vault.open(refreshed!.access_token_ciphertext));
    // The refresh token rotated.
    expect(engine.engine.vault.open(refreshed!.refresh_token_ciphertext!)).not.toBe(engine.engine.vault.open(connection!.refresh_token_ciphertext!));
  });

  it.skipIf(skip)("never uses one user's token for another", async () => {
    const bob = await execute('Upstream.WhoAmI', 'bob');
    expect(bob.body).toMatchObject({ success: false, output: { authorization: { status: 'pending', user_id: 'bob' } } });
    await consent(bob.body.output.authorization.url, 'bob-account');
    expect((await execute('Upstream.WhoAmI', 'bob')).body.output.value.account).toBe('bob-account');
    expect((await execute('Upstream.WhoAmI', 'alice')).body.output.value.account).toBe('alice-account');
    expect((await api('GET', '/v1/tools/Upstream.WhoAmI?user_id=nobody')).body.requirements.met).toBe(false);
  });

  it.skipIf(skip)('asks for the union of held and new scopes, and answers completed when they are held', async () => {
    const write = await execute('Upstream.Write', 'alice');
    const authorization = write.body.output.authorization;
    expect(authorization.scopes).toEqual(['read', 'write']);
    expect(new URL(authorization.url).searchParams.get('scope')).toBe('read write');
    await consent(authorization.url, 'alice-account');
    expect(JSON.parse((await connectionOf('alice'))!.scopes).sort()).toEqual(['read', 'write']);
    expect((await execute('Upstream.Write', 'alice')).body.success).toBe(true);
    expect((await execute('Upstream.WhoAmI', 'alice')).body.success).toBe(true);

    const held = await api('POST', '/v1/auth/authorize', { auth_requirement: { provider_id: 'testidp', oauth2: { scopes: ['write'] } }, user_id: 'alice' });
    expect(held.body).toMatchObject({ status: 'completed', scopes: ['read', 'write'] });
    expect(held.body.url).toBeUndefined();
    const byTool = await api('POST', '/v1/tools/authorize', { tool_name: 'Upstream.Write', user_id: 'alice' });
    expect(byTool.body.status).toBe('completed');
  });

  it.skipIf(skip)('refuses a callback whose state does not match, and one that comes twice', async () => {
    const started = await api('POST', '/v1/auth/authorize', {
      auth_requirement: { id: 'testidp', oauth2: { scopes: ['read'] } },
      user_id: 'carol',
      next_uri: 'https://app.example/done',
    });
    expect(started.body.status).toBe('pending');
    const back = new URL(await new Browser().authorize(started.body.url, 'carol-account', callback));
    const forged = new URL(back);
    forged.searchParams.set('state', 'forged-state');
    const refused = await fetch(forged, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ name: 'invalid_state' });
    expect((await api('GET', `/v1/auth/status?id=${started.body.id}`)).body.status).toBe('pending');

    const accepted = await fetch(back, { redirect: 'manual' });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('https://app.example/done');
    expect((await api('GET', `/v1/auth/status?id=${started.body.id}`)).body.status).toBe('completed');
    const replay = await fetch(back, { redirect: 'manual' });
    expect(replay.status).toBe(400);
  });

  it.skipIf(skip)('marks the authorization failed when the user denies it', async () => {
    const started = await api('POST', '/v1/auth/authorize', { auth_requirement: { provider_id: 'testidp', oauth2: { scopes: ['read'] } }, user_id: 'dan' });
    const back = await new Browser().authorize(started.body.url, 'dan-account', callback, { deny: true });
    const response = await fetch(back, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ name: 'authorization_failed', message: expect.stringContaining('access_denied') });
    expect((await api('GET', `/v1/auth/status?id=${started.body.id}&wait=5`)).body.status).toBe('failed');
  });

  it.skipIf(skip)('lists and deletes connections; a deleted connection needs a new authorization', async () => {
    const all = await api('GET', '/v1/admin/user_connections');
    expect(all.body.total_count).toBeGreaterThanOrEqual(3);
    const bobs = await api('GET', '/v1/admin/user_connections?user_id=bob&provider_id=testidp');
    expect(bobs.body.items).toEqual([
      {
        id: expect.any(String),
        connection_id: expect.any(String),
        connection_status: 'active',
        provider_id: 'testidp',
        provider_description: 'Test authorization server',
        provider_type: 'oauth2',
        scopes: ['read'],
        user_id: 'bob',
      },
    ]);
    expect((await api('DELETE', `/v1/admin/user_connections/${bobs.body.items[0].id}`)).status).toBe(204);
    expect((await api('DELETE', `/v1/admin/user_connections/${bobs.body.items[0].id}`)).status).toBe(404);
    const after = await execute('Upstream.WhoAmI', 'bob');
    expect(after.body).toMatchObject({ success: false, output: { authorization: { status: 'pending', user_id: 'bob' } } });
  });

  it.skipIf(skip)('starts a new authorization when the grant was revoked at the server and the refresh fails', async () => {
    const connection = (await connectionOf('carol'))!;
    const revocation = await fetch(`${issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`quiver:${CLIENT_SECRET}`).toString('base64')}` },
      body: new URLSearchParams({ token: engine.engine.vault.open(connection.refresh_token_ciphertext!), token_type_hint: 'refresh_token' }),
    });
    expect(revocation.status).toBe(200);
    // Make the access token due for refresh.
    await engine.engine.store.db
      .updateTable('connections')
      .set({ expires_at: new Date(Date.now() + 1_000).toISOString() })
      .where('id', '=', connection.id)
      .execute();
    const call = await execute('Upstream.WhoAmI', 'carol');
    expect(call.body).toMatchObject({ success: false, output: { authorization: { status: 'pending', user_id: 'carol', scopes: ['read'] } } });
    expect((await connectionOf('carol'))!.refresh_token_ciphertext).toBeNull();
  });

  it.skipIf(skip)('verifies the session when a verifier URL is set', async () => {
    expect((await api('GET', '/v1/admin/settings/session_verification')).body).toEqual({ unsafe_skip_verification: true, verifier_url: null });
    expect((await api('PUT', '/v1/admin/settings/session_verification', { unsafe_skip_verification: false })).status).toBe(400);
    expect((await api('PUT', '/v1/admin/settings/session_verification', { verifier_url: verifierUrl })).body).toEqual({
      unsafe_skip_verification: false,
      verifier_url: verifierUrl,
    });

    const flow = async (user: string) => {
      const started = await api('POST', '/v1/auth/authorize', {
        auth_requirement: { provider_id: 'testidp', oauth2: { scopes: ['read'] } },
        user_id: user,
        next_uri: 'https://app.example/next',
      });
      const landing = await consent(started.body.url, `${user}-account`);
      expect(landing.status).toBe(303);
      const location = new URL(landing.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(verifierUrl);
      return { id: started.body.id as string, flowId: location.searchParams.get('flow_id')! };
    };

    // The browser that completed erin's flow belongs to someone else: nothing is stored.
    const stolen = await flow('erin');
    expect((await api('GET', `/v1/auth/status?id=${stolen.id}`)).body.status).toBe('pending');
    expect(await connectionOf('erin')).toBeUndefined();
    const mismatch = await api('POST', '/v1/auth/confirm_user', { flow_id: stolen.flowId, user_id: 'mallory' });
    expect(mismatch.status).toBe(403);
    expect((await api('GET', `/v1/auth/status?id=${stolen.id}`)).body.status).toBe('failed');
    expect(await connectionOf('erin')).toBeUndefined();

    const genuine = await flow('erin');
    const confirmed = await api('POST', '/v1/auth/confirm_user', { flow_id: genuine.flowId, user_id: 'erin' });
    expect(confirmed.body).toEqual({ auth_id: genuine.id, next_uri: 'https://app.example/next' });
    expect((await api('GET', `/v1/auth/status?id=${genuine.id}`)).body.status).toBe('completed');
    expect((await execute('Upstream.WhoAmI', 'erin')).body.output.value.account).toBe('erin-account');
    expect((await api('POST', '/v1/auth/confirm_user', { flow_id: genuine.flowId, user_id: 'erin' })).status).toBe(404);

    expect((await api('PUT', '/v1/admin/settings/session_verification', { unsafe_skip_verification: true })).body).toEqual({
      unsafe_skip_verification: true,
      verifier_url: null,
    });
  });

  it.skipIf(skip)('needs an API key everywhere but the callback', async () => {
    expect((await engine.api('GET', '/v1/admin/auth_providers', undefined, null)).status).toBe(401);
    expect((await engine.api('GET', '/v1/admin/user_connections', undefined, null)).status).toBe(401);
    expect((await engine.api('POST', '/v1/auth/authorize', {}, null)).status).toBe(401);
    expect((await engine.api('GET', '/v1/oauth/callback?state=nope', undefined, null)).body).toMatchObject({ name: 'invalid_state' });
  });

  it.skipIf(skip)('never answers a client secret or a token', async () => {
    const tokens = (await engine.engine.store.db.selectFrom('connections').selectAll().execute()).flatMap((c) => [
      engine.engine.vault.open(c.access_token_ciphertext),
      ...(c.refresh_token_ciphertext ? [engine.engine.vault.open(c.refresh_token_ciphertext)] : []),
    ]);
    expect(bodies.length).toBeGreaterThan(30);
    for (const body of bodies) {
      expect(body).not.toContain(CLIENT_SECRET);
      for (const token of [...tokens, ...seen]) expect(body).not.toContain(token);
    }
  });
});

describe('parseAuthProviders', () => {
  it('checks the authProviders of a config file and completes them from the presets', () => {
    const file = 'quiver.config.json';
    expect(
      parseAuthProviders(
        [
          { id: 'gh', provider_id: 'github', client_id: 'a', client_secret: 'b' },
          { id: 'microsoft', oauth2: { client_id: 'm' } },
        ],
        file,
      ),
    ).toEqual([
      { id: 'gh', provider_id: 'github', oauth2: { client_id: 'a', client_secret: 'b' } },
      { id: 'microsoft', oauth2: { client_id: 'm' } },
    ]);
    expect(() => parseAuthProviders([{ id: 'custom', client_id: 'a' }], file)).toThrow(/quiver.config.json: authProviders\[0\].*endpoint is required/);
    expect(() => parseAuthProviders({ id: 'gh' }, file)).toThrow(/authProviders must be an array/);
  });
});
