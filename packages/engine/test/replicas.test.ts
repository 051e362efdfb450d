/**
 * Replicas (issue 24, item 7): three engine processes on one PostgreSQL schema and one Redis, behind a
 * round-robin proxy (round-robin-proxy.ts) as a load balancer, under steady load of executions and of
 * scheduled executions. Mid-load one engine is stopped with SIGTERM (it drains) and another is killed
 * with kill -9; the load goes on against the survivor. Expected:
 *
 * - no request fails but those in flight on the killed process when it died (sent to it before it was dead,
 *   lost at or after the kill): the balancer sends around the draining engine by its readiness, and sends
 *   again what an engine refused undone (connection refused, 503 `shutting_down`), never a POST an engine
 *   may have acted on;
 * - every scheduled execution reaches the upstream at most once, and exactly once, ending `success`,
 *   unless it was running on the killed process when it died: that one is given up (failed) once its lease
 *   runs out, and never run again;
 * - an immediate execution answered reaches the upstream exactly once (none is sent twice);
 * - the SIGTERMed engine drains with no work left undone, and exits 0;
 * - a key's limit is held across the three engines: N requests a minute in all, within one window;
 * - a key revoked through one engine is refused by each of the others (how soon is the benchmark's to say:
 *   bench/engine.mjs, propagationBench).
 *
 * Skipped, with a word, when PostgreSQL or Redis does not answer.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent, createServer, request } from 'node:http';
import { join } from 'node:path';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { havePostgres, haveRedis, postgresUrl, redisUrl, testDatabase, testRedisPrefix } from '@quiver/test-support/harness';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { api, startEngineProcess, type EngineProcess } from './engine-process.js';
import { startRoundRobinProxy, type Proxied, type RoundRobinProxy } from './round-robin-proxy.js';

if (!havePostgres || !haveRedis) {
  const missing = [!havePostgres && `PostgreSQL (${postgresUrl})`, !haveRedis && `Redis (${redisUrl})`].filter(Boolean).join(' and ');
  console.warn(`replica test: ${missing} not reachable; skipped`);
}

const TOOL = 'CrmMarketingApi.GetMarketingCampaigns';
/**
 * The claim of a scheduled execution holds this long (ten minutes by default, shortened through the
 * fixture's SCHEDULER_LEASE_MS): the killed process's running executions are given up after it, within the
 * test. Far longer than a run here (the upstream answers within 0.3 s).
 */
const LEASE_MS = 4_000;
const STOPPED_DURING_RUN = 'The engine stopped during this run; it is not repeated, because the tool may already have acted.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request of the load, as the client saw it, with the proxy's account of it. */
interface Sent {
  kind: 'execute' | 'schedule';
  /** The campaign-name filter, unique per request: how the upstream's requests are matched to it. */
  name: string;
  status: number;
  /** An execution answered with success; a scheduled one answered with its id. */
  ok: boolean;
  id?: string;
  proxied?: Proxied;
}

/** JSON through the proxy, with the proxy's log entry of it; 599 when the proxy itself did not answer. */
async function viaProxy(proxy: RoundRobinProxy, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(proxy.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch(() => new Response(null, { status: 599 }));
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
    proxied: proxy.log.get(Number(response.headers.get('x-proxy-request'))),
  };
}

/**
 * The upstream as the engines see it: the emulator, whose answers are held 100 to 300 ms, so that calls
 * are in flight when an engine drains or dies (a request reaches the emulator, and is counted, at once).
 */
async function slowed(target: string): Promise<{ url: string; close(): void }> {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((incoming, reply) => {
    const outgoing = request(new URL(incoming.url ?? '/', target), { method: incoming.method, headers: incoming.headers, agent }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => setTimeout(() => reply.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks)), 100 + Math.random() * 200));
    });
    outgoing.on('error', () => reply.destroy());
    incoming.pipe(outgoing);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
      agent.destroy();
    },
  };
}

/**
 * When `refuses` first holds, in ms from `since`: the sending of the first request refused (every one sent
 * before it was accepted), and its answer. Asked every 2 ms; fails after `ms`.
 */
