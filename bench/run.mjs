// npm run bench: cold start, call overhead against the direct HTTP call, and memory. Writes bench/results.json.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { Runtime, ToolRegistry, UpstreamClient } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';

const cli = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const resultsFile = fileURLToPath(new URL('./results.json', import.meta.url));
const token = 'bench-token';

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const round = (x, digits = 3) => Number(x.toFixed(digits));
const log = (line) => process.stderr.write(`${line}\n`);

/** Process start to the answer of `initialize` on stdio; then RSS once tools/list has been served. */
async function coldStart() {
  const child = spawn(process.execPath, [cli, 'mcp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const started = process.hrtime.bigint();
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  await next();
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const listed = await next();
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  child.kill();
  return { readyMs, rssMb, toolCount: listed.result.tools.length, listBytes: JSON.stringify(listed.result).length };
}

async function startEmulator() {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./emulator.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { url: JSON.parse(line).url, stop: () => child.kill('SIGTERM') };
}

/** Per-call latencies of `fn`, in milliseconds. */
async function time(fn, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

async function callOverhead(baseUrl) {
  const client = new UpstreamClient();
  const runtime = new Runtime(new ToolRegistry(toolkits), () => ({ baseUrl, token, secrets: {}, client }));
  const created = await runtime.call('CrmMarketingApi.CreateMarketingCampaign', {
    mode: 'execute',
    request_body: JSON.stringify({ properties: { hs_name: 'Bench campaign' } }),
  });
  if ('error' in created) throw new Error(`setup failed: ${created.error.message}`);
  const id = created.value.id;

  const viaTool = () =>
    runtime.call('CrmMarketingApi.GetCampaignDetails', { campaign_guid: id }).then((r) => {
      if ('error' in r) throw new Error(r.error.message);
    });
  const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  const url = `${baseUrl}/marketing/v3/campaigns/${id}`;
  const direct = async () => {
    const res = await request(url, { method: 'GET', headers: { authorization: `Bearer ${token}` }, dispatcher: agent });
    await res.body.json();
  };

  await time(viaTool, 200);
  await time(direct, 200);
  // Alternate blocks so that drift in the machine's load falls on both sides alike.
  const tool = [];
  const baseline = [];
  for (let block = 0; block < 10; block++) {
    baseline.push(...(await time(direct, 100)));
    tool.push(...(await time(viaTool, 100)));
  }
  await client.close();
  await agent.close();
  return {
    calls: tool.length,
    tool: { medianMs: round(median(tool)), p99Ms: round(quantile(tool, 0.99)) },
    direct: { medianMs: round(median(baseline)), p99Ms: round(quantile(baseline, 0.99)) },
    ratioMedian: round(median(tool) / median(baseline)),
    ratioP99: round(quantile(tool, 0.99) / quantile(baseline, 0.99)),
  };
}

log('cold start: 10 runs of `quiver mcp` ...');
const starts = [];
for (let i = 0; i < 10; i++) starts.push(await coldStart());
log('call overhead: 1,000 tool calls vs 1,000 direct undici requests ...');
const emulator = await startEmulator();
let overhead;
try {
  overhead = await callOverhead(emulator.url);
} finally {
  emulator.stop();
}

const results = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  tools: starts[0].toolCount,
  coldStartMs: { median: round(median(starts.map((s) => s.readyMs)), 1), runs: starts.map((s) => round(s.readyMs, 1)) },
  rssMb: round(median(starts.map((s) => s.rssMb)), 1),
  toolsListBytes: starts[0].listBytes,
  callOverhead: overhead,
  targets: { coldStartMs: 400, rssMb: 150, ratioMedian: 1.25 },
};
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

const o = overhead;
console.log(`| measure | result | target |
|---|---|---|
| cold start: process start to the answer of MCP \`initialize\`, ${results.tools} tools loaded (median of 10) | ${results.coldStartMs.median} ms | ≤ 400 ms |
| resident memory of \`quiver mcp\` after \`tools/list\` (median of 10) | ${results.rssMb} MB | ≤ 150 MB |
| one tool call through the runtime, median / p99 (\`GetCampaignDetails\`, 1,000 sequential calls) | ${o.tool.medianMs} ms / ${o.tool.p99Ms} ms | |
| the same request sent directly with undici, median / p99 (1,000 calls) | ${o.direct.medianMs} ms / ${o.direct.p99Ms} ms | |
| overhead ratio, runtime vs direct, at the median (p99) | ${o.ratioMedian} (${o.ratioP99}) | ≤ 1.25 |
| \`tools/list\` response size | ${results.toolsListBytes.toLocaleString('en')} bytes | |`);
