/**
 * The two servers under test, started from the checkout's build as a user runs them: the engine
 * (`quiver serve --sandbox`, an API key from `quiver keys create`) behind the proxy that adds the key and
 * the acting user, and `quiver mcp` behind the stdio bridge (see loopback.ts). Each gets a data and a
 * configuration directory of its own and none of this process's Quiver settings. `QUIVER_CONFORMANCE_CLI`
 * names another build's `main.js` to test instead.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Loopback, startAuthProxy, startStdioBridge } from './loopback.js';
import { repoRoot } from './suite.js';

export const cliPath = process.env.QUIVER_CONFORMANCE_CLI || join(repoRoot, 'packages', 'cli', 'dist', 'main.js');

/** The user the engine's calls act for. */
export const actingUser = 'conformance';

/** This process's environment without Quiver's settings, with fresh data and configuration directories. */
function isolated(scratch: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('QUIVER_') && !['DATABASE_URL', 'REDIS_URL'].includes(name) && !name.startsWith('OTEL_')),
  );
  for (const dir of ['data', 'config', 'share']) mkdirSync(join(scratch, dir), { recursive: true });
  return { ...env, QUIVER_DATA_DIR: join(scratch, 'data'), XDG_CONFIG_HOME: join(scratch, 'config'), XDG_DATA_HOME: join(scratch, 'share') };
}

/** `quiver serve --sandbox` on a free port, with an admin key, behind the proxy that adds the key and the user. */
export async function startEngineTarget(): Promise<Loopback & { engine: string }> {
  const scratch = mkdtempSync(join(tmpdir(), 'quiver-conformance-engine-'));
  const env = isolated(scratch);
  const key = execFileSync(process.execPath, [cliPath, 'keys', 'create', '--name', 'conformance'], {
    env,
    cwd: scratch,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const child: ChildProcess = spawn(process.execPath, [cliPath, 'serve', '--sandbox', '--port', '0'], {
    env,
    cwd: scratch,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log: string[] = [];
  const engine = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`quiver serve did not start within 60 s: ${log.slice(-5).join(' | ')}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`quiver serve exited with ${code}: ${log.slice(-5).join(' | ')}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log.push(line);
      if (log.length > 50) log.shift();
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/v1\/mcp/.exec(line)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
  });
  const proxy = await startAuthProxy(engine, { authorization: `Bearer ${key}`, 'quiver-user-id': actingUser });
  return {
    url: proxy.url,
    engine,
    async close() {
      await proxy.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * `quiver mcp` behind the stdio bridge: each session its own process, on one data directory, without
 * `--sandbox` (no scenario reaches an upstream, and a process starts in a second rather than three).
 */
export async function startStdioTarget(): Promise<Loopback & { processes(): number }> {
  const scratch = mkdtempSync(join(tmpdir(), 'quiver-conformance-stdio-'));
  const bridge = await startStdioBridge({ command: process.execPath, args: [cliPath, 'mcp'], env: isolated(scratch), cwd: scratch });
  return {
    ...bridge,
    async close() {
      await bridge.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
