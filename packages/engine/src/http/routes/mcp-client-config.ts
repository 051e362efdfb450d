/**
 * How an MCP client reaches this engine: its MCP URL, how a person signs in through the engine's
 * authorization server, and the entry each client wants in its configuration file, remote (HTTP, signed
 * in or with a key) and local (stdio, what `quiver mcp --print-config` prints). Any key may read it: the
 * console's "Connect a client" page shows it. Keys appear only as placeholders, never as values.
 */
import { httpClientConfig, stdioClientConfig, type McpClientName } from '@quiver/core';
import { mcpPaths } from '../../authorization-server/authorization-server.js';
import { anyRole } from '../access.js';
import type { Routes } from '../app.js';

/** The header the MCP endpoint reads the acting user from (routes/mcp.ts), for keys not bound to a user. */
const USER_HEADER = 'Quiver-User-ID';
const KEY_PLACEHOLDER = '<your API key>';
const USER_PLACEHOLDER = '<user id>';

/** The clients the answer has entries for, with their names as people know them; `other` is any other client. */
const clients: { id: McpClientName | 'other'; name: string }[] = [
  { id: 'claude', name: 'Claude' },
  { id: 'cursor', name: 'Cursor' },
  { id: 'vscode', name: 'VS Code' },
  { id: 'other', name: 'Other clients' },
];

/** `quiver` as installed on the PATH: what `quiver mcp --print-config` prints for an installation the client can find by name. */
const installedLauncher = { command: 'quiver', args: [] };

const entry = { type: 'object', additionalProperties: true, description: "An entry for the client's configuration file." } as const;

const configSchema = {
  type: 'object',
  required: ['mcp_url', 'sign_in', 'user_header', 'clients'],
  properties: {
    mcp_url: { type: 'string', description: 'The MCP endpoint: the public URL (QUIVER_PUBLIC_URL), else where the engine listens, and /v1/mcp.' },
    sign_in: {
      type: 'object',
      required: ['authorization_server', 'resource_metadata', 'identity_provider', 'admin_keys_sign_in'],
      properties: {
        authorization_server: { type: 'string', description: "The engine's authorization server (its issuer)." },
        resource_metadata: { type: 'string', description: 'The protected-resource metadata of the MCP URL (RFC 9728), where clients discover it.' },
        identity_provider: { type: ['string', 'null'], description: 'The identity provider people sign in at (QUIVER_OIDC_NAME); null: with a user key only.' },
        admin_keys_sign_in: { type: 'boolean', description: 'Whether an admin key signs in too (QUIVER_AUTH_KEY_USER).' },
      },
    },
    user_header: { type: 'string', description: 'The header naming the acting user, for a service or admin key.' },
    clients: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'http'],
        properties: {
          id: { type: 'string', enum: clients.map((client) => client.id) },
          name: { type: 'string' },
          http: {
            type: 'object',
            description: 'Entries for the MCP URL over streamable HTTP.',
            required: ['sign_in', 'user_key', 'service_key'],
            properties: {
              sign_in: { ...entry, description: 'The client signs its person in through the authorization server: no key in the entry.' },
              user_key: { ...entry, description: 'With a user key, in the Authorization header (a placeholder).' },
              service_key: { ...entry, description: 'With a service or admin key, and the acting user in the user header (placeholders).' },
            },
          },
          stdio: {
            ...entry,
            description: 'A server the client starts on its own machine: what `quiver mcp --print-config` prints where `quiver` is installed.',
          },
        },
      },
    },
  },
} as const;

export const mcpClientConfigRoutes: Routes = (app, engine) => {
  app.get(
    '/v1/mcp_client_config',
    {
      config: anyRole,
      schema: {
        operationId: 'mcp-client-config',
        summary: "How MCP clients connect: the MCP URL, the sign-in, and each client's configuration entry",
        response: { 200: configSchema },
      },
    },
    async () => {
      const server = engine.authorizationServer;
      // The resource the authorization server issues tokens for: the URL a signed-in client must use.
      const url = server.resource(mcpPaths[0]);
      const keyHeaders = { Authorization: `Bearer ${KEY_PLACEHOLDER}` };
      return {
        mcp_url: url,
        sign_in: {
          authorization_server: server.issuer,
          resource_metadata: `${server.issuer}/.well-known/oauth-protected-resource${mcpPaths[0]}`,
          identity_provider: server.settings.identityProvider?.name ?? null,
          admin_keys_sign_in: server.settings.keyUser !== undefined,
        },
        user_header: USER_HEADER,
        clients: clients.map(({ id, name }) => {
          const client = id === 'other' ? undefined : id;
          return {
            id,
            name,
            http: {
              sign_in: httpClientConfig(client, url),
              user_key: httpClientConfig(client, url, keyHeaders),
              service_key: httpClientConfig(client, url, { ...keyHeaders, [USER_HEADER]: USER_PLACEHOLDER }),
            },
            ...(client && { stdio: stdioClientConfig(client, [], installedLauncher) }),
          };
        }),
      };
    },
  );
};
