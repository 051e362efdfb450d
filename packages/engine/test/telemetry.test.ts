/**
 * OpenTelemetry end to end, exported to an OTLP/HTTP receiver on loopback: one trace per call, whoever
 * makes it, its spans nested server -> dispatch -> upstream attempt; a retry as a second attempt span; the
 * trace carried to an HTTP worker and an MCP worker; a scheduled run linked to the request that scheduled
 * it; trace ids in the log lines; the metrics at GET /metrics and over OTLP; and no token, key, secret,
 * filled path or query value in any span, metric or log line, with an upstream that echoes credentials.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { defineToolkit, type ToolkitData } from '@quiver/core';
import { createApiKey, sandboxCredentials, startWorkerServer, type WorkerServer } from '@quiver/engine';
import { startTelemetry, telemetrySettings, type Telemetry } from '@quiver/engine/telemetry';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@quiver/test-support/otlp-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOKEN = 'tok_SECRET_4711_oauth';
const SECRET = 'sk_SECRET_0815_apikey';
const WORKER_SECRET = 'worker-secret-0123456789abcdef';
/** Values of a filled path and a query: spans name the template, never these. */
const ITEM = 'item-7f3a-private';
const QUERY = 'needle-q9-private';
const USER = 'user-ada-77';
const SERVER = 2;
/** How far two spans' clocks may disagree: their anchors are whole milliseconds. */
const CLOCK_NS = 1_000_000n;
const CLIENT = 3;

