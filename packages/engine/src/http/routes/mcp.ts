/**
 * The MCP endpoint (streamable HTTP) at /v1/mcp and /mcp: the engine's tools, called for the user the
 * `Quiver-User-ID` header names, with that user's tokens. Stateless: each request gets its own server.
 * `?discovery=true` lists the discovery meta-tools instead of the tools, `?discovery=false` every tool;
 * without it, the engine's setting (`quiver serve --discovery`) decides.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { didYouMean, functionName, suggestToolNames, toolError } from '@quiver/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logFields, runTool } from '../../executions.js';
import { createMcpServer } from '../../mcp/server.js';
import type { Routes } from '../app.js';

export const mcpRoutes: Routes = (app, engine) => {
  async function handle(request: FastifyRequest<{ Querystring: { discovery?: boolean } }>, reply: FastifyReply) {
    const userId = headerValue(request.headers['quiver-user-id']);
    const server = createMcpServer(
      async () => (await engine.catalog.all()).map((entry) => entry.tool),
      async (name, args) => {
        const entry = await engine.catalog.find(name);
        if (!entry) {
          const suggestions = suggestToolNames(name, (await engine.catalog.all()).map((known) => known.tool), 3, functionName);
          return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Unknown tool '${name}'.${didYouMean(suggestions)}`);
        }
        const outcome = await runTool(engine, entry, args, userId, randomUUID());
        request.log.info(logFields(entry, outcome, userId), 'tool executed over MCP');
        return outcome.result;
      },
      { policy: engine.policy, discovery: request.query.discovery ?? engine.discovery },
    );
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
      schema: {
        operationId: url === '/v1/mcp' ? 'mcp-endpoint' : 'mcp-endpoint-short',
        summary: 'MCP streamable HTTP; the acting user in the Quiver-User-ID header',
        hide: url === '/mcp',
        querystring: { type: 'object', properties: { discovery: { type: 'boolean', description: 'List the search, describe and call meta-tools instead of every tool.' } } },
      },
      handler: handle,
    });
  }
};

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
