/**
 * MCP requests as OpenTelemetry's MCP conventions describe them, for every transport (stdio, streamable
 * HTTP): a server span from the request's arrival to its answer, named `{mcp.method.name} {tool}`, a child
 * of the trace context in the request's `params._meta` when the client sent one (else of the HTTP request's
 * span), and `mcp.server.operation.duration` by method. Seen at the transport, so that `initialize`, which
 * the SDK answers itself, counts like any other method.
 */
import type { JSONRPCMessage, Transport } from '#mcp-server';
import { durationHistogram, failed, telemetry } from '@quiver/core';
import type { Span } from '@opentelemetry/api';

/** Methods counted under their own name; any other is `_OTHER`, so that a client cannot add series at will. */
const METHODS = new Set([
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
]);

/** A request's series: method, transport and error type (none for an answer that is not an error). */
const operationDurations = durationHistogram(
  'mcp.server.operation.duration',
  'MCP requests answered, by method and transport (error.type for errors and tool errors).',
  ([method, network, errorType]) => ({ 'mcp.method.name': method!, 'network.transport': network!, ...(errorType && { 'error.type': errorType }) }),
);

/** `pipe` for stdio, `tcp` for streamable HTTP, as the conventions' `network.transport` says. */
export type McpNetwork = 'pipe' | 'tcp';

interface Open {
  method: string;
  started: number;
  span?: Span;
}

/** Watches a connected transport's requests and answers; does nothing while telemetry is off. */
export function observeMcp(transport: Transport, network: McpNetwork): void {
  const { tracer, api } = telemetry;
  const durations = operationDurations();
  if ((!tracer || !api) && !durations) return;
  const open = new Map<string | number, Open>();
  const receive = transport.onmessage;
  const send = transport.send.bind(transport);

  transport.onmessage = (message, extra) => {
    const request = message as { id?: string | number; method?: string; params?: { name?: unknown; _meta?: Record<string, unknown> } };
    if (request.id === undefined || typeof request.method !== 'string') return receive?.(message, extra);
    const method = METHODS.has(request.method) ? request.method : '_OTHER';
    const entry: Open = { method, started: performance.now() };
    open.set(request.id, entry);
    if (!tracer || !api) return receive?.(message, extra);
    const tool = method === 'tools/call' && typeof request.params?.name === 'string' ? request.params.name : undefined;
    const meta = request.params?._meta;
    // The client's own trace, where it sent one (OpenTelemetry's MCP conventions carry it in _meta).
    const parent = meta && typeof meta.traceparent === 'string' ? api.propagation.extract(api.context.active(), meta) : api.context.active();
    entry.span = tracer.startSpan(
      tool ? `${method} ${tool}` : method,
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          'mcp.method.name': method,
          'jsonrpc.request.id': String(request.id),
          'network.transport': network,
          ...(tool && { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' }),
        },
      },
      parent,
    );
    api.context.with(api.trace.setSpan(parent, entry.span), () => receive?.(message, extra));
  };

  transport.send = (message, options) => {
    const answer = message as { id?: string | number; result?: { isError?: boolean }; error?: { code: number } };
    const entry = answer.id !== undefined && (answer.result !== undefined || answer.error !== undefined) ? open.get(answer.id) : undefined;
    if (entry) {
      open.delete(answer.id!);
      finish(entry, answer, network);
    }
    return send(message as JSONRPCMessage, options);
  };

  function finish(entry: Open, answer: { result?: { isError?: boolean }; error?: { code: number } }, network: McpNetwork): void {
    // A tool that failed answers a result with isError: the conventions call that a `tool_error`.
    const errorType = answer.error ? String(answer.error.code) : answer.result?.isError ? 'tool_error' : undefined;
    if (entry.span) {
      if (answer.error) entry.span.setAttribute('rpc.response.status_code', String(answer.error.code));
      if (errorType) failed(entry.span, errorType);
      entry.span.end();
    }
    durations?.record((performance.now() - entry.started) / 1000, [entry.method, network, errorType ?? '']);
  }
}