async function firstRefused(since: number, ms: number, refuses: () => Promise<boolean>): Promise<{ sent: number; answered: number }> {
  for (;;) {
    const sent = performance.now();
    if (await refuses()) return { sent: sent - since, answered: performance.now() - since };
    if (sent - since > ms) throw new Error(`not refused within ${ms} ms`);
    await sleep(2);
  }
}

describe.skipIf(!havePostgres || !haveRedis)('three engine processes behind a round-robin proxy, on PostgreSQL and Redis', () => {
  it('loses nothing but what was in flight on a killed process, runs each schedule once, holds limits globally, revokes everywhere at once', async () => {
    const hubspot: HubspotEmulator = await startHubspotEmulator();
    hubspot.issueToken('test-token');
    const upstream = await slowed(hubspot.url);
    const dataDir = mkdtempSync(join(tmpdir(), 'quiver-replicas-'));
    const db = await testDatabase('postgres', dataDir);
    // The counts of this run alone, deleted after it.
    const prefix = testRedisPrefix();
    const env = {
      QUIVER_DATA_DIR: dataDir,
      DATABASE_URL: db.database,
      BASE_URLS: JSON.stringify({ CrmMarketingApi: upstream.url }),
      REDIS_URL: redisUrl,
      QUIVER_REDIS_PREFIX: prefix,
      SCHEDULER_POLL_MS: '50',
      SCHEDULER_LEASE_MS: String(LEASE_MS),
      // Long enough for the proxy's readiness poll (100 ms) to see the draining engine go.
      QUIVER_DRAIN_SECONDS: '1',
      // The load's key and user are limited (counted in Redis on every request) but never reached;
      // the test's own key below has a limit of its own.
      QUIVER_LIMIT_KEY_RPM: '1000000',
      QUIVER_LIMIT_USER_RPM: '1000000',
      QUIVER_LIMIT_KEY_CONCURRENCY: '1000',
      QUIVER_LIMIT_USER_CONCURRENCY: '1000',
    };
    const drainLog = join(dataDir, 'draining-engine.log');
    const engines: EngineProcess[] = [];
    let proxy: RoundRobinProxy | undefined;
    let loading = false;
    let loops: Promise<void>[] = [];
    const store = new pg.Client({ connectionString: db.database });
    await store.connect();
    try {
      // The first runs the migrations; the others start on the migrated schema.
      engines.push(await startEngineProcess({ ...env, QUIVER_TEST_LOG: drainLog }));
      engines.push(...(await Promise.all([startEngineProcess(env), startEngineProcess(env)])));
      const [draining, killed, survivor] = engines as [EngineProcess, EngineProcess, EngineProcess];
      const KILLED = 1;
      const key = draining.key;
      proxy = await startRoundRobinProxy(engines.map((engine) => engine.url));
      const lb = proxy;

      // The load: eight loops of immediate executions, one of executions scheduled 0.2 to 1 s ahead.
      const sent: Sent[] = [];
      loading = true;
      let counter = 0;
      const load = async (kind: Sent['kind']) => {
        while (loading) {
          const name = `${kind}-${++counter}`;
          const body = {
            tool_name: TOOL,
            user_id: 'replica-load',
            input: { campaign_name_filter: name },
            ...(kind === 'schedule' && { run_at: new Date(Date.now() + 200 + Math.random() * 800).toISOString() }),
          };
          const answer = await viaProxy(lb, key, 'POST', '/v1/tools/execute', body);
          const ok = answer.status === 200 && (kind === 'execute' ? answer.body?.success === true : typeof answer.body?.id === 'string');
          sent.push({ kind, name, status: answer.status, ok, id: answer.body?.id, proxied: answer.proxied });
          if (kind === 'schedule') await sleep(30);
        }
      };
      loops = [...Array.from({ length: 8 }, () => load('execute')), load('schedule')];
      await sleep(1_000);

      // Limits held globally: a key of N a minute, sent 3N requests spread by the proxy over the three
      // engines, has exactly N accepted. Its window (fixed, a minute from its first request) must hold the
      // whole burst: each answer's RateLimit `t` places the window's end within a second; when those places
      // do not agree (a window ended mid-burst, on a very slow machine), the burst is sent again with a new key.
      // The engine counted the request between its sending and its answer, and `t` is the seconds left rounded
      // up: the window ends after sentAt + (t - 1) s and by answeredAt + t s.
      const N = 20;
      let burst: Array<{ status: number; engine: number; retryAfter: string | null; policy: string | null; endsFrom: number; endsBy: number }> = [];
      let windows = 0;
      let overlap = 0;
      for (let tries = 0; tries < 3; tries++) {
        const made = await viaProxy(lb, key, 'POST', '/v1/admin/api_keys', { name: `limited-${tries}`, role: 'service', rpm: N });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        burst = [];
        const one = async (i: number) => {
          const sentAt = Date.now();
          const answer = await viaProxy(lb, made.body.key, 'POST', '/v1/tools/execute', {
            tool_name: TOOL,
            user_id: 'replica-limits',
            input: { campaign_name_filter: `limit-${tries}-${i}` },
          });
          const t = /"key";r=\d+;t=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1];
          expect(t, `RateLimit: ${answer.headers.get('ratelimit')}`).toBeDefined();
          const answeredAt = Date.now();
          burst.push({
            status: answer.status,
            engine: answer.proxied!.attempts.at(-1)!.engine,
            retryAfter: answer.headers.get('retry-after'),
            policy: answer.headers.get('ratelimit-policy'),
            endsFrom: sentAt + (Number(t) - 1) * 1000,
            endsBy: answeredAt + Number(t) * 1000,
          });
        };
        // Six at a time, interleaved with the load's requests in the proxy's turn.
        for (let i = 0; i < 3 * N; i += 6) await Promise.all(Array.from({ length: 6 }, (_, j) => one(i + j)));
        overlap = Math.min(...burst.map((answer) => answer.endsBy)) - Math.max(...burst.map((answer) => answer.endsFrom));
        windows = overlap > 0 ? 1 : 2;
        if (windows === 1) break;
      }
      expect(windows, `every try of the burst straddled two windows (the last by ${-overlap} ms)`).toBe(1);
      const accepted = burst.filter((answer) => answer.status === 200);
      expect(accepted).toHaveLength(N);
      expect(burst.filter((answer) => answer.status === 429)).toHaveLength(2 * N);
      for (const answer of burst) expect(answer.policy).toContain(`"key";q=${N};w=60`);
      for (const answer of burst.filter((one) => one.status === 429)) expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      const burstBy = [0, 1, 2].map((engine) => burst.filter((answer) => answer.engine === engine).length);
      const acceptedBy = [0, 1, 2].map((engine) => accepted.filter((answer) => answer.engine === engine).length);
      for (const count of burstBy) expect(count).toBeGreaterThan(0);

      // Revocation: a key revoked through each engine in turn, refused by both others (asked directly, not
      // through the proxy, every 2 ms), and from then on. The times are said below, measured to the sending of
      // the first request refused (its answer adds its own round trip); how soon is the benchmark's to say.
      const refuses = async (engine: EngineProcess, revoked: string) => (await api(engine, 'GET', '/v1/me', undefined, revoked)).status === 401;
      const revocations: Array<{ through: number; engine: number; sent: number; answered: number; deleteMs: number }> = [];
      for (const [through, revoker] of engines.entries()) {
        const made = await api(revoker, 'POST', '/v1/admin/api_keys', { name: `revoked-${through}` });
        expect(made.status).toBe(201);
        const others = engines.map((engine, i) => ({ engine, i })).filter(({ i }) => i !== through);
        // Known to each, which keeps it in memory from now on.
        for (const { engine } of others) expect((await api(engine, 'GET', '/v1/me', undefined, made.body.key)).status).toBe(200);
        const sending = performance.now();
        expect((await api(revoker, 'DELETE', `/v1/admin/api_keys/${made.body.id}`)).status).toBe(204);
        const answered = performance.now();
        const times = await Promise.all(others.map(({ engine }) => firstRefused(answered, 2_000, () => refuses(engine, made.body.key))));
        for (const [n, { i }] of others.entries()) revocations.push({ through, engine: i, ...times[n]!, deleteMs: answered - sending });
        // And refused from then on.
        for (const { engine } of others) expect(await refuses(engine, made.body.key)).toBe(true);
      }

      // SIGTERM one engine; while it drains, kill -9 another. The load goes on against the survivor.
      await sleep(500);
      const drained = once(draining.child, 'exit');
      const termAt = Date.now();
      draining.child.kill('SIGTERM');
      await sleep(600);
      const killedExit = once(killed.child, 'exit');
      const killAt = Date.now();
      killed.child.kill('SIGKILL');
      await killedExit;
      // Dead by now: a signal takes a few ms to end a process, and the kernel takes connections until then.
      const deadBy = Date.now();
      // What was running at the kill: taken once a claim the dead process had sent is surely written or
      // dropped by PostgreSQL, and while its claims still hold (LEASE_MS). Executions running on the others
      // then are in it too; they finish as any other.
      await sleep(300);
      const runningAtKill = new Set(
        (await store.query<{ id: string }>("select id from executions where execution_type = 'scheduled' and status = 'running'")).rows.map((row) => row.id),
      );
      const [code] = await drained;
      const exitedAt = Date.now();
      await sleep(3_000);
      loading = false;
      await Promise.all(loops);

      // Every scheduled execution settled: due ones run, the killed process's running ones given up after the lease.
      const settleBy = Date.now() + 30_000;
      const unsettled = "select 1 from executions where execution_type = 'scheduled' and status in ('scheduled', 'running')";
      while ((await store.query(unsettled)).rows.length && Date.now() < settleBy) await sleep(200);
      await sleep(300);

      // The upstream's requests by campaign-name filter.
      const received = new Map<string, number>();
      for (const { query } of hubspot.requests) {
        const name = String(query.name ?? '');
        received.set(name, (received.get(name) ?? 0) + 1);
      }
      const reached = (name: string) => received.get(name) ?? 0;

      // What came of it: the requests that failed, and the scheduled executions (every one in the database,
      // those whose scheduling was lost with the killed process included, if it had been written).
      const failed = sent.filter((request) => !request.ok);
      const rows = (
        await store.query<{ id: string; status: string; input: string; attempts: string; messages: Array<string | null> }>(
          `select e.id, e.status, e.input, count(a.id) as attempts, array_agg(a.system_error_message) as messages
           from executions e left join attempts a on a.execution_id = e.id
           where e.execution_type = 'scheduled' group by e.id, e.status, e.input`,
        )
      ).rows.map((row) => ({ ...row, name: JSON.parse(row.input).campaign_name_filter as string }));
      const scheduled = sent.filter((request) => request.kind === 'schedule');
      const givenUp = rows.filter((row) => row.status === 'failed');
      // The SIGTERMed engine's last word.
      const closing = readFileSync(drainLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((line) => line.msg?.startsWith('drained'));

      // The figures, before anything is asserted.
      const attempts = sent.flatMap((request) => request.proxied?.attempts ?? []);
      const sentAgain = sent.filter((request) => (request.proxied?.attempts.length ?? 0) > 1);
      const servedBy = (i: number) => sent.filter((request) => request.proxied?.attempts.at(-1)?.engine === i && request.ok).length;
      const servedAfterKill = sent.filter((request) => (request.proxied?.attempts.at(-1)?.sentAt ?? 0) > killAt && request.ok).length;
      console.info(
        [
          `replicas: ${sent.length} requests through the proxy (${sent.length - scheduled.length} executions, ${scheduled.length} schedulings), ` +
            `served by engine 0/1/2: ${[0, 1, 2].map(servedBy).join('/')}, ${servedAfterKill} after the kill`,
          `  sent again by the proxy: ${sentAgain.length} (${attempts.filter((one) => one.error === 'refused').length} refused connections, ` +
            `${attempts.filter((one) => one.status === 503).length} shutting_down answers)`,
          `  failed: ${failed.length} (${failed.map((request) => `${request.kind} ${request.status} ${request.proxied?.attempts.map((one) => `${one.engine}:${one.error ?? one.status}`).join('>')}`).join(', ') || 'none'})`,
          `  scheduled executions: ${rows.length} (${rows.filter((row) => row.status === 'success').length} succeeded, ` +
            `${givenUp.length} given up after the lease: ${givenUp.map((row) => `${row.name} reached upstream ${reached(row.name)}x`).join(', ') || 'none'}); ` +
            `${runningAtKill.size} running at the kill`,
          `  limit of ${N} a minute: ${accepted.length} of ${burst.length} accepted, by engine 0/1/2 ${acceptedBy.join('/')} (burst by engine ${burstBy.join('/')})`,
          `  revocation, ms from the DELETE's answer to the first request refused by another engine, sent (answered): ${revocations
            .map((one) => `via ${one.through} on ${one.engine} ${one.sent.toFixed(1)} (${one.answered.toFixed(1)})`)
            .join(', ')}; the DELETEs took ${revocations
            .filter((_, n) => n % 2 === 0)
            .map((one) => one.deleteMs.toFixed(0))
            .join(', ')} ms`,
          `  SIGTERM at +0 ms, kill -9 at +${killAt - termAt} ms (dead by +${deadBy - termAt} ms), drained engine exited ${code} by +${exitedAt - termAt} ms, ` +
            `having handed back ${closing?.executions_handed_back} scheduled executions`,
        ].join('\n'),
      );

      // Failed requests: each must have died with the killed process: its last attempt sent there before the
      // process was dead (the kill's signal takes a few ms to end it, and its kernel socket takes connections
      // meanwhile), and lost at or after the signal, without an answer. A POST lost so is not sent again
      // (see the proxy): the engine may have acted on it.
      const diedWithKill = (request: Sent) => {
        const last = request.proxied?.attempts.at(-1);
        return (
          request.status === 502 &&
          last !== undefined &&
          last.engine === KILLED &&
          (last.error === 'lost' || last.error === 'cut') &&
          last.sentAt <= deadBy &&
          last.endedAt >= killAt
        );
      };
      expect(
        failed.filter((request) => !diedWithKill(request)),
        `kill -9 at ${killAt}, dead by ${deadBy}`,
      ).toEqual([]);
      // An execution answered reached the upstream once; one lost with the killed process, at most once.
      for (const request of sent.filter((one) => one.kind === 'execute')) {
        if (request.ok) expect(reached(request.name), request.name).toBe(1);
        else expect(reached(request.name), request.name).toBeLessThanOrEqual(1);
      }

      // Scheduled executions: each reached the upstream at most once; each ran exactly once and succeeded,
      // except one running on the killed process at the kill (claimed, perhaps sent upstream, never
      // finished): no process runs it again; after its lease (LEASE_MS) it is failed, with the reason,
      // having reached the upstream once or (killed before sending) never.
      const ids = new Set(rows.map((row) => row.id));
      for (const request of scheduled.filter((one) => one.ok)) expect(ids.has(request.id!), request.name).toBe(true);
      for (const row of rows) {
        const times = reached(row.name);
        expect(times, row.name).toBeLessThanOrEqual(1);
        if (row.status === 'failed') {
          expect(runningAtKill.has(row.id), `${row.name} failed, but was not running at the kill`).toBe(true);
          expect(Number(row.attempts)).toBeLessThanOrEqual(1);
          for (const message of row.messages.filter((one) => one !== null)) expect(message).toBe(STOPPED_DURING_RUN);
        } else {
          expect([row.name, row.status, Number(row.attempts), times]).toEqual([row.name, 'success', 1, 1]);
        }
      }

      // The SIGTERMed engine drained with nothing cut, failed or unwritten, and exited 0.
      expect(code).toBe(0);
      expect(closing).toMatchObject({ msg: 'drained: closed', requests_cut: 0, executions_failed: 0, records_unwritten: 0 });
      // The counts were Redis's, under this run's prefix.
      const direct = new Redis(redisUrl);
      const counted = await direct.keys(`${prefix}rpm:key:*`).finally(() => direct.disconnect());
      expect(counted.length).toBeGreaterThan(0);

      expect(revocations).toHaveLength(6);

      // The survivor drains and exits 0 as well.
      const survived = once(survivor.child, 'exit');
      survivor.child.kill('SIGTERM');
      expect((await survived)[0]).toBe(0);
    } finally {
      loading = false;
      await Promise.allSettled(loops);
      await proxy?.close();
      for (const engine of engines) {
        if (engine.child.exitCode === null && engine.child.signalCode === null) {
          const exited = once(engine.child, 'exit');
          engine.child.kill('SIGKILL');
          await exited;
        }
      }
      await store.end();
      await db.drop();
      upstream.close();
      await hubspot.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
