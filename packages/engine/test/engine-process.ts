/** Real engine processes for the tests that need several, or a kill -9: the fixture, one child process each. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { clientFor } from '@quiver/test-support/json-client';
import { afterEach } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/engine-process.mjs', import.meta.url));

export interface EngineProcess {
  child: ChildProcess;
  url: string;
  key: string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** An engine on the data directory and database the environment names (QUIVER_DATA_DIR, DATABASE_URL, BASE_URLS). */
export function startEngineProcess(env: NodeJS.ProcessEnv): Promise<EngineProcess> {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`engine process exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ...JSON.parse(line) }));
  });
}

/** JSON over HTTP with the process's API key (or the key given). */
export async function api(engine: EngineProcess, method: string, path: string, body?: unknown, key = engine.key) {
  const { status, body: answer } = await clientFor(engine.url, key)(method, path, { body });
  return { status, body: answer };
}

/** Polls until `check` holds, and answers how long that took; fails after `ms`. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
