// The engine's share of a call: POST /v1/tools/execute against the direct upstream call, and
// executions per second at concurrency 1 and 32, on SQLite and (when reachable) PostgreSQL.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { median, quantile, round, time } from './stats.mjs';

const fixture = fileURLToPath(new URL('../packages/engine/test/fixtures/engine-process.mjs', import.meta.url));

function startEngine(env) {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`engine exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...JSON.parse(line), stop: () => child.kill('SIGTERM') }));
  });
}

export async function engineBench(hubspotUrl, campaignId, database) {
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-bench-'));
  const engine = await startEngine({ QUIVER_DATA_DIR: dataDir, DATABASE_URL: database ?? join(dataDir, 'quiver.db'), BASE_URLS: JSON.stringify({ CrmMarketingApi: hubspotUrl }) });
  const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  const execute = async () => {
    const res = await request(`${engine.url}/v1/tools/execute`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${engine.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool_name: 'CrmMarketingApi.GetCampaignDetails', user_id: 'bench', input: { campaign_guid: campaignId } }),
    });
    const body = await res.body.json();
    if (!body.success) throw new Error(`execute failed: ${JSON.stringify(body.output)}`);
  };
  const direct = async () => {
    const res = await request(`${hubspotUrl}/marketing/v3/campaigns/${campaignId}`, { dispatcher: agent, headers: { authorization: 'Bearer bench' } });
    await res.body.json();
  };
  try {
    await time(execute, 200);
    await time(direct, 200);
    const viaEngine = [];
    const baseline = [];
    for (let block = 0; block < 5; block++) {
      baseline.push(...(await time(direct, 100)));
      viaEngine.push(...(await time(execute, 100)));
    }
    const throughput = {};
    for (const concurrency of [1, 32]) {
      const total = 1000;
      let next = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next++ < total) await execute();
      }));
      throughput[concurrency] = round(total / ((performance.now() - started) / 1000), 0);
    }
    return {
      execute: { medianMs: round(median(viaEngine)), p99Ms: round(quantile(viaEngine, 0.99)) },
      direct: { medianMs: round(median(baseline)), p99Ms: round(quantile(baseline, 0.99)) },
      ratioMedian: round(median(viaEngine) / median(baseline)),
      executionsPerSecond: { concurrency1: throughput[1], concurrency32: throughput[32] },
    };
  } finally {
    await agent.close();
    engine.stop();
  }
}
