/**
 * The commands' telemetry and logs, through the real entry point: `quiver call` and `quiver mcp` export
 * their calls as traces when OpenTelemetry's variables say where (the default http/protobuf encoding
 * included), `quiver worker` continues the trace an invoke carries, `quiver mcp` loads no OpenTelemetry
 * module when they say nothing, `quiver serve --metrics-port` serves the metrics without a key, and
 * QUIVER_LOG_FORMAT chooses JSON or pretty lines.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { signWorkerToken } from '@quiver/engine';
import { startOtlpReceiver, type OtlpReceiver } from '@quiver/test-support/otlp-receiver';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import { toolkits } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/config.js';
import { UsageError } from '../src/usage-error.js';
import { prettyLine } from '../src/log-format.js';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-cli-telemetry-'));
const dataEnv = { QUIVER_DATA_DIR: join(scratch, 'data'), XDG_CONFIG_HOME: join(scratch, 'config') };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('telemetry of the commands', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver?.close());

  it('quiver call exports its call as one trace, in the default http/protobuf encoding, with its metrics', async () => {
    const run = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox'], { ...dataEnv, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(run.code).toBe(0);
    const traces = receiver.posts.filter((post) => post.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.every((post) => post.contentType === 'application/x-protobuf')).toBe(true);
    const call = receiver.spans.find((span) => span.name === 'execute_tool CrmMarketingApi.GetMarketingCampaigns')!;
    expect(call).toMatchObject({ parentSpanId: undefined, kind: 1, resource: { 'service.name': 'quiver' } });
    expect(call.attributes).toMatchObject({ 'gen_ai.tool.name': 'CrmMarketingApi.GetMarketingCampaigns', 'quiver.outcome': 'success' });
    const attempt = receiver.spans.find((span) => span.parentSpanId === call.spanId)!;
    expect(attempt).toMatchObject({ traceId: call.traceId, kind: 3, name: 'GET /marketing/v3/campaigns/' });
    expect(attempt.attributes).toMatchObject({ 'url.template': '/marketing/v3/campaigns/', 'http.response.status_code': 200 });
    expect(receiver.posts.some((post) => post.path === '/v1/metrics' && post.contentType === 'application/x-protobuf')).toBe(true);
    expect(receiver.metricNames).toContain('quiver.tool.duration');
  });

  it('quiver mcp traces each request over stdio, continuing the trace context a client sends in _meta', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', '--sandbox'],
      env: { ...(process.env as Record<string, string>), ...dataEnv, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'telemetry-test', version: '1.0.0' });
    await client.connect(transport);
    const [traceId, parentId] = ['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'];
    const result = await client.callTool({
      name: 'CrmMarketingApi_GetMarketingCampaigns',
      arguments: {},
      _meta: { traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(result.isError).toBeFalsy();
    await client.close();
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === traceId && span.kind === 3));
    const mcp = receiver.spans.find((span) => span.name === 'tools/call CrmMarketingApi_GetMarketingCampaigns')!;
    expect(mcp).toMatchObject({ traceId, parentSpanId: parentId, kind: 2 });
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'pipe', 'jsonrpc.request.id': expect.any(String) });
    const call = receiver.spans.find((span) => span.traceId === traceId && span.parentSpanId === mcp.spanId)!;
    expect(call.name).toBe('execute_tool CrmMarketingApi.GetMarketingCampaigns');
    // Its log line on standard error names the same trace and the call's span.
    const line = stderr
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text))
      .find((record) => record.msg === 'tool executed');
    expect(line).toMatchObject({ tool: 'CrmMarketingApi.GetMarketingCampaigns', trace_id: traceId, span_id: call.spanId });
  });
});

describe('quiver worker with telemetry', () => {
  it("continues the engine's trace from the traceparent of an invoke, and exports its spans", async () => {
    const receiver = await startOtlpReceiver();
    const secret = 'worker-secret-0123456789abcdef';
    const child = spawn(process.execPath, [cliPath, 'worker', '--toolkits', 'CommerceTools', '--port', '0'], {
      env: { ...process.env, ...dataEnv, QUIVER_WORKER_SECRET: secret, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve) =>
        createInterface({ input: child.stderr }).on('line', (line) => {
          const found = / at (http:\/\/\S+?)( \(|$)/.exec(line)?.[1];
          if (found) resolve(found);
        }),
      );
      const [traceId, parentId] = ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'];
      const invoked = await fetch(`${url}/worker/tools/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await signWorkerToken(secret)}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${parentId}-01` },
        body: JSON.stringify({ execution_id: 'e-1', tool: { name: 'GetDiscountCodes', toolkit: 'CommerceTools' }, inputs: {} }),
      });
      const answer = await invoked.json();
      expect(answer, JSON.stringify(answer)).toMatchObject({ success: true });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
    const server = receiver.spans.find((span) => span.name === 'POST /worker/tools/invoke')!;
    expect(server).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331', kind: 2 });
    const call = receiver.spans.find((span) => span.parentSpanId === server.spanId)!;
    expect(call).toMatchObject({ name: 'execute_tool CommerceTools.GetDiscountCodes', traceId: server.traceId });
    await receiver.close();
  });
});

/**
 * Runs `quiver mcp` up to its answer of `initialize` with a module hook that counts the OpenTelemetry
 * modules the process resolves: the cold start with telemetry off must not pay for them.
 */
