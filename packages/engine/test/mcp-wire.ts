/** MCP on the wire, for tests where the wire itself is the point: 2026-07-28 requests as a client sends them. */
import { createServer } from 'node:http';
import type { ToolData } from '@quiver/core';
import type { TestEngine } from '@quiver/test-support/harness';
import { listen, tool, upstreamToolkit } from '@quiver/test-support/oidc';

export const MODERN = '2026-07-28';

/** A 2026-07-28 request: the envelope in `_meta` (with the client's capabilities), the method and tool in headers. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, capabilities: object = {}) {
  const named = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(named !== undefined && { 'mcp-name': named }),
      ...headers,
    },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    },
  };
}

/** Posts a request to the engine's /v1/mcp with its key, acting for `user`; the JSON answer, as a response or an SSE event. */
export async function postMcp(engine: TestEngine, request: ReturnType<typeof modernRequest>, user = 'ada', signal?: AbortSignal) {
  const response = await fetch(`${engine.url}/v1/mcp`, {
    method: 'POST',
    headers: { ...request.headers, authorization: `Bearer ${engine.key}`, 'quiver-user-id': user },
    body: JSON.stringify(request.body),
    signal,
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .at(-1)!
        .slice(6)
    : text;
  return { status: response.status, headers: response.headers, body: JSON.parse(json) as any };
}

/** A request the held upstream keeps: its path, whether the engine gave up on it, and the answer to give it. */
export interface HeldRequest {
  path: string;
  /** Settles once the engine closed the request before it was answered. */
  aborted: Promise<void>;
  answer(): void;
}

/**
 * An upstream that answers nothing until told (`{"ok":true}`), with its toolkit `Upstream`: `Read` (GET,
 * read-only) and `Write` (POST). `arrived()` is the next request it holds.
 */
export async function heldUpstream() {
  const held: HeldRequest[] = [];
  const server = createServer((request, response) => {
    let answered = false;
    held.push({
      path: request.url!,
      aborted: new Promise<void>((resolve) => response.on('close', () => answered || resolve())),
      answer: () => {
        answered = true;
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      },
    });
  });
  const url = await listen(server);
  const tools: ToolData[] = [
    { ...tool('Read', []), requirements: {}, http: { method: 'GET', path: '/read' }, annotations: { readOnlyHint: true } },
    { ...tool('Write', []), requirements: {}, http: { method: 'POST', path: '/write' }, annotations: { readOnlyHint: false, destructiveHint: false } },
  ];
  return {
    toolkit: upstreamToolkit(url, tools),
    arrived: () =>
      new Promise<HeldRequest>((resolve) => {
        const wait = () => (held.length ? resolve(held.shift()!) : setTimeout(wait, 10));
        wait();
      }),
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
