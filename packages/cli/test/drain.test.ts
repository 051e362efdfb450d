/**
 * `quiver serve` stopping: the first SIGTERM drains (not ready at once, new requests refused with 503, the
 * call in flight finished and recorded, the log saying when it began and ended) and exits 0; a second
 * SIGTERM or SIGINT exits at once, with 143 or 130, without waiting for the work in flight.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-drain-'));
const children: ChildProcess[] = [];
let upstream: { url: string; delayMs: number; received: number; server: Server };

beforeAll(async () => {
  const server = createServer((_request, response) => {
    upstream.received++;
    setTimeout(() => response.setHeader('content-type', 'application/json').end('{"healthy":true}'), upstream.delayMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  upstream = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, delayMs: 0, received: 0, server };
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  upstream?.server.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** `quiver serve` on a fresh data directory, ToolEngineApi pointed at the slow upstream, with an admin key. */
async function serve() {
  const env = { QUIVER_DATA_DIR: mkdtempSync(join(scratch, 'data-')), QUIVER_BASE_URL_TOOL_ENGINE_API: upstream.url, DATABASE_URL: '' };
  const key = (await runCli(['keys', 'create', '--name', 'drain'], env)).stdout.trim();
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  const url = await new Promise<string>((resolve) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const found = /API (http:\/\/\S+)\/v1,/.exec(line);
      if (found) resolve(found[1]!);
    });
  });
  const call = () =>
    fetch(`${url}/v1/tools/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool_name: 'ToolEngineApi.CheckToolEngineHealth', input: {}, user_id: 'drain' }),
    });
  /** A call whose upstream request has arrived: its answer, to come. */
  const inFlight = async () => {
    const before = upstream.received;
    const answer = call();
    while (upstream.received === before) await new Promise((resolve) => setTimeout(resolve, 20));
    return { answer };
  };
  const notReady = async () => {
    while ((await fetch(`${url}/v1/ready`)).status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return { child, url, key, env, exit, stderr: () => stderr, inFlight, notReady };
}

describe('quiver serve on SIGTERM', () => {
  it('drains: refuses new requests, finishes the call in flight, records it, and exits 0', async () => {
    upstream.delayMs = 2_000;
    const server = await serve();
    const { answer } = await server.inFlight();
    server.child.kill('SIGTERM');
    await server.notReady();
    const refused = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${server.key}` } });
    expect([refused.status, (await refused.json()).name]).toEqual([503, 'shutting_down']);

    const answered = await answer;
    expect(answered.status).toBe(200);
    const body = await answered.json();
    expect(body).toMatchObject({ success: true, output: { value: { healthy: true } } });
    expect((await server.exit).code).toBe(0);

    // Its record was written before the process ended.
    const db = new Database(join(server.env.QUIVER_DATA_DIR, 'quiver.db'), { readonly: true });
    try {
      expect(db.prepare('select status from executions where id = ?').get(body.execution_id)).toEqual({ status: 'success' });
    } finally {
      db.close();
    }
    const messages = server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line).msg);
    expect(messages).toContain('draining: not ready, and claiming no scheduled executions');
    expect(messages).toContain('drained: closed');
  }, 30_000);

  for (const [signal, status] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`exits at once with ${status} on a second ${signal}, without waiting for the call in flight`, async () => {
      upstream.delayMs = 20_000;
      const server = await serve();
      const answer = (await server.inFlight()).answer.catch((error: Error) => error);
      server.child.kill(signal);
      await server.notReady();
      const sentAt = Date.now();
      server.child.kill(signal);
      const { code, at } = await server.exit;
      expect(code).toBe(status);
      expect(at - sentAt).toBeLessThan(2_000);
      expect(server.stderr()).toContain(`quiver: ${signal} again while closing; exiting at once, without waiting for the work in flight`);
      expect(await answer).toBeInstanceOf(Error);
    }, 30_000);
  }
});
