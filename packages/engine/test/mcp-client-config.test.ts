/**
 * GET /v1/mcp_client_config: the MCP URL, how people sign in, and each client's configuration entry, as the
 * console's "Connect a client" page shows them. The entries work as given: the URL is the resource the
 * authorization server names, and the headers of the key entries act as the engine reads them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { stdioClientConfig } from '@quiver/core';
import { authorizationServerSettings, createApiKey } from '@quiver/engine';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe, probeCredentials } from './probe-toolkit.js';

interface ClientEntries {
  id: string;
  name: string;
  http: { sign_in: object; user_key: object; service_key: object };
  stdio?: object;
}

describe('GET /v1/mcp_client_config', () => {
  let engine: TestEngine;
  let serviceKey: string;
  let userKey: string;

  beforeAll(async () => {
    engine = await startTestEngine('sqlite', {
      toolkits: [probe],
      credentials: probeCredentials,
    });
    serviceKey = (await createApiKey(engine.engine.store.db, 'backend', { role: 'service' })).key;
    userKey = (await createApiKey(engine.engine.store.db, 'carol', { role: 'user', userId: 'carol' })).key;
  });
  afterAll(() => engine?.close());

  const entriesOf = (body: { clients: ClientEntries[] }, id: string) => body.clients.find((client) => client.id === id)!;

  it('answers every key the MCP URL, how people sign in and the entries, with no key in them', async () => {
    const answers = await Promise.all([engine.key, serviceKey, userKey].map((key) => engine.api('GET', '/v1/mcp_client_config', undefined, `Bearer ${key}`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(answers[2]!.body).toEqual(answers[0]!.body);
    expect((await engine.api('GET', '/v1/mcp_client_config', undefined, null)).status).toBe(401);

    const { body } = answers[0]!;
    const url = `${engine.url}/v1/mcp`;
    expect(body.mcp_url).toBe(url);
    expect(body.sign_in).toEqual({
      authorization_server: engine.url,
      resource_metadata: `${engine.url}/.well-known/oauth-protected-resource/v1/mcp`,
      identity_provider: null,
      admin_keys_sign_in: false,
    });
    expect(body.user_header).toBe('Quiver-User-ID');
    for (const key of [engine.key, serviceKey, userKey]) expect(JSON.stringify(body)).not.toContain(key);

    expect(body.clients.map((client: ClientEntries) => [client.id, client.name])).toEqual([
      ['claude', 'Claude'],
      ['cursor', 'Cursor'],
      ['vscode', 'VS Code'],
      ['other', 'Other clients'],
    ]);
    const bearer = { Authorization: 'Bearer <your API key>' };
    const withUser = { ...bearer, 'Quiver-User-ID': '<user id>' };
    expect(entriesOf(body, 'claude').http).toEqual({
      sign_in: { mcpServers: { quiver: { type: 'http', url } } },
      user_key: { mcpServers: { quiver: { type: 'http', url, headers: bearer } } },
      service_key: { mcpServers: { quiver: { type: 'http', url, headers: withUser } } },
    });
    expect(entriesOf(body, 'cursor').http.sign_in).toEqual({ mcpServers: { quiver: { url } } });
    expect(entriesOf(body, 'vscode').http.service_key).toEqual({ servers: { quiver: { type: 'http', url, headers: withUser } } });
    expect(entriesOf(body, 'other').http.user_key).toEqual({ url, headers: bearer });

    // Local entries: what `quiver mcp --print-config <client>` prints where `quiver` on the PATH is the installation.
    expect(entriesOf(body, 'claude').stdio).toEqual({ mcpServers: { quiver: { command: 'quiver', args: ['mcp'] } } });
    expect(entriesOf(body, 'vscode').stdio).toEqual({ servers: { quiver: { type: 'stdio', command: 'quiver', args: ['mcp'] } } });
    for (const client of ['claude', 'cursor', 'vscode'] as const)
      expect(entriesOf(body, client).stdio).toEqual(stdioClientConfig(client, [], { command: 'quiver', args: [] }));
    expect(entriesOf(body, 'other').stdio).toBeUndefined();
  });

  it('points a client without a key at the sign-in it names: the URL is the resource the authorization server issues tokens for', async () => {
    const { body } = await engine.api('GET', '/v1/mcp_client_config');
    const refused = await fetch(body.mcp_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${body.sign_in.resource_metadata}"`);
    const metadata = await (await fetch(body.sign_in.resource_metadata)).json();
    expect(metadata).toMatchObject({ resource: body.mcp_url, authorization_servers: [body.sign_in.authorization_server] });
  });

  it('gives key entries whose headers work as written: a service key acts as the user its header names, a user key as its own', async () => {
    const { body } = await engine.api('GET', '/v1/mcp_client_config');
    const other = entriesOf(body, 'other').http;
    async function actingAs(entry: object, key: string): Promise<unknown> {
      const filled = JSON.parse(JSON.stringify(entry).replace('<your API key>', key).replace('<user id>', 'dave')) as {
        url: string;
        headers: Record<string, string>;
      };
      const client = new Client({ name: 'connect-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${filled.url}?discovery=false`), { requestInit: { headers: filled.headers } }));
      try {
        const result = await client.callTool({ name: 'Probe_WhoAmI', arguments: {} });
        return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
      } finally {
        await client.close();
      }
    }
    expect(await actingAs(other.service_key, serviceKey)).toEqual({ acting_as: 'dave' });
    expect(await actingAs(other.user_key, userKey)).toEqual({ acting_as: 'carol' });
  });

  it('names the public URL, the identity provider and whether admin keys sign in, when they are set', async () => {
    const configured = await startTestEngine(
      'sqlite',
      {},
      {
        publicUrl: 'https://quiver.example.com/',
        authorizationServer: authorizationServerSettings({
          identityProvider: { issuer: 'https://id.example.com', clientId: 'quiver', scopes: ['openid'], name: 'Example ID' },
          keyUser: 'owner@example.com',
        }),
      },
    );
    try {
      const { body } = await configured.api('GET', '/v1/mcp_client_config');
      expect(body.mcp_url).toBe('https://quiver.example.com/v1/mcp');
      expect(body.sign_in).toEqual({
        authorization_server: 'https://quiver.example.com',
        resource_metadata: 'https://quiver.example.com/.well-known/oauth-protected-resource/v1/mcp',
        identity_provider: 'Example ID',
        admin_keys_sign_in: true,
      });
      expect(entriesOf(body, 'cursor').http.sign_in).toEqual({ mcpServers: { quiver: { url: 'https://quiver.example.com/v1/mcp' } } });
      // Who the admin key signs in as is not for every key to read.
      expect(JSON.stringify(body)).not.toContain('owner@example.com');
    } finally {
      await configured.close();
    }
  });

  it('is in the OpenAPI document', async () => {
    const openapi = await engine.api('GET', '/v1/openapi', undefined, null);
    expect(openapi.body.paths['/v1/mcp_client_config'].get.operationId).toBe('mcp-client-config');
  });
});
