/**
 * The engine's edges under the security review's attacks: pages of other sites (Origin, DNS rebinding),
 * times the scheduler cannot read unambiguously, inputs it would store that an immediate call refuses (8,000
 * levels deep, lone surrogates), OAuth codes in logs, stack traces in results, login CSRF
 * on an engine that listens beyond loopback. Each test failed before its defence existed.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineToolkit, isLoopback } from '@quiver/core';
import { allRoutes, buildApp, createApiKey, engineConfig, openEngine } from '@quiver/engine';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoHost } from '@quiver/toolkits';

/** A raw request, so that Host and Origin are exactly what a hostile page's browser would send. */
function raw(url: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const broken = defineToolkit(
  {
    name: 'Broken',
    version: '1',
    description: 'A toolkit whose handler throws.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [{ name: 'Fail', description: 'Throws.', parameters: [], output: { description: 'Nothing.' }, requirements: {} }],
  },
  { Fail: async () => JSON.parse('{not json') },
);

/** A tool with a path parameter and a free-form object, to schedule inputs an immediate call would refuse. */
const scheduled = defineToolkit({
  name: 'Scheduled',
  version: '1',
  description: 'A toolkit whose one tool is only ever scheduled here.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [
    {
      name: 'Take',
      description: 'Takes an owner and a filter.',
      parameters: [
        { name: 'owner', description: 'The owner.', required: true, schema: { type: 'string' }, in: 'path' },
        { name: 'filter', description: 'Anything.', required: false, schema: { type: 'object' }, in: 'body' },
      ],
      output: { description: 'Nothing.' },
      requirements: {},
      http: { method: 'POST', path: '/owners/{owner}' },
    },
  ],
});

