/**
 * mcp workers of either era of the protocol, side by side in one engine: a server of the 2026-07-28
 * revision only (SDK 2.x, `server/discover` and per-request `_meta`, `initialize` refused) and one of the
 * 2025 revisions only (SDK 1.x, `initialize`). The engine lists and calls the tools of both, each in the
 * era its server speaks, as each server's own log of what it was sent shows.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer as ModernMcpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const MODERN = '2026-07-28';

/** What a server was sent: each POST's JSON-RPC method (and tool), the protocol version its header named, and the HTTP status it answered. */
interface Seen {
  method: string;
  tool?: string;
  version: string | undefined;
  status: number;
}

interface McpTestServer {
  url: string;
  seen: Seen[];
  /** The eras the SDK 2.x handler built a server for (it builds none for a request it refuses). */
  eras: string[];
  close(): Promise<void>;
}

async function listen(handle: (request: IncomingMessage, response: ServerResponse, body: string) => Promise<void>) {
  const server: Server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    await handle(request, response, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function seen(request: IncomingMessage, body: string, status: number): Seen {
  const message = (body ? JSON.parse(body) : {}) as { method?: string; params?: { name?: string } };
  const version = request.headers['mcp-protocol-version'] as string | undefined;
  return { method: message.method ?? 'response', ...(message.params?.name && { tool: message.params.name }), version, status };
}

/** A 2026-07-28-only server (SDK 2.x, `legacy: 'reject'`) with `mul`, `area.square` and `wait` (answers after 3s), on node:http through the handler's web `fetch`. */
async function startModernServer(): Promise<McpTestServer> {
  const log: Seen[] = [];
  const eras: string[] = [];
  const handler = createMcpHandler(
    ({ era }) => {
      eras.push(era);
      const mcp = new ModernMcpServer({ name: 'modern-calculator', version: '2.0.0' });
      mcp.registerTool('mul', { description: 'Multiplies two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
        content: [{ type: 'text', text: JSON.stringify(a * b) }],
      }));
      mcp.registerTool(
        'area.square',
        {
          description: 'The area of a square.',
          inputSchema: z.object({ side: z.number() }),
          outputSchema: z.object({ area: z.number() }),
        },
        async ({ side }) => ({ content: [{ type: 'text', text: `${side * side}` }], structuredContent: { area: side * side } }),
      );
      mcp.registerTool('wait', { description: 'Answers after 3 seconds.' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 3000).unref());
        return { content: [{ type: 'text', text: 'done' }] };
      });
      return mcp;
    },
    { legacy: 'reject' },
  );
  const server = await listen(async (request, response, body) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    // Logged as it arrives (a call may still be running when its client has given up), its status once answered.
    const entry = request.method === 'POST' ? seen(request, body, 0) : undefined;
    if (entry) log.push(entry);
    const answer = await handler.fetch(new Request(`http://127.0.0.1${request.url}`, { method: request.method, headers, body: hasBody ? body : undefined }));
    const text = await answer.text();
    if (entry) entry.status = answer.status;
    response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text);
  });
  return {
    ...server,
    seen: log,
    eras,
    close: async () => {
      await handler.close();
      await server.close();
    },
  };
}

/** A 2025-only server (SDK 1.x, stateless streamable HTTP) with `add`, as the worker tests' own. */
async function startLegacyServer(): Promise<McpTestServer> {
  const log: Seen[] = [];
  const server = await listen(async (request, response, body) => {
    const mcp = new McpServer({ name: 'legacy-calculator', version: '1.0.0' });
    mcp.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      if (request.method === 'POST') log.push(seen(request, body, response.statusCode));
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body ? JSON.parse(body) : undefined);
  });
  return { ...server, seen: log, eras: [], close: server.close };
}

