/**
 * The schedule survives the engine: executions persisted before the answer, run exactly once after a
 * kill -9 and a restart, and shared by several engine processes without running anything twice.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { counterToolkit, databases, testDatabase } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startEngineProcess, type EngineProcess } from './engine-process.js';

const schedule = (engine: EngineProcess, name: string, runAt: Date) =>
  api(engine, 'POST', '/v1/tools/execute', {
    tool_name: 'CrmMarketingApi.GetMarketingCampaigns',
    user_id: 'scheduler-test',
    input: { campaign_name_filter: name },
    run_at: runAt.toISOString(),
  });

async function waitUntilFinished(engine: EngineProcess, ids: string[], ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const details = await Promise.all(ids.map(async (id) => (await api(engine, 'GET', `/v1/scheduled_tools/${id}`)).body));
    if (details.every((d) => d.execution_status === 'success' || d.execution_status === 'failed') || Date.now() > until) return details;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(databases)('scheduled executions on $name', ({ name, skip }) => {
  let hubspot: HubspotEmulator;
  beforeAll(async () => {
    hubspot = await startHubspotEmulator();
    hubspot.issueToken('test-token');
  });
  afterAll(() => hubspot?.close());

  /** How many requests the upstream received for each campaign-name filter. */
  const receivedFor = (names: string[]) => names.map((n) => hubspot.requests.filter((r) => r.query.name === n).length);

  it.skipIf(skip)(
    'runs each pending execution exactly once after a kill -9 and a restart',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'quiver-restart-'));
      const db = await testDatabase(name, dataDir);
      const env = { QUIVER_DATA_DIR: dataDir, DATABASE_URL: db.database, BASE_URLS: JSON.stringify({ CrmMarketingApi: hubspot.url }) };
      try {
        const first = await startEngineProcess(env);
        const names = Array.from({ length: 5 }, (_, i) => `restart-${name}-${i}`);
        const due = new Date(Date.now() + 1500);
        const ids = [];
        for (const n of names) ids.push((await schedule(first, n, due)).body.id);
        first.child.kill('SIGKILL');
        await new Promise((resolve) => first.child.once('exit', resolve));
        expect(receivedFor(names)).toEqual([0, 0, 0, 0, 0]);

        // Back after the executions fell due: each runs once, none twice.
        await new Promise((resolve) => setTimeout(resolve, 1600));
        const second = await startEngineProcess(env);
        const details = await waitUntilFinished(second, ids);
        expect(details.map((d) => d.execution_status)).toEqual(Array(5).fill('success'));
        expect(details.map((d) => d.attempts.length)).toEqual(Array(5).fill(1));
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(receivedFor(names)).toEqual([1, 1, 1, 1, 1]);
      } finally {
        await db.drop();
      }
    },
    60_000,
  );

  it.skipIf(skip)(
    'shares the schedule between two engine processes without running anything twice',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'quiver-shared-'));
      const db = await testDatabase(name, dataDir);
      const env = { QUIVER_DATA_DIR: dataDir, DATABASE_URL: db.database, BASE_URLS: JSON.stringify({ CrmMarketingApi: hubspot.url }) };
      try {
        const [a, b] = [await startEngineProcess(env), await startEngineProcess(env)];
        const names = Array.from({ length: 30 }, (_, i) => `shared-${name}-${i}`);
        const due = new Date(Date.now() + 1000);
        const ids = [];
        for (const [i, n] of names.entries()) ids.push((await schedule(i % 2 ? a : b, n, due)).body.id);
        const details = await waitUntilFinished(a, ids);
        expect(details.every((d) => d.execution_status === 'success')).toBe(true);
        expect(details.map((d) => d.attempts.length)).toEqual(Array(30).fill(1));
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(receivedFor(names)).toEqual(Array(30).fill(1));
      } finally {
        await db.drop();
      }
    },
    60_000,
  );
});

describe.each(databases)('claims on $name, deterministically', ({ name, skip }) => {
  it.skipIf(skip)(
    'two schedulers ticking at once run each execution once, and never claim a running one',
    async () => {
      const { localDispatcher, UpstreamClient } = await import('@quiver/core');
      const { openStore } = await import('../src/store/db.js');
      const { Scheduler } = await import('../src/scheduler.js');
      const runs = new Map<number, number>();
      const counter = counterToolkit(async (n) => {
        runs.set(n, (runs.get(n) ?? 0) + 1);
        // Long enough for the other scheduler's tick to overlap this run.
        await new Promise((resolve) => setTimeout(resolve, 20));
      });
      const dataDir = mkdtempSync(join(tmpdir(), 'quiver-claims-'));
      const db = await testDatabase(name, dataDir);
      const [storeA, storeB] = [await openStore(db.database), await openStore(db.database)];
      const client = new UpstreamClient();
      const dispatcher = localDispatcher([counter], { client });
      const [a, b] = [new Scheduler(storeA.db, storeA.dialect, dispatcher, { batch: 5 }), new Scheduler(storeB.db, storeB.dialect, dispatcher, { batch: 5 })];
      try {
        const entry = (await dispatcher.find('Counter.Count'))!;
        const due = new Date(Date.now() - 1000).toISOString();
        const ids: string[] = [];
        for (let n = 0; n < 40; n++) ids.push((await a.schedule(entry, { n }, undefined, due)).id);

        // One row is running already under another engine's live claim: nobody may claim it.
        const held = ids.pop()!;
        await storeA.db
          .updateTable('executions')
          .set({ status: 'running', claimed_by: 'another-engine', claimed_until: new Date(Date.now() + 60_000).toISOString() })
          .where('id', '=', held)
          .execute();

        for (let round = 0; round < 12; round++) await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
        await Promise.all([a.stop(), b.stop()]);

        expect([...runs.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 39 }, (_, n) => n));
        expect([...runs.values()].every((count) => count === 1)).toBe(true);
        const attempts = await storeA.db.selectFrom('attempts').select(['execution_id']).execute();
        expect(attempts).toHaveLength(39);
        expect(new Set(attempts.map((row) => row.execution_id)).size).toBe(39);
        const heldRow = await storeA.db.selectFrom('executions').select(['status', 'claimed_by']).where('id', '=', held).executeTakeFirstOrThrow();
        expect(heldRow).toEqual({ status: 'running', claimed_by: 'another-engine' });
      } finally {
        await client.close();
        await storeA.close();
        await storeB.close();
        await db.drop();
      }
    },
    60_000,
  );
});
