/** `quiver serve`: the MCP streamable HTTP endpoint at /mcp, and a health route. */
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Runtime, Tool } from '@quiver/core';
import { createMcpServer } from './mcp.js';

export function createHttpServer(runtime: Runtime, tools: readonly Tool[]): HttpServer {
  return createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ healthy: true, tool_count: tools.length }));
      return;
    }
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'not_found', message: `No route ${req.method} ${path}` }));
      return;
    }
    try {
      // Stateless: each request gets its own server and transport, so nothing is shared between clients.
      const server = createMcpServer(runtime, tools);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
    } catch (cause) {
      if (!res.headersSent) {
        const bad = cause instanceof SyntaxError;
        res.writeHead(bad ? 400 : 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: bad ? -32700 : -32603, message: bad ? 'Parse error' : 'Internal error' }, id: null }));
      }
    }
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
