/**
 * A stopping engine drops no work. On SIGTERM an engine process is not ready at once and refuses new
 * requests, while the call and the scheduled execution it is running finish and are recorded, and it exits
 * 0; past its bound what still runs is cut, and a scheduled execution still running is marked failed at once
 * and not repeated by the next process. A claim that was in flight when the drain began is handed back
 * unstarted, and another scheduler runs it at once instead of after the lease.
 */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localDispatcher, UpstreamClient } from '@quiver/core';
import { counterToolkit, databases, testDatabase } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../src/scheduler.js';
import { openStore } from '../src/store/db.js';
import { api, startEngineProcess, within, type EngineProcess } from './engine-process.js';

/** ToolEngineApi's health check, pointed at an upstream that answers as slowly as the test says. */
interface SlowUpstream {
  url: string;
  delayMs: number;
  /** Requests received so far. */
  received: number;
  close(): void;
}

async function slowUpstream(): Promise<SlowUpstream> {
  const upstream = { url: '', delayMs: 0, received: 0, close: () => server.close() };
  const server: Server = createServer((_request, response) => {
    upstream.received++;
    setTimeout(() => response.setHeader('content-type', 'application/json').end('{"healthy":true}'), upstream.delayMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  upstream.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return upstream;
}

const health = { tool_name: 'ToolEngineApi.CheckToolEngineHealth', input: {}, user_id: 'drain-test' };

describe.each(databases)('draining engine processes on $name', ({ name, skip }) => {
  let upstream: SlowUpstream;
  beforeAll(async () => {
    upstream = await slowUpstream();
  });
  afterAll(() => upstream?.close());

  async function setup(drainTimeoutSeconds: number) {
    const dataDir = mkdtempSync(join(tmpdir(), 'quiver-drain-'));
    const db = await testDatabase(name, dataDir);
    const env = {
      QUIVER_DATA_DIR: dataDir,
      DATABASE_URL: db.database,
      BASE_URLS: JSON.stringify({ ToolEngineApi: upstream.url }),
      QUIVER_DRAIN_TIMEOUT_SECONDS: String(drainTimeoutSeconds),
    };
    return { env, drop: db.drop };
  }

  /** A scheduled execution running on `engine` (its upstream request arrived), and an immediate call in flight there. */
  async function busy(engine: EngineProcess) {
    const before = upstream.received;
    const scheduled = await api(engine, 'POST', '/v1/tools/execute', { ...health, run_at: new Date(Date.now() + 200).toISOString() });
    expect(scheduled.status).toBe(200);
    await within(5_000, async () => upstream.received > before);
    const call = api(engine, 'POST', '/v1/tools/execute', health);
    await within(5_000, async () => upstream.received > before + 1);
    return { scheduledId: scheduled.body.id as string, call };
  }

  it.skipIf(skip)(
    'finishes the call and the scheduled execution in flight, refuses what comes meanwhile, records both, exits 0',
    async () => {
      const { env, drop } = await setup(20);
      try {
        upstream.delayMs = 2_000;
        const a = await startEngineProcess(env);
        const { scheduledId, call } = await busy(a);
        const exited = once(a.child, 'exit');
        a.child.kill('SIGTERM');
        await within(2_000, async () => (await fetch(`${a.url}/v1/ready`)).status === 503);
        expect(await (await fetch(`${a.url}/v1/ready`)).json()).toEqual({ ready: false, reason: 'the engine is shutting down (draining)' });
        // New work is refused with a word saying why, and the connection closes with it.
        const refused = await fetch(`${a.url}/v1/me`, { headers: { authorization: `Bearer ${a.key}` } });
        expect([refused.status, refused.headers.get('connection'), refused.headers.get('retry-after')]).toEqual([503, 'close', '1']);
        expect(await refused.json()).toEqual({
          name: 'shutting_down',
          message: 'This engine process is shutting down and takes no new requests; send the request again.',
        });
        expect((await fetch(`${a.url}/v1/health`)).status).toBe(200);

        const answered = await call;
        expect(answered).toMatchObject({ status: 200, body: { success: true, output: { value: { healthy: true } } } });
        const [code] = await exited;
        expect(code).toBe(0);

        // Another process finds both recorded: the scheduled run's outcome, and the call's record.
        const b = await startEngineProcess(env);
        const details = (await api(b, 'GET', `/v1/scheduled_tools/${scheduledId}`)).body;
        expect(details.execution_status).toBe('success');
        expect(details.attempts.map((attempt: { success: boolean }) => attempt.success)).toEqual([true]);
        const activity = (await api(b, 'GET', '/v1/activity/executions?tool=ToolEngineApi.CheckToolEngineHealth&limit=100')).body;
        expect(activity.items.map((item: { id: string }) => item.id)).toContain(answered.body.execution_id);
      } finally {
        await drop();
      }
    },
    60_000,
  );

  it.skipIf(skip)(
    'past its bound cuts the call, fails the running scheduled execution at once without repeating it, and exits 0',
    async () => {
      const { env, drop } = await setup(1);
      try {
        upstream.delayMs = 8_000;
        const a = await startEngineProcess(env);
        const { scheduledId, call } = await busy(a);
        const exited = once(a.child, 'exit');
        const sentAt = Date.now();
        a.child.kill('SIGTERM');
        await expect(call).rejects.toThrow();
        const [code] = await exited;
        expect(code).toBe(0);
        expect(Date.now() - sentAt).toBeLessThan(4_000);

        // Failed now, not when its lease runs out in ten minutes; and not run again by the next process.
        const received = upstream.received;
        const b = await startEngineProcess(env);
        const details = (await api(b, 'GET', `/v1/scheduled_tools/${scheduledId}`)).body;
        expect(details.execution_status).toBe('failed');
        expect(details.attempts).toHaveLength(1);
        expect(details.attempts[0]).toMatchObject({
          success: false,
          system_error_message: 'The engine stopped during this run; it is not repeated, because the tool may already have acted.',
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(upstream.received).toBe(received);
      } finally {
        await drop();
      }
    },
    60_000,
  );
});

describe.each(databases)('a draining scheduler on $name', ({ name, skip }) => {
  /** A toolkit whose one tool counts its runs, and takes `delayMs`. */
  function counter(delayMs: number) {
    const runs: number[] = [];
    const toolkit = counterToolkit(async (n) => {
      runs.push(n);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    });
    return { toolkit, runs };
  }

  /** Two schedulers on one database, as two engine processes have, ticked by hand. */
  async function twoSchedulers(delayMs: number) {
    const dataDir = mkdtempSync(join(tmpdir(), 'quiver-drain-claims-'));
    const db = await testDatabase(name, dataDir);
    const [storeA, storeB] = [await openStore(db.database), await openStore(db.database)];
    const client = new UpstreamClient();
    const { toolkit, runs } = counter(delayMs);
    const dispatcher = localDispatcher([toolkit], { client });
    const a = new Scheduler(storeA.db, storeA.dialect, dispatcher);
    const b = new Scheduler(storeB.db, storeB.dialect, dispatcher);
    const entry = (await dispatcher.find('Counter.Count'))!;
    const row = (id: string) =>
      storeA.db.selectFrom('executions').select(['status', 'claimed_by', 'started_at']).where('id', '=', id).executeTakeFirstOrThrow();
    const close = async () => {
      await Promise.all([a.stop(), b.stop()]);
      await client.close();
      await storeA.close();
      await storeB.close();
      await db.drop();
    };
    return { a, b, entry, runs, row, close };
  }

  it.skipIf(skip)('hands back what a claim in flight brings once the drain began; another scheduler runs it at once', async () => {
    const { a, b, entry, runs, row, close } = await twoSchedulers(0);
    try {
      const { id } = await a.schedule(entry, { n: 1 }, undefined, new Date(Date.now() - 1000).toISOString());
      // The drain begins while a's claim is on its way to the database.
      const ticking = a.tick();
      a.drain();
      await ticking;
      expect(runs).toEqual([]);
      expect(await row(id)).toEqual({ status: 'scheduled', claimed_by: null, started_at: null });
      expect(await a.finish(1_000)).toEqual({ handedBack: 1, abandoned: 0 });

      // Not after a lease of ten minutes: the other scheduler's next poll runs it.
      await b.tick();
      await b.stop();
      expect(runs).toEqual([1]);
      expect(await row(id)).toMatchObject({ status: 'success' });
    } finally {
      await close();
    }
  });

  it.skipIf(skip)('lets a run finish within the bound, and fails at once one that outlasts it', async () => {
    const { a, entry, runs, row, close } = await twoSchedulers(600);
    try {
      const due = new Date(Date.now() - 1000).toISOString();
      const { id: quick } = await a.schedule(entry, { n: 1 }, undefined, due);
      await a.tick();
      expect(await a.finish(5_000)).toEqual({ handedBack: 0, abandoned: 0 });
      expect(await row(quick)).toMatchObject({ status: 'success' });

      const { a: other, entry: otherEntry, row: otherRow, close: closeOther } = await twoSchedulers(5_000);
      try {
        const { id: slow } = await other.schedule(otherEntry, { n: 2 }, undefined, due);
        await other.tick();
        const started = Date.now();
        expect(await other.finish(300)).toEqual({ handedBack: 0, abandoned: 1 });
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(await otherRow(slow)).toMatchObject({ status: 'failed', claimed_by: null });
      } finally {
        await closeOther();
      }
      expect(runs).toEqual([1]);
    } finally {
      await close();
    }
  });
});
