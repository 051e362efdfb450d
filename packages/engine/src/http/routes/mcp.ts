/**
 * The MCP endpoint (streamable HTTP) at /v1/mcp and /mcp: the engine's tools, called for the session's
 * user with that user's tokens, whatever a tool's arguments say. The session's user is the signed-in
 * person of an access token (OAuth, within its scopes), a user key's own user (a `Quiver-User-ID` naming
 * another is refused with 403), or else the user the header names. ToolEngineApi is served to admin keys
 * only. Stateless: each request gets its own server.
 * `?discovery=true` lists the discovery meta-tools instead of the tools, `?discovery=false` every tool;
 * without it, the engine's setting (`quiver serve --discovery`) decides.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mcpAuthentication, sessionPolicy } from '../../authorization-server/bearer.js';
import { createMcpServer } from '../../mcp/server.js';
import { actingUser, policyFor } from '../access.js';
import type { Routes } from '../app.js';

export const mcpRoutes: Routes = (app, engine) => {
  const authenticate = mcpAuthentication(engine);
  async function handle(request: FastifyRequest<{ Querystring: { discovery?: boolean } }>, reply: FastifyReply) {
    // An OAuth session acts as its token's user, within its scopes; an API key as its role allows.
    const session = request.oauthSession;
    const userId = session ? session.userId : actingUser(request, headerValue(request.headers['quiver-user-id']));
    const policy = session ? sessionPolicy(policyFor(engine, 'user'), session) : policyFor(engine, request.caller!.role);
    const server = createMcpServer(engine.dispatcher, { userId, policy, discovery: request.query.discovery ?? engine.discovery });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  for (const url of ['/v1/mcp', '/mcp']) {
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url,
      config: { public: true },
      onRequest: authenticate,
      schema: {
        operationId: url === '/v1/mcp' ? 'mcp-endpoint' : 'mcp-endpoint-short',
        summary: 'MCP streamable HTTP; an OAuth access token, or an API key with the acting user in the Quiver-User-ID header',
        hide: url === '/mcp',
        querystring: {
          type: 'object',
          properties: { discovery: { type: 'boolean', description: 'List the search, describe and call meta-tools instead of every tool.' } },
        },
      },
      handler: handle,
    });
  }
};

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
