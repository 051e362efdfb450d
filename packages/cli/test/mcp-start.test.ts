// `quiver mcp` starts with what serving tools over stdio needs, and nothing that only other commands use:
// its start is what an MCP client waits for on every launch. A load hook in the child lists every module
// the ES module loader loads until `tools/list` is answered.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath } from '@quiver/test-support/run-cli';
import { describe, expect, it } from 'vitest';

const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.QUIVER_TEST_LOADED, url + '\\n');
  return next(url, context);
}`;
const registerHooks = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;

/** The URLs of the modules `quiver mcp` loads until it has answered `initialize` and `tools/list`. */
async function modulesLoadedByMcp(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-mcp-start-'));
  const loaded = join(dir, 'loaded.txt');
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(registerHooks)}`, cliPath, 'mcp'], {
    env: { ...process.env, QUIVER_TEST_LOADED: loaded, QUIVER_DATA_DIR: dir },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout! });
  const listed = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => JSON.parse(line).id === 2 && resolve());
    child.once('exit', (code) => reject(new Error(`quiver mcp exited with ${code}`)));
  });
  const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'start-test', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  try {
    await listed;
  } finally {
    child.kill();
  }
  return readFileSync(loaded, 'utf8').trim().split('\n');
}

describe('quiver mcp at start', () => {
  it("loads the bundles of the MCP SDK, the engine's MCP server, and none of the engine's store, HTTP stack or telemetry, nor the OpenAPI importer", async () => {
    const modules = await modulesLoadedByMcp();
    // The SDK as the engine bundles it (scripts/build-dist.mjs): a few files with zod, not the packages' hundred modules.
    expect(modules.some((url) => /\/engine\/dist\/vendor\/mcp-server\.js$/.test(url))).toBe(true);
    expect(modules.filter((url) => /\/node_modules\/(@modelcontextprotocol|zod)\//.test(url))).toEqual([]);
    // The workspaces as bundled: one file an entry point, and the chunks they share.
    expect(modules.some((url) => /\/engine\/dist\/bundle\/mcp\.js$/.test(url))).toBe(true);
    const ours = modules.filter((url) => /\/packages\/[^/]+\/dist\//.test(url));
    expect(ours.filter((url) => !/\/dist\/(bundle|vendor)\/[^/]+\.(js|cjs)$/.test(url))).toEqual([]);
    expect(ours.length).toBeLessThan(40);
    const unused = /\/node_modules\/(kysely|fastify|@fastify|better-sqlite3|pg|ioredis|undici|@opentelemetry|oidc-provider)\/|\/packages\/(openapi|sandbox)\//;
    expect(modules.filter((url) => unused.test(url))).toEqual([]);
  }, 30_000);
});