describe('mcp workers of both eras', () => {
  let engine: TestEngine;
  let modern: McpTestServer;
  let legacy: McpTestServer;

  beforeAll(async () => {
    modern = await startModernServer();
    legacy = await startLegacyServer();
    engine = await startTestEngine('sqlite');
  });
  afterAll(async () => {
    await engine?.close();
    await modern?.close();
    await legacy?.close();
  });

  const execute = async (tool_name: string, input: Record<string, unknown>) => (await engine.api('POST', '/v1/tools/execute', { tool_name, input })).body;
  const names = async (toolkit: string) =>
    (await engine.api('GET', `/v1/tools?toolkit=${toolkit}`)).body.items.map((item: { fully_qualified_name: string }) => item.fully_qualified_name).sort();

  it('lists and calls the tools of a 2026-07-28 server and of a 2025 server', async () => {
    for (const [id, server] of [
      ['modern', modern],
      ['legacy', legacy],
    ] as const) {
      const created = await engine.api('POST', '/v1/workers', { id, type: 'mcp', mcp: { uri: server.url, timeout: 5, retry: 0 } });
      expect(created.status, id).toBe(201);
    }
    expect(await names('modern')).toEqual(['modern.area_square@2.0.0', 'modern.mul@2.0.0', 'modern.wait@2.0.0']);
    expect(await names('legacy')).toEqual(['legacy.add@1.0.0']);

    expect(await execute('modern.mul', { a: 6, b: 7 })).toMatchObject({ success: true, output: { value: 42 } });
    // A provider-safe name goes back to the server as the server named it.
    expect(await execute('modern.area_square', { side: 3 })).toMatchObject({ success: true, output: { value: { area: 9 } } });
    expect(await execute('legacy.add', { a: 2, b: 3 })).toMatchObject({ success: true, output: { value: { sum: 5 } } });
    expect((await engine.api('GET', '/v1/workers/modern/health')).body).toEqual({ id: 'modern', enabled: true, healthy: true, message: 'ok: 3 tools' });
    expect((await engine.api('GET', '/v1/workers/legacy/health')).body).toEqual({ id: 'legacy', enabled: true, healthy: true, message: 'ok: 1 tools' });
  });

  it('spoke to each server in its own era', () => {
    // The 2026-07-28 server: no handshake, every request of that revision, each answered; nothing refused as 2025 traffic.
    expect(modern.seen.length).toBeGreaterThan(0);
    expect(modern.seen.every((request) => request.version === MODERN && request.status === 200)).toBe(true);
    expect(new Set(modern.seen.map((request) => request.method))).toEqual(new Set(['server/discover', 'tools/list', 'tools/call']));
    expect(modern.eras.length).toBeGreaterThan(0);
    expect(modern.eras.every((era) => era === 'modern')).toBe(true);

    // The 2025 server: each session's probe refused, then `initialize`, and every request after it in a 2025 revision.
    const sessions = legacy.seen.filter((request) => request.method === 'initialize').length;
    expect(sessions).toBeGreaterThan(0);
    const probes = legacy.seen.filter((request) => request.method === 'server/discover');
    expect(probes).toHaveLength(sessions);
    expect(probes.every((probe) => probe.version === MODERN && probe.status >= 400 && probe.status < 500)).toBe(true);
    const calls = legacy.seen.filter((request) => request.method === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.version).toMatch(/^2025-/);
    expect(calls[0]!.status).toBe(200);
  });

  it('answers a call the server is too slow for as a timeout, and never sends it again', async () => {
    await engine.api('POST', '/v1/workers', { id: 'slow', type: 'mcp', mcp: { uri: modern.url, timeout: 1, retry: 2 } });
    expect(await names('slow')).toContain('slow.wait@2.0.0');
    expect(await execute('slow.wait', {})).toMatchObject({ success: false, output: { error: { kind: 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT' } } });
    expect(modern.seen.filter((request) => request.tool === 'wait')).toHaveLength(1);
  });

  it('says what the network said when the probe cannot reach the server', async () => {
    const closed = await listen(async () => {});
    await closed.close();
    const tested = await engine.api('POST', '/v1/workers/test', { type: 'mcp', mcp: { uri: closed.url, retry: 0 } });
    expect(tested.body).toMatchObject({ healthy: false, message: expect.stringContaining('ECONNREFUSED') });
  });
});