/** A loopback upstream that echoes the credentials it receives, and fails a /flaky item's first request with 503. */
async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const seen = new Set<string>();
  const server: Server = createServer((request, response) => {
    if (request.url?.startsWith('/flaky/') && !seen.has(request.url)) {
      seen.add(request.url);
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"try again"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: request.url, authorization: request.headers.authorization }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const item = { name: 'item_id', description: 'The item.', required: true, schema: { type: 'string' }, in: 'path' } as const;
const query = { name: 'q', description: 'A filter.', required: false, schema: { type: 'string' }, in: 'query' } as const;
const oauth = { oauth2: { provider: 'tracer', scopes: [] } };

function tracedToolkit(name: string, baseUrl: string): ToolkitData {
  return {
    name,
    version: '1',
    description: 'Tools against a loopback upstream.',
    baseUrl,
    tools: [
      {
        name: 'GetItem',
        description: 'Reads an item.',
        parameters: [item, query],
        output: { description: 'The item.' },
        requirements: oauth,
        http: { method: 'GET', path: '/items/{item_id}' },
      },
      {
        name: 'GetKeyed',
        description: 'Reads an item with an API key.',
        parameters: [item],
        output: { description: 'The item.' },
        requirements: { secrets: [{ key: 'TRACED_API_KEY' }] },
        http: { method: 'GET', path: '/keyed/{item_id}', auth: { secret: 'TRACED_API_KEY' } },
      },
      {
        name: 'GetFlaky',
        description: 'Reads an item whose first answer is a 503.',
        parameters: [item],
        output: { description: 'The item.' },
        requirements: oauth,
        http: { method: 'GET', path: '/flaky/{item_id}' },
      },
    ],
  };
}

/** An MCP server that keeps the headers and the `_meta` of every call it gets. */
async function startMcpWorker(): Promise<{ url: string; headers: IncomingHttpHeaders[]; metas: unknown[]; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const metas: unknown[] = [];
  const server = createServer(async (request, response) => {
    headers.push(request.headers);
    const mcp = new McpServer({ name: 'echo', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Answers ok.' }, async (extra) => {
      metas.push(extra._meta);
      return { content: [{ type: 'text', text: '{"ok":true}' }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    headers,
    metas,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const byTrace = (spans: ReceivedSpan[], traceId: string) => spans.filter((span) => span.traceId === traceId);
/** The one span (or log line) that passes `test`; a failure lists each one's name (a line's message). */
const one = <T extends { name?: string; msg?: string }>(items: T[], test: (item: T) => boolean): T => {
  const found = items.filter(test);
  expect(found, `among: ${items.map((item) => item.name ?? item.msg).join(', ')}`).toHaveLength(1);
  return found[0]!;
};

describe('telemetry, exported to an OTLP receiver on loopback', () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let engine: TestEngine;
  let keyId: string;
  let worker: WorkerServer;
  let mcpWorker: Awaited<ReturnType<typeof startMcpWorker>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    telemetry = (await startTelemetry(
      telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'quiver-test' }),
      { prometheus: true },
    ))!;
    upstream = await startUpstream();
    engine = await startTestEngine('sqlite', {
      toolkits: [defineToolkit(tracedToolkit('Traced', upstream.url))],
      credentials: () => sandboxCredentials(TOKEN),
      defaultSecrets: { TRACED_API_KEY: SECRET },
      metrics: telemetry.scrape,
    });
    keyId = (await engine.api('GET', '/v1/me')).body.key.id;
    worker = await startWorkerServer({ toolkits: [defineToolkit(tracedToolkit('Remote', upstream.url))], secret: WORKER_SECRET, port: 0 });
    mcpWorker = await startMcpWorker();
    expect((await engine.api('POST', '/v1/workers', { id: 'w1', type: 'http', http: { uri: worker.url, secret: WORKER_SECRET } })).status).toBe(201);
    expect((await engine.api('POST', '/v1/workers', { id: 'm1', type: 'mcp', mcp: { uri: mcpWorker.url, retry: 0 } })).status).toBe(201);
  });
  afterAll(async () => {
    await engine?.close();
    await worker?.close();
    await mcpWorker?.close();
    await telemetry?.shutdown();
    await upstream?.close();
    await receiver?.close();
  });

  /** Runs a tool through POST /v1/tools/execute and returns the spans of its trace, once exported. */
  async function executed(toolName: string, input: Record<string, unknown>, expectedSpans: number) {
    const reply = await engine.api('POST', '/v1/tools/execute', { tool_name: toolName, user_id: USER, input });
    expect(reply.status).toBe(200);
    await telemetry.flush();
    let traceId = '';
    await receiver.waitFor((spans) => {
      traceId = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === reply.body.execution_id)?.traceId ?? '';
      return traceId !== '' && byTrace(spans, traceId).length >= expectedSpans;
    });
    return { reply, spans: byTrace(receiver.spans, traceId) };
  }

  it('gives POST /v1/tools/execute one trace: server span, the tool call within it, the upstream attempt within that', async () => {
    const { reply, spans } = await executed('Traced.GetItem', { item_id: ITEM, q: QUERY }, 3);
    expect(reply.body.success).toBe(true);
    expect(spans).toHaveLength(3);
    const server = one(spans, (span) => span.kind === SERVER);
    const call = one(spans, (span) => span.name === 'execute_tool Traced.GetItem');
    const attempt = one(spans, (span) => span.kind === CLIENT);
    expect(server).toMatchObject({ name: 'POST /v1/tools/execute', parentSpanId: undefined, statusCode: 0 });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/tools/execute',
      'http.response.status_code': 200,
      'quiver.api_key.id': keyId,
    });
    expect(call.parentSpanId).toBe(server.spanId);
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Traced.GetItem',
      'gen_ai.tool.call.id': reply.body.execution_id,
      'quiver.toolkit': 'Traced',
      'quiver.toolkit.version': '1',
      'quiver.tool.source': 'builtin',
      'quiver.outcome': 'success',
    });
    // The user is named only where a setting allows it (QUIVER_TELEMETRY_USER_ID=1).
    expect(call.attributes['user.id']).toBeUndefined();
    expect(attempt.parentSpanId).toBe(call.spanId);
    expect(attempt.name).toBe('GET /items/{item_id}');
    expect(attempt.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.template': '/items/{item_id}',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
    expect(attempt.attributes['http.request.resend_count']).toBeUndefined();
    expect(server.resource['service.name']).toBe('quiver-test');
    // Nested in time as in structure, within the SDK's clock: each local root anchors its clock on Date.now(),
    // whole milliseconds, so two spans' times may disagree by up to a millisecond.
    const within = (inner: ReceivedSpan, outer: ReceivedSpan) => inner.startNs >= outer.startNs - CLOCK_NS && inner.endNs <= outer.endNs + CLOCK_NS;
    expect(within(call, server)).toBe(true);
    expect(within(attempt, call)).toBe(true);
  });

  it('gives an MCP tools/call one trace: the HTTP request, the MCP request, the tool call, the upstream attempt', async () => {
    const client = new Client({ name: 'telemetry-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${engine.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': USER } },
      }),
    );
    const result = await client.callTool({ name: 'Traced_GetKeyed', arguments: { item_id: ITEM } });
    await client.close();
    expect(result.isError).toBeFalsy();
    await telemetry.flush();
    await receiver.waitFor((spans) => spans.some((span) => span.name === 'tools/call Traced_GetKeyed'));
    const mcp = one(receiver.spans, (span) => span.name === 'tools/call Traced_GetKeyed');
    await receiver.waitFor((spans) => byTrace(spans, mcp.traceId).length >= 4);
    const spans = byTrace(receiver.spans, mcp.traceId);
    expect(spans).toHaveLength(4);
    const server = one(spans, (span) => span.name === 'POST /v1/mcp');
    const call = one(spans, (span) => span.name === 'execute_tool Traced.GetKeyed');
    const attempt = one(spans, (span) => span.name === 'GET /keyed/{item_id}');
    expect(mcp.parentSpanId).toBe(server.spanId);
    expect(mcp.kind).toBe(SERVER);
    expect(mcp.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'Traced_GetKeyed',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'tcp',
    });
    expect(call.parentSpanId).toBe(mcp.spanId);
    expect(attempt.parentSpanId).toBe(call.spanId);
    // initialize is an MCP request too, in its own HTTP request's trace.
    expect(receiver.spans.some((span) => span.name === 'initialize' && span.attributes['mcp.method.name'] === 'initialize')).toBe(true);
  });

  it('shows a retried attempt as two attempt spans, the second with its resend count and why', async () => {
    const { reply, spans } = await executed('Traced.GetFlaky', { item_id: ITEM }, 4);
    expect(reply.body.success).toBe(true);
    const call = one(spans, (span) => span.name === 'execute_tool Traced.GetFlaky');
    const attempts = spans.filter((span) => span.kind === CLIENT).sort((a, b) => Number(a.startNs - b.startNs));
    expect(attempts).toHaveLength(2);
    expect(attempts.every((attempt) => attempt.parentSpanId === call.spanId && attempt.name === 'GET /flaky/{item_id}')).toBe(true);
    expect(attempts[0]!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(attempts[0]!.statusCode).toBe(2);
    expect(attempts[1]!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
      'quiver.retry.reason': 'UPSTREAM_RUNTIME_SERVER_ERROR',
    });
    expect(attempts[1]!.statusCode).toBe(0);
  });

  it('sends an HTTP worker the traceparent: its server span and its tool call join the trace', async () => {
    const { reply, spans } = await executed('Remote.GetItem', { item_id: ITEM }, 6);
    expect(reply.body.success).toBe(true);
    const engineCall = one(spans, (span) => span.name === 'execute_tool Remote.GetItem' && span.attributes['quiver.tool.source'] === 'w1');
    const invoke = one(spans, (span) => span.kind === CLIENT && span.name === 'POST /worker/tools/invoke');
    const workerServer = one(spans, (span) => span.kind === SERVER && span.name === 'POST /worker/tools/invoke');
    const workerCall = one(spans, (span) => span.name === 'execute_tool Remote.GetItem' && span.attributes['quiver.tool.source'] === 'builtin');
    const attempt = one(spans, (span) => span.name === 'GET /items/{item_id}');
    expect(invoke.parentSpanId).toBe(engineCall.spanId);
    expect(invoke.attributes).toMatchObject({ 'quiver.worker.id': 'w1', 'url.template': '/worker/tools/invoke' });
    // The worker read the engine's client span from the traceparent header: the only way across.
    expect(workerServer.parentSpanId).toBe(invoke.spanId);
    expect(workerCall.parentSpanId).toBe(workerServer.spanId);
    expect(attempt.parentSpanId).toBe(workerCall.spanId);
  });

  it('sends an MCP worker the trace context as a traceparent header and in _meta', async () => {
    const reply = await engine.api('POST', '/v1/tools/execute', { tool_name: 'm1.echo', user_id: USER, input: {} });
    expect(reply.body.success).toBe(true);
    await telemetry.flush();
    await receiver.waitFor((spans) => spans.some((span) => span.name === 'tools/call echo' && span.kind === CLIENT));
    const client = one(receiver.spans, (span) => span.name === 'tools/call echo' && span.kind === CLIENT);
    expect(client.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'quiver.worker.id': 'm1' });
    const traceparent = `00-${client.traceId}-${client.spanId}-01`;
    expect(mcpWorker.headers.some((headers) => headers.traceparent === traceparent)).toBe(true);
    expect(mcpWorker.metas).toContainEqual(expect.objectContaining({ traceparent }));
  });

  it('links a scheduled run, a trace of its own, to the request that scheduled it', async () => {
    const runAt = new Date(Date.now() + 300).toISOString();
    const scheduled = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Traced.GetItem', user_id: USER, input: { item_id: ITEM }, run_at: runAt });
    expect(scheduled.status).toBe(200);
    const row = await engine.engine.store.db.selectFrom('executions').select('trace_parent').where('id', '=', scheduled.body.id).executeTakeFirstOrThrow();
    const [, traceId, spanId] = row.trace_parent!.split('-');
    await receiver.waitFor((spans) => {
      void telemetry.flush();
      return spans.some((span) => span.attributes['quiver.execution.id'] === scheduled.body.id);
    }, 15_000);
    const run = one(receiver.spans, (span) => span.attributes['quiver.execution.id'] === scheduled.body.id);
    expect(run.name).toBe('scheduled_run Traced.GetItem');
    expect(run.parentSpanId).toBeUndefined();
    expect(run.traceId).not.toBe(traceId);
    expect(run.links).toEqual([{ traceId, spanId }]);
    // The link names the scheduling request's server span.
    expect(receiver.spans.some((span) => span.spanId === spanId && span.name === 'POST /v1/tools/execute')).toBe(true);
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === run.traceId && span.parentSpanId === run.spanId));
    expect(one(byTrace(receiver.spans, run.traceId), (span) => span.parentSpanId === run.spanId).name).toBe('execute_tool Traced.GetItem');
  });

  it('writes one log line a request and one a tool call, both with the trace and span ids, the request id and the key id', async () => {
    const { reply, spans } = await executed('Traced.GetItem', { item_id: ITEM }, 3);
    const server = one(spans, (span) => span.kind === SERVER);
    const call = one(spans, (span) => span.name === 'execute_tool Traced.GetItem');
    const lines = engine.logs.map((line) => JSON.parse(line));
    const toolLine = one(lines, (line) => line.msg === 'tool executed' && line.execution_id === reply.body.execution_id);
    const requestLines = lines.filter((line) => line.reqId === toolLine.request_id);
    expect(requestLines.map((line) => line.msg)).toEqual(['request completed']);
    expect(requestLines[0]).toMatchObject({
      req: { method: 'POST', url: '/v1/tools/execute' },
      route: '/v1/tools/execute',
      status: 200,
      key_id: keyId,
      trace_id: server.traceId,
      span_id: server.spanId,
      duration_ms: expect.any(Number),
    });
    expect(toolLine).toMatchObject({ tool: 'Traced.GetItem', success: true, key_id: keyId, trace_id: call.traceId, span_id: call.spanId });
  });

  it('serves the metrics at GET /metrics to admin and service keys, in a form promtool accepts', async () => {
    expect((await engine.api('GET', '/metrics', undefined, null)).status).toBe(401);
    const { key: userKey } = await createApiKey(engine.engine.store.db, 'user', { role: 'user', userId: USER });
    expect((await engine.api('GET', '/metrics', undefined, `Bearer ${userKey}`)).status).toBe(403);
    const { key: serviceKey } = await createApiKey(engine.engine.store.db, 'scraper', { role: 'service' });
    const response = await fetch(`${engine.url}/metrics`, { headers: { authorization: `Bearer ${serviceKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    for (const series of [
      /^quiver_tool_duration_seconds_count\{(?=.*gen_ai_tool_name="Traced.GetItem")(?=.*quiver_outcome="success").*\} \d+$/m,
      /^http_server_request_duration_seconds_bucket\{(?=.*http_route="\/v1\/tools\/execute")(?=.*http_response_status_class="2xx").*\} \d+$/m,
      /^http_client_request_duration_seconds_count\{quiver_toolkit="Traced",http_request_method="GET",http_response_status_class="5xx".*\} 1$/m,
      /^quiver_upstream_retries_total\{quiver_toolkit="Traced",quiver_retry_reason="UPSTREAM_RUNTIME_SERVER_ERROR".*\} 1$/m,
      /^mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",network_transport="tcp".*\} \d+$/m,
      /^quiver_scheduler_executions\{quiver_execution_state="due".*\} \d+$/m,
      /^quiver_scheduler_lag_seconds\{.*\} [\d.e-]+$/m,
      /^quiver_executions_record_queue\{.*\} \d+$/m,
      /^process_cpu_time_seconds_total\{cpu_mode="user".*\} [\d.e-]+$/m,
      /^process_memory_usage_bytes\{.*\} \d+$/m,
      /^nodejs_eventloop_delay_p99_seconds\{.*\} [\d.e-]+$/m,
    ]) {
      expect(text).toMatch(series);
    }
    // No label of unbounded values: no user, key, path or query value, and no id (execution or key ids are UUIDs).
    for (const value of [USER, engine.key, ITEM, QUERY, TOKEN, SECRET]) expect(text).not.toContain(value);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);
    const promtool = await promisify(execFile)('promtool', ['--version']).then(
      () => true,
      () => false,
    );
    if (!promtool) {
      console.warn('telemetry test: promtool is not installed (Debian package prometheus); the scrape is not linted');
      return;
    }
    const linted = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile('promtool', ['check', 'metrics'], (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
      child.stdin!.end(text);
    });
    expect(linted).toEqual({ code: 0, output: '' });
  });

  it('exports the same instruments over OTLP', async () => {
    await telemetry.flush();
    for (const name of [
      'quiver.tool.duration',
      'http.server.request.duration',
      'http.client.request.duration',
      'quiver.upstream.retries',
      'mcp.server.operation.duration',
      'quiver.scheduler.executions',
      'process.cpu.time',
    ]) {
      expect(receiver.metricNames).toContain(name);
    }
  });

  it('puts no token, key, secret, filled path or query value in any span, metric or log line', async () => {
    await telemetry.flush();
    // The upstream echoed the token and the secret in its answers: the results were redacted, and no span holds them.
    const exported = receiver.posts.map((post) => post.body.toString('utf8')).join('\n');
    const logged = engine.logs.join('');
    expect(receiver.posts.length).toBeGreaterThan(2);
    for (const value of [TOKEN, SECRET, engine.key, WORKER_SECRET, ITEM, QUERY]) {
      expect(exported).not.toContain(value);
      expect(logged).not.toContain(value);
    }
  });
});