async function openTelemetryModulesOfMcp(env: NodeJS.ProcessEnv): Promise<number> {
  const hooks = join(scratch, 'count-hooks.mjs');
  const register = join(scratch, 'count-register.mjs');
  writeFileSync(
    hooks,
    `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/@opentelemetry/')) port.postMessage(resolved.url);
  return resolved;
}
`,
  );
  writeFileSync(
    register,
    `import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = new Set();
port1.on('message', (url) => seen.add(url));
port1.unref();
register(${JSON.stringify(`file://${hooks}`)}, { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => process.stderr.write('opentelemetry modules: ' + seen.size + '\\n'));
`,
  );
  const child = spawn(process.execPath, ['--import', `file://${register}`, cliPath, 'mcp'], {
    env: { ...process.env, ...dataEnv, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const answered = new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
  await answered;
  child.stdin.end();
  await new Promise((resolve) => child.once('close', resolve));
  const count = /opentelemetry modules: (\d+)/.exec(stderr);
  expect(count, stderr).not.toBeNull();
  return Number(count![1]);
}

describe('quiver mcp with telemetry off', () => {
  it('loads no OpenTelemetry module (and does when an endpoint is set)', async () => {
    expect(await openTelemetryModulesOfMcp({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(0);
    expect(await openTelemetryModulesOfMcp({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_METRICS_EXPORTER: 'none' })).toBeGreaterThan(0);
  });
});

describe('quiver serve --metrics-port', () => {
  it('serves GET /metrics without a key on a loopback listener of its own, and logs pretty lines when asked', async () => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--metrics-port', '0'], {
      env: { ...process.env, ...dataEnv, QUIVER_LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    try {
      const lines = createInterface({ input: child.stderr });
      const [api, metrics] = await new Promise<[string, string]>((resolve) => {
        let apiUrl = '';
        lines.on('line', (line) => {
          apiUrl ||= /API (http:\/\/\S+)\/v1,/.exec(line)?.[1] ?? '';
          const found = /metrics without a key at (http:\/\/\S+)/.exec(line)?.[1];
          if (found) resolve([apiUrl, found]);
        });
      });
      expect(metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await fetch(`${api}/v1/health`)).status).toBe(200);
      const scrape = await fetch(metrics);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await scrape.text();
      expect(text).toMatch(/^http_server_request_duration_seconds_count\{(?=.*http_route="\/v1\/health").*\} 1$/m);
      expect(text).toMatch(/^process_cpu_time_seconds_total\{cpu_mode="user".*\} [\d.e-]+$/m);
      expect((await fetch(metrics.replace(/\/metrics$/, '/other'))).status).toBe(404);
      // The API's own /metrics still wants a key.
      expect((await fetch(`${api}/metrics`)).status).toBe(401);
      expect(stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request completed GET \/v1\/health .*route=\/v1\/health status=200 duration_ms=/m);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });
});

describe('the log format', () => {
  const sources = { flags: {}, cwd: scratch, platform: 'linux' as const, home: scratch, toolkits };

  it('is pretty on a terminal and JSON otherwise, unless QUIVER_LOG_FORMAT says', () => {
    expect(resolveSettings({ ...sources, env: {}, terminal: true }).logFormat).toBe('pretty');
    expect(resolveSettings({ ...sources, env: {}, terminal: false }).logFormat).toBe('json');
    expect(resolveSettings({ ...sources, env: { QUIVER_LOG_FORMAT: 'json' }, terminal: true }).logFormat).toBe('json');
    expect(() => resolveSettings({ ...sources, env: { QUIVER_LOG_FORMAT: 'yaml' } })).toThrow(UsageError);
  });

  it('writes a pino line as time, level, message, request and fields, and leaves other text as it is', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 10, 26, 12, 0, 1, 234),
      pid: 1,
      hostname: 'h',
      reqId: 'req-7',
      req: { method: 'POST', url: '/v1/tools/execute' },
      status: 502,
      msg: 'request completed',
    });
    expect(prettyLine(line)).toBe('12:00:01.234 WARN  request completed POST /v1/tools/execute reqId=req-7 status=502\n');
    expect(prettyLine('not json\n')).toBe('not json\n');
  });

  it('is read from the configuration with the rest, with the telemetry settings', () => {
    const settings = resolveSettings({ ...sources, env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' } });
    expect(settings.telemetry.traces).toEqual({ url: 'http://127.0.0.1:4318/v1/traces', protocol: 'http/protobuf' });
    expect(() => resolveSettings({ ...sources, env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' } })).toThrow(
      UsageError,
    );
  });
});