describe('the engine at its edges', () => {
  let engine: TestEngine;
  const mcpInit = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  beforeAll(async () => {
    engine = await startTestEngine('sqlite', { toolkits: [broken, scheduled] });
  });
  afterAll(() => engine.close());

  describe('Origin and Host', () => {
    it.each([
      ['/v1/mcp', 'a page of another site', { origin: 'https://evil.example' }],
      ['/v1/mcp', 'a rebound DNS name', { host: 'evil.example:9099' }],
      ['/v1/mcp', 'an opaque origin', { origin: 'null' }],
      ['/v1/tools', 'a page of another site', { origin: 'http://evil.example' }],
      ['/v1/tools', 'a rebound DNS name', { host: 'rebind.evil.example' }],
      // A name that starts like a loopback address is a DNS name like any other.
      ['/v1/me', 'a rebound name starting with 127.', { host: '127.0.0.1.evil.example' }],
      ['/v1/me', 'a page of a site named like a loopback address', { origin: 'http://127.0.0.1.evil.example' }],
      ['/oauth/register', 'a rebound name starting with 127.', { host: '127.0.0.1.evil.example:9099' }],
      ['/v1/mcp', 'a rebound subdomain of localhost', { host: 'rebind.localhost' }],
    ])('%s refuses %s with 403, before the API key is looked at', async (path, _case, headers) => {
      const reply = await raw(engine.url, path, { authorization: `Bearer ${engine.key}`, ...mcpHeaders, ...headers }, path === '/v1/mcp' ? mcpInit : undefined);
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.body)).toMatchObject({ name: 'forbidden' });
    });

    it.each([
      ['no Origin (a program)', {}],
      ['a loopback origin', { origin: 'http://localhost:5173' }],
      ['the loopback IP as host', { host: '127.0.0.1:9099', origin: 'http://127.0.0.1:3000' }],
    ])('serves %s', async (_case, headers) => {
      const reply = await raw(engine.url, '/v1/mcp', { authorization: `Bearer ${engine.key}`, ...mcpHeaders, ...headers }, mcpInit);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toMatchObject({ result: { serverInfo: { name: 'quiver' } } });
    });
  });

  it('tells a body sent without its type which type the API reads', async () => {
    const reply = await raw(engine.url, '/v1/tools/execute', { authorization: `Bearer ${engine.key}` }, '{"tool_name":"Broken.Fail"}');
    expect(reply.status).toBe(415);
    expect(JSON.parse(reply.body)).toEqual({
      name: 'bad_request',
      message: expect.stringMatching(/send the body as JSON, with content-type: application\/json$/),
    });
  });

  it('answers GET on the stateless MCP endpoint with 405, opening no stream', async () => {
    for (const path of ['/v1/mcp', '/mcp']) {
      const response = await fetch(`${engine.url}${path}`, { headers: { authorization: `Bearer ${engine.key}`, accept: 'text/event-stream' } });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, DELETE');
      expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('stateless') } });
    }
  });

  describe('run_at', () => {
    it.each(['2030-01-01 10:00 PST', '0', '1', '2030-01-01T10:00:00', '2030-02-30T10:00:00Z', '2030-01-01', 'tomorrow', ''])(
      '%j is refused with 400: only RFC 3339 with an offset',
      async (runAt) => {
        const reply = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Broken.Fail', run_at: runAt });
        expect(reply.status).toBe(400);
        expect(reply.body.message).toContain('run_at must be an RFC 3339 date-time with an offset');
      },
    );

    it.each([
      ['2030-01-01T10:00:00Z', '2030-01-01T10:00:00.000Z'],
      ['2030-01-01T10:00:00-08:00', '2030-01-01T18:00:00.000Z'],
      ['2030-01-01t10:00:00.5+01:30', '2030-01-01T08:30:00.500Z'],
    ])('%s is scheduled at %s', async (runAt, instant) => {
      const reply = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Broken.Fail', run_at: runAt });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ execution_type: 'scheduled', run_at: instant });
    });

    /** The input as JSON text: an 8,000-level value is too deep for this process's own JSON.stringify. */
    const nested = (levels: number) => `{"owner":"o","filter":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
    const execute = async (input: string, runAt?: string) => {
      const body = `{"tool_name":"Scheduled.Take",${runAt ? `"run_at":"${runAt}",` : ''}"input":${input}}`;
      const reply = await raw(engine.url, '/v1/tools/execute', { authorization: `Bearer ${engine.key}`, 'content-type': 'application/json' }, body);
      return { status: reply.status, body: JSON.parse(reply.body) };
    };

    it.each([
      ['an 8,000-level input', nested(8_000), "parameter 'filter' nests deeper than 64 levels"],
      ['a 3,000-level input', nested(3_000), "parameter 'filter' nests deeper than 64 levels"],
      ['a lone surrogate', '{"owner":"\\ud800"}', "parameter 'owner' contains a lone surrogate"],
      ['a lone surrogate deep in a value', '{"owner":"o","filter":{"names":["ok","x\\udc00"]}}', "parameter 'filter.names[1]' contains a lone surrogate"],
      ['a value of the wrong type', '{"owner":5}', "parameter 'owner' must be a string"],
      ['a path value that climbs', '{"owner":".."}', "parameter 'owner' must not be empty, '.' or '..'"],
    ])('%s is refused with 400 naming the parameter, as an immediate call refuses it, and nothing is stored', async (_case, input, problem) => {
      const before = (await engine.api('GET', '/v1/scheduled_tools')).body.total_count;
      const reply = await execute(input, '2030-01-01T10:00:00Z');
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain(problem);
      expect((await engine.api('GET', '/v1/scheduled_tools')).body.total_count).toBe(before);
      const now = await execute(input);
      expect(now.body.output.error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', message: expect.stringContaining(problem) });
    });
  });

  describe('stack traces', () => {
    it('are not in a result unless asked for, and then apart from the developer message', async () => {
      const plain = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Broken.Fail' });
      expect(plain.body.output.error).toMatchObject({ kind: 'TOOL_RUNTIME_FATAL', developer_message: expect.stringMatching(/^SyntaxError: /) });
      expect(plain.body.output.error.stacktrace).toBeUndefined();
      expect(JSON.stringify(plain.body)).not.toMatch(/\.(ts|js):\d+/);

      const asked = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Broken.Fail', include_error_stacktrace: true });
      expect(asked.body.output.error.stacktrace).toMatch(/\.(ts|js):\d+/);
      expect(asked.body.output.error.developer_message).not.toContain('\n');
    });
  });

  describe('the log', () => {
    it('never holds an OAuth code or state', async () => {
      await raw(engine.url, '/v1/oauth/callback?code=secret-code-4711&state=secret-state-0815&iss=x', {});
      const lines = engine.logs.join('');
      expect(lines).toContain('/v1/oauth/callback?code=[redacted]&state=[redacted]&iss=x');
      expect(lines).not.toContain('secret-code-4711');
      expect(lines).not.toContain('secret-state-0815');
    });
  });
});

describe('session verification beyond loopback', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-security-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is on by default, refuses to store a token without a verifier, and is off only by an explicit, logged opt-out', async () => {
    // Built, not started: tests listen on loopback only, and the default follows the configured address.
    const engine = await openEngine({ config: engineConfig({ dataDir, database: join(dataDir, 'quiver.db'), host: '0.0.0.0', port: 0 }) });
    const logs: string[] = [];
    const app = await buildApp(engine, allRoutes, { logger: { level: 'info', stream: { write: (line: string) => void logs.push(line) } } });
    try {
      const { key } = await createApiKey(engine.store.db, 'admin');
      const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
        const reply = await app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${key}` },
          ...(payload !== undefined && { payload: payload as object }),
        });
        return { status: reply.statusCode, body: reply.body ? JSON.parse(reply.body) : undefined };
      };
      expect((await call('GET', '/v1/admin/settings/session_verification')).body).toEqual({ unsafe_skip_verification: false, verifier_url: null });

      const provider = {
        id: 'idp',
        oauth2: {
          client_id: 'c',
          client_secret: 's',
          authorize_request: { endpoint: 'https://idp.example/auth' },
          token_request: { endpoint: 'https://idp.example/token' },
        },
      };
      expect((await call('POST', '/v1/admin/auth_providers', provider)).status).toBe(200);
      const started = await call('POST', '/v1/auth/authorize', { auth_requirement: { id: 'idp' }, user_id: 'alice' });
      const state = new URL(started.body.url).searchParams.get('state')!;
      // The code is never redeemed: the flow fails before the provider is asked for a token.
      const landed = await app.inject({ method: 'GET', url: `/v1/oauth/callback?code=anything&state=${state}` });
      expect(landed.statusCode).toBe(400);
      expect(JSON.parse(landed.body).message).toContain('session verification is on (the engine listens beyond loopback) and no verifier_url is set');
      expect((await call('GET', `/v1/auth/status?id=${started.body.id}`)).body.status).toBe('failed');
      expect(await engine.store.db.selectFrom('connections').selectAll().where('user_id', '=', 'alice').execute()).toEqual([]);
      expect((await engine.oauth.sessionVerification.get()).unsafe_skip_verification).toBe(false);

      expect((await call('PUT', '/v1/admin/settings/session_verification', { unsafe_skip_verification: true })).body).toEqual({
        unsafe_skip_verification: true,
        verifier_url: null,
      });
      expect(logs.join('')).toContain('session verification turned off (unsafe_skip_verification)');
    } finally {
      await app.close();
      await engine.close();
    }
  });
});

