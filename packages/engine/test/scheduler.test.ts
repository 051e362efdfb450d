/**
 * The schedule survives the engine: executions persisted before the answer, run exactly once after a
 * kill -9 and a restart, and shared by several engine processes without running anything twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databases, testDatabase } from './harness.js';

const fixture = fileURLToPath(new URL('./fixtures/engine-process.mjs', import.meta.url));

interface EngineProcess {
  child: ChildProcess;
  url: string;
  key: string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function startEngineProcess(env: NodeJS.ProcessEnv): Promise<EngineProcess> {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`engine process exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ...JSON.parse(line) }));
  });
}

async function api(engine: EngineProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(engine.url + path, {
    method,
    headers: { authorization: `Bearer ${engine.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

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

  it.skipIf(skip)('runs each pending execution exactly once after a kill -9 and a restart', async () => {
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
  }, 60_000);

  it.skipIf(skip)('shares the schedule between two engine processes without running anything twice', async () => {
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
  }, 60_000);
});
