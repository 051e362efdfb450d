// The engine's share of a call, against two baselines measured in the same run, in alternating blocks
// so that drift in the machine's load falls on every side alike: the direct call to the upstream, and a
// bare pass-through proxy (the cost of any extra HTTP hop). Then executions per second at concurrency
// 1 and 32. The engine is measured twice, one process after the other: as `quiver serve` runs by default
// (metrics collected for GET /metrics, no traces), then with tracing and metrics exported over OTLP to a
// receiver on loopback (every call sampled, metrics every 5 s). On SQLite and (when reachable) PostgreSQL.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { median, quantile, round, time } from './stats.mjs';

const fixture = fileURLToPath(new URL('../packages/engine/test/fixtures/engine-process.mjs', import.meta.url));
const proxyScript = fileURLToPath(new URL('./proxy.mjs', import.meta.url));
const sinkScript = fileURLToPath(new URL('./otlp-sink.mjs', import.meta.url));

/** A child process that prints one JSON line once it is ready. */
function startProcess(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...JSON.parse(line), pid: child.pid, stop: () => child.kill('SIGTERM') }));
  });
}

const summary = (xs) => ({ medianMs: round(median(xs)), p99Ms: round(quantile(xs, 0.99)) });

export async function engineBench(hubspotUrl, campaignId, database, { blocks = 10, perBlock = 100 } = {}) {
  const proxy = await startProcess([proxyScript, hubspotUrl]);
  const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  const path = `/marketing/v3/campaigns/${campaignId}`;
  const baselines = {
    direct: async () => {
      const res = await request(`${hubspotUrl}${path}`, { dispatcher: agent, headers: { authorization: 'Bearer bench-token' } });
      await res.body.json();
    },
    proxy: async () => {
      const res = await request(`${proxy.url}${path}`, { dispatcher: agent, headers: { authorization: 'Bearer bench-token' } });
      await res.body.json();
    },
  };
  /**
   * One engine process measured against the baselines in alternating blocks, then its throughput. Each
   * engine runs alone: the one with telemetry on, exporting as it goes, must not load the machine while
   * the other is measured.
   */
  // One data directory (its master key) for both engines: on PostgreSQL they share one database, and an
  // engine refuses a database whose sealed data another key wrote.
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-bench-'));
  const measure = async (env) => {
    const engine = await startProcess([fixture], {
      QUIVER_DATA_DIR: dataDir,
      DATABASE_URL: database ?? join(dataDir, 'quiver.db'),
      BASE_URLS: JSON.stringify({ CrmMarketingApi: hubspotUrl }),
      SCHEDULER_POLL_MS: '250',
      ...env,
    });
    try {
      const sides = {
        ...baselines,
        engine: async () => {
          const res = await request(`${engine.url}/v1/tools/execute`, {
            method: 'POST',
            dispatcher: agent,
            headers: { authorization: `Bearer ${engine.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ tool_name: 'CrmMarketingApi.GetCampaignDetails', user_id: 'bench', input: { campaign_guid: campaignId } }),
          });
          const body = await res.body.json();
          if (!body.success) throw new Error(`execute failed: ${JSON.stringify(body.output)}`);
        },
      };
      for (const side of Object.values(sides)) await time(side, 200);
      const samples = { direct: [], proxy: [], engine: [] };
      for (let block = 0; block < blocks; block++) for (const [name, side] of Object.entries(sides)) samples[name].push(...(await time(side, perBlock)));
      const throughput = {};
      for (const concurrency of [1, 32]) {
        const total = 1000;
        let next = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next++ < total) await sides.engine();
          }),
        );
        throughput[concurrency] = round(total / ((performance.now() - started) / 1000), 0);
      }
      return {
        execute: summary(samples.engine),
        proxy: summary(samples.proxy),
        direct: summary(samples.direct),
        ratioToProxy: round(median(samples.engine) / median(samples.proxy)),
        ratioMedian: round(median(samples.engine) / median(samples.direct)),
        proxyRatioToDirect: round(median(samples.proxy) / median(samples.direct)),
        executionsPerSecond: { concurrency1: throughput[1], concurrency32: throughput[32] },
      };
    } finally {
      engine.stop();
    }
  };
  const sink = await startProcess([sinkScript]);
  try {
    const off = await measure({});
    // The same engine with tracing and metrics exported over OTLP (to bench/otlp-sink.mjs on loopback).
    const { execute, ratioToProxy, executionsPerSecond } = await measure({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_METRIC_EXPORT_INTERVAL: '5000' });
    return { ...off, telemetry: { execute, ratioToProxy, executionsPerSecond } };
  } finally {
    await agent.close();
    proxy.stop();
    sink.stop();
  }
}