describe('loopback', () => {
  it('is 127.0.0.0/8, ::1 and the name localhost, as IP literals and that one name only', () => {
    for (const host of ['127.0.0.1', '127.5.6.7', '::1', '[::1]', 'localhost', 'LOCALHOST', new URL('http://127.0.0.1:9099/x')]) {
      expect(isLoopback(host), String(host)).toBe(true);
    }
    for (const host of ['127.0.0.1.evil.example', '127.evil', 'rebind.localhost', '0.0.0.0', '::', '::ffff:127.0.0.1', '10.0.0.1', '127.1', 'evil.example']) {
      expect(isLoopback(host), host).toBe(false);
    }
  });
});

describe('a password in a URL-valued secret', () => {
  it('never reaches a caller: the address comes back with its user information redacted', async () => {
    const upstream = createServer((request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found', echo: request.headers.authorization }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    const engine = await startTestEngine('sqlite', { toolkits: [repoHost] });
    try {
      expect((await engine.api('POST', '/v1/admin/secrets/GIT_SERVER_URL', { value: `http://ghuser:S3cretPW99@127.0.0.1:${port}` })).status).toBe(200);
      const { key } = await createApiKey(engine.engine.store.db, 'user', { role: 'user', userId: 'u1' });
      const input = { repository_owner: 'o', repository_name: 'r' };
      const answer = await engine.api('POST', '/v1/tools/execute', { tool_name: 'RepoHostApi.GetRepohostRepositoryDetails', input }, `Bearer ${key}`);
      expect(answer.body.output.error).toMatchObject({
        kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
        developer_message: expect.stringContaining('[redacted]@127.0.0.1'),
      });
      expect(JSON.stringify(answer.body)).not.toContain('S3cretPW99');
    } finally {
      await engine.close();
      upstream.close();
    }
  });
});
