/**
 * `npx tsx scripts/trace-screenshot.ts [out.png]`: the README's picture of one trace, drawn from the data the
 * engine exported. It runs `quiver serve --sandbox` with OTLP/HTTP export (the default http/protobuf) to a
 * receiver on loopback, makes two MCP `tools/call`s over HTTP (the second is drawn), stops the engine (which exports what is
 * pending), decodes the spans the receiver got, draws them as a waterfall page and photographs it with
 * Chromium (Debian's, or the one QUIVER_CHROMIUM names). Build first (`npx tsc -b`). Default output:
 * docs/trace-waterfall.png.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromiumArgs, chromiumPath } from '@quiver/test-support/chromium';
import { startOtlpReceiver, type ReceivedSpan } from '@quiver/test-support/otlp-receiver';
import { chromium } from 'playwright-core';

/** What each row shows under its name: the attributes an operator reads first. */
const SHOWN = [
  'http.route',
  'http.response.status_code',
  'mcp.method.name',
  'network.transport',
  'gen_ai.tool.name',
  'quiver.toolkit',
  'quiver.tool.source',
  'quiver.outcome',
  'url.template',
  'server.address',
  'http.request.resend_count',
  'error.type',
];
const KINDS: Record<number, string> = { 1: 'internal', 2: 'server', 3: 'client' };

const cli = fileURLToPath(new URL('../packages/cli/bin/quiver.js', import.meta.url));
const output = process.argv[2] ?? fileURLToPath(new URL('../docs/trace-waterfall.png', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'quiver-trace-'));
const env = { ...process.env, QUIVER_DATA_DIR: dataDir, QUIVER_LOG_LEVEL: 'warn' };

const receiver = await startOtlpReceiver();
try {
  const serve = spawn(process.execPath, [cli, 'serve', '--sandbox', '--port', '0'], {
    env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: serve.stderr }).on('line', (line) => {
      const found = /API (http:\/\/\S+)\/v1,/.exec(line)?.[1];
      if (found) resolve(found);
    }),
  );
  const key = spawnSync(process.execPath, [cli, 'keys', 'create', '--name', 'trace-screenshot'], { env, encoding: 'utf8' }).stdout.trim();
  const client = new Client({ name: 'trace-screenshot', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}`, 'quiver-user-id': 'octocat' } } }),
  );
  // The second of two calls is drawn: the first also pays for what loads with a process's first call.
  for (let call = 0; call < 2; call++) {
    const result = await client.callTool({
      name: 'RepoHostApi_GetRepohostRepositoryDetails',
      arguments: { repository_owner: 'octocat', repository_name: 'hello-world' },
    });
    if (result.isError) throw new Error(`the call failed: ${JSON.stringify(result.content)}`);
  }
  await client.close();
  serve.kill('SIGTERM');
  await new Promise((resolve) => serve.once('exit', resolve));

  const call = receiver.spans.filter((span) => span.name.startsWith('tools/call ')).sort((a, b) => Number(a.startNs - b.startNs))[1];
  if (!call) throw new Error(`no tools/call span was exported; got: ${receiver.spans.map((span) => span.name).join(', ')}`);
  const spans = receiver.spans.filter((span) => span.traceId === call.traceId);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const page = await browser.newPage({ viewport: { width: 1280, height: 200 }, deviceScaleFactor: 1 });
  await page.setContent(waterfall(spans));
  await page.screenshot({ path: output, fullPage: true });
  await browser.close();
  console.log(`${spans.length} spans of trace ${call.traceId} drawn to ${output}`);
} finally {
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}

function waterfall(spans: ReceivedSpan[]): string {
  const html = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const start = spans.reduce((min, span) => (span.startNs < min ? span.startNs : min), spans[0]!.startNs);
  const end = spans.reduce((max, span) => (span.endNs > max ? span.endNs : max), spans[0]!.endNs);
  const total = Number(end - start);
  const rows: string[] = [];
  const visit = (parent: string | undefined, depth: number) => {
    for (const span of spans.filter((candidate) => candidate.parentSpanId === parent).sort((a, b) => Number(a.startNs - b.startNs))) {
      const left = (Number(span.startNs - start) / total) * 100;
      const width = Math.max(0.3, (Number(span.endNs - span.startNs) / total) * 100);
      const ms = (Number(span.endNs - span.startNs) / 1e6).toFixed(2);
      const attributes = SHOWN.filter((name) => span.attributes[name] !== undefined)
        .map((name) => `<span class="attr">${html(name)}=<b>${html(String(span.attributes[name]))}</b></span>`)
        .join(' ');
      rows.push(`<tr><td class="name" style="padding-left:${12 + depth * 22}px"><div>${html(span.name)} <span class="kind">${KINDS[span.kind] ?? ''}</span></div>
        <div class="attrs">${attributes}</div></td>
        <td class="bar"><div class="track"><div class="fill ${span.statusCode === 2 ? 'error' : `k${span.kind}`}" style="left:${left}%;width:${width}%"></div></div></td>
        <td class="ms">${ms} ms</td></tr>`);
      visit(span.spanId, depth + 1);
    }
  };
  visit(undefined, 0);
  const service = String(spans[0]!.resource['service.name'] ?? '');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { font: 13px/1.4 system-ui, sans-serif; margin: 20px; color: #1d2433; background: #fff; }
    h1 { font-size: 16px; margin: 0 0 4px; } p { margin: 0 0 14px; color: #5b6478; }
    table { border-collapse: collapse; width: 100%; } td { border-top: 1px solid #e4e7ee; padding: 7px 8px; vertical-align: top; }
    td.name { width: 46%; font-family: ui-monospace, monospace; font-size: 12px; } .kind { color: #8a93a6; font-size: 11px; }
    .attrs { margin-top: 3px; color: #5b6478; font-size: 11px; } .attr { margin-right: 8px; white-space: nowrap; display: inline-block; } .attr b { color: #1d2433; font-weight: 600; }
    td.bar { width: 44%; } .track { position: relative; height: 14px; margin-top: 3px; background: #f3f5f9; border-radius: 3px; }
    .fill { position: absolute; top: 0; bottom: 0; border-radius: 3px; } .k1 { background: #6c8cf5; } .k2 { background: #2fa36b; } .k3 { background: #e39b2d; } .error { background: #d64545; }
    td.ms { width: 10%; text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  </style></head><body>
    <h1>Trace ${spans[0]!.traceId}</h1>
    <p>One MCP <code>tools/call</code> over streamable HTTP to <code>quiver serve --sandbox</code>, service <code>${html(service)}</code>, ${spans.length} spans exported over OTLP/HTTP (protobuf) and decoded by a receiver on loopback; ${(total / 1e6).toFixed(2)} ms end to end.</p>
    <table>${rows.join('\n')}</table></body></html>`;
}
