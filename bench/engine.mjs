// The engine's share of a call, against two baselines measured in the same run, in alternating blocks
// so that drift in the machine's load falls on every side alike: the direct call to the upstream, and a
// bare pass-through proxy (the cost of any extra HTTP hop). Then executions per second at concurrency
// 1 and 32. An engine runs with its limits on, in memory (no REDIS_URL), set too high to refuse anything,
// and is measured twice, one process after the other: as `quiver serve` runs by default (metrics collected
// for GET /metrics, no traces), then with tracing and metrics exported over OTLP to a receiver on loopback
// (every call sampled, metrics every 5 s). On SQLite and (when reachable) PostgreSQL. The first measurement
// takes, in the same alternating blocks, the engine with its limits counted in memory and with every limit
// off (nothing exported either: the condition the engine's budget against the proxy is set for, `limits.off`),
// and on PostgreSQL the engine on SQLite with limits off as well (`limits.offSqlite`: the databases compared in the
// same blocks), and, when Redis answers, with them counted through Redis, and two engine processes on one
// database and one Redis, the requests sent to each in turn.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

/** A child process that prints one JSON line once it is ready; `stop()` ends it and waits for its exit. */
function startProcess(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    exited.then((code) => reject(new Error(`${args[0]} exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...JSON.parse(line), stop }));
  });
}

/** `names` turned by `by` places: each block of a measurement starts with the next one. */
const turned = (names, by) => [...names.slice(by % names.length), ...names.slice(0, by % names.length)];
const summary = (xs) => ({ medianMs: round(median(xs)), p99Ms: round(quantile(xs, 0.99)) });
const spread = (xs) => ({ median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)) });

// Limits counted as by default, on every call, but set high enough never to refuse one: thousands of
// executions a minute for one key and one user are what is measured here. 0 turns each off.
const highLimits = {
  QUIVER_LIMIT_KEY_RPM: '100000000',
  QUIVER_LIMIT_USER_RPM: '100000000',
  QUIVER_LIMIT_KEY_CONCURRENCY: '1000',
  QUIVER_LIMIT_USER_CONCURRENCY: '1000',
};
const limitsOff = { QUIVER_LIMIT_KEY_RPM: '0', QUIVER_LIMIT_USER_RPM: '0', QUIVER_LIMIT_KEY_CONCURRENCY: '0', QUIVER_LIMIT_USER_CONCURRENCY: '0' };

/** `redisUrl`: a Redis to count the limits through (PostgreSQL only), or none to leave those runs out. */
export async function engineBench(hubspotUrl, campaignId, database, { redisUrl, blocks = 20, perBlock = 50 } = {}) {
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
  const execute = (engine) => async () => {
    const res = await request(`${engine.url}/v1/tools/execute`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${engine.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool_name: 'CrmMarketingApi.GetCampaignDetails', user_id: 'bench', input: { campaign_guid: campaignId } }),
    });
    const body = await res.body.json();
    if (!body.success) throw new Error(`execute failed: ${JSON.stringify(body.output)}`);
  };
  // One data directory (its master key) for every engine: on PostgreSQL they share one database, and an
  // engine refuses a database whose sealed data another key wrote.
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-bench-'));
  /**
   * Engines (each `{env, processes}`: one process, or several on the same data directory and database,
   * sent requests in turn) measured against the baselines in alternating blocks, the order turned by one
   * each block; then their throughput, in rounds that take them in turn, the others idle. Engines measured
   * together must load the machine only while they are measured: the one exporting telemetry as it goes is
   * measured alone.
   */
  const measure = async (engines) => {
    const started = [];
    try {
      const sides = { ...baselines };
      for (const [name, { env = {}, processes = 1 }] of Object.entries(engines)) {
        const calls = [];
        // One after the other: the first process creates the master key file that the others read.
        for (let i = 0; i < processes; i++) {
          const engine = await startProcess([fixture], {
            QUIVER_DATA_DIR: dataDir,
            DATABASE_URL: database ?? join(dataDir, 'quiver.db'),
            BASE_URLS: JSON.stringify({ CrmMarketingApi: hubspotUrl }),
            SCHEDULER_POLL_MS: '250',
            ...highLimits,
            ...env,
          });
          started.push(engine);
          calls.push(execute(engine));
        }
        let turn = 0;
        sides[name] = () => calls[turn++ % calls.length]();
      }
      for (const side of Object.values(sides)) await time(side, 200);
      const names = Object.keys(sides);
      const samples = Object.fromEntries(names.map((name) => [name, []]));
      for (let block = 0; block < blocks; block++) for (const name of turned(names, block)) samples[name].push(await time(sides[name], perBlock));
      const all = (name) => samples[name].flat();
      /** Each block's median of `name` over that of `reference` in the same block. */
      const byBlock = (name, reference) => spread(samples[name].map((xs, block) => median(xs) / median(samples[reference][block])));
      // Throughput: 1,000 executions at each concurrency, in rounds of 250 that take the engines in turn.
      const seconds = Object.fromEntries(Object.keys(engines).map((name) => [name, { 1: 0, 32: 0 }]));
      for (const concurrency of [1, 32]) {
        for (let lap = 0; lap < 4; lap++) {
          for (const name of turned(Object.keys(engines), lap)) {
            let next = 0;
            const begun = performance.now();
            await Promise.all(
              Array.from({ length: concurrency }, async () => {
                while (next++ < 250) await sides[name]();
              }),
            );
            seconds[name][concurrency] += (performance.now() - begun) / 1000;
          }
        }
      }
      const results = {};
      for (const name of Object.keys(engines)) {
        results[name] = {
          execute: summary(all(name)),
          ratioToProxy: round(median(all(name)) / median(all('proxy'))),
          // The same ratio within each block: how far the machine's noise moves it.
          ratioToProxyByBlock: byBlock(name, 'proxy'),
          ratioMedian: round(median(all(name)) / median(all('direct'))),
          executionsPerSecond: { concurrency1: round(1000 / seconds[name][1], 0), concurrency32: round(1000 / seconds[name][32], 0) },
        };
      }
      return {
        proxy: summary(all('proxy')),
        direct: summary(all('direct')),
        proxyRatioToDirect: round(median(all('proxy')) / median(all('direct'))),
        engines: results,
        byBlock,
      };
    } finally {
      await Promise.all(started.map((engine) => engine.stop()));
    }
  };
  const sink = await startProcess([sinkScript]);
  try {
    // Limits off (telemetry off too: nothing exported) is the condition the engine's budget is set for.
    const engines = { memory: {}, off: { env: limitsOff } };
    if (database) {
      // The engine on SQLite too, limits off, in the same blocks: how the two databases compare with no order between
      // them (each database's own measurement runs after the other's).
      engines.offSqlite = { env: { ...limitsOff, DATABASE_URL: join(dataDir, 'quiver.db') } };
      if (redisUrl) {
        // A prefix of this run's own in Redis: its counts start at nothing, and expire within minutes.
        const redis = { REDIS_URL: redisUrl, QUIVER_REDIS_PREFIX: `quiver-bench-${randomBytes(4).toString('hex')}:` };
        engines.redis = { env: redis };
        engines.twoRedis = { env: redis, processes: 2 };
      }
    }
    const { engines: measured, byBlock, ...baseline } = await measure(engines);
    const { memory, ...others } = measured;
    const limits = {
      // The time of an execution with limits on, against limits off, block by block (1: the same).
      memoryToOff: byBlock('memory', 'off'),
      ...(others.redis && { redisToOff: byBlock('redis', 'off') }),
      ...(others.offSqlite && { sqliteToPostgres: byBlock('offSqlite', 'off') }),
      ...others,
    };
    // The same engine with tracing and metrics exported over OTLP (to bench/otlp-sink.mjs on loopback).
    const { engines: traced } = await measure({ telemetry: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_METRIC_EXPORT_INTERVAL: '5000' } } });
    const { execute, ratioToProxy, executionsPerSecond } = traced.telemetry;
    return { ...memory, ...baseline, limits, telemetry: { execute, ratioToProxy, executionsPerSecond } };
  } finally {
    await agent.close();
    proxy.stop();
    sink.stop();
  }
}

/**
 * How soon a change made through one engine process reaches another on PostgreSQL (LISTEN/NOTIFY): an API key
 * revoked through the first is refused by the second, timed from sending the revocation to the sending of the
 * first request the second refuses (it is asked every 2 ms); eight keys revoked through the first process and
 * four from outside both, as `quiver keys revoke` does, timed until both refuse. The tests hold that it arrives
 * without polling; this says how soon.
 */
export async function propagationBench(database) {
  const { openStore, revokeApiKey } = await import('@quiver/engine');
  const dataDir = mkdtempSync(join(tmpdir(), 'quiver-bench-propagation-'));
  const env = { QUIVER_DATA_DIR: dataDir, DATABASE_URL: database };
  const first = await startProcess([fixture], env);
  const second = await startProcess([fixture], env);
  const agent = new Agent({ connections: 4 });
  const ask = async (engine, method, path, { key = engine.key, body } = {}) => {
    const headers = { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }) };
    const res = await request(`${engine.url}${path}`, { method, dispatcher: agent, headers, body: body && JSON.stringify(body) });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  };
  const created = async (engine, name) => {
    const { body: key } = await ask(engine, 'POST', '/v1/admin/api_keys', { body: { name } });
    // Known to every process from now on: each keeps it in memory, as it does a key in use.
    for (const engine of [first, second]) if ((await ask(engine, 'GET', '/v1/me', { key: key.key })).status !== 200) throw new Error('a new key was refused');
    return key;
  };
  /** Milliseconds from `started` until `engine` is first asked and refuses `key`; fails after 5 s. */
  const refusedAfter = async (engine, key, started) => {
    for (;;) {
      const asked = performance.now();
      if ((await ask(engine, 'GET', '/v1/me', { key })).status === 401) return asked - started;
      if (asked - started > 5_000) throw new Error('a revoked key was not refused within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  const times = [];
  try {
    for (let i = 0; i < 8; i++) {
      const key = await created(first, `revoked-${i}`);
      const started = performance.now();
      await ask(first, 'DELETE', `/v1/admin/api_keys/${key.id}`);
      times.push(await refusedAfter(second, key.key, started));
    }
    const store = await openStore(database);
    try {
      for (let i = 0; i < 4; i++) {
        const key = await created(first, `outside-${i}`);
        const started = performance.now();
        await revokeApiKey(store.db, key.id);
        times.push(Math.max(...(await Promise.all([first, second].map((engine) => refusedAfter(engine, key.key, started))))));
      }
    } finally {
      await store.close();
    }
  } finally {
    await agent.close();
    await Promise.all([first.stop(), second.stop()]);
  }
  return { keys: times.length, medianMs: round(median(times), 1), maxMs: round(Math.max(...times), 1), runsMs: times.map((ms) => round(ms, 1)) };
}
